import datetime as dt
import time

import numpy as np
import pandas as pd
import pytest

from incrowd import HierarchyError, InputError
from incrowd.data.columns import MISSING_LABEL
from incrowd.data.dates import (
    DATE_FORMATS,
    DATE_LEVELS,
    date_hierarchy,
    day_number,
    detect_date_format,
    parse_dates,
    period_span,
)


def path(h, value):
    codes = h.encode([value])[0]
    return [h.label(j, codes[j]) for j in range(h.height + 1)]


def ordinal(text):
    return dt.date.fromisoformat(text).toordinal()


# ----------------------------------------------------------------------------- detection
def test_formats_iso_first_and_the_required_ones():
    assert DATE_FORMATS[0] == "%Y-%m-%d"
    for fmt in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%d/%m/%Y",
                "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%d-%m-%Y", "%Y%m%d"):  # fmt: skip
        assert fmt in DATE_FORMATS
    assert DATE_LEVELS == ("week", "month", "quarter", "year")


@pytest.mark.parametrize(
    ("texts", "first", "others"),
    [
        (["2024-03-05", " 2023-12-31 ", ""], "%Y-%m-%d", ()),
        (["2024-03-05T14:30:00"], "%Y-%m-%dT%H:%M:%S", ()),
        (["2024-03-05 14:30:00", "2024-03-05 00:00:00"], "%Y-%m-%d %H:%M:%S", ()),
        (["2024-03-05 14:30"], "%Y-%m-%d %H:%M", ()),
        (["2024/03/05"], "%Y/%m/%d", ()),
        (["05.03.2024", "31.12.2023"], "%d.%m.%Y", ()),
        (["05-03-2024", "31-12-2023"], "%d-%m-%Y", ()),
        # ambiguous: both day-first and month-first read every text
        (["03/04/2024", "11/12/2023"], "%d/%m/%Y", ("%m/%d/%Y",)),
        # a day over 12 anywhere settles it, either way
        (["03/04/2024", "25/12/2023"], "%d/%m/%Y", ()),
        (["03/04/2024", "12/25/2023"], "%m/%d/%Y", ()),
    ],
)
def test_detect(texts, first, others):
    assert detect_date_format(texts) == (first, others)


@pytest.mark.parametrize(
    "texts",
    [
        ["20240305"],
        ["2024-03-05", "05.03.2024"],
        ["2024-02-30"],
        ["abc"],
        [],
        ["", "  "],
        ["2024-03-05", "2024-03-05 10:00:00"],
    ],
)
def test_detect_none(texts):
    # eight digits are a number or a code unless declared; mixed formats are not one format
    assert detect_date_format(texts) == (None, ())


def test_detect_is_fast_on_a_million_cells():
    days = pd.date_range("2000-01-01", periods=5000).strftime("%d/%m/%Y").to_numpy()
    cells = list(np.random.default_rng(0).choice(days, 1_000_000))
    start = time.perf_counter()
    assert detect_date_format(cells) == ("%d/%m/%Y", ())
    assert time.perf_counter() - start < 5.0


# ----------------------------------------------------------------------------- parsing
def test_parse_dates_iso_text_and_missing_cells():
    column = pd.Series(["05.03.2024", None, "  ", "", float("nan"), " 29.02.2024"])
    out = parse_dates(column, None, "admitted")
    assert out.dtype == object
    assert out.tolist() == ["2024-03-05", None, None, None, None, "2024-02-29"]


def test_parse_dates_keeps_the_index():
    column = pd.Series(["2024-03-05", "2024-03-06"], index=[10, 20])
    assert list(parse_dates(column, "%Y-%m-%d", "d").index) == [10, 20]


def test_datetimes_only_when_some_time_is_not_midnight():
    midnight = pd.Series(["2024-03-05 00:00:00", "2024-03-06 00:00:00"])
    assert parse_dates(midnight, None, "t").tolist() == ["2024-03-05", "2024-03-06"]
    timed = pd.Series(["2024-03-05 14:30:00", "2024-03-06 00:00:00", None])
    assert parse_dates(timed, None, "t").tolist() == [
        "2024-03-05T14:30:00", "2024-03-06T00:00:00", None]  # fmt: skip
    stamps = pd.Series(pd.to_datetime(["2024-03-05 10:00", None]))
    assert parse_dates(stamps, None, "t").tolist() == ["2024-03-05T10:00:00", None]
    days = pd.Series(pd.to_datetime(["2024-03-05", "2024-03-07"]))
    assert parse_dates(days, None, "t").tolist() == ["2024-03-05", "2024-03-07"]


def test_declared_format_and_ambiguity():
    column = pd.Series(["03/04/2024", "11/12/2023"])
    assert parse_dates(column, None, "d").tolist() == ["2024-04-03", "2023-12-11"]  # day first
    assert parse_dates(column, "%m/%d/%Y", "d").tolist() == ["2024-03-04", "2023-11-12"]
    assert parse_dates(pd.Series(["20240305"]), "%Y%m%d", "d").tolist() == ["2024-03-05"]
    assert parse_dates(pd.Series([20240305]), "%Y%m%d", "d").tolist() == ["2024-03-05"]


@pytest.mark.parametrize(
    ("cells", "fmt", "row", "value"),
    [
        (["2024-03-05", "2024-13-01", "2024-03-07"], None, 2, "2024-13-01"),
        (["2024-03-05", None, "soon"], None, 3, "soon"),
        (["2024-03-05", "05/03/2024"], "%Y-%m-%d", 2, "05/03/2024"),
        (["2024-02-30"], "%Y-%m-%d", 1, "2024-02-30"),
    ],
)
def test_a_cell_that_does_not_parse(cells, fmt, row, value):
    with pytest.raises(InputError) as info:
        parse_dates(pd.Series(cells), fmt, "admitted")
    text = str(info.value)
    assert "'admitted'" in text and f"row {row} " in text and repr(value) in text
    assert "with date_format (e.g." in text and "--" not in text


