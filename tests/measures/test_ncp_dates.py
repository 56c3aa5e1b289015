"""Date hierarchies are priced by NCP as spans of days, and a missing-value leaf beside
numbers or dates leaves them priced as ranges (``ncp-definition.md`` in the project notes).

The expected figures are computed here from the published cells alone, with a reading of the
ISO periods that shares no code with :mod:`incrowd.data.dates`.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import Categorical, Hierarchical, Hierarchy, Schema
from incrowd.data.columns import MISSING_LABEL, encode_qis
from incrowd.data.dates import date_hierarchy
from incrowd.data.ncp import label_penalties
from incrowd.measures.loss import evaluate_release

ONE_DAY = dt.timedelta(days=1)


def days_of(label: str) -> tuple[int, int]:
    """First and last day of an ISO date, datetime or period, read independently."""
    if m := re.fullmatch(r"(\d{4}-\d{2}-\d{2})(T\d{2}:\d{2}:\d{2})?", label):
        day = dt.date.fromisoformat(m[1])
        first = last = day
    elif m := re.fullmatch(r"(\d{4})-(\d{2})", label):
        year, month = int(m[1]), int(m[2])
        first = dt.date(year, month, 1)
        last = dt.date(year + month // 12, month % 12 + 1, 1) - ONE_DAY
    elif m := re.fullmatch(r"(\d{4})-Q(\d)", label):
        year, quarter = int(m[1]), int(m[2])
        first = dt.date(year, 3 * quarter - 2, 1)
        last = dt.date(year + quarter // 4, (3 * quarter) % 12 + 1, 1) - ONE_DAY
    elif m := re.fullmatch(r"(\d{4})-W(\d{2})", label):
        first = dt.date.fromisocalendar(int(m[1]), int(m[2]), 1)
        last = first + 6 * ONE_DAY
    else:
        assert re.fullmatch(r"\d{4}", label), label
        first, last = dt.date(int(label), 1, 1), dt.date(int(label), 12, 31)
    return first.toordinal(), last.toordinal()


def date_cost(label: str, lo: int, hi: int) -> float:
    """(last − first day of the label's period, clipped to the input's [lo, hi]) / (hi − lo)."""
    if label == "*":
        return 1.0
    if label == MISSING_LABEL:
        return 0.0
    first, last = days_of(label)
    return max(min(last, hi) - max(first, lo), 0) / (hi - lo)


def independent_ncp(table: pd.DataFrame, published: pd.DataFrame, dates: str) -> float:
    """The note's NCP: the date column by days, every other column a value (0) or * (1)."""
    present = [v for v in table[dates] if isinstance(v, str)]
    days = [days_of(v)[0] for v in present]
    lo, hi = min(days), max(days)
    total = 0.0
    for name in table.columns:
        if name == dates:
            total += sum(date_cost(str(c), lo, hi) for c in published[name])
        else:
            total += float((published[name].astype(str) == "*").sum())
    n_suppressed = len(table) - len(published)
    return (total + n_suppressed * table.shape[1]) / (len(table) * table.shape[1])


def random_days(rng: np.random.Generator, n: int, start: str = "2022-11-15", width: int = 900):
    base = dt.date.fromisoformat(start).toordinal()
    return [dt.date.fromordinal(base + int(d)).isoformat() for d in rng.integers(0, width, n)]


@pytest.mark.parametrize(("levels", "width", "seed"), [(("month", "quarter", "year"), 900, 0),
                                                        (("week",), 60, 1),
                                                        (("quarter", "year"), 900, 2)])  # fmt: skip
def test_release_of_dates_scored_by_days(levels, width, seed) -> None:
    rng = np.random.default_rng(seed)
    table = pd.DataFrame({
        "admitted": random_days(rng, 40, width=width),
        "sex": rng.choice(["F", "M"], 40),
    })  # fmt: skip
    schema = Schema({
        "admitted": Hierarchical(date_hierarchy(table["admitted"], levels)),
        "sex": Categorical(),
    })  # fmt: skip
    release = incrowd.anonymize(table, schema, 3, method="local-recoding", seed=seed)
    published = release.table["admitted"].astype(str)
    assert published.str.fullmatch(r"\*|\d{4}(-\d{2}(-\d{2})?|-Q\d|-W\d{2})?").all()
    assert published.str.fullmatch(r"\d{4}(-\d{2}|-Q\d|-W\d{2})?").any()  # some periods
    expected = independent_ncp(table, release.table, "admitted")
    assert release.metadata["loss"]["ncp"] == pytest.approx(expected, abs=1e-12)
    evaluated = evaluate_release(table, release.table, schema, release.metadata)["ncp"]
    assert evaluated == pytest.approx(expected, abs=1e-12)


