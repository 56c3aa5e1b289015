"""A quasi-identifier published as ``*`` in every record (issue 57, item 5) is one warning line
from ``anonymize`` (Python and the command line) and a warning of the report's verdict; so
is a column published as it is that looks like a name or free text (item 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import incrowd
from incrowd import IncrowdWarning
from incrowd.cli.app import app
from incrowd.report import build_report

N = 120


def towns() -> pd.DataFrame:
    """Sex, age bands and a town nearly unique per record: no crowd of 5 keeps any town."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "sex": rng.choice(["F", "M"], N), "age": rng.choice(["20-39", "40-59", "60-79"], N),
        "woonplaats": [f"Dorp{i % 70:02d}" for i in range(N)],
        "diagnose": rng.choice(["flu", "asthma", "diabetes"], N),
        "remarque": [f"Mme Dupont {i} a appelé pour le formulaire {i % 5}" for i in range(N)],
    })  # fmt: skip


def run(table: pd.DataFrame, **given):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", IncrowdWarning)
        release = incrowd.anonymize(table, qi=["sex", "age", "woonplaats"], k=5, seed=0,
                                    method="global-recoding", sensitive=["diagnose"],
                                    **given)  # fmt: skip
    return release, [str(w.message) for w in seen if issubclass(w.category, IncrowdWarning)]


def test_a_quasi_identifier_generalized_away_is_warned_about_and_in_the_verdict():
    table = towns()
    release, said = run(table)
    assert set(release.table["woonplaats"]) == {"*"}
    lines = [w for w in said if "'woonplaats'" in w]
    assert len(lines) == 1 and "* in every record" in lines[0], said
    assert "max_level={'woonplaats': ...}" in lines[0], lines
    assert not any("'sex'" in w or "'age'" in w for w in said), said
    schema = incrowd.Schema.infer(table, ["sex", "age", "woonplaats"], sensitive=["diagnose"])
    report = build_report(table, release.table, schema, release.metadata)
    assert report.verdict == "warnings"
    assert sum("'woonplaats'" in w and "* in every record" in w for w in report.warnings) == 1
    assert "--max-level woonplaats=..." in next(w for w in report.warnings if "woonplaats" in w)
    assert 'data-warning="blank-quasi-identifier"' in report.html


def test_free_text_published_as_it_is_is_in_the_verdict():
    table = towns()
    release, said = run(table, insensitive=["remarque"])
    assert sum("'remarque'" in w and "free text" in w for w in said) == 1, said
    schema = incrowd.Schema.infer(table, ["sex", "age", "woonplaats"], sensitive=["diagnose"],
                                  insensitive=["remarque"])  # fmt: skip
    report = build_report(table, release.table, schema, release.metadata)
    lines = [w for w in report.warnings if "'remarque'" in w]
    assert len(lines) == 1 and "--identifier remarque" in lines[0], report.warnings
    assert 'data-warning="published-identifying"' in report.html


def test_the_command_line_prints_the_line(tmp_path):
    source = tmp_path / "towns.csv"
    towns().to_csv(source, index=False)
    out = tmp_path / "release.csv"
    done = CliRunner().invoke(app, [
        "anonymize", str(source), "--qi", "sex,age,woonplaats", "--k", "5", "--seed", "0",
        "--method", "global-recoding", "--sensitive", "diagnose", "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    lines = [line for line in done.stderr.splitlines() if "'woonplaats'" in line]
    assert len(lines) == 1 and lines[0].startswith("warning:"), done.stderr
    assert "--max-level woonplaats=..." in lines[0]


@pytest.mark.parametrize("stars", [["*", "*"], ["*", "1*"]])
def test_no_warning_when_every_record_is_suppressed_or_a_value_is_kept(stars):
    from incrowd.pipeline.cautions import blank_quasi_identifiers

    table = pd.DataFrame({"a": stars, "b": ["*", "*"]})
    assert [name for name, _ in blank_quasi_identifiers(table, ["a", "b"])] == (
        [] if stars[1] == "*" else ["b"])  # fmt: skip
