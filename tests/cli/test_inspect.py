"""``incrowd inspect``: the inferred type, counts, proposed role and hierarchy of every
column of a messy table, its warnings once each, and the job file it writes."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app
from incrowd.pipeline.settings import Settings

runner = CliRunner()
N = 40


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def messy(tmp_path):
    """A hospital extract as a steward has it: zips with leading zeros, relationship codes
    1-7, ages, admission dates, charges written 1,234, a name per row, missing cells."""
    zips = ["02142", "02139", "60615", "60614", "10002", "00501"]
    lines = ["patient_name,zip,relat,age,admission_date,charges,diagnosis"]
    for i in range(N):
        zip_code = "" if i % 17 == 5 else zips[i % 6]
        age = "" if i % 13 == 4 else str(20 + (i * 7) % 60)
        day = "" if i % 11 == 3 else f"2024-{1 + i % 12:02d}-{1 + (i * 5) % 28:02d}"
        charges = f'"{1 + i * 7},{(i * 91) % 1000:03d}"'
        lines.append(f"Person {i},{zip_code},{1 + (i * 3) % 7},{age},{day},{charges},"
                     f"{['flu', 'asthma', 'diabetes'][i % 3]}")  # fmt: skip
    path = tmp_path / "messy.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def assert_one_line_error(result, pattern):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and pattern in lines[0], lines
    assert "Traceback" not in result.output


def test_the_table_shows_each_columns_type_and_role(messy):
    result = invoke("inspect", messy)
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[2:]}
    assert rows["zip"][1:] == ["code", "6", "3", "qi", "prefix", "02142", "|", "02139", "|",
                               "60615"]  # fmt: skip
    assert rows["relat"][1:6] == ["category", "7", "0", "withheld", "-"]  # no role: unpublished
    assert rows["age"][1:6] == ["number", "37", "3", "qi", "-"]
    assert rows["admission_date"][1:7] == ["date", "(%Y-%m-%d)", "36", "4", "qi", "dates"]
    assert rows["charges"][1:7] == ["number", "(1,234.5)", str(N), "0", "sensitive", "-"]
    assert rows["patient_name"][1:5] == ["category", str(N), "0", "identifier"]
    assert rows["diagnosis"][4] == "sensitive"


def test_every_warning_is_printed_once(messy):
    result = invoke("inspect", messy)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == len(set(warnings)) == 2, result.stderr
    assert any("'relat' holds 7 distinct integers" in w and "--numeric relat" in w
               for w in warnings)  # fmt: skip
    assert any("'charges'" in w and "--thousands" in w for w in warnings)
    assert result.stderr.count("warning:") == 2


def test_json_is_one_object_with_every_column(messy):
    result = invoke("inspect", messy, "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    columns = {c["column"]: c for c in figures["columns"]}
    names = ["patient_name", "zip", "relat", "age", "admission_date", "charges", "diagnosis"]
    assert figures["rows"] == N and list(columns) == names
    assert columns["charges"]["thousands"] == "," and columns["charges"]["type"] == "number"
    assert columns["zip"]["hierarchy"] == "prefix" and columns["zip"]["missing"] == 3
    assert columns["relat"]["warnings"] and columns["age"]["role"] == "quasi-identifier"


def test_declared_kinds_override_the_inference(messy):
    result = invoke("inspect", messy, "--json", "--numeric", "relat", "--categorical", "age")
    columns = {c["column"]: c for c in json.loads(result.stdout)["columns"]}
    assert columns["relat"]["type"] == "number" and not columns["relat"]["warnings"]
    assert columns["age"]["type"] == "category"


def test_write_makes_a_job_file_the_settings_read(messy, tmp_path):
    job_file = tmp_path / "incrowd.toml"
    result = invoke("inspect", messy, "--write", job_file)
    assert result.exit_code == 0, result.output
    assert f"wrote {job_file}" in result.stdout
    text = job_file.read_text(encoding="utf-8")
    assert 'input = "messy.csv"' in text  # relative to the file
    # the comment aligned in its list, saying why the column got its role
    beside = r' {4}"zip", +# code, 6 distinct, 3 missing; quasi-identifier: the name suggests .*'
    withheld = '# "relat" (not published: no list names it): category, 7 distinct, 0 missing; '
    assert withheld + "withheld: nothing says what it is" in text, text
    assert any(re.fullmatch(beside, line) for line in text.splitlines()), text
    assert "# k = " in text  # the steward chooses k
    job = Settings.from_toml(job_file)
    assert job.input == str(messy) and job.k is None
    assert job.qi == ("zip", "age", "admission_date")
    assert job.sensitive == ("charges", "diagnosis")
    assert job.identifier == ("patient_name",) and job.insensitive == ()
    kinds = (job.code, job.numeric, job.date, job.categorical)
    assert kinds == (("zip",), ("age",), ("admission_date",), ())
    assert job.hierarchy == {"zip": "prefix", "admission_date": "dates"}
    assert (job.thousands, job.decimal, job.date_format) == (",", ".", "%Y-%m-%d")


def test_a_kind_declared_for_a_column_that_is_no_qi_stays_out_of_the_job(messy, tmp_path):
    job_file = tmp_path / "incrowd.toml"
    done = invoke("inspect", messy, "--categorical", "relat", "--write", job_file)
    assert done.exit_code == 0, done.output
    job = Settings.from_toml(job_file)
    assert "relat" not in job.qi and job.categorical == ()  # metric options are QIs'
    assert "--numeric relat" not in job_file.read_text(encoding="utf-8")  # no warning now


def test_a_latin_1_file_warns_once_and_the_job_names_its_encoding(tmp_path):
    table = tmp_path / "cities.csv"
    rows = [f"{city},{20 + i}" for i, city in enumerate(["Zürich", "Genève", "Köln"] * 4)]
    table.write_bytes(b"city,age\n" + "\n".join(rows).encode("latin-1") + b"\n")
    job_file = tmp_path / "incrowd.toml"
    done = invoke("inspect", table, "--write", job_file)
    assert done.exit_code == 0, done.output
    assert done.stderr.count("warning:") == 1 and "--encoding" in done.stderr
    assert "Zürich" in done.stdout
    assert Settings.from_toml(job_file).encoding in ("cp1252", "latin-1")


def test_the_job_file_runs_to_a_release_verify_accepts(messy, tmp_path):
    job_file = tmp_path / "incrowd.toml"
    assert invoke("inspect", messy, "--write", job_file).exit_code == 0
    release = tmp_path / "release.csv"
    done = invoke("anonymize", "--config", job_file, "--k", 3, "--out", release, "--seed", 1)
    assert done.exit_code == 0, done.output
    checked = invoke("verify", release)  # the metadata records the quasi-identifiers and k
    assert checked.exit_code == 0, checked.output
    published = release.read_text(encoding="utf-8")
    assert "patient_name" not in published and "Person 1" not in published


def test_an_existing_file_is_never_overwritten(messy, tmp_path):
    job_file = tmp_path / "incrowd.toml"
    job_file.write_text("# the steward's edits\n", encoding="utf-8")
    assert_one_line_error(invoke("inspect", messy, "--write", job_file), "never overwrites")
    assert job_file.read_text(encoding="utf-8") == "# the steward's edits\n"
    # nor a file inspect wrote itself: the steward may have edited it since
    fresh = tmp_path / "fresh.toml"
    assert invoke("inspect", messy, "--write", fresh).exit_code == 0
    assert_one_line_error(invoke("inspect", messy, "--write", fresh), "never overwrites")
    assert_one_line_error(invoke("inspect", messy, "--write", messy), "input of this run")


@pytest.mark.parametrize(("args", "pattern"), [
    (("--thousands", "x"), "thousands"),
    (("--numeric", "zip", "--code", "zip"), "declared both"),
    (("--code", "nope"), "unknown column 'nope'"),
    (("--encoding", "rot13"), "not a text encoding"),
])  # fmt: skip
def test_errors_are_one_line(messy, args, pattern):
    assert_one_line_error(invoke("inspect", messy, *args), pattern)


def test_a_missing_input_is_one_line(tmp_path):
    assert_one_line_error(invoke("inspect", tmp_path / "nope.csv"), "nope.csv")
    assert not list(tmp_path.iterdir())
