"""Missing-value tokens (issue 57, item 2): the common tokens are missing by default in every
table read from a file, ``--na-values ''`` turns them off, and a column of numbers or dates
with one frequent other text (``unknown``, ``9999-99-99``) or number (``999``, ``-1``) gets it
proposed as missing by ``inspect --write``, which the written job file then runs with.

The extracts are generated here and vary by seed: the common token, the marker, the
separator and number style (``;`` with ``1.234,50``, ``,`` with ``"1,234.50"``)."""

from __future__ import annotations

import csv
import json
import tomllib

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd import InputError, Schema, read_table
from incrowd.cli.app import app

runner = CliRunner()
#: The tokens read as missing by default (incrowd.io.missing.NA_TOKENS).
NA_TOKENS = ("NA", "N/A", "NaN", "null", "NULL", "None", "?", "-")
N = 240
WORDS = ("unknown", "n/a", "onbekend", "k.A.")
#: (separator, decimal mark, thousands separator) of each number style.
STYLES = ((";", ",", "."), (",", ".", ","))


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def _amount(cents: int, decimal: str, thousands: str) -> str:
    return f"{cents // 100:,}".replace(",", thousands) + f"{decimal}{cents % 100:02d}"


def write_extract(path, seed: int) -> dict:
    """A messy extract and what it holds: each seed its common token, its word marker (in the
    ages), its date marker (the word, or ``9999-99-99``), a count column's number marker
    (``-1`` or ``999``), its separator and number style."""
    rng = np.random.default_rng(seed)
    token = NA_TOKENS[seed % len(NA_TOKENS)]
    word = WORDS[seed % len(WORDS)]
    date_marker = "9999-99-99" if seed % 3 == 0 else word
    number_marker = ("-1", "999")[seed % 2]
    sep, decimal, thousands = STYLES[seed % 2]
    ages = rng.integers(0, 105, N).astype(str).astype(object)
    counts = rng.integers(0, 40, N).astype(str).astype(object)
    days = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 700, N), unit="D")
    dates = np.asarray(days.strftime("%d/%m/%Y"), dtype=object)
    sexes = rng.choice(["F", "M"], N).astype(object)
    amounts = np.array([_amount(int(c), decimal, thousands)
                        for c in rng.integers(100, 5_000_000, N)], dtype=object)  # fmt: skip
    for cells, tokens in ((ages, ("", token, word)), (dates, ("", date_marker)),
                          (counts, ("", number_marker)), (sexes, ("", token)),
                          (amounts, (token,))):  # fmt: skip
        for j, cell in enumerate(tokens):
            cells[rng.choice(N, 5, replace=False) if j else [3]] = cell
    table = pd.DataFrame({"age": ages, "admitted": dates, "visits": counts, "sex": sexes,
                          "amount": amounts, "city": rng.choice(["Gent", "Lille"], N)})  # fmt: skip
    table.to_csv(path, index=False, sep=sep, quoting=csv.QUOTE_MINIMAL)
    markers = {"age": word, "admitted": date_marker, "visits": number_marker}
    cells = {column: int((table[column] == m).sum()) for column, m in markers.items()}
    return {"table": table, "token": token, "markers": markers, "cells": cells, "sep": sep}


SEEDS = [0, 1, 2, 5, 7, 10]


@pytest.mark.parametrize("seed", SEEDS)
def test_inspect_shows_the_table_and_proposes_each_marker(tmp_path, seed):
    path = tmp_path / "extract.csv"
    made = write_extract(path, seed)
    shown = invoke("inspect", path)
    assert shown.exit_code == 0, shown.output
    rows = {line.split()[0]: line.split() for line in shown.stdout.splitlines()[2:]}
    assert set(rows) == set(made["table"].columns)
    assert rows["age"][1] == "number" and rows["visits"][1] == "number"
    assert rows["admitted"][1:3] == ["date", "(%d/%m/%Y)"]
    assert rows["amount"][1] == "number", rows["amount"]
    # the missing cells (empty and the common token) with the marker's cells beside them
    for column in made["markers"]:
        missing = int((made["table"][column].isin(["", made["token"]])).sum())
        shown_missing = rows[column][3 if column != "admitted" else 4]
        assert shown_missing == f"{missing}+{made['cells'][column]}", column

    job = tmp_path / "incrowd.toml"
    written = invoke("inspect", path, "--write", job)
    assert written.exit_code == 0, written.output
    settings = tomllib.loads(job.read_text(encoding="utf-8"))
    assert sorted(settings["na_values"]) == sorted(set(made["markers"].values()))
    lines = [line for line in written.stderr.splitlines() if "proposed as missing" in line]
    for column, marker in made["markers"].items():
        said = [line for line in lines if f"'{column}'" in line and f"'{marker}'" in line]
        assert len(said) == 1, (column, written.stderr)
        assert f"{made['cells'][column]} cells" in said[0] and "na_values" in said[0]
        assert "delete" in said[0]  # how to undo it

    out = tmp_path / "release.csv"
    qi = ",".join(dict.fromkeys([*settings["columns"]["qi"], *made["markers"]]))
    ran = invoke("anonymize", "--config", job, "--qi", qi, "--k", 3, "--out", out)
    assert ran.exit_code == 0, ran.output
    release = pd.read_csv(out, sep=made["sep"], dtype=str, keep_default_na=False)
    assert len(release) == N
    for column, marker in made["markers"].items():
        assert marker not in set(release[column]), column  # read as missing, not a value


