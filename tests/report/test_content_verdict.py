"""The report's verdict, warnings and figures, on small releases made through the pipeline:
attribute disclosure is warned about with its fix and gone at l = 2, the figures are the
metadata's, a changed or broken release fails, a global recoding lists its levels."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Numeric, Schema, anonymize
from incrowd.io.release_format import file_sha256
from incrowd.privacy.models import Diversity
from incrowd.release import read_release
from incrowd.report import build_report

pytestmark = pytest.mark.filterwarnings(
    "ignore:.*(single value|publishes one level).*:incrowd.errors.IncrowdWarning"
)


class Figures(HTMLParser):
    """The page's ``data-figure`` values and ``data-warning`` names."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.values: dict[tuple[str, str], str] = {}
        self.warnings: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "data-figure" in attrs:
            self.values[attrs["data-figure"], attrs.get("data-column", "")] = attrs["data-value"]
        if "data-warning" in attrs:
            self.warnings.append(attrs["data-warning"])


def patients(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "age": rng.integers(18, 80, n), "zip": rng.choice(["10001", "10002", "10003"], n),
        "sex": rng.choice(["f", "m"], n),
        "disease": rng.choice(["flu", "cold", "asthma"], n, p=[0.8, 0.15, 0.05]),
    })  # fmt: skip


SCHEMA = Schema({"age": Numeric(), "sex": Categorical(), "zip": Categorical()},
                sensitive=["disease"])  # fmt: skip


@pytest.fixture(scope="module")
def plain():
    table = patients()
    with pytest.warns(UserWarning, match="single value"):
        release = anonymize(table, SCHEMA, 5, method="local-recoding", seed=0)
    return table, release


def test_constant_sensitive_classes_are_a_warning_with_the_fix(plain):
    table, release = plain
    built = build_report(table, release.table, SCHEMA, release.metadata)
    page = Figures(built.html)
    homogeneous = release.metadata.homogeneous["disease"]
    assert homogeneous["classes"] > 0
    assert built.verdict == "warnings"
    assert "constant-sensitive" in page.warnings
    line = next(w for w in built.warnings if "single value" in w)
    assert "disease" in line and "--l 2" in line
    assert f"{homogeneous['classes']:,} of {release.metadata.n_groups:,} classes" in line
    assert page.values["constant-sensitive-classes", "disease"] == str(homogeneous["classes"])
    assert page.values["constant-sensitive-records", "disease"] == str(homogeneous["records"])
    assert re.search(r'class="verdict warnings"', built.html)


def test_an_l2_release_has_no_constant_sensitive_warning():
    table = patients()
    release = anonymize(table, SCHEMA, 5, method="local-recoding", seed=0,
                        diversity=Diversity(l=2))  # fmt: skip
    built = build_report(table, release.table, SCHEMA, release.metadata)
    page = Figures(built.html)
    assert "constant-sensitive" not in page.warnings
    assert not [w for w in built.warnings if "single value" in w]
    assert page.values["constant-sensitive-classes", "disease"] == "0"
    assert page.values["distinct-l", "disease"] == "2"
    assert "distinct 2-diversity on disease" in built.html  # the model checked says so


def test_the_figures_are_the_metadata_s(plain, tmp_path):
    table, release = plain
    source, out = tmp_path / "in.csv", tmp_path / "out.csv"
    table.to_csv(source, index=False)
    release.write(out)
    files = read_release(out)
    meta = files.metadata
    sources = {"input": ("in.csv", file_sha256(source)), "release": ("out.csv", file_sha256(out))}
    built = build_report(table, files.table, SCHEMA, meta, title="r", sources=sources)
    got = Figures(built.html).values
    assert got["records-input", ""] == str(meta.n_input)
    assert got["records-published", ""] == str(meta.n_released)
    assert got["k", ""] == str(meta.k) == "5"
    assert got["smallest-class", ""] == str(meta.k_achieved)
    assert got["classes", ""] == str(meta.n_groups)
    assert got["suppressed-records", ""] == str(meta.n_suppressed)
    assert got["missing-cells", ""] == "0"
    assert got["release-sha256", ""] == meta.table_sha256 == sources["release"][1]
    assert got["input-sha256", ""] == sources["input"][1]
    assert got["method", ""] == meta.method == "local-recoding"
    assert got["version", ""] == meta.version
    assert got["seed", ""] == str(meta.seed)
    assert got["created", ""] == meta.created
    assert float(got["ncp", ""]) == pytest.approx(meta.loss["ncp"])
    assert float(got["cost", ""]) == meta.cost
    assert float(got["certified-ratio", ""]) == meta.certified_ratio
    assert "in.csv" in built.html and "out.csv" in built.html


