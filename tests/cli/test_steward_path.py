"""The whole steward path on a messy claims extract, with no flag beyond --qi, --sensitive and
--k (issue 57's "done when"): ``inspect --write``, ``anonymize --config``, ``verify``,
``risk``, ``report``. The extract (:func:`incrowd.datasets.write_claims_extract`) varies by
seed: separator and number style, missing-value tokens, sentinels, header spellings."""

from __future__ import annotations

import json
import re
import tomllib

import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app
from incrowd.datasets import write_claims_extract

runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


def missing_in(cells: pd.Series, extract) -> pd.Series:
    return cells.isin(["", extract.missing_token, "NA"]) | cells.isna()


@pytest.mark.parametrize("seed", [0, 5])
def test_the_steward_path_on_a_messy_extract(tmp_path, seed):
    extract = write_claims_extract(tmp_path / "claims.csv", 1500, seed=seed)
    job = tmp_path / "incrowd.toml"
    looked = invoke("inspect", extract.path, "--write", job)
    assert looked.exit_code == 0, looked.output
    for column in extract.table.columns:
        assert column in looked.stdout, column
    # the sentinel of the age and date columns is proposed as missing, in one line each
    proposed = [line for line in looked.stderr.splitlines() if extract.sentinel in line]
    assert proposed, looked.stderr
    written = tomllib.loads(job.read_text())
    assert extract.sentinel in written.get("na_values", []), job.read_text()
    # the proposal publishes no name, id or note
    roles = written["columns"]
    published_raw = set(roles.get("insensitive", [])) | set(roles.get("sensitive", []))
    assert not published_raw & set(extract.identifiers), job.read_text()
    assert set(extract.identifiers) <= set(roles["identifier"]), job.read_text()

    out = tmp_path / "release.csv"
    qi = ",".join(extract.qi)
    made = invoke("anonymize", "--config", job, "--qi", qi, "--sensitive", extract.sensitive,
                  "--k", "5", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    release = pd.read_csv(out, sep=None, engine="python", dtype=str, keep_default_na=False)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert set(release.columns) == {*extract.qi, extract.sensitive}
    assert len(release) == len(extract.table) == meta["n_input"]
    # a missing diagnosis group is one value, spelled as the quasi-identifiers spell it
    source = extract.table[extract.sensitive]
    assert (release[extract.sensitive] == "(missing)").sum() == missing_in(source, extract).sum()
    # codes stay codes: zips keep five characters, the transport code is never a range
    zips = set(extract.table["zip"])
    shown = [cell for cell in release["zip"] if cell not in ("*", "(missing)")]
    assert shown and any(cell[0] == "0" for cell in shown), set(release["zip"])
    for cell in shown:
        assert len(cell) == 5 and any(z.startswith(cell.rstrip("*")) for z in zips), cell
    assert set(release["transport"]) <= {*map(str, range(1, 10)), "*", "(missing)"}
    # ICD-10 codes of several lengths are masked from the right
    codes = set(extract.table["icd10"])
    assert set(release["icd10"]) - {"*"}, "every code generalized away"
    for cell in set(release["icd10"]) - {"*"}:
        assert any(code.startswith(cell.rstrip("*")) for code in codes), cell
    # numbers are shown as they were written: no '.0'
    assert not any(re.search(r"\d\.0\b", cell) for cell in release["age"]), set(release["age"])

    checked = invoke("verify", out)
    assert checked.exit_code == 0 and "OK" in checked.stdout, checked.output
    risk = invoke("risk", extract.path, out)
    assert risk.exit_code == 0, risk.output
    report = tmp_path / "report.html"
    reported = invoke("report", extract.path, out, "--out", report)
    assert reported.exit_code == 0, reported.output

    # no patient name, note or id anywhere in what was written
    written_text = "\n".join(
        p.read_text(encoding="utf-8") for p in (out, out.with_suffix(".json"), report)
    )
    for name in extract.names[:200]:
        assert name not in written_text


def test_flags_over_a_proposed_job_file_leave_its_other_columns_types_unused(tmp_path):
    """--qi over a job file that types other columns: those types are not used, one line
    says so (the run failed with "declared categorical but is not a quasi-identifier")."""
    extract = write_claims_extract(tmp_path / "claims.csv", 400, seed=1)
    job = tmp_path / "incrowd.toml"
    assert invoke("inspect", extract.path, "--write", job).exit_code == 0
    out = tmp_path / "release.csv"
    made = invoke("anonymize", "--config", job, "--qi", "age,transport", "--sensitive",
                  extract.sensitive, "--k", "5", "--out", out)  # fmt: skip
    assert made.exit_code == 0, made.output
    unused = [line for line in made.stderr.splitlines() if "not used" in line]
    assert len(unused) == 1 and "'zip'" in unused[0] and "--qi" in unused[0], made.stderr
    release = pd.read_csv(out, sep=None, engine="python", dtype=str, keep_default_na=False)
    assert set(release.columns) == {"age", "transport", extract.sensitive}


def test_the_proposed_roles_released_and_reported_warn_of_no_identifying_column(tmp_path):
    """The job file as inspect proposed it: its sensitive amounts (with gaps, published as
    "(missing)") are no identifier to the report, as they are none to anonymize."""
    extract = write_claims_extract(tmp_path / "claims.csv", 400, seed=2)
    job = tmp_path / "incrowd.toml"
    assert invoke("inspect", extract.path, "--write", job).exit_code == 0
    out, report = tmp_path / "release.csv", tmp_path / "report.html"
    made = invoke("anonymize", "--config", job, "--k", "5", "--out", out)
    assert made.exit_code == 0, made.output
    assert "published as it is" not in made.stderr, made.stderr
    release = pd.read_csv(out, sep=None, engine="python", dtype=str, keep_default_na=False)
    assert "amount" in release.columns and (release["amount"] == "(missing)").any()
    reported = invoke("report", extract.path, out, "--out", report)
    assert reported.exit_code == 0, reported.output
    assert 'data-warning="published-identifying"' not in report.read_text(encoding="utf-8")


def test_the_extract_is_a_new_file_never_replacing_one(tmp_path):
    from incrowd.errors import OutputError

    mine = tmp_path / "claims.csv"
    mine.write_text("a steward's own file\n")
    with pytest.raises(OutputError):
        write_claims_extract(mine, 50, seed=0)
    assert mine.read_text() == "a steward's own file\n"
