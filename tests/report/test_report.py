"""The HTML report's page: every section, offline, every image with alt text, no row of "—",
only the figures that apply to the release form, and the same bytes for the same inputs."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Numeric, Schema, anonymize
from incrowd.report import Report, build_report

SECTIONS = ("verdict", "figures", "provenance", "data", "risk", "diversity", "glossary")


class Page(HTMLParser):
    """What the tests read of a page: ids, images, links, figures, warnings, cells."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.images: list[dict[str, str]] = []
        self.links: list[str] = []
        self.figures: dict[tuple[str, str], str] = {}
        self.warnings: list[str] = []
        self.cells: list[str] = []
        self.verdict_class = ""
        self._cell: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
            if attrs["id"] == "verdict":
                self.verdict_class = attrs.get("class", "")
        if tag == "img":
            self.images.append(attrs)
        self.links += [attrs[key] for key in ("href", "src") if key in attrs]
        if "data-figure" in attrs:
            self.figures[attrs["data-figure"], attrs.get("data-column", "")] = attrs["data-value"]
        if "data-warning" in attrs:
            self.warnings.append(attrs["data-warning"])
        if tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None


def people(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "lat": rng.uniform(40, 41, n).round(4), "lon": rng.uniform(-75, -74, n).round(4),
        "sex": rng.choice(["f", "m"], n), "disease": rng.choice(["flu", "cold", "asthma"], n),
    })  # fmt: skip


@pytest.mark.parametrize(
    ("release", "method"),
    [
        ("generalized", "kd-rectangles"),
        ("microaggregated", "mdav"),
        ("centers", "mdav"),
        ("generalized", "forest"),
    ],  # fmt: skip
)
def test_every_form_gives_a_complete_offline_page(release, method):
    table = people()
    qis = {"lat": Numeric(), "lon": Numeric()}
    if method == "forest":
        qis["sex"] = Categorical()
    schema = Schema(qis, sensitive=["disease"])
    rel = anonymize(table, schema, 10, method=method, release=release, seed=0)
    built = build_report(table, rel.table, schema, rel.metadata)
    assert isinstance(built, Report) and built.verdict in ("holds", "warnings", "fails")
    page = Page(built.html)
    assert set(SECTIONS) <= set(page.ids)
    assert page.ids.index("verdict") < page.ids.index("figures") < page.ids.index("glossary")
    assert "verdict " + built.verdict == page.verdict_class
    assert page.images and all(i["src"].startswith("data:image/") for i in page.images)
    assert all(i.get("alt", "").strip() for i in page.images)
    assert not [u for u in page.links if not u.startswith("data:")]
    assert "http://" not in built.html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in built.html
    assert "@page" in built.html and "@media print" in built.html
    assert not [c for c in page.cells if c in ("—", "None", "nan", "not recorded")]
    # only the figures that apply: NCP for generalized releases, SSE for the others
    assert (("ncp", "") in page.figures) == (release == "generalized")
    assert (("l-sse", "") in page.figures) == (release != "generalized")
    assert (("max-radius", "") in page.figures) == (release == "centers")
    # disease is a label: t with the ordered distance does not apply
    assert ("t-ordered", "disease") not in page.figures
    assert ("t-equal", "disease") in page.figures
    assert len(page.warnings) == len(built.warnings)
    if method == "kd-rectangles":
        assert any(
            re.fullmatch(r"map of the [0-9,]+ published boxes", i["alt"]) for i in page.images
        )


def test_the_page_is_the_same_bytes_for_the_same_inputs():
    table = people(120)
    schema = Schema({"lat": Numeric(), "lon": Numeric()}, sensitive=["disease"])
    rel = anonymize(table, schema, 5, method="kd-rectangles", seed=0)
    first = build_report(table, rel.table, schema, rel.metadata, title="t")
    again = build_report(table, rel.table, schema, rel.metadata, title="t")
    assert first == again
    assert rel.metadata.created in first.html


def test_a_numeric_sensitive_column_shows_the_ordered_distance():
    table = people(150).assign(income=np.arange(150) % 7)
    schema = Schema({"lat": Numeric(), "lon": Numeric()}, sensitive=["income"])
    rel = anonymize(table.drop(columns="disease"), schema, 5, method="mdav", seed=0)
    page = Page(build_report(table, rel.table, schema, rel.metadata).html)
    assert ("t-ordered", "income") in page.figures