# ----------------------------------------------------------------------------- hierarchy
def test_date_hierarchy_labels():
    h = date_hierarchy(["2024-03-05", "2024-03-05", "2023-11-30"])
    assert h.values == ("2023-11-30", "2024-03-05")
    assert path(h, "2024-03-05") == ["2024-03-05", "2024-03", "2024-Q1", "2024", "*"]
    assert path(h, "2023-11-30") == ["2023-11-30", "2023-11", "2023-Q4", "2023", "*"]
    one_year = date_hierarchy(["2024-03-05"], ["year"])
    assert path(one_year, "2024-03-05") == ["2024-03-05", "2024", "*"]  # * even for one year
    assert path(date_hierarchy(["2024-12-31"], ["month", "year"]), "2024-12-31") == [
        "2024-12-31", "2024-12", "2024", "*"]  # fmt: skip
    assert path(date_hierarchy(["2024-05-01"], ["quarter"]), "2024-05-01") == [
        "2024-05-01", "2024-Q2", "*"]  # fmt: skip


@pytest.mark.parametrize(
    ("day", "week"),
    [("2024-12-30", "2025-W01"), ("2021-01-03", "2020-W53"), ("2021-01-04", "2021-W01"),
     ("2024-02-29", "2024-W09"), ("2026-12-31", "2026-W53"), ("2027-01-01", "2026-W53")],
)  # fmt: skip
def test_iso_weeks(day, week):
    h = date_hierarchy([day], ["week"])
    assert path(h, day) == [day, week, "*"]
    first, last = period_span(week)
    assert first <= ordinal(day) <= last


def test_datetimes_get_a_day_level():
    values = ["2024-03-05T14:30:00", "2024-03-05T09:00:00", "2024-02-29T23:59:59"]
    h = date_hierarchy(values)
    assert path(h, "2024-03-05T14:30:00") == [
        "2024-03-05T14:30:00", "2024-03-05", "2024-03", "2024-Q1", "2024", "*"]  # fmt: skip
    assert path(h, "2024-02-29T23:59:59")[1:3] == ["2024-02-29", "2024-02"]


def test_the_missing_value_sits_under_the_top():
    h = date_hierarchy(["2024-03-05", MISSING_LABEL, "2023-01-01"])
    assert path(h, MISSING_LABEL) == [MISSING_LABEL] * 4 + ["*"]
    assert h.labels[1] == (MISSING_LABEL, "2023-01", "2024-03")


@pytest.mark.parametrize(
    ("levels", "words"),
    [
        (["week", "month"], ["week", "cross", "'week' alone"]),
        (["week", "year"], ["week", "2025-W01"]),
        (["day"], ["unknown", "'day'", "week, month, quarter, year"]),
        (["months"], ["unknown", "week, month, quarter, year"]),
        ([], ["no date level", "week, month, quarter, year"]),
        (["month", "month"], ["repeat", "week, month, quarter, year"]),
        (["year", "month"], ["out of order", "week, month, quarter, year"]),
    ],
)
def test_levels_that_are_refused(levels, words):
    with pytest.raises(HierarchyError) as info:
        date_hierarchy(["2024-03-05"], levels, source="dates of 'admitted'")
    for word in ["dates of 'admitted'", *words]:
        assert word in str(info.value)


@pytest.mark.parametrize("value", ["05/03/2024", "2024-3-5", "20240305", "2024-02-30", "2024"])
def test_values_that_are_not_iso_dates(value):
    with pytest.raises(HierarchyError, match="not an ISO date"):
        date_hierarchy(["2024-03-05", value])


def test_no_values():
    with pytest.raises(HierarchyError, match="no values"):
        date_hierarchy([])


# ----------------------------------------------------------------------------- days
@pytest.mark.parametrize(
    ("label", "first", "last"),
    [
        ("2024-03-05", "2024-03-05", "2024-03-05"),
        ("2024-03-05T10:00:00", "2024-03-05", "2024-03-05"),
        ("2024-02", "2024-02-01", "2024-02-29"),  # leap year
        ("2023-02", "2023-02-01", "2023-02-28"),
        ("2024-12", "2024-12-01", "2024-12-31"),
        ("2024-Q1", "2024-01-01", "2024-03-31"),
        ("2024-Q2", "2024-04-01", "2024-06-30"),
        ("2024-Q4", "2024-10-01", "2024-12-31"),
        ("2024-W09", "2024-02-26", "2024-03-03"),
        ("2025-W01", "2024-12-30", "2025-01-05"),
        ("2020-W53", "2020-12-28", "2021-01-03"),
        ("2024", "2024-01-01", "2024-12-31"),
    ],
)
def test_period_span(label, first, last):
    assert period_span(label) == (ordinal(first), ordinal(last))


@pytest.mark.parametrize(
    "label",
    ["*", "(missing)", "2024-13", "2024-00", "2024-Q0", "2024-Q5", "2021-W53", "2024-W00",
     "2024-02-30", "2024-03-05T24:00:00", "20-29", "24", "2024-3", "abc"],
)  # fmt: skip
def test_period_span_of_other_labels(label):
    assert period_span(label) is None


def test_day_number():
    assert day_number("2024-03-01") - day_number("2024-02-28") == 2  # the leap day between
    assert day_number("2024-03-05T23:59:59") == ordinal("2024-03-05")
    for bad in ("20240305", "2024-3-5", "2024-02-30", "x"):
        with pytest.raises(ValueError, match="not an ISO date"):
            day_number(bad)
