import json
import subprocess
import sys

import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli import app
from incrowd.datasets import adult_hierarchy_path

runner = CliRunner()
QI_ARGS = ("--qi", "age,sex,zip", "--hierarchy", "zip=prefix",
           "--hierarchy", f"sex={adult_hierarchy_path('sex')}")  # fmt: skip


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def people(tmp_path):
    frame = pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(12)],
            "age": [23, 25, 31, 35, 36, 40, 41, 47, 52, 58, 60, 61],
            "sex": ["Male", "Female"] * 6,
            "zip": ["13053", "13068", "13053", "14850", "14853", "14850"] * 2,
            "disease": ["flu", "cold", "none", "flu", "cold", "none"] * 2,
        }
    )
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False, sep=";")
    return path


def assert_clean_failure(result, tmp_path, pattern):
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert pattern in lines[0], lines[0]
    assert "Traceback" not in result.output
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(("out", ".out"))]
    assert leftovers == []


def anonymize(path, tmp_path, *extra):
    return invoke("anonymize", path, "--out", tmp_path / "out.csv", *extra)


def test_round_trip_anonymize_verify_evaluate(people, tmp_path):
    result = anonymize(
        people, tmp_path, *QI_ARGS, "--sensitive", "disease", "--identifier", "name",
        "--k", "3", "--seed", "4",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "k achieved" in result.stdout and "wrote" in result.stdout
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert list(out.columns) == ["age", "sex", "zip", "disease"]
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["n_input"] == 12 and meta["k"] == 3 and meta["seed"] == 4
    ok = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "3")
    assert ok.exit_code == 0 and "OK" in ok.stdout
    too_much = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "7")
    assert too_much.exit_code == 1 and "FAILED" in too_much.stderr
    ev = invoke("evaluate", people, tmp_path / "out.csv", *QI_ARGS)
    assert ev.exit_code == 0 and "ncp" in ev.stdout


@pytest.mark.parametrize("form", ["microaggregated", "centers"])
def test_other_release_forms(people, tmp_path, form):
    result = anonymize(
        people,
        tmp_path,
        "--qi",
        "age,sex",
        "--sensitive",
        "disease",
        "--k",
        "4",
        "--release",
        form,
        "--param",
        "variant='single'",
    )
    assert result.exit_code == 0, result.output
    assert invoke("verify", tmp_path / "out.csv", "--qi", "age,sex", "--k", "4").exit_code == 0


def test_job_file_with_flags_overriding(people, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(
        f'input = "{people.name}"\nout = "out.csv"\nk = 2\nseed = 1\n'
        '[columns]\nqi = ["age", "zip"]\nidentifier = ["name"]\n'
        '[hierarchy]\nzip = "prefix"\n[params]\nvariant = "single"\n'
    )
    result = invoke("anonymize", "--config", job, "--k", "4")
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["k"] == 4 and meta["parameters"]["variant"] == "single"
    assert meta["withheld_columns"] == ["name", "sex", "disease"]


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (("--qi", "age,height", "--k", "2"), "unknown column 'height'"),
        (("--qi", "age,age", "--k", "2"), "listed twice"),
        (("--qi", "age", "--sensitive", "age", "--k", "2"), "both quasi-identifier and sensitive"),
        (("--qi", "age", "--k", "1"), "k must be at least 2"),
        (("--qi", "age", "--k", "0"), "k must be at least 2"),
        (("--qi", "age", "--k", "13"), "cannot hide 12 record(s)"),
        (("--qi", "sex", "--numeric", "sex", "--k", "2"), "row 1 holds the text 'Male'"),
        (("--qi", "zip", "--hierarchy", "zip=intervals:5,7", "--k", "2"), "not a multiple"),
        (
            ("--qi", "sex", "--hierarchy", f"sex={adult_hierarchy_path('race')}", "--k", "2"),
            "value 'Male' of column 'sex' (row 1) is not in its hierarchy",
        ),
        (("--qi", "age", "--k", "2", "--method", "magic"), "unknown method 'magic'"),
        (("--qi", "age", "--k", "2", "--param", "depth=3"), "does not take those parameters"),
        (("--qi", "age", "--k", "2", "--param", "oops"), "NAME=VALUE"),
        (("--qi", "age", "--k", "2", "--release", "poster"), "unknown release form 'poster'"),
        (("--qi", "age", "--k", "2", "--missing", "guess"), "missing must be"),
        (("--k", "2"), "no quasi-identifiers"),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(people, tmp_path, args, pattern):
    assert_clean_failure(anonymize(people, tmp_path, *args), tmp_path, pattern)


def test_missing_input_and_no_out(tmp_path):
    result = invoke(
        "anonymize", tmp_path / "nope.csv", "--qi", "a", "--k", "2", "--out", tmp_path / "out.csv"
    )
    assert_clean_failure(result, tmp_path, "input file not found")
    result = invoke("anonymize", tmp_path / "nope.csv", "--qi", "a", "--k", "2")
    assert_clean_failure(result, tmp_path, "missing --out")


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        ("", "is empty"),
        ("age,sex\n", "has no rows"),
        ("age,age\n1,2\n3,4\n", "two columns are named 'age'"),
    ],
)
def test_empty_and_duplicate_tables(tmp_path, content, pattern):
    path = tmp_path / "in.csv"
    path.write_text(content)
    assert_clean_failure(anonymize(path, tmp_path, "--qi", "age", "--k", "2"), tmp_path, pattern)


