"""The page's form as a run's settings: the Open form's reading options (the command line's
--na-values, --sep, --decimal, --thousands, --date-format, --encoding), a job file's
settings kept whole, the level bounds per quasi-identifier, values the page never sends
refused, and warnings that name the page's own controls."""

from __future__ import annotations

import json
import time

import pytest

from incrowd.pipeline.job import read_job
from incrowd.pipeline.settings import Settings

#: The Open form's reading options: each a field of Settings (the command line's flags).
READING = ("na_values", "sep", "decimal", "thousands", "date_format", "encoding")
#: A steward's extract: `;`, `1.234,50` amounts, dd/mm/yyyy dates, NA and unknown missing.
CLAIMS = """age;amount;day;zip;diagnosis
34;1.234,50;05/03/2024;02142;J45
NA;99,00;unknown;02139;E11
45;2.000,00;12/11/2023;02142;J45
36;1.234,50;06/03/2024;02142;I10
51;unknown;01/01/2022;02139;E11
47;12,25;13/11/2023;02142;I10
38;310,00;07/03/2024;02139;J45
52;4.410,75;02/01/2022;02139;E11
"""
OPTIONS = {"sep": ";", "decimal": ",", "thousands": ".", "na_values": "NA,unknown",
           "date_format": "%d/%m/%Y"}  # fmt: skip
JOB = """input = "claims.csv"
sep = ";"
decimal = ","
thousands = "."
date_format = "%d/%m/%Y"
na_values = ["NA", "unknown"]
csv_formulas = "refuse"
k = 2

[columns]
qi = ["age", "amount", "day", "zip"]
sensitive = ["diagnosis"]
numeric = ["age", "amount"]
date = ["day"]
code = ["zip"]

[hierarchy]
age = "intervals:10,20"
zip = "prefix"
day = "dates:month,year"

[weights]
age = 2
"""


@pytest.fixture
def work(tmp_path):
    folder = tmp_path / "work"
    (folder / "claims.csv").write_text(CLAIMS, encoding="utf-8")
    (folder / "job.toml").write_text(JOB, encoding="utf-8")
    return folder


