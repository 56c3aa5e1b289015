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


def upload_together(client, origin, files):
    """Upload ``files`` (name: bytes) into one upload folder, the one to open (a job file,
    or a table) last, as the page sends them; the view of that last file."""
    into, last = "", list(files)[-1]
    for name, body in files.items():
        params = {"name": name, "into": into, "open": "1" if name == last else "0"}
        answer = client.post("/api/upload", params=params, content=body, headers=origin)
        assert answer.status_code == 200, answer.text
        into = into or answer.json().get("into", "")
    return answer.json()


def finished_run(client, origin, view):
    """A run of the opened ``view``'s form with k = 2, waited for; its id."""
    form = dict(view["form"], input=view["input"], k=2)
    run = client.post("/api/runs", json=form, headers=origin).json()["id"]
    assert wait(client, run, lambda s: s["state"] != "running")["state"] == "done"
    return run


def save_as_r(client, origin, run, work):
    """Save ``run`` as ``r`` into ``work``; the answer."""
    return client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "r"},
                       headers=origin)  # fmt: skip


def run_and_save(client, origin, view, work):
    """Run the opened ``view``'s form with k = 2 and Save it as ``r``; the Save's answer."""
    return save_as_r(client, origin, finished_run(client, origin, view), work)


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
    look = status["look"]  # computed by the worker: figures side by side, the report's plots
    assert list(look["compare"]) == ["loss per attribute", "risk", "classes"]
    loss = {label: shown for label, shown, _ in look["compare"]["loss per attribute"]}
    assert set(loss) == {"NCP of age", "NCP of sex", "NCP, the whole table"}
    assert all(0 <= float(v) <= 1 for v in loss.values())
    risk = {label: shown for label, shown, _ in look["compare"]["risk"]}
    bound = float(risk["prosecutor bound, 1 / smallest class"])
    assert float(risk["prosecutor risk, highest"]) <= bound <= 0.5
    assert "records above the threshold 0.2" in risk
    classes = {label: shown for label, shown, _ in look["compare"]["classes"]}
    assert int(classes["classes"]) == status["figures"]["classes"]
    assert int(classes["smallest class"]) == status["figures"]["smallest"] >= 2
    plots = look["plots"]
    assert [d["column"] for d in plots["distributions"]] == ["age", "sex"]
    images = [d[side]["image"] for d in plots["distributions"] for side in ("before", "after")]
    images += [plots["risk"]["image"], plots["classes"]["image"]]
    assert all(i.startswith("data:image/svg+xml;base64,") for i in images)
    saved = save_as_r(client, origin, run, work)
    assert saved.status_code == 200, saved.text
    names = sorted(p.name for p in work.iterdir())
    assert names == ["r-report.html", "r.csv", "r.json", "r.toml", "t.csv"]
    # the report the worker built, named as saved: what incrowd report writes on the files
    assert (work / "r-report.html").read_bytes() == cli_report(table, work / "r.csv")
    before = {p.name: p.stat().st_mtime_ns for p in work.iterdir()}
    again = save_as_r(client, origin, run, work)
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
    # one Save of a run at a time: a second one, while the first goes, is refused
    worker = client.app.state.runs.get(run)
    with worker.saving:
        twice = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "d"},
                            headers=origin)  # fmt: skip
    assert twice.status_code == 400 and "being saved" in twice.json()["error"]
    assert {p.name: p.stat().st_mtime_ns for p in work.iterdir()} == before
    # the input changed since the run: refused, nothing written
    table.write_text(table.read_text() + "60,M,a\n")
    changed = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "c"},
                          headers=origin)  # fmt: skip
    assert changed.status_code == 400, changed.text
    assert changed.json()["error"] == (f"error: {table} changed since the run: run again to "
                                       "save a release of it as it is now")  # fmt: skip
    # the input gone: refused with the command line's one line, nothing written
    table.unlink()
    gone = client.post(f"/api/runs/{run}/save", json={"folder": str(work), "name": "c"},
                       headers=origin)  # fmt: skip
    assert gone.status_code == 400, gone.text
    assert gone.json()["error"] == f"error: No such file or directory: {table}"
    assert sorted(p.name for p in work.iterdir()) == ["r-report.html", "r.csv", "r.json",
                                                      "r.toml"]  # fmt: skip


