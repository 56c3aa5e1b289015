import re

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from incrowd import InputError, Schema, SchemaError, load_adult, read_table, write_table
from incrowd.datasets import adult_path


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_separator_is_detected(tmp_path, sep):
    path = tmp_path / "t.csv"
    path.write_text(sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "x y", "NA"]) + "\n")
    frame = read_table(path, na_values=[""])  # no default missing token: 'NA' is a value
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame.iloc[0].tolist() == ["1", "x y", "NA"]


def test_na_values_and_explicit_separator(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a;b\n1;?\n2;x\n")
    frame = read_table(path, sep=";", na_values=["?"])
    assert frame["b"].isna().tolist() == [True, False]


def test_adult_has_crlf_and_semicolons():
    frame = read_table(adult_path())
    assert frame.shape == (30162, 9)
    assert frame.columns[-1] == "salary-class" and frame.iloc[0, -1] == "<=50K"
    table, schema = load_adult()
    assert schema.qi_names[0] == "age" and schema.sensitive == ("salary-class",)


def test_parquet_polars_and_arrow(tmp_path):
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    write_table(frame, tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(read_table(tmp_path / "t.parquet"), frame)
    assert read_table(pl.from_pandas(frame))["b"].tolist() == ["x", "y"]
    assert read_table(pa.Table.from_pandas(frame))["a"].tolist() == [1, 2]
    write_table(frame, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "a,b\n1,x\n2,y\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.parquet"]


def test_bad_tables(tmp_path):
    with pytest.raises(InputError, match="two columns"):
        read_table(pd.DataFrame([[1, 2]], columns=["a", "a"]))
    with pytest.raises(InputError, match="no rows"):
        read_table(pd.DataFrame({"a": []}))
    with pytest.raises(InputError, match="expected a path"):
        read_table(42)
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(InputError, match="cannot read as Parquet"):
        read_table(tmp_path / "bad.parquet")
    (tmp_path / "latin.csv").write_bytes("a\n\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="line 2 is not utf-8 text"):  # guessed without it
        read_table(tmp_path / "latin.csv", encoding="utf-8")


def test_schema_checks_columns():
    frame = pd.DataFrame({"a": [1], "b": [2]})
    schema = Schema.infer(frame, ["a"], sensitive=["b"])
    with pytest.raises(SchemaError, match="unknown column 'c'"):
        Schema.infer(frame, ["a", "c"])
    with pytest.raises(SchemaError, match="categorical and numeric"):
        Schema.infer(frame, ["a"], categorical=["a"], numeric=["a"])
    with pytest.raises(SchemaError, match="not a quasi-identifier"):
        Schema.infer(frame, ["a"], categorical=["b"])
    with pytest.raises(SchemaError, match="at least one"):
        Schema({})
    assert schema.role("b") == "sensitive" and schema.role("zzz") is None


def test_a_compact_read_keeps_every_text_and_costs_codes(tmp_path):
    """Compact reading makes every CSV column (and Parquet text) categorical, chunk by chunk,
    without pandas guessing types: zip codes keep their leading zeros, blanks stay missing,
    and the schema and anonymization see the same values as a plain read."""
    import numpy as np

    from incrowd import Schema
    from incrowd.data.schema import is_missing, parse_numbers

    rng = np.random.default_rng(0)
    n = (1 << 20) + 500  # more than one chunk
    frame = pd.DataFrame({"zip": rng.choice(["02134", "10001", "99501"], n),
                          "age": rng.integers(17, 90, n).astype(str)})  # fmt: skip
    frame.loc[3, "age"] = " "
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    plain, compact = read_table(path), read_table(path, compact=True)
    assert all(isinstance(compact[c].dtype, pd.CategoricalDtype) for c in compact.columns)
    assert (compact["zip"].astype(str) == plain["zip"]).all()
    assert set(compact["zip"].cat.categories) == {"02134", "10001", "99501"}
    assert (is_missing(compact["age"]) == is_missing(plain["age"])).all()
    assert is_missing(compact["age"])[3]
    np.testing.assert_array_equal(parse_numbers(compact["age"]), parse_numbers(plain["age"]))
    keep = ~is_missing(plain["age"])
    a = Schema.infer(plain[keep], ["age", "zip"])
    b = Schema.infer(compact[keep], ["age", "zip"])
    for name in ("age", "zip"):  # the same metric, type and (for zip) prefix hierarchy
        ma, mb = a.quasi_identifiers[name], b.quasi_identifiers[name]
        assert type(ma) is type(mb) and ma.cells == mb.cells
    ha, hb = a.quasi_identifiers["zip"].hierarchy, b.quasi_identifiers["zip"].hierarchy
    assert ha.labels == hb.labels and (ha.codes == hb.codes).all()
    frame.iloc[:1000].to_parquet(tmp_path / "t.parquet")
    back = read_table(tmp_path / "t.parquet", compact=True)
    assert isinstance(back["zip"].dtype, pd.CategoricalDtype)
    assert (back["zip"].astype(str) == frame["zip"].iloc[:1000]).all()


@pytest.mark.parametrize("form", ["csv", "parquet", "dataset"])
def test_a_table_file_reads_columns_and_chunks_alike(tmp_path, form):
    """A TableFile reads named columns whole and every column chunk by chunk, giving the
    same values as a compact read of the whole file; unknown columns are named."""
    from incrowd.io.tables import TableFile

    frame = pd.DataFrame({"zip": ["02134", "10001", "", "99501"] * 250,
                          "age": [str(a) for a in range(1000)],
                          "note": ["x", "NA", "y", "z"] * 250})  # fmt: skip
    path = tmp_path / ("t.csv" if form == "csv" else "t.parquet")
    if form == "csv":
        frame.to_csv(path, index=False)
    elif form == "parquet":
        frame.to_parquet(path)
    else:
        path.mkdir()
        frame.iloc[:600].to_parquet(path / "part-1.parquet")
        frame.iloc[600:].to_parquet(path / "part-2.parquet")
    whole = read_table(path, compact=True)
    table = TableFile(path)
    assert table.columns == ["zip", "age", "note"]
    two = table.read(["note", "zip"])
    assert list(two.columns) == ["note", "zip"]
    pd.testing.assert_frame_equal(two, whole[["note", "zip"]])
    chunks = list(table.chunks(300))
    assert len(chunks) >= 4 and sum(map(len, chunks)) == len(frame)
    joined = pd.concat([c.astype(object) for c in chunks], ignore_index=True)
    pd.testing.assert_frame_equal(joined, whole.astype(object))
    with pytest.raises(InputError, match="no column named 'nope'"):
        table.read(["zip", "nope"])
    with pytest.raises(InputError, match="not found"):
        TableFile(tmp_path / "absent.csv")


# --------------------------------------------------------------------- issue 43: input tables
def _reads(path):
    """Every way a CSV file is read: whole, compactly, some columns, and as a TableFile
    (some columns, as a blockwise run plans; chunks, as it streams or verify reads)."""
    from incrowd.io.tables import TableFile

    return {
        "whole": lambda: read_table(path),
        "compact": lambda: read_table(path, compact=True),
        "columns": lambda: read_table(path, columns=["a"]),
        "table file": lambda: TableFile(path).read(["a"]),
        "chunks": lambda: list(TableFile(path).chunks(2)),
    }


@pytest.mark.parametrize(
    ("text", "line", "saw"),
    [
        ("a,b,c\n1,2,3\n4,5\n6,7,8\n", 3, 2),  # the case: pandas filled it with ""
        ("a,b,c\n1,2,3\n\n4\n", 4, 1),  # blank lines count, as pandas counts them
        ('a,b,c\n1,"x\ny",3\n4,5\n', 3, 2),  # a quoted line break does not
        ("a;b;c\r\n1;2;3\r\n4;5\r\n", 3, 2),
    ],
)
@pytest.mark.parametrize("how", ["whole", "compact", "columns", "table file", "chunks"])
def test_a_short_row_is_refused_with_its_line(tmp_path, text, line, saw, how):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    sep = ";" if ";" in text else ","
    with pytest.raises(InputError, match=rf"cannot read as a '{sep}'-separated table "
                       rf"\(Expected 3 fields in line {line}, saw {saw}\)"):  # fmt: skip
        _reads(path)[how]()


@pytest.mark.parametrize("how", ["whole", "compact", "columns", "table file", "chunks"])
def test_a_long_row_is_refused_however_the_file_is_read(tmp_path, how):
    """pandas lets a long row pass when it reads only some columns (a blockwise run did)."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n4,5,6,7\n")
    with pytest.raises(InputError, match=r"Expected 3 fields in line 3, saw 4"):
        _reads(path)[how]()


@pytest.mark.parametrize("how", ["whole", "compact", "columns", "table file", "chunks"])
def test_rows_of_the_right_length_are_read_as_they_are(tmp_path, how):
    """Empty cells, a row of empty cells, a quoted line break, and blank lines (skipped, as
    pandas skips them: a blank line holds no record) are not short rows."""
    path = tmp_path / "t.csv"
    path.write_text('a,b,c\n1,2,\n\n,,\n   \n3,"x\ny",4\n5,6,\n\n\n')
    got = _reads(path)[how]()
    frame = pd.concat(got) if isinstance(got, list) else got
    assert frame.astype(object).values.tolist() == (
        [["1"], [""], ["3"], ["5"]] if how in ("columns", "table file")
        else [["1", "2", ""], ["", "", ""], ["3", "x\ny", "4"], ["5", "6", ""]])  # fmt: skip


def test_a_file_changed_after_its_rows_were_checked_is_checked_again(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,\n2,3\n")
    assert read_table(path)["b"].tolist() == ["", "3"]
    path.write_text("a,b\n1\n2,3\n")
    with pytest.raises(InputError, match="Expected 2 fields in line 2, saw 1"):
        read_table(path)


def test_a_path_that_is_not_a_regular_file_says_what_it_is(tmp_path):
    from incrowd import HierarchyError
    from incrowd.io.tables import TableFile, check_input_file

    (tmp_path / "dir.csv").mkdir()
    (tmp_path / "afile").write_text("x")
    for read in (read_table, TableFile):
        with pytest.raises(InputError, match=r"input file '.*dir\.csv': is a directory"):
            read(tmp_path / "dir.csv")
        with pytest.raises(InputError, match="input file '/dev/null': is not a regular file"):
            read("/dev/null")
        with pytest.raises(InputError, match="input file not found"):
            read(tmp_path / "absent.csv")
        with pytest.raises(InputError, match="afile/t.csv': Not a directory"):
            read(tmp_path / "afile" / "t.csv")
    with pytest.raises(HierarchyError, match="hierarchy file '/dev/null': is not a regular"):
        check_input_file("/dev/null", "hierarchy file", HierarchyError)
    assert check_input_file(str(tmp_path / "afile")) == tmp_path / "afile"


@pytest.mark.parametrize(
    ("name", "head", "says"),
    [
        ("t.xlsx", b"PK\x03\x04", "looks like an Excel workbook (a zip archive), not CSV or "
                                  "Parquet; save it as CSV"),
        ("t.ods", b"PK\x03\x04", "looks like an OpenDocument spreadsheet (a zip archive)"),
        ("t.csv", b"PK\x03\x04", "looks like a zip archive, not CSV or Parquet; unpack it"),
        ("t.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "looks like an Excel 97-2003 workbook"),
        ("t.csv.gz", b"\x1f\x8b\x08", "is gzip-compressed, not CSV or Parquet; decompress it"),
        ("t.csv.xz", b"\xfd7zXZ\x00", "is xz-compressed"),
        ("t.csv.zst", b"\x28\xb5\x2f\xfd", "is zstd-compressed"),
        ("t.pdf", b"%PDF-1.7\n", "looks like a PDF document"),
        ("t.csv", b"PAR1", "is a Parquet file; name it *.parquet to read it as one"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_text_is_named_for_what_it_is(tmp_path, name, head, says):
    from incrowd.io.tables import TableFile

    path = tmp_path / name
    path.write_bytes(head + bytes(range(256)))
    for read in (read_table, TableFile):
        with pytest.raises(InputError, match=f"input file '.*{name}' {re.escape(says)}"):
            read(path)


def _nested():
    import numpy as np

    n = 12
    return pa.table({
        "age": list(range(20, 20 + n)),
        "tags": pa.array([["a", "b"], ["c"]] * (n // 2), pa.list_(pa.string())),
        "big": pa.array([[1], [2, 3]] * (n // 2), pa.large_list(pa.int64())),
        "place": pa.array([{"x": 1, "y": "a"}, {"x": 2, "y": "b"}] * (n // 2)),
        "pairs": pa.array([[("a", 1)], [("b", 2)]] * (n // 2), pa.map_(pa.string(), pa.int64())),
        "photo": pa.array([b"\x89\xff", b"ab"] * (n // 2), pa.binary()),
        "blob": pa.array([b"\x89\xff", b"ab"] * (n // 2), pa.large_binary()),
        "hash": pa.array([b"\x89\xff", b"ab"] * (n // 2), pa.binary(2)),
        "label": pa.array(["x", "y"] * (n // 2)).dictionary_encode(),
        "score": np.linspace(0, 1, n),
    })  # fmt: skip


#: As read back (the values' own type: a large list's values are lists, a map's are pairs).
NESTED_TYPES = {"tags": "list<string>", "big": "list<int64>", "pairs": "list",
                "place": "struct<x: int64, y: string>", "photo": "binary", "blob": "binary",
                "hash": "binary", "label": None, "score": None, "age": None}  # fmt: skip


@pytest.mark.parametrize("compact", [False, True])
def test_the_type_of_values_that_are_not_plain_is_named(tmp_path, compact):
    """Read from Parquet (lists arrive as arrays, structs as dicts, maps as lists of pairs,
    bytes as bytes), each such column is named with its type; a column of Arrow type (as
    pandas holds it with ``types_mapper``) by the type itself."""
    from incrowd.io.tables import value_type

    pq.write_table(_nested(), tmp_path / "t.parquet")
    frame = read_table(tmp_path / "t.parquet", compact=compact)
    assert {c: value_type(frame[c]) for c in frame.columns} == NESTED_TYPES
    arrow = _nested().to_pandas(types_mapper=pd.ArrowDtype)
    assert value_type(arrow["tags"]) == "list<string>"
    assert value_type(arrow["hash"]) == "fixed_size_binary[2]"
    assert value_type(arrow["big"]) == "large_list<int64>"
    assert value_type(arrow["age"]) is None
    assert value_type(pd.Series(["a", 1, 2.5, None], dtype=object)) is None
    assert value_type(pd.Series([b"a"]).astype("category")) == "binary"


def test_columns_of_lists_structs_or_bytes_take_no_role_that_reads_them(tmp_path):
    """As a quasi-identifier such a column crashed; published, it was written to CSV as
    Python's repr (or crashed on bytes): each is an InputError naming the column and its
    type, however the schema was made. Unlisted, or as an identifier, it is left out."""
    from incrowd import Categorical, Numeric, anonymize
    from incrowd.data.columns import encode_qis

    frame = _nested().to_pandas()
    for column in ("tags", "place", "photo", "pairs"):
        with pytest.raises(InputError, match=f"column '{column}' holds .* values, which "
                           "cannot be a quasi-identifier"):  # fmt: skip
            Schema.infer(frame, ["age", column])
        with pytest.raises(InputError, match=f"'{column}' holds .*cannot be a quasi-identifier"):
            encode_qis(frame, Schema({"age": Numeric(), column: Categorical()}))
        for role in ("sensitive", "insensitive"):
            with pytest.raises(InputError, match=f"column '{column}' \\({role}\\) holds .* "
                               "values, which cannot be published"):  # fmt: skip
                Schema.infer(frame, ["age"], **{role: [column]})
            with pytest.raises(InputError, match=f"'{column}' \\({role}\\) holds"):
                anonymize(frame, Schema({"age": Numeric()}, **{role: [column]}), 3, seed=1)
    release = anonymize(frame, Schema({"age": Numeric()}, identifiers=["photo"]), 3, seed=1)
    assert list(release.table.columns) == ["age"]


def test_lines_of_spaces_before_the_header_are_no_short_row(tmp_path):
    """pandas skips them, so must the row-length check (review of issue 43): the header's
    width is the expected one, and a short row below it is still named by its line."""
    path = tmp_path / "lead.csv"
    path.write_text("   \na,b,c\nx,1,\ny,2,3\n")
    assert read_table(path).shape == (2, 3)
    path.write_text("\n  \na,b,c\nx,1,\ny,2\n")
    with pytest.raises(InputError, match="Expected 3 fields in line 5, saw 2"):
        read_table(path)