def wait(client, run, timeout=180.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = client.get(f"/api/runs/{run}").json()
        if status["state"] != "running":
            return status
        time.sleep(0.2)
    raise AssertionError(f"timed out: {status}")


def test_the_open_forms_fields_are_the_settings_reading_options(client):
    page = client.get("/").text
    for name in READING:
        option = Settings.option(name)  # a field of Settings: its help is the field's title
        assert f'id="{name}"' in page, name
        assert f'title="{option.help}' in page.replace("&#39;", "'"), name
    choices = json.loads(client.get("/api/choices").text)
    assert [f["name"] for f in choices["read"]] == list(READING)
    thousands = next(f for f in choices["read"] if f["name"] == "thousands")
    assert thousands["values"] == [",", ".", "'", " "]  # the field's rule, a select


def test_a_table_is_read_with_the_open_forms_options(client, origin, work, local):
    opened = client.get("/api/open", params={"path": str(work / "claims.csv"), **OPTIONS})
    assert opened.status_code == 200, opened.text
    view = opened.json()
    columns = {c["column"]: c for c in view["columns"]}
    assert columns["amount"]["type"].startswith("number") and columns["amount"]["missing"] == 1
    assert columns["day"]["type"].startswith("date") and columns["day"]["missing"] == 1
    assert columns["age"]["missing"] == 1 and columns["zip"]["type"].startswith("code")
    assert {name: view["form"][name] for name in OPTIONS} == OPTIONS
    form = dict(view["form"], input=view["input"], k=2)
    form["columns"]["amount"] |= {"role": "quasi-identifier", "hierarchy": "intervals:1000"}
    levels = client.post("/api/hierarchy", params={"column": "amount"}, json=form,
                         headers=origin)  # fmt: skip
    assert levels.status_code == 200, levels.text
    found = levels.json()
    assert found["levels"][0] >= 6 and ["1234.5"] == [r[0] for r in found["rows"] if "1234" in r[0]]
    started = client.post("/api/runs", json=form, headers=origin)
    assert started.status_code == 200, started.text
    assert wait(client, started.json()["id"])["state"] == "done"
    job = local.app.state.runs.get(started.json()["id"]).job
    assert (job.sep, job.decimal, job.thousands, job.date_format) == (";", ",", ".", "%d/%m/%Y")
    assert set(job.na_values) == {"NA", "unknown"}


def test_a_bad_reading_option_is_the_settings_one_line(client, work):
    answer = client.get("/api/open", params={"path": str(work / "claims.csv"), "decimal": ";"})
    assert answer.status_code == 400
    assert "decimal must be '.' or ','" in answer.json()["error"]


def test_a_job_file_opened_runs_with_all_its_settings(client, origin, work, local):
    view = client.get("/api/open", params={"path": str(work / "job.toml")}).json()
    assert {name: view["form"][name] for name in OPTIONS} == OPTIONS
    assert view["form"]["settings"] == {"csv_formulas": "refuse", "weights": {"age": 2.0}}
    form = dict(view["form"], input=view["input"])
    levels = client.post("/api/hierarchy", params={"column": "age"}, json=form, headers=origin)
    assert levels.status_code == 200, levels.text  # the NA in age read as missing
    started = client.post("/api/runs", json=form, headers=origin)
    assert started.status_code == 200, started.text
    status = wait(client, started.json()["id"])
    assert status["state"] == "done", status
    ran, given = local.app.state.runs.get(status["id"]).job, read_job(work / "job.toml")
    for name in Settings.names():
        if name not in ("hierarchy", "na_values"):
            assert getattr(ran, name) == getattr(given, name), name
    assert set(ran.na_values) == set(given.na_values)
    assert ran.hierarchy == given.hierarchy


def test_level_bounds_are_fields_of_a_quasi_identifiers_row(client, origin, work, local):
    (work / "bounded.toml").write_text(JOB + "\n[max_level]\nage = 1\n[min_level]\nzip = 1\n")
    view = client.get("/api/open", params={"path": str(work / "bounded.toml")}).json()
    rows = view["form"]["columns"]
    assert (rows["age"]["max_level"], rows["zip"]["min_level"], rows["age"]["min_level"]) == (
        "1", "1", "")  # fmt: skip
    form = dict(view["form"], input=view["input"])
    form["columns"]["day"] |= {"max_level": "1"}
    started = client.post("/api/runs", json=form, headers=origin)
    assert started.status_code == 200, started.text
    job = local.app.state.runs.get(started.json()["id"]).job
    assert dict(job.max_level) == {"age": 1, "day": 1} and dict(job.min_level) == {"zip": 1}
    wait(client, started.json()["id"])
    form["columns"]["age"]["max_level"] = "high"
    refused = client.post("/api/runs", json=form, headers=origin)
    assert refused.status_code == 400 and "age=high" in refused.json()["error"], refused.text


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda f: f["columns"]["age"].update(role="admin"), "'admin'"),
        (lambda f: f["columns"]["age"].update(type="banana"), "'banana'"),
        (lambda f: f["columns"]["age"].update(colour="red"), "'colour'"),
        (lambda f: f.update(zzz=1), "'zzz'"),
        (lambda f: f.update(qi="age"), "'qi'"),
        (lambda f: f.update(settings={"qi": ["age"]}), "'qi'"),
        (lambda f: f.update(settings={"banana": 1}), "'banana'"),
    ],
)  # fmt: skip
def test_the_run_api_refuses_what_the_page_never_sends(client, origin, work, local, change,
                                                       named):  # fmt: skip
    form = {"input": "claims.csv", "k": 2, "sep": ";",
            "columns": {"age": {"role": "quasi-identifier", "type": "auto"}}}  # fmt: skip
    change(form)
    answer = client.post("/api/runs", json=form, headers=origin)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error.startswith("error: the form") and named in error, error
    assert local.app.state.runs.runs == {}


@pytest.mark.parametrize("form", [{}, {"input": ""}, {"input": "  ", "k": 2}])
def test_no_input_table_is_refused_before_a_worker_starts(client, origin, local, form):
    answer = client.post("/api/runs", json=form, headers=origin)
    assert answer.status_code == 400
    assert answer.json()["error"] == "error: no input table given"
    assert local.app.state.runs.runs == {}


