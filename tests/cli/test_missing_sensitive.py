"""A sensitive column with missing cells, from the command line (issue 57, items 1 and 9):
`anonymize` publishes a missing sensitive value as `(missing)`, as the quasi-identifiers spell
theirs, and counts it as one more value for l-diversity; `verify` checks the l the metadata
records unless told otherwise; `risk` and `report` read the release and count its missing
cells."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

runner = CliRunner()
QI = "age,sex,zip"


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def write_extract(path, seed: int = 0) -> pd.DataFrame:
    """A small claims extract: missing diagnoses written as empty cells and as ``unknown``,
    a few missing sexes (a quasi-identifier), zips with leading zeros."""
    rng = np.random.default_rng(seed)
    n = 150
    table = pd.DataFrame({
        "age": rng.integers(18, 90, n).astype(str),
        "sex": rng.choice(["F", "M"], n).astype(object),
        "zip": rng.choice(["01234", "01235", "02111", "02112"], n),
        "diag": rng.choice(["J45", "C34", "I10", "E11"], n).astype(object),
    })  # fmt: skip
    gaps = rng.choice(n, 24, replace=False)
    table.loc[gaps[:12], "diag"] = ""
    table.loc[gaps[12:], "diag"] = "unknown"
    table.loc[rng.choice(n, 4, replace=False), "sex"] = ""
    table.to_csv(path, index=False)
    return table


def read_cells(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def figure(html: str, name: str) -> str:
    found = re.search(rf'data-figure="{name}" data-value="([^"]*)"', html)
    assert found, name
    return found.group(1)


@pytest.mark.parametrize("missing", ["keep", "drop"])
@pytest.mark.parametrize("method", ["local-recoding", "global-recoding"])
def test_missing_sensitive_values_through_the_whole_path(tmp_path, method, missing):
    source, out = tmp_path / "claims.csv", tmp_path / "out.csv"
    table = write_extract(source)
    made = invoke("anonymize", source, "--qi", QI, "--sensitive", "diag", "--k", "3",
                  "--l", "2", "--method", method, "--missing", missing, "--na-values",
                  "unknown", "--seed", "2", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "internal error" not in made.output
    published = read_cells(out)
    gaps = table["diag"].isin(["", "unknown"])
    # one spelling in the release: (missing), in the sensitive column as in the QIs
    assert (published == "").sum().sum() == 0
    assert (published["diag"] == "unknown").sum() == 0
    if missing == "keep":
        assert (published["diag"] == "(missing)").sum() == gaps.sum()
        assert (published["sex"] == "(missing)").sum() + (published["sex"] == "*").sum() >= 4
    else:  # the records missing a quasi-identifier are left out, those missing diag are not
        kept = table["sex"] != ""
        assert (published["diag"] == "(missing)").sum() == (gaps & kept).sum()
    # l = 2 counted a missing diagnosis as a value: every class holds two values of diag
    stars = published[QI.split(",")].eq("*").all(axis=1)
    classes = published[~stars].groupby(QI.split(","))["diag"].nunique()
    assert classes.min() >= 2

    checked = invoke("verify", out)  # the metadata's qi, k, sensitive columns and l
    assert checked.exit_code == 0, checked.output
    assert "'l': 2" in checked.stdout and "as its metadata records" in checked.stdout

    risk = invoke("risk", source, out, "--json")
    assert risk.exit_code == 0, risk.output
    assert json.loads(risk.stdout)["attribute_disclosure"]["diag"]["classes"] == 0

    page = tmp_path / "report.html"
    reported = invoke("report", source, out, "--out", page)
    assert reported.exit_code == 0, reported.output
    html = page.read_text()
    assert int(figure(html, "missing-cells")) == int((published == "(missing)").sum().sum()) > 0


def test_verify_checks_the_recorded_l_unless_told_otherwise(tmp_path):
    source, out = tmp_path / "claims.csv", tmp_path / "out.csv"
    write_extract(source, seed=1)
    made = invoke("anonymize", source, "--qi", QI, "--sensitive", "diag", "--k", "3", "--l",
                  "2", "--method", "local-recoding", "--seed", "1", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    # a class made homogeneous after the fact (its metadata pointed at the new table, so
    # that only the recorded l can find it)
    published = read_cells(out)
    first = published.groupby(QI.split(",")).ngroup() == 0
    published.loc[first, "diag"] = "(missing)"
    meta_path = out.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    published.to_csv(out, index=False)
    meta.pop("table_sha256", None)
    meta.pop("table_bytes", None)
    meta_path.write_text(json.dumps(meta))
    recorded = invoke("verify", out)
    assert recorded.exit_code == 1, recorded.output
    assert "1 class(es) break {'l': 2.0, 'l_kind': 'distinct'} on 'diag'" in recorded.stderr
    assert invoke("verify", out, "--l", "1").exit_code == 0  # told otherwise: k alone
    stricter = invoke("verify", out, "--l-kind", "entropy")  # the recorded l, another kind
    assert stricter.exit_code == 1 and "'l_kind': 'entropy'" in stricter.stderr


def test_verify_without_metadata_asks_for_what_it_lacks(tmp_path):
    """--qi and --k come from the flags, else from the metadata: each lacking is named."""
    table = tmp_path / "t.csv"
    table.write_text("age,sex\n30,F\n30,F\n")
    lacking = invoke("verify", table)
    assert lacking.exit_code != 0
    assert f"give --qi and --k: {table} has no metadata beside it" in lacking.output
    assert "give --k: " in invoke("verify", table, "--qi", "age").output
    assert "no quasi-identifiers in --qi" in invoke("verify", table, "--qi", ",").output
    assert invoke("verify", table, "--qi", "age,sex", "--k", "2").exit_code == 0
