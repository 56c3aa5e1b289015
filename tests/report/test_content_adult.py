"""The reports of the demo release (Adult, k = 5, salary-class sensitive) and of its
``--l 2`` variant, as ``incrowd report`` writes them (the releases and reports are the
browser tests' fixtures, ``tests/report/conftest.py``, built once per run): the demo's
verdict names the salary-class disclosure and its fix, the l = 2 release's does not, the
figures are the metadata's, and the page stays under 1 MB."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.slow


class Read(HTMLParser):
    """The page's figures, warnings (name and text) and verdict class."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}
        self.warnings: list[tuple[str, str]] = []
        self.verdict = ""
        self._warning: str | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id") == "verdict":
            self.verdict = attrs.get("class", "")
        if "data-figure" in attrs:
            self.values[attrs["data-figure"], attrs.get("data-column", "")] = attrs["data-value"]
        if "data-warning" in attrs:
            self._warning, self._text = attrs["data-warning"], []

    def handle_data(self, data):
        if self._warning is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "li" and self._warning is not None:
            self.warnings.append((self._warning, "".join(self._text)))
            self._warning = None


def test_the_demo_report_names_the_salary_class_disclosure(demo):
    html = demo.report.read_text(encoding="utf-8")
    page = Read(html)
    meta = demo.meta
    assert page.verdict == "verdict warnings"
    constant = [text for name, text in page.warnings if name == "constant-sensitive"]
    assert len(constant) == 1
    assert "salary-class" in constant[0] and "--l 2" in constant[0]
    homogeneous = meta["homogeneous"]["salary-class"]
    assert f"{homogeneous['classes']:,} of {meta['n_groups']:,} classes" in constant[0]
    assert page.values["constant-sensitive-classes", "salary-class"] == str(homogeneous["classes"])
    assert page.values["constant-sensitive-records", "salary-class"] == str(homogeneous["records"])
    # the figures are the metadata's
    recorded = {"records-input": "n_input", "records-published": "n_released", "k": "k",
                "smallest-class": "k_achieved", "classes": "n_groups", "seed": "seed",
                "release-sha256": "table_sha256", "version": "version", "method": "method",
                "created": "created"}  # fmt: skip
    for figure, key in recorded.items():
        assert page.values[figure, ""] == str(meta[key]), figure
    assert page.values["input-sha256", ""] == meta["input"]["sha256"]
    assert float(page.values["ncp", ""]) == pytest.approx(meta["loss"]["ncp"])
    # salary-class is a label: no ordered distance; the prosecutor bound is said, not news
    assert ("t-ordered", "salary-class") not in page.values
    assert "at most 1 / 5 = 0.2 by construction" in html
    assert len(html.encode()) <= 1_000_000
    assert not re.search(r"""(?:src|href)=["'](?!data:)""", html)


def test_the_l2_report_has_no_constant_sensitive_warning(l2):
    page = Read(l2.report.read_text(encoding="utf-8"))
    assert not [name for name, _ in page.warnings if name == "constant-sensitive"]
    assert page.values["constant-sensitive-classes", "salary-class"] == "0"
    assert page.verdict in ("verdict holds", "verdict warnings")