def test_release_of_dates_with_missing_cells() -> None:
    rng = np.random.default_rng(5)
    days = random_days(rng, 30)
    admitted = [None if i % 7 == 3 else d for i, d in enumerate(days)]
    table = pd.DataFrame({"admitted": admitted, "sex": rng.choice(["F", "M"], 30)})
    values = [v if v is not None else MISSING_LABEL for v in admitted]
    schema = Schema({"admitted": Hierarchical(date_hierarchy(values)), "sex": Categorical()})
    release = incrowd.anonymize(table, schema, 3, missing="category", seed=5)
    expected = independent_ncp(table, release.table, "admitted")
    assert release.metadata["loss"]["ncp"] == pytest.approx(expected, abs=1e-12)
    filled = table.assign(admitted=values)
    evaluated = evaluate_release(filled, release.table, schema, release.metadata)["ncp"]
    assert evaluated == pytest.approx(expected, abs=1e-12)


def penalties_of(values: list[str], hierarchy: Hierarchy) -> list[np.ndarray]:
    table = pd.DataFrame({"q": values})
    (column,) = encode_qis(table, Schema({"q": Hierarchical(hierarchy)}))
    return label_penalties(column)


LEVELS = [("month", "quarter", "year"), ("week",), ("month", "year"), ("quarter",), ("year",),
          ("month",), ("quarter", "year")]  # fmt: skip


def test_every_node_costs_its_clipped_span_of_days() -> None:
    rng = np.random.default_rng(11)
    for case in range(150):
        n = int(rng.integers(2, 12))
        width = int(rng.choice([20, 120, 1500]))
        days = random_days(rng, n, width=width)
        if len(set(days)) < 2:
            continue
        if case % 3 == 0:  # datetimes: a day level under the periods
            days = [f"{d}T{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}:00"
                    for d in days]  # fmt: skip
        hierarchy = date_hierarchy(days, LEVELS[case % len(LEVELS)])
        penalties = penalties_of(days, hierarchy)
        lo = min(days_of(d)[0] for d in days)
        hi = max(days_of(d)[0] for d in days)
        top = hierarchy.height
        for level in range(top + 1):
            for code, label in enumerate(hierarchy.labels[level]):
                expected = 0.0 if level == 0 else date_cost(label, lo, hi)
                assert penalties[level][code] == pytest.approx(expected, abs=1e-12), (
                    case, label)  # fmt: skip
        for level in range(1, top + 1):  # a parent costs at least each child
            parents = hierarchy.codes[:, level]
            children = hierarchy.codes[:, level - 1]
            assert np.all(penalties[level][parents] >= penalties[level - 1][children])


def test_a_missing_leaf_beside_dates_is_left_out_of_the_span() -> None:
    days = ["2024-01-10", "2024-03-20", "2024-02-01"]
    values = [*days, MISSING_LABEL]
    hierarchy = date_hierarchy(values, ["month"])
    penalties = penalties_of(values, hierarchy)
    span = days_of("2024-03-20")[0] - days_of("2024-01-10")[0]
    month = dict(zip(hierarchy.labels[1], penalties[1], strict=True))
    assert month[MISSING_LABEL] == 0.0
    assert month["2024-01"] == pytest.approx((days_of("2024-01")[1] - days_of(days[0])[0]) / span)
    assert month["2024-02"] == pytest.approx(28 / span)  # 2024 is a leap year
    assert list(penalties[-1]) == [1.0]


def test_a_missing_leaf_beside_numbers_keeps_them_ranges() -> None:
    rows = [[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", "*"] for v in (21, 25, 33, 38)]
    hierarchy = Hierarchy.from_rows([*rows, [MISSING_LABEL, MISSING_LABEL, "*"]])
    penalties = penalties_of(["21", "25", "33", "38", MISSING_LABEL], hierarchy)
    level1 = dict(zip(hierarchy.labels[1], penalties[1], strict=True))
    # 20-29 and 30-39 clipped to the input's 21..38 span 8 and 8 of its 17; before, the
    # missing leaf made every label priced by the values under it: 2 of 5, so 1/4
    assert level1 == pytest.approx({"20-29": 8 / 17, "30-39": 8 / 17, MISSING_LABEL: 0.0})
    assert list(penalties[0]) == [0.0] * 5
    assert list(penalties[2]) == [1.0]


def test_a_missing_leaf_grouped_with_numbers_is_counted_as_before() -> None:
    rows = [["21", "20-29", "*"], ["25", "20-29", "*"], ["33", "30-39", "*"],
            [MISSING_LABEL, "30-39", "*"]]  # fmt: skip
    hierarchy = Hierarchy.from_rows(rows)
    penalties = penalties_of(["21", "25", "33", MISSING_LABEL], hierarchy)
    assert list(penalties[1]) == pytest.approx([1 / 3, 1 / 3])  # 2 of 4 values under each