def test_a_release_changed_on_disk_is_stale_and_fails(plain, tmp_path):
    table, release = plain
    release.write(tmp_path / "out.csv")
    files = read_release(tmp_path / "out.csv")
    built = build_report(table, files.table, SCHEMA, files.metadata,
                         sources={"release": ("out.csv", "0" * 64)})  # fmt: skip
    assert built.verdict == "fails"
    assert "stale" in Figures(built.html).warnings
    assert 'class="verdict fails"' in built.html


def test_a_release_that_breaks_k_fails(plain):
    table, release = plain
    published = release.table
    first = published[list(SCHEMA.qi_names)].astype(str).agg("|".join, axis=1)
    broken = published[(first != first.iloc[0]) | (published.index == published.index[0])]
    assert len(published) - len(broken) >= 4  # one class left with a single record
    built = build_report(table, broken, SCHEMA, release.metadata)
    assert built.verdict == "fails"
    assert "check-failed" in Figures(built.html).warnings
    assert any("fewer than k=5" in w for w in built.warnings)


def test_records_above_the_risk_threshold_are_a_warning():
    table = patients(120)
    schema = Schema({"age": Numeric(), "sex": Categorical()}, sensitive=["disease"])
    release = anonymize(table, schema, 2, method="mdav", seed=0)
    built = build_report(table, release.table, schema, release.metadata, risk_threshold=0.25)
    assert "risk-above-threshold" in Figures(built.html).warnings
    assert "above 0.25" in next(w for w in built.warnings if "re-identified" in w)
    calm = build_report(table, release.table, schema, release.metadata, risk_threshold=1.0)
    assert "risk-above-threshold" not in Figures(calm.html).warnings


def test_a_global_recoding_lists_its_levels_and_categories():
    table = patients()
    release = anonymize(table, SCHEMA, 5, method="global-recoding", seed=0)
    meta = release.metadata
    built = build_report(table, release.table, SCHEMA, meta)
    got = Figures(built.html).values
    assert meta.levels
    for name, level in meta.levels.items():
        assert got["level", name] == str(level)
    for pairs in meta.categories.values():
        for label, count in pairs:
            assert f"{label} ({count:,})" in built.html
    if meta.n_suppressed:
        assert "suppressed" in Figures(built.html).warnings
        assert got["suppressed-records", ""] == str(meta.n_suppressed)


def test_rows_of_star_are_named_beside_the_records_published():
    table = patients()
    odd = pd.DataFrame({"age": [18, 79], "zip": ["99999", "99998"], "sex": ["x", "y"],
                        "disease": ["flu", "cold"]})  # fmt: skip
    table = pd.concat([table, odd], ignore_index=True)
    release = anonymize(table, SCHEMA, 5, method="global-recoding", seed=0)
    meta = release.metadata
    assert meta.n_suppressed >= 2
    built = build_report(table, release.table, SCHEMA, meta)
    assert got_published(built.html) == str(meta.n_released)
    assert f"besides them, {meta.n_suppressed} suppressed records are rows of *" in built.html


def got_published(html: str) -> str:
    return Figures(html).values["records-published", ""]


def test_every_parameter_of_every_method_has_a_sentence():
    from incrowd.algorithms import METHODS
    from incrowd.report.provenance import PARAMETERS

    missing = {
        (name, p) for name in METHODS for p in METHODS[name]().get_params() if p not in PARAMETERS
    }
    assert not missing


def test_a_number_without_hierarchy_says_how_it_is_published(plain):
    table, release = plain
    built = build_report(table, release.table, SCHEMA, release.metadata)
    row = re.search(r"<td>age</td><td>quasi-identifier</td><td>[a-z]+</td><td>([^<]*)</td>",
                    built.html)  # fmt: skip
    assert row is not None and row.group(1) == "none: published as ranges"
