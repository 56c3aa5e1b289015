"""One rule for missing cells in every table read from a file (incrowd.io.missing): CSV and
Parquet, whole, compact, by columns and by chunks; a release is read as it was written."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from incrowd import IncrowdWarning, read_table, write_table
from incrowd.io.tables import TableFile

FRAME = pd.DataFrame({
    "age": ["30", "NA", " N/A ", "31", "NaN", "32", "null", "33"],
    "note": ["ok", "-", "fine", "?", "None", "NULL", "good", "unknown"],
    "text": ["nan", "n/a", "-12", "N/A-3", "", "x", "NA", "y"],
})  # fmt: skip


def test_the_default_tokens_are_the_common_ones():
    from incrowd.io.missing import NA_TOKENS, missing_tokens

    assert set(NA_TOKENS) == {"NA", "N/A", "NaN", "null", "NULL", "None", "?", "-"}
    assert missing_tokens([""]) == (frozenset(), frozenset())


@pytest.mark.parametrize("form", ["csv", "parquet", "dataset"])
def test_every_reader_reads_the_same_cells_as_missing(tmp_path, form):
    if form == "csv":
        path = tmp_path / "t.csv"
        FRAME.to_csv(path, index=False)
    elif form == "parquet":
        path = tmp_path / "t.parquet"
        FRAME.to_parquet(path)
    else:
        path = tmp_path / "t.parquet"
        path.mkdir()
        FRAME.iloc[:4].to_parquet(path / "part-1.parquet")
        FRAME.iloc[4:].to_parquet(path / "part-2.parquet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncrowdWarning)
        whole = read_table(path, na_values=["unknown"])
        compact = read_table(path, na_values=["unknown"], compact=True)
        file = TableFile(path, na_values=["unknown"])
        columns = file.read(["note", "age"])
        chunks = pd.concat([c.astype(object) for c in file.chunks(3)], ignore_index=True)
    expected = {
        "age": [False, True, True, False, True, False, True, False],
        "note": [False, True, False, True, True, True, False, True],
        "text": [False, False, False, False, False, False, True, False],
    }
    for name, missing in expected.items():
        for frame in (whole, compact, chunks):
            assert frame[name].isna().tolist() == missing, (name, frame[name].tolist())
    assert columns["note"].isna().tolist() == expected["note"]
    assert whole["text"].tolist()[:4] == ["nan", "n/a", "-12", "N/A-3"]  # not tokens


def test_only_the_text_columns_warn(tmp_path):
    path = tmp_path / "t.csv"
    FRAME.to_csv(path, index=False)
    with pytest.warns(IncrowdWarning) as caught:
        read_table(path)
    (line,) = [str(w.message) for w in caught]
    assert "'note' (1 × '-', 1 × '?', 1 × 'None', 1 × 'NULL')" in line
    assert "'age'" not in line  # numbers: the tokens are missing, nothing to say
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncrowdWarning)
        read_table(path, na_values=[""])  # no default token: nothing read as missing


def test_a_release_is_read_as_it_was_written(tmp_path):
    from incrowd import Numeric, Schema, anonymize
    from incrowd.io.release_format import read_release

    table = pd.DataFrame({"age": [30, 31, 32, 33], "mood": ["None", "-", "None", "-"]})
    release = anonymize(table, Schema({"age": Numeric()}, insensitive=["mood"]), 2)
    release.write(tmp_path / "r.csv")
    assert sorted(read_release(tmp_path / "r.csv").table["mood"]) == ["-", "-", "None", "None"]
    write_table(table, tmp_path / "t.csv")
    assert read_table(tmp_path / "t.csv")["mood"].isna().all()
