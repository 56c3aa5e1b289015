"""Text encodings of CSV inputs (issue 45): UTF-8 by default, cp1252 / latin-1 detected with
one warning, a named encoding applied strictly; and the separator a table was read with."""

import warnings

import pandas as pd
import pytest

from incrowd import IncrowdWarning, InputError, read_table
from incrowd.io import tables
from incrowd.io.hierarchy_csv import read_hierarchy_rows
from incrowd.io.tables import TableFile, write_table

ROWS = [["name", "city"], ["Anna", "Berlin"], ["Jörg", "Köln"], ["Zoë", "Straße"]]
EURO = [["item", "price"], ["tea", "2"], ["café", "3 €"], ["Maß", "9 €"]]


def write(path, rows, encoding, sep=";"):
    path.write_bytes("".join(sep.join(r) + "\n" for r in rows).encode(encoding))
    return path


def ours(caught):
    return [str(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]


def read_warned(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = read_table(*args, **kwargs)
    return frame, ours(caught)


def frame_of(rows):
    return pd.DataFrame(rows[1:], columns=rows[0])


def test_latin1_file_is_read_as_cp1252_with_one_warning(tmp_path):
    path = write(tmp_path / "people.csv", ROWS, "latin-1")
    frame, said = read_warned(path)
    pd.testing.assert_frame_equal(frame, frame_of(ROWS))
    assert said == [
        f"{path} is not UTF-8 (line 3): read as cp1252; encoding='latin-1' (or utf-8) to override"
    ]


def test_cp1252_file_with_euro_sign(tmp_path):
    path = write(tmp_path / "prices.csv", EURO, "cp1252")
    frame, said = read_warned(path)
    pd.testing.assert_frame_equal(frame, frame_of(EURO))
    assert len(said) == 1 and "line 3" in said[0] and "read as cp1252" in said[0]


def test_bytes_cp1252_leaves_undefined_are_read_as_latin1(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_bytes(b"a;b\nx;\xe9\ny;\x81z\n")  # 0x81 has no character in cp1252
    frame, said = read_warned(path)
    assert frame["b"].tolist() == ["é", "\x81z"]
    assert len(said) == 1 and "(line 2): read as latin-1" in said[0]


def test_named_encoding_reads_without_warning(tmp_path):
    path = write(tmp_path / "people.csv", ROWS, "latin-1")
    frame, said = read_warned(path, encoding="latin-1")
    pd.testing.assert_frame_equal(frame, frame_of(ROWS))
    assert said == []
    frame, said = read_warned(path, encoding="CP1252", compact=True, columns=["city"])
    assert frame["city"].tolist() == ["Berlin", "Köln", "Straße"] and said == []


def test_utf8_with_bom(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + "name,city\nZoë,Köln\n".encode())
    for encoding in (None, "utf-8", "UTF8"):
        frame, said = read_warned(path, encoding=encoding)
        assert list(frame.columns) == ["name", "city"] and frame.iloc[0].tolist() == ["Zoë", "Köln"]
        assert said == []
        assert TableFile(path, encoding=encoding).columns == ["name", "city"]


def test_wrong_named_encoding_names_the_line(tmp_path):
    path = write(tmp_path / "people.csv", ROWS, "latin-1")
    with pytest.raises(InputError, match=r"people\.csv: line 3 is not utf-8 text .*with encoding "):
        read_table(path, encoding="utf-8")
    odd = tmp_path / "odd.csv"
    odd.write_bytes(b"a;b\nx;1\ny;2\nz;\x81\n")
    with pytest.raises(InputError, match=r"line 4 is not cp1252 text"):
        read_table(odd, encoding="cp1252")
    with pytest.raises(InputError, match=r"line 4 is not cp1252 text"):
        list(TableFile(odd, encoding="cp1252").chunks(2))
    header = tmp_path / "header.csv"
    header.write_bytes(b"a;\xe9\n1;2\n")
    with pytest.raises(InputError, match=r"line 1 is not utf-8 text"):
        read_table(header, encoding="utf-8")


def test_unknown_encoding_is_refused(tmp_path):
    path = write(tmp_path / "people.csv", ROWS, "utf-8")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        read_table(path, encoding="klingon")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        TableFile(path, encoding="klingon")
    with pytest.raises(InputError, match="not a text encoding"):
        read_table(path, encoding="rot13")


def test_non_utf8_beyond_the_sample_asks_for_encoding(tmp_path, monkeypatch):
    monkeypatch.setattr("incrowd.io.text_encoding.SAMPLE_BYTES", 64)
    rows = [["n", "v"]] + [[str(i), "plain"] for i in range(40)] + [["41", "Köln"]]
    path = write(tmp_path / "late.csv", rows, "cp1252", sep=",")
    with pytest.raises(InputError, match=r"line 42 is not utf-8.*64 bytes.*with encoding "):
        read_table(path)


def test_utf16_needs_its_name(tmp_path):
    path = tmp_path / "excel.txt"
    path.write_bytes("name\tcity\nZoë\tKöln\n".encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16.*encoding='utf-16'"):
        read_table(path)
    frame, said = read_warned(path, encoding="utf-16")
    assert frame.iloc[0].tolist() == ["Zoë", "Köln"] and said == []
    assert tables.table_separator(path, encoding="utf-16") == "\t"


def test_table_file_reads_cp1252_with_one_warning(tmp_path):
    rows = [["name", "city"]] + [[f"p{i}", "Köln" if i % 2 else "Berlin"] for i in range(10)]
    path = write(tmp_path / "people.csv", rows, "cp1252")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = TableFile(path)
        assert table.encoding == "cp1252" and table.sep == ";"
        assert table.read(["city"])["city"].tolist() == [r[1] for r in rows[1:]]
        chunks = list(table.chunks(4, compact=False))
    assert pd.concat(chunks, ignore_index=True).equals(frame_of(rows))
    assert len(ours(caught)) == 1


@pytest.mark.parametrize("sep", [";", "\t", ","])
def test_separator_is_reported(tmp_path, sep):
    path = write(tmp_path / "t.csv", [["a", "b"], ["1", "2"], ["3", "4"]], "utf-8", sep=sep)
    assert tables.table_separator(path) == sep
    assert TableFile(path).sep == sep
    assert tables.table_separator(path, sep="|") == "|"  # as given


def test_separator_of_parquet_and_parquet_untouched(tmp_path):
    frame = pd.DataFrame({"a": ["é", "€"], "b": [1, 2]})
    write_table(frame, tmp_path / "t.parquet")
    assert tables.table_separator(tmp_path / "t.parquet") == ","
    read, said = read_warned(tmp_path / "t.parquet", encoding="latin-1")
    pd.testing.assert_frame_equal(read, frame)
    assert said == []
    assert TableFile(tmp_path / "t.parquet", encoding="latin-1").read(["a"])["a"].tolist() == [
        "é",
        "€",
    ]


def test_number_text_is_kept_as_written(tmp_path):
    path = tmp_path / "numbers.csv"
    path.write_text('zip;charges;euro;age\n02142;"1,234";1.234,5; 8.0\n00501;210,403;7,5;8\n')
    frame = read_table(path)
    assert frame.to_dict("list") == {
        "zip": ["02142", "00501"],
        "charges": ["1,234", "210,403"],
        "euro": ["1.234,5", "7,5"],
        "age": [" 8.0", "8"],
    }
    comma = tmp_path / "comma.csv"
    comma.write_text('zip,charges\n02142,"1,234"\n')
    assert read_table(comma, compact=True).iloc[0].tolist() == ["02142", "1,234"]


def test_hierarchy_file_encoding_detected_when_asked(tmp_path):
    path = tmp_path / "sex.csv"
    path.write_bytes("Male;M\xe4nnlich;*\nFemale;F;*\n".encode("latin-1"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows, _ = read_hierarchy_rows(path, ";", None)
    assert rows[0] == (1, ["Male", "Männlich", "*"])
    assert len(ours(caught)) == 1 and "read as cp1252" in ours(caught)[0]


def test_rows_of_the_wrong_length_in_cp1252_and_utf16(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_bytes("a;b\nKöln;1\nMaß\n".encode("cp1252"))
    with pytest.raises(InputError, match="Expected 2 fields in line 3, saw 1"):
        read_table(path, encoding="cp1252")
    wide = tmp_path / "wide.txt"
    wide.write_bytes("a\tb\nKöln\t1\nMaß\t2\t3\n".encode("utf-16"))
    with pytest.raises(InputError, match="Expected 2 fields in line 3, saw 3"):
        read_table(wide, encoding="utf-16", columns=["a"])


def test_a_named_codec_that_refuses_the_file_is_one_input_error(tmp_path):
    """UTF-16 named for a UTF-8 file: the codec raises a plain UnicodeError (no BOM), which
    must be the user's error naming the file and the flag, not an internal error."""
    path = tmp_path / "plain.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"plain\.csv: cannot be read as utf-16.*encoding"):
        read_table(path, encoding="utf-16")
