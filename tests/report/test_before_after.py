"""Each quasi-identifier before and after (issue 57, item 8), as data: numbers and dates are
counted on the same bins before and after, categories on the release's labels, and every
record is counted once on each side — in a bin, or in a bar of its own for a missing cell,
a cell published as ``*``, or one published coarser than the bins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app
from incrowd.data.columns import MISSING_LABEL
from incrowd.data.ranges import range_label, read_range
from incrowd.report.reading import load, report_on_files

N = 600
EXTRA = {MISSING_LABEL, "*", "coarser", "other values"}


def extract(seed: int = 57) -> pd.DataFrame:
    """A claims extract: ages with gaps, amounts in cents, dates with gaps, 5-digit zips with
    leading zeros (hundreds of them), sex and a diagnosis group."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 105, N).astype(str).astype(object)
    age[rng.choice(N, 30, replace=False)] = ""
    day = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 700, N), unit="D")
    admitted = day.strftime("%Y-%m-%d").to_numpy(dtype=object)
    admitted[rng.choice(N, 12, replace=False)] = ""
    zips = [f"{z:05d}" for z in rng.integers(1000, 99999, 400)]
    return pd.DataFrame({
        "age": age, "amount": np.round(rng.uniform(0, 5000, N), 2),
        "admitted": admitted, "zip": rng.choice(zips, N), "sex": rng.choice(["f", "m"], N),
        "group": rng.choice(["a", "b", "c"], N),
    })  # fmt: skip


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("before-after")
    source = folder / "claims.csv"
    extract().to_csv(source, index=False)
    out = {}
    for name, args in {
        "local": ("--method", "local-recoding"),
        "global": ("--method", "global-recoding", "--hierarchy",
                   "age=intervals:0-17,18-39,40-64,65+"),
        "micro": ("--method", "mdav", "--release", "microaggregated", "--qi", "amount,sex"),
    }.items():  # fmt: skip
        path = folder / f"{name}.csv"
        qi = () if "--qi" in args else ("--qi", "age,amount,admitted,zip,sex")
        command = ["anonymize", str(source), *qi, "--sensitive", "group", "--k", "5", "--seed",
                   "1", *args, "--out", str(path)]  # fmt: skip
        made = CliRunner().invoke(app, command)
        assert made.exit_code == 0, made.output
        loaded = load(source, path)
        built = report_on_files(source, path, loaded)
        published = pd.read_csv(path, dtype=str, keep_default_na=False)
        plots = {d["column"]: d for d in built.measured.distributions}
        out[name] = (loaded.table, published, plots)
    return out


def counts(entry, side):
    return dict(zip(entry["bins"]["labels"], entry["bins"][side], strict=True))


@pytest.mark.parametrize("name", ["local", "global", "micro"])
def test_every_record_is_counted_once_before_and_once_after(reports, name):
    original, published, plots = reports[name]
    for column, entry in plots.items():
        labels = entry["bins"]["labels"]
        assert len(labels) == len(entry["bins"]["before"]) == len(entry["bins"]["after"])
        assert len(labels) <= 24 and not any("others" in label for label in labels), column
        assert sum(entry["bins"]["before"]) == pytest.approx(len(original)), column
        assert sum(entry["bins"]["after"]) == pytest.approx(len(published)), column


def test_numbers_share_bins_in_the_one_label_style_and_missing_cells_are_counted(reports):
    original, published, plots = reports["local"]
    age = plots["age"]
    assert age["kind"] == "number"
    bins = [label for label in age["bins"]["labels"] if label not in EXTRA]
    assert 8 <= len(bins) <= 20
    assert all(range_label(*read_range(label)) == label for label in bins)
    ranges = [read_range(label) for label in bins]
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))  # ordered, apart
    assert counts(age, "before")[MISSING_LABEL] == 30 == age["missing"]["before"]
    assert counts(age, "after")[MISSING_LABEL] == (published["age"] == MISSING_LABEL).sum()
    present = pd.to_numeric(original["age"], errors="coerce").dropna()
    for label, (lo, hi) in zip(bins, ranges, strict=True):  # the input, bin by bin
        assert counts(age, "before")[label] == ((present >= lo) & (present <= hi)).sum()
    amount = plots["amount"]
    assert amount["kind"] == "number" and MISSING_LABEL not in amount["bins"]["labels"]


def test_dates_are_drawn_on_calendar_bins_before_and_after(reports):
    _, published, plots = reports["local"]
    admitted = plots["admitted"]
    assert admitted["kind"] == "date"
    bins = [label for label in admitted["bins"]["labels"] if label not in EXTRA]
    assert bins[0] == "2023-Q1" and 6 <= len(bins) <= 24  # 700 days: quarters
    assert counts(admitted, "before")[MISSING_LABEL] == 12
    shown = counts(admitted, "after")[MISSING_LABEL]
    assert shown == (published["admitted"] == MISSING_LABEL).sum()


def test_codes_are_drawn_on_the_release_labels_of_one_level(reports):
    original, published, plots = reports["local"]
    zips = plots["zip"]
    assert zips["kind"] == "category"
    bins = [label for label in zips["bins"]["labels"] if label not in EXTRA]
    assert 2 <= len(bins) <= 15 and all(label.endswith("*") for label in bins)
    kept = len(bins[0].rstrip("*"))
    assert {label[:kept] for label in bins} == {label.rstrip("*") for label in bins}
    before = counts(zips, "before")
    assert before == {**before, **{b: (original["zip"].str[:kept] == b[:kept]).sum() for b in bins}}
    assert sum(published["zip"] == "*") == counts(zips, "after").get("*", 0)


def test_bands_are_the_bins_of_a_banded_number(reports):
    _, published, plots = reports["global"]
    age = plots["age"]
    after = counts(age, "after")
    assert after.get("*", 0) == (published["age"] == "*").sum()
    assert sum(v for k, v in after.items() if k not in EXTRA) == pytest.approx(
        (~published["age"].isin(["*", MISSING_LABEL])).sum())  # fmt: skip


def test_means_of_a_microaggregated_release_fall_in_the_input_bins(reports):
    original, published, plots = reports["micro"]
    amount = plots["amount"]
    means = published["amount"].astype(float)
    first, second = amount["bins"]["labels"][:2]
    assert counts(amount, "after")[first] == (means < read_range(second)[0]).sum()
    assert "104.0" not in str(amount["bins"]["labels"])
