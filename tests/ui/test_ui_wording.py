"""The page's warnings name the page's own controls (a column's role, type, hierarchy and
level bounds, the Open form's reading options, the model form), never a command-line flag;
a setting the page has no control for is named as the job file's line."""

from __future__ import annotations

import time

import pytest

from incrowd.errors import option


@pytest.mark.parametrize(
    ("marked", "shown"),
    [
        (option("code", ["zip"]), "set the type of 'zip' to code"),
        (option("numeric", ["n"]), "set the type of 'n' to number"),
        (option("qi", ["a", "b"]), "set the role of 'a', 'b' to quasi-identifier"),
        (option("sensitive"), "the role 'sensitive'"),
        (option("hierarchies", {"age": ...}), "set the hierarchy of 'age'"),
        (option("encoding", ...), "set the Open form's encoding"),
        (option("encoding", "latin-1"), "set the Open form's encoding to 'latin-1'"),
        (option("thousands"), "the Open form's thousands mark"),
        (option("date_format", "%m/%d/%Y"), "set the Open form's date format to '%m/%d/%Y'"),
        (option("na_values"), "the Open form's missing tokens"),
        (option("l", 2), "l = 2"),
        (option("k", 5), "k = 5"),
        (option("suppression_limit"), "the suppression limit"),
        (option("missing", "drop"), 'missing = "drop" in a job file'),
        (option("weights"), "weights in a job file"),
    ],
)  # fmt: skip
def test_a_setting_is_named_by_the_pages_control(marked, shown):
    from incrowd.ui.wording import app_text

    assert app_text(f"({marked})") == f"({shown})"


def test_the_level_bounds_are_named_by_their_fields():
    try:
        marked = option("max_level", {"age": 1})
    except KeyError:  # pragma: no cover - FLAGS without the bounds
        pytest.skip("max_level is not a setting yet")
    from incrowd.errors import cli_text
    from incrowd.ui.wording import app_text, app_words

    assert app_text(marked) == "set the max level of 'age' to 1"
    open_bound = option("max_level", {"age": ...})
    assert app_text(f"{open_bound} bounds it") == "the max level of 'age' bounds it"
    # the report's lines come worded for the command line: named again by the page's fields
    assert app_words(f"{cli_text(open_bound)} bounds it") == "the max level of 'age' bounds it"
    assert app_words("--min-level zip=2.") == "set the min level of 'zip' to 2."


def test_an_opened_tables_warnings_name_the_pages_controls(client, tmp_path):
    table = tmp_path / "work" / "refs.csv"
    rows = [f"{10000 + 37 * i},{'MF'[i % 2]}" for i in range(40)]  # 5-digit integers, 40 kinds
    table.write_bytes(("ref,sex\n" + "\n".join(rows) + "\nJosé,M\n").encode("latin-1"))
    view = client.get("/api/open", params={"path": str(table)}).json()
    shown = " ".join(view["warnings"])
    assert "set the Open form's encoding to 'latin-1'" in shown, shown
    table.write_text("ref,sex\n" + "\n".join(rows) + "\n")
    view = client.get("/api/open", params={"path": str(table)}).json()
    (warning,) = [w for w in view["warnings"] if "'ref'" in w]
    assert "set the type of 'ref' to code if they are codes" in warning
    assert "--" not in " ".join(view["warnings"]) + " ".join(
        w for c in view["columns"] for w in c["warnings"])  # fmt: skip


def test_a_runs_warnings_name_the_pages_controls(client, origin, tmp_path):
    (tmp_path / "work" / "t.csv").write_text(
        "age,sex,salary\n30,M,a\n31,M,a\n40,F,b\n41,F,b\n50,M,a\n51,M,b\n"
    )
    form = {"input": "t.csv", "k": 2, "method": "global-recoding", "columns": {
        "age": {"role": "quasi-identifier", "type": "number", "hierarchy": "intervals:2,10"},
        "sex": {"role": "quasi-identifier"}, "salary": {"role": "sensitive"}}}  # fmt: skip
    run = client.post("/api/runs", json=form, headers=origin).json()["id"]
    end = time.monotonic() + 180
    while (status := client.get(f"/api/runs/{run}").json())["state"] == "running":
        assert time.monotonic() < end
        time.sleep(0.2)
    assert status["state"] == "done", status
    (homogeneous,) = [w for w in status["warnings"] if "single value" in w]
    assert "publish with l = 2 to make every class hold at least 2 values" in homogeneous
    assert not any("--" in w for w in status["warnings"]), status["warnings"]
