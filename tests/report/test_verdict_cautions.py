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
def test_one_line_when_every_quasi_identifier_is_star_none_for_a_value_kept(stars):
    from incrowd.pipeline.cautions import blank_quasi_identifiers

    table = pd.DataFrame({"a": stars, "b": ["*", "*"]})
    found = blank_quasi_identifiers(table, ["a", "b"])
    if stars[1] == "*":
        assert len(found) == 1 and found[0][1].startswith("every quasi-identifier"), found
    else:
        assert [name for name, _ in found] == ["b"]


def test_every_quasi_identifier_generalized_away_by_local_recoding_is_one_line():
    """One crowd of every record, every quasi-identifier *: one line, not silence (the case
    was taken for 'every record suppressed' and said nothing)."""
    table = pd.DataFrame({"sex": list("fmfmff"), "city": list("abcdef")})
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", IncrowdWarning)
        release = incrowd.anonymize(table, qi=["sex", "city"], k=6, seed=0)
    said = [str(w.message) for w in seen if issubclass(w.category, IncrowdWarning)]
    assert release.metadata.n_suppressed == 0 and (release.table == "*").all().all()
    lines = [w for w in said if "every quasi-identifier is published as *" in w]
    assert len(lines) == 1, said
    schema = incrowd.Schema.infer(table, ["sex", "city"])
    report = build_report(table, release.table, schema, release.metadata)
    assert report.verdict == "warnings"
    assert 'data-warning="blank-quasi-identifier"' in report.html
