"""The local app end to end in headless Chromium: open the demo Adult job file (the seven
label columns with their hierarchies), set age as a number with intervals and look at their
levels, set k = 5 and l = 2 on salary-class, run (global recoding: the fastest method on
Adult, ~10-25 s here), watch the progress, read the verdict and the report, run again with
k = 10 and compare the two, save the first; then the saved release passes
``incrowd verify`` and the saved report is byte-identical to what ``incrowd report`` writes.

Screenshots of each step go to ``test-output/screenshots/ui-*.png``; the page's response
times to ``test-output/ui-timings.json``.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from typer.testing import CliRunner

from incrowd.cli.app import app as cli

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "src" / "incrowd" / "datasets" / "adult"
SCREENSHOTS = ROOT / "test-output" / "screenshots"


def _measured(page, name: str) -> float:
    """The page's own last measure ``name`` (ms): from the click's handler to the result
    shown, without the test driver's round trips."""
    return page.evaluate(f"performance.getEntriesByName({name!r}).at(-1).duration")


def test_open_set_run_save_in_chromium(browser, served, tmp_path):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    work = tmp_path / "work"
    timings: dict[str, float] = {}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        clock = time.perf_counter()
        page.goto(served.url)
        page.wait_for_selector("body[data-ready]")  # the methods and forms are loaded
        timings["page load (ms)"] = 1000 * (time.perf_counter() - clock)
        # the same, from the browser's own clock: from the navigation's start to a usable page
        # (without the test driver's round trips and the browser starting a renderer)
        timings["page load, the browser's navigation timing (ms)"] = page.evaluate(
            "performance.getEntriesByName('ready')[0].startTime"
        )

        page.fill("#path", str(ADULT / "incrowd.toml"))
        clock = time.perf_counter()
        page.click("#open")
        page.wait_for_selector("#columns tbody tr >> nth=8")
        timings["open Adult, 30162 rows (ms)"] = 1000 * (time.perf_counter() - clock)
        timings["open Adult, the browser's own timing (ms)"] = _measured(page, "opened")
        assert "30162 rows, 9 columns" in page.inner_text("#table-title")
        row = page.locator("#columns tr[data-column='salary-class']")
        assert row.locator("select[name=role]").input_value() == "sensitive"
        age = page.locator("#columns tr[data-column='age']")
        clock = time.perf_counter()
        age.locator("select[name=type]").select_option("number")
        timings["set a column's type (ms)"] = 1000 * (time.perf_counter() - clock)
        age.locator("input[name=hierarchy]").fill("intervals:5,10,20")
        clock = time.perf_counter()
        age.locator("button.levels").click()
        page.wait_for_selector("#hierarchy-preview table")
        timings["preview a hierarchy's levels (ms)"] = 1000 * (time.perf_counter() - clock)
        timings["preview, the browser's own timing (ms)"] = _measured(page, "levels")
        assert "15-19" in page.inner_text("#hierarchy-preview")
        page.screenshot(path=SCREENSHOTS / "ui-1-open.png", full_page=True)

        page.fill("#k", "5")
        page.fill("#l", "2")
        page.select_option("#method", "global-recoding")
        page.locator("#model-step").screenshot(path=SCREENSHOTS / "ui-2-model.png")
        clock = time.perf_counter()
        page.click("#run")
        page.wait_for_selector("#run-step:not([hidden])")
        timings["start a run (ms)"] = 1000 * (time.perf_counter() - clock)
        page.wait_for_selector("#stage:has-text('forming crowds')", timeout=60_000)
        # the method counts its own work (global recoding: the lattice's nodes) and the page
        # shows it moving within the stage: two different counts seen
        seen: set[str] = set()
        end = time.monotonic() + 120
        while (
            len(seen) < 2 and time.monotonic() < end and not page.query_selector("body[data-run]")
        ):
            text = page.inner_text("#stage")
            if re.search(r"forming crowds.*, \d+ of \d+$", text):
                seen.add(text)
            time.sleep(0.2)
        assert len(seen) >= 2, seen
        page.locator("#run-step").screenshot(path=SCREENSHOTS / "ui-3-progress.png")
        page.wait_for_selector("body[data-run]", timeout=150_000)
        assert page.get_attribute("body", "data-run") == "done", page.inner_text("#run-step")
        assert page.inner_text("#percent").startswith("100 %")
        assert page.inner_text("#verdict") in ("holds", "warnings")
        assert "--" not in page.inner_text("#run-warnings")  # the page's controls, not flags
        frame = page.frame_locator("#report")
        assert "incrowd report" in frame.locator("h1").first.inner_text()
        # the report's own plots in the page: each of the 8 quasi-identifiers before and after,
        # the risk and the class sizes, drawn (not broken images)
        assert page.locator("#distributions figure").count() == 16
        assert page.locator("#risk-plots figure").count() == 2
        drawn = page.eval_on_selector_all(
            "#look img", "images => images.map(i => i.complete && i.naturalWidth > 0)"
        )
        assert len(drawn) == 18 and all(drawn)
        assert "age as published" in page.inner_text("#distributions")
        page.locator("#look").screenshot(path=SCREENSHOTS / "ui-look.png")
        page.eval_on_selector("#run-step", "step => step.scrollIntoView()")  # the verdict on top
        page.wait_for_timeout(500)  # the framed report painted
        page.screenshot(path=SCREENSHOTS / "ui-4-result.png")
        report_page = browser.new_page(viewport={"width": 1280, "height": 900})
        report_page.context.add_cookies(page.context.cookies())
        report_page.goto(served.url.split("/?")[0] + page.get_attribute("#report-link", "href"))
        report_page.screenshot(path=SCREENSHOTS / "ui-5-report.png")
        report_page.close()

        # a second run with k = 10, compared with the first; the first is saved
        page.fill("#k", "10")
        clock = time.perf_counter()
        page.click("#run")
        page.wait_for_selector("#compare tbody tr >> nth=1", timeout=150_000)
        timings["second run, k = 10, global recoding (s)"] = time.perf_counter() - clock
        assert page.get_attribute("body", "data-run") == "done"
        rows = page.locator("#compare tbody tr")
        assert rows.nth(0).locator("td").nth(0).inner_text() == "5"
        assert rows.nth(1).locator("td").nth(0).inner_text() == "10"
        page.locator("#compare-step").screenshot(path=SCREENSHOTS / "ui-6-compare.png")
        detail = page.locator("#compare-detail")
        heads = detail.locator("thead th")
        assert heads.count() == 3 and "k = 10" in heads.nth(2).inner_text()

        def measure(name):
            cells = detail.locator(f"tr[data-measure='{name}'] td")
            return [cells.nth(i).inner_text() for i in range(cells.count())]

        for group in ("loss per attribute", "risk", "classes"):
            assert detail.locator("tr.group th", has_text=group).count() == 1
        qis = ("age", "sex", "race", "marital-status", "education", "native-country",
               "workclass", "occupation")  # fmt: skip
        for name in qis:
            assert all(float(v) >= 0 for v in measure(f"NCP of {name}")), name
        smallest = [int(v.replace(",", "")) for v in measure("smallest class")]
        assert smallest[0] >= 5 and smallest[1] >= 10
        classes = [int(v.replace(",", "")) for v in measure("classes")]
        assert classes == [int(rows.nth(i).locator("td").nth(6).inner_text()) for i in (0, 1)]
        assert classes[1] <= classes[0]
        assert len(measure("records above the threshold 0.2")) == 2
        assert detail.locator("tr[data-measure='classes by size'] img").count() == 2
        detail.screenshot(path=SCREENSHOTS / "ui-compare.png")
        clock = time.perf_counter()
        rows.nth(0).locator("button.show").click()
        page.wait_for_selector("#compare tbody tr.shown[data-run] >> nth=0")
        timings["show an earlier run (ms)"] = 1000 * (time.perf_counter() - clock)
        # its report loaded in the frame, before Save is timed (the browser's drawing of it
        # would be counted too, on 2 cores)
        page.frame_locator("#report").locator("h1").first.wait_for(state="attached")
        page.wait_for_load_state("load")

        page.fill("#save-folder", str(work))
        page.fill("#save-name", "adult-k5-l2")
        clock = time.perf_counter()
        with page.expect_response("**/save") as answered:
            page.click("#save")
        page.wait_for_selector("body[data-saved]", timeout=60_000)
        timings["save release, report, job file (ms)"] = 1000 * (time.perf_counter() - clock)
        timings["save, the server's part (ms)"] = 1000 * answered.value.json()["seconds"]
        # the report was built while the user looked: Save writes bytes (3.5-4.5 s when it
        # built the report on the saved files; the target is 300 ms, on a quiet machine).
        # Recorded in test-output/ui-timings.json, not judged: only a generous bound here
        assert timings["save release, report, job file (ms)"] < 10_000, timings
        page.locator("#save-step").screenshot(path=SCREENSHOTS / "ui-7-saved.png")
    finally:
        page.close()
    (ROOT / "test-output" / "ui-timings.json").write_text(
        json.dumps({k: round(v, 1) for k, v in timings.items()}, indent=2) + "\n"
    )

    release, report = work / "adult-k5-l2.csv", work / "adult-k5-l2-report.html"
    assert sorted(p.name for p in work.iterdir()) == [
        "adult-k5-l2-report.html",
        "adult-k5-l2.csv",
        "adult-k5-l2.json",
        "adult-k5-l2.toml",
    ]
    runner = CliRunner()
    checked = runner.invoke(cli, ["verify", str(release), "--l", "2"])
    assert checked.exit_code == 0, checked.output
    # the saved report is what `incrowd report` writes, with the saved job file and without
    for n, config in enumerate(([], ["--config", str(work / "adult-k5-l2.toml")])):
        again = tmp_path / f"cli-report-{n}.html"
        made = runner.invoke(cli, ["report", str(ADULT / "adult.csv"), str(release),
                                   "--out", str(again), *config])  # fmt: skip
        assert again.is_file(), made.output
        assert again.read_bytes() == report.read_bytes(), config

    from incrowd.pipeline.settings import Settings

    job = Settings.from_toml(work / "adult-k5-l2.toml")
    meta = json.loads((work / "adult-k5-l2.json").read_text())
    assert (job.k, job.l, job.method, job.seed) == (5, 2, "global-recoding", meta["seed"])
    assert job.sensitive == ("salary-class",) and "age" in job.numeric
    assert job.hierarchy["age"] == "intervals:5,10,20"


