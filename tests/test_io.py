import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from incrowd import InputError, Schema, SchemaError, load_adult, read_table, write_table
from incrowd.datasets import adult_path


@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_separator_is_detected(tmp_path, sep):
    path = tmp_path / "t.csv"
    path.write_text(sep.join(["a", "b", "c"]) + "\n" + sep.join(["1", "x y", "NA"]) + "\n")
    frame = read_table(path)
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame.iloc[0].tolist() == ["1", "x y", "NA"]  # 'NA' is a value, not missing


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
    with pytest.raises(InputError, match="not UTF-8"):
        read_table(tmp_path / "latin.csv")


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
    assert a == b
    frame.iloc[:1000].to_parquet(tmp_path / "t.parquet")
    back = read_table(tmp_path / "t.parquet", compact=True)
    assert isinstance(back["zip"].dtype, pd.CategoricalDtype)
    assert (back["zip"].astype(str) == frame["zip"].iloc[:1000]).all()


@pytest.mark.parametrize("form", ["csv", "parquet", "dataset"])
def test_a_table_file_reads_columns_and_chunks_alike(tmp_path, form):
    """A TableFile reads named columns whole and every column chunk by chunk, giving the
    same values as a compact read of the whole file; unknown columns are named."""
    from incrowd.data.io import TableFile

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