def test_a_blockwise_job_file_is_refused_at_run_not_run_in_one_piece(client, origin, work, local):
    (work / "blocks.toml").write_text(JOB.replace("k = 2\n", "k = 2\nblocks = 2\n"))
    view = client.get("/api/open", params={"path": str(work / "blocks.toml")}).json()
    assert view["form"]["settings"]["blocks"] == 2
    answer = client.post("/api/runs", json=dict(view["form"], input=view["input"]),
                         headers=origin)  # fmt: skip
    assert answer.status_code == 400 and "not blockwise" in answer.json()["error"]
    assert local.app.state.runs.runs == {}


#: Countries whose code NA (Namibia) is a value, and ages with a marker `unknown`.
COUNTRIES = "age,country\n" + "".join(
    f"{age},{country}\n" for age, country in zip(
        (34, 45, 36, 51, 47, 38, 52, 33, 41, 29), ("NA", "DE", "NA", "FR", "DE", "NA", "FR",
                                                  "DE", "NA", "FR"), strict=True)
)  # fmt: skip


def test_a_job_files_default_tokens_off_stay_off_in_the_app(client, origin, work, local):
    (work / "countries.csv").write_text(COUNTRIES, encoding="utf-8")
    (work / "off.toml").write_text('input = "countries.csv"\nna_values = [""]\nk = 2\n'
                                   '[columns]\nqi = ["age"]\ninsensitive = ["country"]\n'
                                   '[hierarchy]\nage = "intervals:10,20"\n')  # fmt: skip
    view = client.get("/api/open", params={"path": str(work / "off.toml")}).json()
    assert view["form"]["na_values"] == "''", view["form"]  # off, spelled as the CLI writes it
    assert {c["column"]: c["missing"] for c in view["columns"]}["country"] == 0
    started = client.post("/api/runs", json=dict(view["form"], input=view["input"]),
                          headers=origin)  # fmt: skip
    assert started.status_code == 200, started.text
    status = wait(client, started.json()["id"])
    assert status["state"] == "done", status
    run = local.app.state.runs.get(status["id"])
    assert run.job.na_values == ("",)
    assert (run.result["release"].table["country"] == "NA").sum() == 4
    # opened without it, the warning names the field's spelling of "off"
    plain = client.get("/api/open", params={"path": str(work / "countries.csv")}).json()
    assert any("missing tokens to '' keeps" in w for w in plain["warnings"]), plain["warnings"]
    # the Open form's field spelled so reads the table so too, with a token beside it
    again = client.get("/api/open", params={"path": str(work / "countries.csv"),
                                            "na_values": "'',unknown"}).json()  # fmt: skip
    assert again["form"]["na_values"] == "'',unknown"
    assert {c["column"]: c["missing"] for c in again["columns"]}["country"] == 0


def test_a_columns_marker_is_proposed_as_missing_in_the_form(client, origin, work, local):
    marked = COUNTRIES.replace("\n33,", "\nunknown,").replace("\n29,", "\nunknown,")
    (work / "marked.csv").write_text(marked, encoding="utf-8")
    view = client.get("/api/open", params={"path": str(work / "marked.csv")}).json()
    assert view["form"]["na_values"] == "unknown", view["form"]
    age = {c["column"]: c for c in view["columns"]}["age"]
    assert age["type"].startswith("number") and age["marker_cells"] == 2, age
    assert any("'unknown'" in w and "'age'" in w for w in view["warnings"]), view["warnings"]
    form = dict(view["form"], input=view["input"], k=2)
    form["columns"]["age"] |= {"role": "quasi-identifier", "hierarchy": "intervals:10,20"}
    form["columns"]["country"] |= {"role": "withheld"}
    started = client.post("/api/runs", json=form, headers=origin)
    assert started.status_code == 200, started.text
    status = wait(client, started.json()["id"])
    assert status["state"] == "done", status
    assert local.app.state.runs.get(status["id"]).job.na_values == ("unknown",)
