"""Level bounds through the Python API (issue 57, item 5): ``incrowd.anonymize(...,
min_level={...}, max_level={...})`` publishes no cell below or above them, suppresses what
cannot fit within the limit (else one error naming the bound), and refuses what cannot take
them with one line naming the setting."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import InfeasibleError, ParameterError
from incrowd.privacy.models import Diversity

BANDS = "intervals:0-17,18-39,40-64,65-120"


def claims(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """A claims extract: exact ages that k records share with their sex and zip (0, 104),
    zips with leading zeros,
    admission dates in one year, a diagnosis group."""
    rng = np.random.default_rng(seed)
    ages = np.r_[np.zeros(8, int), np.full(8, 104), rng.integers(1, 100, size=n - 16)]
    days = pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 365, size=n), unit="D")
    return pd.DataFrame({
        "age": ages,
        "sex": ["F"] * 16 + list(rng.choice(["F", "M"], size=n - 16)),
        "zip": ["01053"] * 8 + ["04850"] * 8
        + list(rng.choice(["01053", "01068", "04850", "04853", "04860"], size=n - 16)),
        "admission_date": days.strftime("%Y-%m-%d"),
        "diagnosis": rng.choice(["A", "B", "C"], size=n),
    })  # fmt: skip


def run(frame: pd.DataFrame, **keywords):
    keywords.setdefault("qi", ["age", "sex", "zip"])
    keywords.setdefault("hierarchies", {"age": BANDS, "zip": "prefix"})
    return incrowd.anonymize(frame, k=5, sensitive=["diagnosis"], seed=3, **keywords)


def test_a_floor_publishes_no_exact_age() -> None:
    frame = claims()
    free = run(frame)
    assert {"0", "104"} & set(free.table["age"]), "the case the floor is for"
    floored = run(frame, min_level={"age": 1})
    assert set(floored.table["age"]) <= {"0-17", "18-39", "40-64", "65-120", "*"}
    meta = floored.metadata
    assert meta.parameters["min_level"] == repr({"age": 1})
    assert meta.cost == pytest.approx(meta.loss["generalization"])  # priced as published
    assert meta.lower_bound <= meta.cost + 1e-9
    assert meta.levels is None  # a local recoding's floors are no global node


def test_a_ceiling_keeps_every_zip_to_one_masked_digit() -> None:
    frame = claims()
    assert any(z.count("*") > 1 for z in run(frame).table["zip"]), "the case the ceiling is for"
    capped = run(frame, max_level={"zip": 1}, method="forest")
    assert all(re.fullmatch(r"0\d{3}[\d*]", z) for z in capped.table["zip"])
    assert capped.metadata.n_released == len(frame)


def test_dates_at_most_their_month_and_ages_at_least_their_band() -> None:
    frame = claims(200)
    dates = "dates:month,quarter,year"
    release = run(frame, qi=["age", "admission_date"],
                  hierarchies={"age": BANDS, "admission_date": dates}, min_level={"age": 1},
                  max_level={"admission_date": 1}, suppression_limit=0.2)  # fmt: skip
    kept = release.table[release.table["admission_date"] != "*"]
    assert kept["admission_date"].str.fullmatch(r"2021-\d\d(-\d\d)?").all()
    assert not kept["age"].str.fullmatch(r"\d+").any()
    assert release.metadata.n_suppressed <= 40


def test_what_cannot_fit_is_suppressed_within_the_limit_else_refused() -> None:
    frame = claims()
    frame.loc[:1, "zip"] = "09999"  # two records alone in their zip
    with pytest.raises(InfeasibleError) as caught:
        run(frame, max_level={"zip": 0})
    text = str(caught.value)
    assert "max_level={'zip': 0} leaves 2 record(s) in groups of fewer than k = 5" in text
    assert "zip 09999" in text and "suppression_limit=0.0167" in text
    release = run(frame, max_level={"zip": 0}, suppression_limit=0.0167)
    assert release.metadata.n_suppressed == 2
    assert set(release.table["zip"]) <= {"01053", "01068", "04850", "04853", "04860"}


def test_a_repair_that_would_merge_across_a_ceiling_is_refused() -> None:
    """Each sex holds one diagnosis: l = 2 can only merge the sexes, which the ceiling
    forbids; one line says so instead of publishing a crowd of both."""
    frame = claims()
    frame["diagnosis"] = np.where(frame["sex"] == "F", "A", "B")
    with pytest.raises(InfeasibleError, match=r"max_level=\{'sex': 0\} cannot hold with the "):
        run(frame, max_level={"sex": 0}, diversity=Diversity(l=2))


REFUSED = [
    ({"min_level": {"age": 1}, "method": "mdav"},
     "min_level applies to the methods that publish hierarchy levels"),
    ({"max_level": {"age": 1}, "release": "microaggregated"},
     "max_level bounds the hierarchy levels of a generalized release"),
    ({"min_level": {"diagnosis": 1}}, "'diagnosis' is not a quasi-identifier"),
    ({"min_level": {"age": 3}}, "min_level={'age': 3}: 'age' has levels 0 (its values) to 2"),
    ({"min_level": {"age": 1}, "max_level": {"age": 0}}, "min_level={'age': 1} is above"),
    ({"min_level": {"age": "1"}}, "min_level={'age': '1'}: a level is a whole number"),
    ({"min_level": {"age": 1}, "hierarchies": {"zip": "prefix"}},
     "'age' is a number without a hierarchy"),
]  # fmt: skip


@pytest.mark.parametrize(("keywords", "message"), REFUSED)
def test_what_cannot_take_a_bound_is_refused_in_one_line(keywords, message) -> None:
    with pytest.raises(ParameterError) as caught:
        run(claims(40), **keywords)
    assert message in str(caught.value) and "\n" not in str(caught.value)
