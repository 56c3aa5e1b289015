"""A steward's own extract opened in headless Chromium through the Open form's reading
options — `;`-separated, `1.234,50` amounts, dd/mm/yyyy dates, `NA` and `unknown` for
missing — then a maximum level set for the admission date, a run with global recoding and
a Save: the release publishes no date above its month, and the saved job file carries the
reading options and the bound.

Screenshots go to ``test-output/screenshots/ui-read-*.png``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pandas as pd

from incrowd.pipeline.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-output" / "screenshots"


def claims(n: int = 60, seed: int = 3) -> str:
    """A claims extract: `;`, amounts like 2.378,77, dd/mm/yyyy admission dates in four
    months, NA and unknown where a value is missing."""
    rng = random.Random(seed)
    lines = ["age;amount;admitted;zip;diagnosis"]
    for i in range(n):
        age = "NA" if i % 17 == 5 else str(rng.randint(20, 79))
        euros, cents = f"{rng.randint(1, 4)}.{rng.randint(0, 999):03d}", rng.randint(0, 99)
        amount = "unknown" if i % 13 == 7 else f"{euros},{cents:02d}"
        month, year = rng.choice([3, 4]), rng.choice([2023, 2024])
        day = "unknown" if i % 19 == 3 else f"{rng.randint(1, 28):02d}/{month:02d}/{year}"
        zip_code = rng.choice(["02142", "02139", "02141"])
        lines.append(f"{age};{amount};{day};{zip_code};{rng.choice(['J45', 'E11', 'I10'])}")
    return "\n".join(lines) + "\n"


def test_read_options_and_a_level_bound_in_chromium(browser, served, tmp_path):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    work = tmp_path / "work"
    (work / "claims.csv").write_text(claims(), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(served.url)
        page.wait_for_selector("body[data-ready]")
        page.fill("#path", str(work / "claims.csv"))
        page.fill("#sep", ";")
        page.select_option("#decimal", ",")
        page.select_option("#thousands", ".")
        page.fill("#na_values", "NA,unknown")
        page.fill("#date_format", "%d/%m/%Y")
        page.click("#open")
        page.wait_for_selector("#columns tbody tr >> nth=4")
        assert page.inner_text("#open-error") == "", page.inner_text("#open-error")

        def row(name):
            return page.locator(f"#columns tr[data-column='{name}']")

        def inferred(name):  # type, distinct, missing
            cells = row(name).locator("td")
            return [cells.nth(i).inner_text() for i in range(3)]

        assert inferred("amount")[0].startswith("number") and inferred("amount")[2] == "5"
        assert inferred("admitted")[0].startswith("date") and inferred("admitted")[2] == "3"
        assert inferred("age")[2] == "4" and inferred("zip")[0].startswith("code")
        assert page.input_value("#sep") == ";" and page.input_value("#decimal") == ","
        roles = {"age": "quasi-identifier", "admitted": "quasi-identifier", "amount": "withheld",
                 "zip": "withheld", "diagnosis": "sensitive"}  # fmt: skip
        for name, role in roles.items():
            row(name).locator("select[name=role]").select_option(role)
        row("age").locator("select[name=type]").select_option("number")
        row("age").locator("input[name=hierarchy]").fill("intervals:10,20,40")
        row("admitted").locator("input[name=hierarchy]").fill("dates:month,year")
        row("admitted").locator("input[name=max_level]").fill("1")
        row("admitted").locator("button.levels").click()
        page.wait_for_selector("#hierarchy-preview table")
        assert re.search(r"\b2023-03\b", page.inner_text("#hierarchy-preview"))
        page.screenshot(path=SCREENSHOTS / "ui-read-open.png", full_page=True)

        page.fill("#k", "3")
        page.select_option("#method", "global-recoding")
        page.click("#run")
        page.wait_for_selector("body[data-run]", timeout=180_000)
        assert page.get_attribute("body", "data-run") == "done", page.inner_text("#run-step")
        shown = page.inner_text("#run-warnings")
        assert "--" not in shown, shown  # the page's controls are named, not flags
        page.eval_on_selector("#run-step", "step => step.scrollIntoView()")
        page.screenshot(path=SCREENSHOTS / "ui-read-result.png")
        page.fill("#save-folder", str(work))
        page.fill("#save-name", "claims-k3")
        page.click("#save")
        page.wait_for_selector("body[data-saved]", timeout=60_000)
    finally:
        page.close()

    job = Settings.from_toml(work / "claims-k3.toml")
    assert (job.sep, job.decimal, job.thousands, job.date_format) == (";", ",", ".", "%d/%m/%Y")
    assert set(job.na_values) == {"NA", "unknown"} and dict(job.max_level) == {"admitted": 1}
    release = pd.read_csv(work / "claims-k3.csv", sep=None, engine="python", dtype=str,
                          keep_default_na=False)  # fmt: skip
    days = release["admitted"].tolist()
    # every admission date published at its day or month, never its year or *, but for the
    # missing ones and the suppressed rows (a * in every quasi-identifier)
    starred = release["age"] == "*"
    months = [d for d in days if re.fullmatch(r"\d{4}-\d{2}", d)]
    assert months and all(re.fullmatch(r"\d{4}-\d{2}(-\d{2})?|\(missing\)|", d)
                          for d in release.loc[~starred, "admitted"]), days  # fmt: skip
    assert (release.loc[starred, "admitted"] == "*").all()