def test_a_changed_hierarchy_file_refuses_the_save(client, origin, tmp_path):
    work = tmp_path / "work"
    (work / "t.csv").write_text("age,sex\n30,M\n31,F\n40,M\n41,F\n")
    (work / "sex.csv").write_text("M;*\nF;*\n")
    form = {"input": "t.csv", "k": 2, "columns": {
        "sex": {"role": "quasi-identifier", "hierarchy": "sex.csv"}}}  # fmt: skip
    response = client.post("/api/runs", json=form, headers=origin)
    assert response.status_code == 200, response.text
    run = response.json()["id"]
    assert wait(client, run, lambda s: s["state"] != "running")["state"] == "done"
    (work / "sex.csv").write_text("M;person\nF;person\n")
    changed = save_as_r(client, origin, run, work)
    assert changed.status_code == 400 and "sex.csv changed since the run" in changed.text
    assert sorted(p.name for p in work.iterdir()) == ["sex.csv", "t.csv"]


def test_an_uploaded_table_is_saved_beside_its_release(client, local, origin, tmp_path):
    import tomllib

    work = tmp_path / "work"
    body = b"age,sex\n30,M\n31,F\n40,M\n41,F\n"
    saved = run_and_save(client, origin, upload_together(client, origin, {"up.csv": body}), work)
    assert saved.status_code == 200, saved.text
    assert saved.json()["input"] == str(work / "r-input.csv")
    assert (work / "r-input.csv").read_bytes() == body
    job = tomllib.loads((work / "r.toml").read_text())
    assert (work / job["input"]).resolve() == work / "r-input.csv"
    local.close()  # the uploads go; the job file still runs
    from typer.testing import CliRunner

    from incrowd.cli.app import app as cli

    again = CliRunner().invoke(cli, ["anonymize", "--config", str(work / "r.toml"),
                                     "--out", str(work / "again.csv")])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert (work / "again.csv").read_bytes() == (work / "r.csv").read_bytes()


