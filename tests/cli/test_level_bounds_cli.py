"""Level bounds on the command line and in a job file (issue 57, item 5): ``--min-level
COL=N`` / ``--max-level COL=N`` (repeatable, or comma-separated), ``[min_level]`` /
``[max_level]`` tables that flags override key by key, and one-line errors naming the flag."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

runner = CliRunner()
BANDS = "age=intervals:0-17,18-39,40-64,65-120"


@pytest.fixture
def claims(tmp_path):
    """Exact ages that k records share with their sex and zip (0, 104), zips with leading
    zeros."""
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame({
        "age": np.r_[np.zeros(8, int), np.full(8, 104), rng.integers(1, 100, size=n - 16)],
        "sex": ["F"] * 16 + list(rng.choice(["F", "M"], size=n - 16)),
        "zip": ["01053"] * 8 + ["04850"] * 8
        + list(rng.choice(["01053", "01068", "04850", "04853", "04860"], size=n - 16)),
        "diagnosis": rng.choice(["A", "B", "C"], size=n),
    })  # fmt: skip
    path = tmp_path / "claims.csv"
    frame.to_csv(path, index=False)
    return path


def anonymize(path, tmp_path, *extra):
    args = ["anonymize", str(path), "--out", str(tmp_path / "out.csv"), "--k", "5",
            "--seed", "2", "--qi", "age,sex,zip", "--sensitive", "diagnosis",
            "--hierarchy", BANDS, "--hierarchy", "zip=prefix", *map(str, extra)]  # fmt: skip
    return runner.invoke(app, args)


def published(tmp_path) -> pd.DataFrame:
    return pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)


def test_the_flags_bound_the_published_cells(claims, tmp_path) -> None:
    result = anonymize(claims, tmp_path)
    assert result.exit_code == 0, result.output
    assert {"0", "104"} & set(published(tmp_path)["age"]), "the case the floor is for"
    result = anonymize(claims, tmp_path, "--min-level", "age=1", "--max-level", "zip=1")
    assert result.exit_code == 0, result.output
    out = published(tmp_path)
    assert set(out["age"]) <= {"0-17", "18-39", "40-64", "65-120", "*"}
    assert all(re.fullmatch(r"0\d{3}[\d*]", z) for z in out["zip"])
    same = anonymize(claims, tmp_path, "--min-level", "age=1,zip=0", "--max-level", "zip=1")
    assert same.exit_code == 0, same.output
    assert published(tmp_path).equals(out)  # comma-separated pairs, the same settings


def test_a_job_file_bounds_them_and_flags_override_it_key_by_key(claims, tmp_path) -> None:
    job = tmp_path / "job.toml"
    job.write_text(
        f'input = "{claims.name}"\nout = "out.csv"\nk = 5\nseed = 2\n'
        '[columns]\nqi = ["age", "sex", "zip"]\nsensitive = ["diagnosis"]\n'
        '[hierarchy]\nage = "intervals:0-17,18-39,40-64,65-120"\nzip = "prefix"\n'
        "[min_level]\nage = 1\n[max_level]\nzip = 0\n"
    )
    result = runner.invoke(app, ["anonymize", "--config", str(job)])
    assert result.exit_code == 0, result.output
    out = published(tmp_path)
    assert set(out["age"]) <= {"0-17", "18-39", "40-64", "65-120", "*"}
    assert set(out["zip"]) <= {"01053", "01068", "04850", "04853", "04860"}
    result = runner.invoke(app, ["anonymize", "--config", str(job), "--max-level", "zip=1"])
    assert result.exit_code == 0, result.output
    out = published(tmp_path)  # the file's floor kept, its ceiling raised by the flag
    assert set(out["age"]) <= {"0-17", "18-39", "40-64", "65-120", "*"}
    assert any(z.endswith("*") for z in out["zip"])
    job.write_text(job.read_text().replace("age = 1\n", 'age = "one"\n', 1))
    bad = runner.invoke(app, ["anonymize", "--config", str(job)])
    assert bad.exit_code == 2 and "--min-level age=one: a level is a whole number" in bad.stderr


ERRORS = [
    (["--min-level", "age"], "--min-level must look like NAME=VALUE, got 'age'"),
    (["--min-level", "age=x"], "--min-level age=x: a level is a whole number from 0"),
    (["--max-level", "nope=1"], "--max-level nope=1: 'nope' is not a quasi-identifier"),
    (["--min-level", "age=3"], "--min-level age=3: 'age' has levels 0 (its values) to 2 (*)"),
    (["--min-level", "age=2", "--max-level", "age=1"],
     "--min-level age=2 is above --max-level age=1: no level of 'age' fits both"),
    (["--min-level", "age=1", "--method", "mdav"],
     "--min-level applies to the methods that publish hierarchy levels"),
    (["--max-level", "zip=1", "--blocks", "2"], "--max-level does not run blockwise"),
    (["--max-level", "sex=0", "--release", "centers"],
     "--max-level bounds the hierarchy levels of a generalized release"),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "message"), ERRORS)
def test_each_refusal_is_one_line_naming_the_flag(claims, tmp_path, extra, message) -> None:
    result = anonymize(claims, tmp_path, *extra)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert message in lines[0]
    assert not (tmp_path / "out.csv").exists()


def test_what_cannot_fit_is_one_line_saying_what_to_relax(claims, tmp_path) -> None:
    frame = pd.read_csv(claims, dtype=str)
    frame.loc[:1, "zip"] = "09999"
    frame.to_csv(claims, index=False)
    result = anonymize(claims, tmp_path, "--max-level", "zip=0")
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert "--max-level zip=0 leaves 2 record(s) in groups of fewer than k = 5" in line
    assert "zip 09999" in line and "--suppression-limit 0.0167" in line and "\n" not in line
    result = anonymize(claims, tmp_path, "--max-level", "zip=0", "--suppression-limit", "0.0167")
    assert result.exit_code == 0, result.output
    assert "(2 suppressed)" in result.stdout
