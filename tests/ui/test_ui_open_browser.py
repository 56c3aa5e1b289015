"""Opening a table in headless Chromium: upload a small CSV through the file input, pick a
hierarchy from a column's list and preview its levels; open the demo Adult table by its path
and pick its ARX file for sex; an upload over the cap shows the server's one line and writes
nothing.

The screenshot goes to ``test-output/screenshots/ui-upload.png``, the page's response times
(page load, opening Adult, a hierarchy's preview) to ``test-output/ui-open-timings.json``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "src" / "incrowd" / "datasets" / "adult"
SCREENSHOTS = ROOT / "test-output" / "screenshots"
#: The upload cap of this test's app (bytes): the small table fits, a larger one does not.
CAP = 4000


@pytest.fixture
def local(tmp_path):
    """The app with uploads capped at :data:`CAP` (``served`` of conftest.py serves it)."""
    from incrowd.ui.server import LocalApp

    (tmp_path / "work").mkdir()
    app = LocalApp([tmp_path / "work"], max_upload=CAP)
    yield app
    app.close()


def _ms(clock: float) -> float:
    return round(1000 * (time.perf_counter() - clock), 1)


def test_upload_pick_a_hierarchy_and_open_adult_in_chromium(browser, served, tmp_path):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    small = tmp_path / "people.csv"
    lines = [f"{20 + (7 * i) % 60},{10000 + i % 13},{'MF'[i % 2]}" for i in range(150)]
    small.write_text("age,zip,sex\n" + "\n".join(lines) + "\n")
    assert small.stat().st_size < CAP
    timings: dict[str, float] = {}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        clock = time.perf_counter()
        page.goto(served.url)
        page.wait_for_selector("body[data-ready]")
        timings["page load (ms)"] = _ms(clock)

        clock = time.perf_counter()
        page.set_input_files("#upload", small)
        page.wait_for_selector("#columns tbody tr >> nth=2")
        timings["upload and open a 150-row CSV (ms)"] = _ms(clock)
        assert "150 rows, 3 columns" in page.inner_text("#table-title")
        (stored,) = [p for p in served.uploads.rglob("*") if p.is_file()]
        assert page.input_value("#path") == str(stored)

        # age: the list offers intervals built from its values; picking one fills the field
        age = page.locator("#columns tr[data-column='age']")
        pick = age.locator("select[name=hierarchy-choice]")
        labels = pick.locator("option").all_inner_texts()
        built = next(label for label in labels if label.endswith("(from the data)"))
        pick.select_option(label=built)
        spec = age.locator("input[name=hierarchy]").input_value()
        assert built == f"{spec} (from the data)" and spec.startswith("intervals:")
        assert not any(label.startswith("prefix") for label in labels)  # not for a number
        clock = time.perf_counter()
        age.locator("button.levels").click()
        page.wait_for_selector("#hierarchy-preview table")
        timings["preview the uploaded age's levels (ms)"] = _ms(clock)
        assert "levels above the values" in page.inner_text("#hierarchy-preview")
        page.screenshot(path=SCREENSHOTS / "ui-upload.png", full_page=True)

        # the demo Adult table by its path: sex's own ARX file is offered first
        page.fill("#path", str(ADULT / "adult.csv"))
        clock = time.perf_counter()
        page.click("#open")
        page.wait_for_selector("#table-title:has-text('30162 rows')")
        timings["open Adult, 30162 rows (ms)"] = _ms(clock)
        sex = page.locator("#columns tr[data-column='sex']")
        options = sex.locator("select[name=hierarchy-choice] option")
        files = [t for t in options.all_inner_texts() if t.startswith("file: ")]
        assert files[0] == "file: adult_hierarchy_sex.csv" and len(files) == 9
        sex.locator("select[name=hierarchy-choice]").select_option("adult_hierarchy_sex.csv")
        clock = time.perf_counter()
        sex.locator("button.levels").click()
        page.wait_for_selector("#hierarchy-preview:has-text('sex:') table")
        timings["preview Adult's sex hierarchy (ms)"] = _ms(clock)
        assert "Male" in page.inner_text("#hierarchy-preview")

        # over the cap: refused by the page at once, and by the server when the page's own
        # check is lifted; nothing is written
        big = tmp_path / "big.csv"
        big.write_text("a\n" + "1\n" * CAP)
        page.set_input_files("#upload", big)
        page.wait_for_selector("#open-error:not([hidden])")
        assert "larger than" in page.inner_text("#open-error")
        page.eval_on_selector("#upload", "e => { e.dataset.max = '1e12'; }")
        with page.expect_response("**/api/upload?*") as answer:
            page.set_input_files("#upload", big)
        assert answer.value.status == 413
        page.wait_for_selector("#open-error:has-text('the most this app accepts')")
        assert [p for p in served.uploads.rglob("*") if p.is_file()] == [stored]
    finally:
        page.close()
    (ROOT / "test-output" / "ui-open-timings.json").write_text(json.dumps(timings, indent=2) + "\n")
