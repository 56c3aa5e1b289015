"""The HTML report: parses, holds every section and plot, names no external resource, and
is produced for every release form (and with a map for a longitude / latitude release)."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Numeric, Schema, anonymize
from incrowd.cli.app import run
from incrowd.report import build_report

SECTIONS = ("release", "loss", "risk", "diversity", "plots")


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.images: list[str] = []
        self.links: list[str] = []
        self.captions: list[str] = []
        self._caption = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for key in ("href", "src"):
            if key in attrs:
                self.links.append(attrs[key])
        self._caption = tag == "figcaption"

    def handle_data(self, data):
        if self._caption:
            self.captions.append(data)
            self._caption = False


def people(n: int = 400) -> pd.DataFrame:
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
    page = build_report(table, rel.table, schema, rel.metadata)
    parsed = Page()
    parsed.feed(page)
    assert set(SECTIONS) <= parsed.ids
    assert parsed.images and all(src.startswith("data:image/png;base64,") for src in parsed.images)
    assert not [u for u in parsed.links if u.startswith(("http:", "https:", "//"))]
    assert "crowd sizes" in parsed.captions
    assert "diversity of disease" in parsed.captions
    if release == "generalized":
        assert "risk distribution" in parsed.captions
        assert "loss per attribute" in parsed.captions
    if method == "kd-rectangles":
        assert "map of the published boxes" in parsed.captions


def test_cli_writes_the_report_once(tmp_path):
    table = people(200)
    source, out, page = tmp_path / "t.csv", tmp_path / "r.csv", tmp_path / "report.html"
    table.to_csv(source, index=False)
    schema = Schema({"lat": Numeric(), "lon": Numeric()}, sensitive=["disease"])
    anonymize(table, schema, 5, method="kd-rectangles", seed=0).write(out)
    args = ["report", str(source), str(out), "--qi", "lat,lon", "--out", str(page)]
    assert run(args) == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert run(args) == 2  # never replaces a file
    assert run([*args[:-1], str(tmp_path / "report.txt")]) == 2