def test_cancel_in_chromium_leaves_no_file(browser, served, tmp_path):
    """Cancel pressed in the page mid-run (local recoding on Adult: a minute or more, not
    waited for): the page says so, the run's temporary folder is gone and the folder the
    user saves into is unchanged."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    work = tmp_path / "work"
    (work / "kept.txt").write_text("the user's own file\n")
    before = {p.name: p.stat().st_mtime_ns for p in work.iterdir()}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(served.url)
        page.wait_for_selector("body[data-ready]")
        page.fill("#path", str(ADULT / "incrowd.toml"))
        page.click("#open")
        page.wait_for_selector("#columns tbody tr >> nth=8")
        page.fill("#k", "5")
        page.select_option("#method", "local-recoding")
        page.click("#run")
        page.wait_for_selector("#stage:has-text('forming crowds')", timeout=60_000)
        (run,) = served.app.state.runs.runs.values()
        assert run.state == "running" and run.folder.is_dir()
        clock = time.perf_counter()
        page.click("#cancel")
        page.wait_for_selector("body[data-run]", timeout=20_000)
        seconds = time.perf_counter() - clock
        assert page.get_attribute("body", "data-run") == "cancelled"
        assert page.inner_text("#stage") == "cancelled: nothing was written"
        assert page.is_hidden("#result") and page.is_hidden("#save-step")
        assert page.is_enabled("#run") and page.is_disabled("#cancel")
        page.locator("#run-step").screenshot(path=SCREENSHOTS / "ui-cancelled.png")
    finally:
        page.close()
    assert seconds < 10
    assert run.state == "cancelled" and not run.process.is_alive()
    assert not run.folder.exists()
    assert {p.name: p.stat().st_mtime_ns for p in work.iterdir()} == before