def test_numbers_with_some_text_name_row_and_value(tmp_path):
    ages = [str(20 + i) for i in range(30)]
    ages[17] = "unknown"
    path = tmp_path / "in.csv"
    pd.DataFrame({"age": ages}).to_csv(path, index=False)
    result = anonymize(path, tmp_path, "--qi", "age", "--k", "2")
    assert_clean_failure(result, tmp_path, "e.g. 'unknown' in row 18")
    assert "categorical" in result.stderr
    fixed = anonymize(path, tmp_path, "--qi", "age", "--k", "2", "--categorical", "age")
    assert fixed.exit_code == 0, fixed.output


def test_missing_values_explain_the_options(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("age,sex\n30,F\n,M\n31,\n32,F\n33,M\n34,F\n")
    result = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2")
    assert_clean_failure(result, tmp_path, "column 'age' has 1 missing value(s) (first in row 2)")
    assert "--missing drop" in result.stderr and "--missing category" in result.stderr
    dropped = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2", "--missing", "drop")
    assert dropped.exit_code == 0, dropped.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert (meta["n_input"], meta["n_released"], meta["n_suppressed"]) == (6, 4, 2)
    assert invoke("verify", tmp_path / "out.csv", "--qi", "age,sex", "--k", "2").exit_code == 0
    numeric = anonymize(path, tmp_path, "--qi", "age,sex", "--k", "2", "--missing", "category")
    assert numeric.exit_code == 2 and "numeric column 'age'" in numeric.stderr
    as_label = anonymize(path, tmp_path, "--qi", "sex", "--k", "2", "--missing", "category")
    assert as_label.exit_code == 0, as_label.output


def test_malformed_hierarchy_file(people, tmp_path):
    bad = tmp_path / "h.csv"
    bad.write_text("13053;1305*;*\n13068;1306*\n")
    result = anonymize(people, tmp_path, "--qi", "zip", "--hierarchy", f"zip={bad}", "--k", "2")
    assert_clean_failure(result, tmp_path, "row 2 has 2 cells but row 1 has 3")


def test_verify_bad_input_and_methods(tmp_path):
    result = invoke("verify", tmp_path / "none.csv", "--qi", "a", "--k", "2")
    assert result.exit_code == 2 and "not found" in result.stderr
    listing = invoke("methods")
    assert listing.exit_code == 0 and "mdav" in listing.stdout and "exact" in listing.stdout


def test_console_script_runs(people, tmp_path):
    exe = [sys.executable, "-m", "incrowd.cli"]
    ok = subprocess.run(
        exe
        + [
            "anonymize",
            str(people),
            "--qi",
            "age,sex",
            "--k",
            "3",
            "--out",
            str(tmp_path / "out.csv"),
        ],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(
        exe
        + ["anonymize", str(people), "--qi", "age", "--k", "1", "--out", str(tmp_path / "o2.csv")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert not (tmp_path / "o2.csv").exists()


def test_gather_methods_from_the_command_line(people, tmp_path):
    result = anonymize(people, tmp_path, "--qi", "age,sex", "--k", "3", "--method",
                       "kr-center-outliers", "--epsilon", "0.2", "--max-clusters", "3",
                       "--norm", "1", "--release", "centers")  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["parameters"]["k_max"] == 3 and meta["parameters"]["epsilon"] == 0.2
    assert meta["parameters"]["norm"] == 1 and meta["guarantee"] == 4.0
    assert meta["lower_bound"] > 0 and "certified ratio" in result.stdout
    assert meta["n_suppressed"] <= 2
    assert invoke("verify", tmp_path / "out.csv", "--qi", "age,sex", "--k", "3").exit_code == 0


def test_epsilon_for_a_method_without_outliers(people, tmp_path):
    bad = anonymize(people, tmp_path, "--qi", "age", "--k", "3", "--method", "r-gather",
                    "--epsilon", "0.1")  # fmt: skip
    assert_clean_failure(bad, tmp_path, "does not take those parameters")


def test_forest_with_sets_weights_and_deletion(people, tmp_path):
    result = anonymize(
        people, tmp_path, *QI_ARGS, "--sensitive", "disease", "--k", "3", "--seed", "2",
        "--method", "forest", "--generalize", "sets", "--weights", "zip=3,age=0.5",
        "--allow-deletion",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["generalize"] == "sets" and meta["method"] == "forest"
    assert meta["parameters"]["allow_deletion"] is True
    assert meta["n_released"] + meta["n_suppressed"] == 12
    assert meta["certified_ratio"] >= 1.0 and meta["guarantee"] == 5.0
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert len(out) == meta["n_released"]
    check = invoke("verify", tmp_path / "out.csv", "--qi", "age,sex,zip", "--k", "3")
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (("--weights", "age=-1"), "weight of 'age' must be a positive number"),
        (("--weights", "disease=2"), "not a quasi-identifier"),
        (("--weights", "age"), "NAME=VALUE"),
        (("--generalize", "bags"), "generalize must be 'levels' or 'sets'"),
        (("--generalize", "sets", "--release", "centers"), "value sets"),
    ],
)
def test_forest_options_bad_input(people, tmp_path, args, pattern):
    result = anonymize(people, tmp_path, *QI_ARGS, "--k", "3", "--method", "forest", *args)
    assert_clean_failure(result, tmp_path, pattern)


def test_job_file_weights_and_generalize(people, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(
        f'input = "{people.name}"\nout = "out.csv"\nk = 3\nmethod = "forest"\n'
        'generalize = "sets"\n[columns]\nqi = ["age", "sex"]\n[weights]\nsex = 4\n'
    )
    result = invoke("anonymize", "--config", job)
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["generalize"] == "sets"
    out = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert not out["sex"].str.startswith("{").any()  # sex weighs 4: crowds keep it exact


@pytest.mark.parametrize(
    ("method", "k", "extra"),
    [("2-microaggregation", "2", ("--release", "microaggregated")),
     ("2-anonymity", "2", ()), ("3-anonymity", "3", ())],
)  # fmt: skip
def test_factor_methods_from_the_command_line(people, tmp_path, method, k, extra):
    result = anonymize(people, tmp_path, *QI_ARGS, "--k", k, "--method", method, *extra)
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / "out.json").read_text())
    assert meta["k_achieved"] >= int(k) and meta["certified_ratio"] >= 1.0


def test_factor_method_with_the_wrong_k(people, tmp_path):
    result = anonymize(people, tmp_path, *QI_ARGS, "--k", "4", "--method", "3-anonymity")
    assert_clean_failure(result, tmp_path, "k must be 3")
