"""Runs of the local app on a worker process: progress, a failed run's one line, a cancel
that leaves no file."""

from __future__ import annotations

import time
from pathlib import Path

ADULT = Path(__file__).resolve().parents[2] / "src" / "incrowd" / "datasets" / "adult"


def start(client, origin, path, **model):
    view = client.get("/api/open", params={"path": str(path)}).json()
    form = dict(view["form"], input=view["input"], **model)
    response = client.post("/api/runs", json=form, headers=origin)
    assert response.status_code == 200, response.text
    return response.json()["id"]


def wait(client, run, until, timeout=120.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status = client.get(f"/api/runs/{run}").json()
        if until(status):
            return status
        time.sleep(0.2)
    raise AssertionError(f"timed out: {status}")


def test_a_cancelled_run_leaves_no_file(client, local, origin, tmp_path):
    run = start(client, origin, ADULT / "incrowd.toml", k=5)  # local recoding: many seconds
    status = wait(client, run, lambda s: "forming crowds" in s["stage"] or s["state"] != "running")
    assert status["state"] == "running", status
    worker = local.app.state.runs.get(run)
    cancelled = client.post(f"/api/runs/{run}/cancel", headers=origin).json()
    assert cancelled["state"] == "cancelled"
    assert not worker.process.is_alive()
    wait(client, run, lambda s: not worker.folder.exists(), timeout=10)
    assert list((tmp_path / "work").iterdir()) == []
    refused = client.post(f"/api/runs/{run}/save", json={"folder": str(tmp_path / "work"),
                          "name": "x"}, headers=origin)  # fmt: skip
    assert refused.status_code == 403
    assert list((tmp_path / "work").iterdir()) == []


def test_a_failed_run_shows_the_command_lines_line(client, origin, tmp_path):
    table = tmp_path / "work" / "t.csv"
    table.write_text("age,sex\n30,M\n40,F\n50,M\n")
    view_form = {"input": str(table), "k": 2, "columns": {
        "age": {"role": "quasi-identifier", "hierarchy": "missing-file.csv"}}}  # fmt: skip
    response = client.post("/api/runs", json=view_form, headers=origin)
    assert response.status_code == 200
    status = wait(client, response.json()["id"], lambda s: s["state"] != "running")
    assert status["state"] == "failed"
    assert status["error"].startswith("error: ") and "missing-file.csv" in status["error"]
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["t.csv"]


def test_saving_follows_the_command_lines_overwrite_policy(client, origin, tmp_path):
    work = tmp_path / "work"
    table = work / "t.csv"
    table.write_text("age,sex,salary\n30,M,a\n31,F,b\n40,M,a\n41,F,b\n50,M,a\n51,F,b\n")
    run = start(client, origin, table, k=2)
    status = wait(client, run, lambda s: s["state"] != "running")
    assert status["state"] == "done", status
    assert status["figures"]["k"] == 2 and status["verdict"] in ("holds", "warnings")
    saved = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "r"},
                        headers=origin)  # fmt: skip
    assert saved.status_code == 200, saved.text
    names = sorted(p.name for p in work.iterdir())
    assert names == ["r-report.html", "r.csv", "r.json", "r.toml", "t.csv"]
    before = {p.name: p.stat().st_mtime_ns for p in work.iterdir()}
    again = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "r"},
                        headers=origin)  # fmt: skip
    assert again.status_code == 400
    assert "r.toml exists; incrowd never overwrites a file" in again.json()["error"]
    assert {p.name: p.stat().st_mtime_ns for p in work.iterdir()} == before  # nothing written
    onto_input = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "t"},
                             headers=origin)  # fmt: skip
    assert onto_input.status_code == 400 and "input of this run" in onto_input.json()["error"]
    demo = client.post(f"/api/runs/{run}/save", json={"folder": str(ADULT), "name": "x"},
                       headers=origin)  # fmt: skip
    assert demo.status_code == 403
    hidden = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "../x"},
                         headers=origin)  # fmt: skip
    assert hidden.status_code == 403
