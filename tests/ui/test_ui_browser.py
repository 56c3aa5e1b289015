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
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app as cli

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "src" / "incrowd" / "datasets" / "adult"
SCREENSHOTS = ROOT / "test-output" / "screenshots"


@pytest.fixture
def served(local):
    """The app serving on its loopback port in a thread."""
    thread = threading.Thread(target=local.serve, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not (local.server is not None and local.server.started):
        assert time.monotonic() < end, "the server did not start"
        time.sleep(0.05)
    yield local
    local.stop()
    thread.join(timeout=10)


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

        page.fill("#path", str(ADULT / "incrowd.toml"))
        clock = time.perf_counter()
        page.click("#open")
        page.wait_for_selector("#columns tbody tr >> nth=8")
        timings["open Adult, 30162 rows (ms)"] = 1000 * (time.perf_counter() - clock)
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
        page.locator("#run-step").screenshot(path=SCREENSHOTS / "ui-3-progress.png")
        page.wait_for_selector("body[data-run]", timeout=150_000)
        assert page.get_attribute("body", "data-run") == "done", page.inner_text("#run-step")
        assert page.inner_text("#percent").startswith("100 %")
        assert page.inner_text("#verdict") in ("holds", "warnings")
        frame = page.frame_locator("#report")
        assert "incrowd report" in frame.locator("h1").first.inner_text()
        page.locator("#result").scroll_into_view_if_needed()
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
        clock = time.perf_counter()
        rows.nth(0).locator("button.show").click()
        page.wait_for_selector("#compare tbody tr.shown[data-run] >> nth=0")
        timings["show an earlier run (ms)"] = 1000 * (time.perf_counter() - clock)

        page.fill("#save-folder", str(work))
        page.fill("#save-name", "adult-k5-l2")
        clock = time.perf_counter()
        page.click("#save")
        page.wait_for_selector("body[data-saved]", timeout=60_000)
        timings["save release, report, job file (ms)"] = 1000 * (time.perf_counter() - clock)
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
    again = tmp_path / "cli-report.html"
    made = runner.invoke(cli, ["report", str(ADULT / "adult.csv"), str(release),
                               "--out", str(again)])  # fmt: skip
    assert again.is_file(), made.output
    assert again.read_bytes() == report.read_bytes()

    from incrowd.pipeline.settings import Settings

    job = Settings.from_toml(work / "adult-k5-l2.toml")
    meta = json.loads((work / "adult-k5-l2.json").read_text())
    assert (job.k, job.l, job.method, job.seed) == (5, 2, "global-recoding", meta["seed"])
    assert job.sensitive == ("salary-class",) and "age" in job.numeric
    assert job.hierarchy["age"] == "intervals:5,10,20"