def test_a_release_that_cannot_be_written_leaves_nothing(client, local, origin, tmp_path,
                                                        monkeypatch):  # fmt: skip
    """The release, its report and job file are one group: a table that fails to write
    (inside the commit) changes nothing, not even an earlier report of the same name."""
    import incrowd.io.release_format as release_format

    work = tmp_path / "work"
    body = b"age,sex\n30,M\n31,F\n40,M\n41,F\n"
    run = finished_run(client, origin, upload_together(client, origin, {"up.csv": body}))
    first = save_as_r(client, origin, run, work)
    assert first.status_code == 200, first.text
    for name in ("r.csv", "r.json", "r.toml", "r-input.csv"):  # an earlier report stays
        (work / name).unlink()
    earlier = (work / "r-report.html").read_bytes()

    def fails(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(release_format.Hashing, "write", fails)  # the table's bytes, written
    saved = save_as_r(client, origin, run, work)
    assert saved.status_code == 400, saved.text
    assert "No space left on device" in saved.json()["error"]
    assert sorted(p.name for p in work.iterdir()) == ["r-report.html"]
    assert (work / "r-report.html").read_bytes() == earlier


def cli_report(table, release):
    """The bytes ``incrowd report TABLE RELEASE`` writes."""
    from typer.testing import CliRunner

    from incrowd.cli.app import app as cli

    out = release.parent.parent / f"{release.stem}-cli.html"
    made = CliRunner().invoke(cli, ["report", str(table), str(release), "--out", str(out)])
    assert out.is_file(), made.output
    return out.read_bytes()


def test_a_job_file_uploaded_with_its_table_and_hierarchy_is_saved_to_run_again(
    client, local, origin, tmp_path
):
    """A job file, its table and its hierarchy file, sent into one upload folder (the job
    file last, as the page sends them): opened as the job file says; Save copies the table
    and the hierarchy file beside the release, and the job file names the copies."""
    import tomllib

    work = tmp_path / "work"
    files = {"t.csv": b"age,sex\n30,M\n31,F\n40,M\n41,F\n",
             "sex_hierarchy.csv": b"M;person\nF;person\n",
             "job.toml": b'input = "t.csv"\n[columns]\nqi = ["age", "sex"]\n'
                         b'[hierarchy]\nsex = "sex_hierarchy.csv"\n'}  # fmt: skip
    view = upload_together(client, origin, files)
    assert view["form"]["columns"]["sex"]["role"] == "quasi-identifier"
    assert view["form"]["columns"]["sex"]["hierarchy"].endswith("sex_hierarchy.csv")
    saved = run_and_save(client, origin, view, work)
    assert saved.status_code == 200, saved.text
    assert saved.json()["hierarchies"] == [str(work / "r-sex_hierarchy.csv")]
    assert (work / "r-sex_hierarchy.csv").read_bytes() == files["sex_hierarchy.csv"]
    assert (work / "r-input.csv").read_bytes() == files["t.csv"]
    job = tomllib.loads((work / "r.toml").read_text())
    assert (work / job["hierarchy"]["sex"]).resolve() == work / "r-sex_hierarchy.csv"
    local.close()  # the uploads go; the job file still runs
    from typer.testing import CliRunner

    from incrowd.cli.app import app as cli

    again = CliRunner().invoke(cli, ["anonymize", "--config", str(work / "r.toml"),
                                     "--out", str(work / "again.csv")])  # fmt: skip
    assert again.exit_code == 0, again.output
    assert (work / "again.csv").read_bytes() == (work / "r.csv").read_bytes()


def test_the_progress_moves_within_a_counted_stage_and_never_back(tmp_path):
    from incrowd.ui.runs import STAGES, Run

    run = Run("x", None, tmp_path)  # type: ignore[arg-type]
    seen = []
    for stage in ("reading the input", "checking the data", "forming crowds (m)"):
        run.stages.append(stage)
        run.counted = None
        seen.append(run.status()["percent"])
    for done in (0, 30, 60, 100):
        run.counted = (done, 100)
        seen.append(run.status()["percent"])
        assert run.status()["counted"] == [done, 100]
    run.stages.append("publishing the generalized table")
    run.counted = None
    seen.append(run.status()["percent"])
    assert seen == sorted(seen) and len(set(seen)) >= 5, seen
    assert seen[2] == round(100 * 2 / STAGES) and seen[5] == round(100 * 2.6 / STAGES)
    run.state = "done"
    assert run.status()["percent"] == 100


def test_uploaded_files_that_would_be_saved_under_one_name_refuse_the_save(
    client, origin, tmp_path
):
    """A hierarchy file uploaded as input.csv would be saved as r-input.csv, the table's
    copy: Save refuses with one line (one of them would be lost), nothing written."""
    work = tmp_path / "work"
    files = {"t.csv": b"age,sex\n30,M\n31,F\n40,M\n41,F\n", "input.csv": b"M;*\nF;*\n",
             "job.toml": b'input = "t.csv"\n[columns]\nqi = ["age", "sex"]\n'
                         b'[hierarchy]\nsex = "input.csv"\n'}  # fmt: skip
    view = upload_together(client, origin, files)
    saved = run_and_save(client, origin, view, work)
    assert saved.status_code == 400, saved.text
    assert saved.json()["error"] == (
        "error: cannot save: input.csv and the uploaded t.csv would both be saved as "
        "r-input.csv; rename one of the uploaded files and upload it again"
    )
    assert list(work.iterdir()) == []
