"""A steward's own table, read right with no flags beyond --qi, --sensitive and --k (issue
45's "done when"): zip codes keep their zeros and are masked by prefix, integer codes are
never ranges, dates are periods, ``1,234`` numbers are parsed, latin-1 text is read, missing
values are kept (nothing dropped), every guess is one warning line, and the follow-up
commands need nothing more than the files."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

runner = CliRunner()
QI = "age,zip,sex,admission_date,charges,relat"
PERIOD = re.compile(r"^(\*|\d{4}(-Q[1-4]|-\d{2}(-\d{2})?)?)$")


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def hospital(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ages = rng.integers(0, 95, n).astype(object)
    ages[rng.random(n) < 0.04] = ""
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D")
    admitted = np.array([d.strftime("%d/%m/%Y") for d in days], dtype=object)
    admitted[rng.choice(n, 6, replace=False)] = ""
    sex = rng.choice(["f", "m", "Männlich"], n).astype(object)
    sex[rng.choice(n, 3, replace=False)] = ""
    return pd.DataFrame({
        "name": [f"patient {i}" for i in range(n)],
        "age": ages,
        "zip": [f"{z:05d}" for z in rng.choice([2142, 2139, 2138, 10002, 10003, 501], n)],
        "sex": sex,
        "admission_date": admitted,
        "charges": [f"{v:,}" for v in rng.integers(500, 300_000, n)],
        "relat": rng.integers(1, 8, n),
        "diagnosis": rng.choice(["J45.9", "E11", "I10", "Grippe ö"], n),
    })  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1])
def test_a_messy_extract_is_released_right_with_no_type_flags(tmp_path, seed):
    table = hospital(seed)
    source = tmp_path / "hospital.csv"
    table.to_csv(source, index=False, sep=";", encoding="latin-1")
    out = tmp_path / "rel.csv"
    made = invoke("anonymize", source, "--qi", QI, "--sensitive", "diagnosis", "--k", "5",
                  "--seed", "1", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    warned = [line for line in made.stderr.splitlines() if line.startswith("warning:")]
    for guess in ("not UTF-8", "'relat'", "'charges'", "'age' has"):
        assert sum(guess in line for line in warned) == 1, (guess, warned)

    published = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False, encoding="utf-8")
    meta = json.loads(out.with_suffix(".json").read_text())
    assert len(published) == len(table) == meta["n_input"] == meta["n_released"]
    assert meta["n_suppressed"] == meta["n_dropped_missing"] == 0
    # zip codes: five characters, zeros kept, masked from the right (the top: one *)
    zips = set(table["zip"])
    for cell in published["zip"]:
        stem = cell.rstrip("*")
        assert len(cell) == 5 or cell == "*", cell
        assert any(z.startswith(stem) for z in zips), cell
    assert any(cell.startswith("0") for cell in published["zip"])
    # integer codes are categories: a code, '*' or the missing value, never a range
    assert set(published["relat"]) <= {*map(str, range(1, 8)), "*", "(missing)"}
    # dates are ISO days or periods, never the input's day-first text
    assert all(PERIOD.match(cell) or cell == "(missing)" for cell in published["admission_date"])
    assert any(re.match(r"^\d{4}-", cell) for cell in published["admission_date"])
    # charges are numbers: ranges of numbers, not '*' everywhere
    ranges = [c for c in published["charges"] if c != "*"]
    assert ranges and all(re.match(r"^\d+(-\d+)?$", c) for c in ranges)
    assert 500 <= min(int(c.split("-")[0]) for c in ranges)
    # latin-1 text read and published in UTF-8
    assert "Grippe ö" in set(published["diagnosis"])
    assert meta["schema"]["quasi_identifiers"]["zip"]["type"] == "code"
    assert meta["schema"]["quasi_identifiers"]["admission_date"]["type"] == "date"

    checked = invoke("verify", out)
    assert checked.exit_code == 0 and "OK" in checked.stdout, checked.output
    risk = invoke("risk", source, out)
    assert risk.exit_code == 0, risk.output
    assert "attribute disclosure of 'diagnosis'" in risk.stdout
    evaluated = invoke("evaluate", source, out)
    assert evaluated.exit_code == 0, evaluated.output
    reported = json.loads(out.with_suffix(".json").read_text())["loss"]["ncp"]
    shown = re.search(r"ncp\s+│?\s*([0-9.]+)", evaluated.stdout)
    assert shown is not None and float(shown.group(1)) == pytest.approx(reported, rel=1e-5)


def _released(tmp_path, table, qi):
    """``table`` written as CSV and released at k = 4: its path and the release's."""
    source, out = tmp_path / "hospital.csv", tmp_path / "rel.csv"
    table.to_csv(source, index=False)
    made = invoke("anonymize", source, "--qi", qi, "--k", "4", "--seed", "1", "--out", out)
    assert made.exit_code == 0, made.output
    return source, out


def test_a_changed_input_is_named_by_the_follow_up(tmp_path):
    table = hospital(3, n=120)
    source, out = _released(tmp_path, table, "age,zip,sex")
    table.iloc[:-1].to_csv(source, index=False)  # one record fewer
    risk = invoke("risk", source, out)
    assert "is not the input" in risk.stderr and "SHA-256 differs" in risk.stderr


def test_a_follow_up_flag_replaces_the_recorded_type(tmp_path):
    source, out = _released(tmp_path, hospital(4, n=150), "age,relat")
    risk = invoke("risk", source, out, "--numeric", "relat")  # recorded as a category
    assert "declared both" not in risk.output and risk.exit_code == 0, risk.output


def test_a_changed_hierarchy_file_is_named_by_the_follow_up(tmp_path):
    table = pd.DataFrame({"sex": ["f", "m"] * 10, "age": [str(20 + i) for i in range(20)]})
    source, hierarchy = tmp_path / "t.csv", tmp_path / "sex.csv"
    table.to_csv(source, index=False)
    hierarchy.write_text("f;person\nm;person\n")
    out = tmp_path / "rel.csv"
    made = invoke("anonymize", source, "--qi", "sex,age", "--hierarchy", f"sex={hierarchy}",
                  "--k", "4", "--seed", "1", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    same = invoke("evaluate", source, out)
    assert same.exit_code == 0 and "not the one" not in same.stderr, same.output
    hierarchy.write_text("f;human\nm;human\n")
    changed = invoke("evaluate", source, out)
    assert "the hierarchy of 'sex' is not the one the release was made with" in changed.stderr