@pytest.mark.parametrize("seed", SEEDS)
def test_read_table_and_schema_infer_read_the_tokens_and_name_the_marker(tmp_path, seed):
    path = tmp_path / "extract.csv"
    made = write_extract(path, seed)
    table = read_table(path)
    source = made["table"]
    for column in ("age", "sex", "amount"):
        assert table[column].isna().sum() == (source[column] == made["token"]).sum()
    word = made["markers"]["age"]
    pattern = rf"column 'age' holds numbers except for {made['cells']['age']} cells '{word}'"
    with pytest.raises(InputError, match=pattern):
        Schema.infer(table, ["age"])
    markers = sorted(set(made["markers"].values()))
    known = read_table(path, na_values=markers)
    schema = Schema.infer(known, ["age", "admitted", "visits", "amount"], missing="keep")
    assert set(schema.qi_names) == {"age", "admitted", "visits", "amount"}
    assert known["age"].isna().sum() == source["age"].isin([made["token"], word]).sum()


def test_an_empty_token_turns_the_default_tokens_off(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,mood\n30,None\nNA,-\n31,?\n32,happy\n")
    assert read_table(path)["mood"].isna().tolist() == [True, True, True, False]
    kept = read_table(path, na_values=[""])
    assert kept["age"].tolist() == ["30", "NA", "31", "32"]
    assert kept["mood"].tolist() == ["None", "-", "?", "happy"]
    both = read_table(path, na_values=["", "NA"])
    assert both["age"].isna().tolist() == [False, True, False, False]
    assert both["mood"].isna().sum() == 0
    shown = invoke("inspect", path, "--na-values", "", "--json")
    assert shown.exit_code == 0, shown.output
    columns = {c["column"]: c for c in json.loads(shown.stdout)["columns"]}
    assert columns["mood"]["missing"] == 0
    # 'NA' is text now: the one word in a column of numbers, inspect proposes it (rule 1)
    assert (columns["age"]["marker"], columns["age"]["marker_cells"]) == ("NA", 1)


def test_a_default_token_in_a_text_column_is_told_in_one_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,mood,code\n" + "".join(
        f"{20 + i},{['None', 'calm', 'tense', '-'][i % 4]},{['NA', '12'][i % 2]}\n"
        for i in range(12)))  # fmt: skip
    with pytest.warns(UserWarning) as caught:
        read_table(path)
    lines = [str(w.message) for w in caught]
    assert len(lines) == 1, lines
    assert "'mood' (3 × 'None', 3 × '-')" in lines[0] and "na_values=['']" in lines[0]
    assert "'code'" not in lines[0]  # a number column: 'NA' there is missing, nothing said
    shown = invoke("inspect", path)
    said = [line for line in shown.stderr.splitlines() if "'mood'" in line]
    assert len(said) == 1 and "--na-values ''" in said[0], shown.stderr


def test_a_marker_that_is_another_columns_value_is_not_proposed(tmp_path):
    """na_values applies to every column: 99999 is an age marker but a real zip."""
    path = tmp_path / "t.csv"
    lines = [f"{20 + i % 60},{['99999', '10001', '20002'][i % 3]}" for i in range(60)]
    lines[5] = lines[9] = lines[13] = "99999,10001"
    path.write_text("age,postcode\n" + "\n".join(lines) + "\n")
    job = tmp_path / "incrowd.toml"
    written = invoke("inspect", path, "--write", job)
    assert written.exit_code == 0, written.output
    assert "na_values" not in tomllib.loads(job.read_text(encoding="utf-8"))
    said = [line for line in written.stderr.splitlines() if "'99999'" in line]
    assert len(said) == 1 and "'postcode'" in said[0] and "not proposed" in said[0], said


def test_a_column_that_cannot_be_read_is_shown_and_named(tmp_path):
    """inspect always shows the table: a one-off slip in a number column is a warning line
    (anonymize refuses the column until it is fixed), not the end of inspect."""
    path = tmp_path / "t.csv"
    path.write_text("age,sex\n" + "".join(f"{20 + i},F\n" for i in range(30)) + "4O,M\n")
    shown = invoke("inspect", path)
    assert shown.exit_code == 0, shown.output
    assert "age" in shown.stdout and "sex" in shown.stdout
    said = [line for line in shown.stderr.splitlines() if "'age'" in line]
    assert len(said) == 1 and "row 31 holds '4O'" in said[0], shown.stderr
    job = tmp_path / "incrowd.toml"
    assert invoke("inspect", path, "--write", job).exit_code == 0
    assert "age" in tomllib.loads(job.read_text(encoding="utf-8"))["columns"]["qi"]
    refused = invoke("anonymize", "--config", job, "--k", 2, "--out", tmp_path / "r.csv")
    assert refused.exit_code == 2 and "row 31 holds '4O'" in refused.stderr
