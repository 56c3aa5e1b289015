"""Dates: detect and parse a date column, build its hierarchy of periods, read a period's days.

A date quasi-identifier is a hierarchical attribute: its values are ISO dates (``2024-03-05``)
or datetimes (``2024-03-05T14:30:00``), generalized along nested periods — month ``2024-03``,
quarter ``2024-Q1``, year ``2024`` (or ISO week ``2024-W09``) — up to ``*``, and NCP prices a
period as its span of days (:mod:`incrowd.data.ncp`), so every algorithm treats dates like
any other hierarchy and the release publishes ISO periods.

Rules, each chosen once:

- **formats**: :data:`DATE_FORMATS`, ISO first; detection tries them in that order and never
  tries ``%Y%m%d`` (eight digits are more often a number or a code): declare it to use it;
- **ambiguity**: a text that parses under two formats (``03/04/2024``: day first and month
  first) is read under the first of :data:`DATE_FORMATS` (day first), and the others are
  returned so that the caller can warn; a day over 12 anywhere in the column settles it;
- **datetimes**: a column is published as datetimes (``YYYY-MM-DDTHH:MM:SS``) when its
  format has a time part and some present cell's time is not midnight; otherwise every cell
  is a date (``YYYY-MM-DD``) — one form per column;
- **weeks**: ISO 8601 weeks (``2024-12-30`` is in ``2025-W01``); they cross month and year
  boundaries, so ``week`` is a hierarchy's only period level.

Complexity: detection and parsing run :func:`pandas.to_datetime` on the distinct texts only,
so a column of a million cells costs one hash pass and a parse per distinct value.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import HierarchyError, InputError, option
from .hierarchy import ROOT, Hierarchy

__all__ = [
    "DATE_FORMATS",
    "DATE_LEVELS",
    "date_fits",
    "date_hierarchy",
    "day_number",
    "detect_date_format",
    "parse_dates",
    "period_span",
]

#: Candidate strftime formats, ISO first; detection tries them in this order.
DATE_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d.%m.%Y",
    "%d-%m-%Y",
    "%Y%m%d",
)
#: Formats used only when declared: eight digits are more likely a number or a code.
_DECLARED_ONLY = frozenset({"%Y%m%d"})
#: The period levels of a date hierarchy, finest first.
DATE_LEVELS = ("week", "month", "quarter", "year")

_DATE = "%Y-%m-%d"
_DATETIME = "%Y-%m-%dT%H:%M:%S"
_SAMPLE = 64  # a format that fails on a few distinct values is dropped before the full parse
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?")
_PERIOD = re.compile(r"(\d{4})(?:-(\d{2})|-Q([1-4])|-W(\d{2}))?")


def check_date_format(fmt: object) -> str:
    """``fmt`` when it is a strftime format with a year, month and day; else a
    :class:`~incrowd.ParameterError` naming it (``%Q`` is no directive)."""
    from ..errors import ParameterError

    if not isinstance(fmt, str) or not all(d in fmt for d in ("%Y", "%m", "%d")):
        msg = f"a date format needs %Y, %m and %d (e.g. %d/%m/%Y), got {fmt!r}"
        raise ParameterError(msg)
    try:
        dt.datetime.strptime(dt.date(2024, 3, 5).strftime(fmt), fmt)
    except ValueError as exc:
        msg = f"date format {fmt!r}: {exc}"
        raise ParameterError(msg) from None
    return fmt


def detect_date_format(texts: Sequence[str]) -> tuple[str | None, tuple[str, ...]]:
    """``(first, others)``: the first of :data:`DATE_FORMATS` under which every text parses,
    and the other formats under which every one parses too (non-empty: ambiguous).

    Texts are stripped and empty ones ignored; ``(None, ())`` when no format parses them all
    (or there is nothing to parse). ``%Y%m%d`` is never detected.

    >>> detect_date_format(["03/04/2024", "11/12/2023"])
    ('%d/%m/%Y', ('%m/%d/%Y',))
    >>> detect_date_format(["03/04/2024", "25/12/2023"])
    ('%d/%m/%Y', ())
    >>> detect_date_format(["20240305"])
    (None, ())
    """
    distinct = _distinct_texts(texts)
    if not distinct.size:
        return None, ()
    sample = pd.Series(distinct[:_SAMPLE], dtype=object)
    # every format names a year in digits: a text without one parses under none (a label
    # column, as most are, is answered without trying them all)
    if not sample.str.contains(r"\d", regex=True).all():
        return None, ()
    whole = pd.Series(distinct, dtype=object)
    found = [
        fmt
        for fmt in DATE_FORMATS
        if fmt not in _DECLARED_ONLY
        and _parse(sample, fmt).notna().all()
        and (len(whole) == len(sample) or _parse(whole, fmt).notna().all())
    ]
    return (found[0], tuple(found[1:])) if found else (None, ())


def parse_dates(column: pd.Series, fmt: str | None, name: str) -> pd.Series:
    """Each present cell as ISO text, an object column; missing cells (NA, None, empty or
    blank text) are None.

    Cells are ``YYYY-MM-DD``, or ``YYYY-MM-DDTHH:MM:SS`` for every cell when ``fmt`` has a
    time part and some cell's time is not midnight. ``fmt`` None detects the format
    (:func:`detect_date_format`; an ambiguous column is read under the first format, which
    the caller may warn of). A column of datetime dtype needs no format. A cell that does not
    parse raises :class:`InputError` naming the column, its row (1-based), its value and
    ``--date-format``.

    >>> parse_dates(pd.Series(["05.03.2024", None, " 29.02.2024"]), None, "d").tolist()
    ['2024-03-05', None, '2024-02-29']
    """
    if pd.api.types.is_datetime64_any_dtype(column):
        stamps = pd.DatetimeIndex(column)
        return _iso_text(stamps, pd.Series(stamps).notna().to_numpy(), True, column.index)
    codes, uniques = pd.factorize(column)  # missing cells: code -1
    distinct = pd.Series([str(u).strip() for u in uniques], dtype=object)
    blank = distinct.eq("").to_numpy(dtype=bool)
    if blank.any():  # blank text is missing too
        codes = np.where(blank[np.maximum(codes, 0)], -1, codes)
    if fmt is None:
        shown = distinct[~blank]
        fmt = detect_date_format(shown.tolist())[0] or _best_format(shown)
    stamps = _parse(distinct, fmt)
    bad = stamps.isna().to_numpy() & ~blank
    if bad.any():
        row = int(np.flatnonzero(np.isin(codes, np.flatnonzero(bad)))[0])
        msg = (
            f"column {name!r}: row {row + 1} holds {column.iloc[row]!r}, which is not a date "
            f"in the format {fmt!r}; give the column's format with {option('date_format')} "
            "(e.g. %d/%m/%Y)"
        )
        raise InputError(msg)
    timed = any(d in fmt for d in ("%H", "%I", "%M", "%S"))
    index = pd.DatetimeIndex(stamps)
    return _iso_text(index[np.maximum(codes, 0)], codes >= 0, timed, column.index)


def date_fits(texts: pd.Series) -> np.ndarray:
    """Which of the distinct stripped ``texts`` parse under the detected format that parses
    the most of them (a mask; all False when none has a digit to be a year).

    >>> date_fits(pd.Series(["05/03/2024", "9999-99-99", "25/12/2023"])).tolist()
    [True, False, True]
    """
    texts = pd.Series(texts, dtype=object)
    if not texts.str.contains(r"\d", regex=True).any():
        return np.zeros(len(texts), dtype=bool)
    return _parse(texts, _best_format(texts)).notna().to_numpy(dtype=bool)


def _distinct_texts(texts: Iterable[object]) -> np.ndarray:
    series = pd.Series(list(texts), dtype=object).dropna().astype(str).str.strip()
    return np.asarray(series[series != ""].unique(), dtype=object)


def _parse(texts: pd.Series, fmt: str) -> pd.Series:
    return pd.to_datetime(texts, format=fmt, errors="coerce")


def _best_format(distinct: pd.Series) -> str:
    """The format that parses the most distinct texts (its first failure is reported)."""
    tried = [f for f in DATE_FORMATS if f not in _DECLARED_ONLY]
    return max(tried, key=lambda f: int(_parse(distinct, f).notna().sum()))


def _iso_text(stamps: pd.DatetimeIndex, present: np.ndarray, timed: bool,
              index: pd.Index) -> pd.Series:  # fmt: skip
    """ISO text of the present stamps (datetimes when ``timed`` and a time is not midnight)."""
    out = np.full(len(stamps), None, dtype=object)
    if present.any():
        kept = stamps[present]
        with_time = timed and bool((kept != kept.normalize()).any())
        out[present] = np.asarray(kept.strftime(_DATETIME if with_time else _DATE), dtype=object)
    return pd.Series(out, index=index, dtype=object)


# ----------------------------------------------------------------------------- hierarchy
def date_hierarchy(
    values: Iterable[str],
    levels: Sequence[str] = ("month", "quarter", "year"),
    source: str = "dates",
) -> Hierarchy:
    """The hierarchy of periods over ISO dates or datetimes, up to ``*``.

    Leaves are the distinct ``values``; level ``j`` is the period ``levels[j-1]``: week
    ``2024-W09`` (ISO), month ``2024-03``, quarter ``2024-Q1``, year ``2024``. Datetimes get a
    first level ``day`` (``2024-03-05``). The value ``"(missing)"``
    (:data:`incrowd.data.columns.MISSING_LABEL`) sits directly under ``*``.

    Raises :class:`HierarchyError` for a value that is not an ISO date or datetime, and for
    levels that are unknown, repeated, out of order, or do not nest (``week`` followed by a
    longer period).

    >>> h = date_hierarchy(["2024-03-05", "2024-12-30"])
    >>> [h.label(j, h.encode(["2024-12-30"])[0, j]) for j in range(h.height + 1)]
    ['2024-12-30', '2024-12', '2024-Q4', '2024', '*']
    >>> h = date_hierarchy(["2024-12-30T08:00:00"], ["week"])
    >>> [h.label(j, 0) for j in range(h.height + 1)]
    ['2024-12-30T08:00:00', '2024-12-30', '2025-W01', '*']
    """
    from .columns import MISSING_LABEL  # columns may come to read dates: imported late

    levels = _check_levels(levels, source)
    distinct = sorted({str(v) for v in values})
    if not distinct:
        msg = f"{source}: no values to build a date hierarchy from"
        raise HierarchyError(msg)
    days: dict[str, dt.date] = {}
    for value in distinct:
        if value == MISSING_LABEL:
            continue
        day = _iso_day(value)
        if day is None:
            msg = (
                f"{source}: {value!r} is not an ISO date (YYYY-MM-DD) or datetime "
                "(YYYY-MM-DDTHH:MM:SS); parse the column as dates first "
                f"({option('date_format')})"
            )
            raise HierarchyError(msg)
        days[value] = day
    timed = any(len(v) > 10 for v in days)
    width = 1 + timed + len(levels)
    rows = [[MISSING_LABEL] * width + [ROOT]] if MISSING_LABEL in distinct else []
    above: dict[dt.date, list[str]] = {}  # a day's labels, once per day (datetimes share it)
    for value, day in days.items():
        if day not in above:
            periods = [_period_label(day, level) for level in levels]
            above[day] = [*([day.isoformat()] if timed else []), *periods, ROOT]
        rows.append([value, *above[day]])
    return Hierarchy.from_rows(rows, source=source)


def _check_levels(levels: Sequence[str], source: str) -> tuple[str, ...]:
    levels = tuple(levels)
    valid = ", ".join(DATE_LEVELS)
    unknown = [v for v in levels if v not in DATE_LEVELS]
    if unknown or not levels:
        what = f"unknown date level {unknown[0]!r}" if unknown else "no date level given"
        msg = (
            f"{source}: {what}; name one or more of {valid}, finest first (a datetime's "
            "day is added by itself)"
        )
        raise HierarchyError(msg)
    if len(set(levels)) < len(levels) or list(levels) != sorted(levels, key=DATE_LEVELS.index):
        msg = (
            f"{source}: date levels {','.join(levels)} repeat a level or are out of order; "
            f"name each at most once, finest first, in the order {valid}"
        )
        raise HierarchyError(msg)
    if levels[0] == "week" and len(levels) > 1:
        msg = (
            f"{source}: week cannot be followed by {levels[1]}: ISO weeks cross month and "
            "year boundaries (2024-12-30 is in week 2025-W01), so the periods would not "
            "nest; write 'week' alone, or 'month,quarter,year'"
        )
        raise HierarchyError(msg)
    return levels


def _period_label(day: dt.date, level: str) -> str:
    if level == "week":
        year, week, _ = day.isocalendar()
        return f"{year:04d}-W{week:02d}"
    if level == "month":
        return f"{day.year:04d}-{day.month:02d}"
    if level == "quarter":
        return f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}"
    return f"{day.year:04d}"


# ----------------------------------------------------------------------------- days
def _iso_day(text: str) -> dt.date | None:
    """The day of an ISO date or datetime text, or None."""
    match = _ISO.fullmatch(text)
    if match is None:
        return None
    try:
        day = dt.date(int(match[1]), int(match[2]), int(match[3]))
        if match[4] is not None:
            dt.time(int(match[4]), int(match[5]), int(match[6]))
    except ValueError:
        return None
    return day


def day_number(iso: str) -> int:
    """The day (``datetime.date.toordinal``) of an ISO date or datetime; ValueError otherwise.

    >>> day_number("2024-03-05T14:30:00") - day_number("2024-02-28")
    6
    """
    day = _iso_day(iso)
    if day is None:
        msg = f"{iso!r} is not an ISO date (YYYY-MM-DD) or datetime (YYYY-MM-DDTHH:MM:SS)"
        raise ValueError(msg)
    return day.toordinal()


def period_span(label: str) -> tuple[int, int] | None:
    """``(first, last)`` day (``date.toordinal``) of a date, a datetime (its day) or a period
    label — ``2024-03`` (month), ``2024-Q1`` (quarter), ``2024-W09`` (ISO week), ``2024``
    (year) — else None.

    Only for the labels of a date hierarchy: elsewhere ``2024`` is a number, not a year.

    >>> [b - a + 1 for a, b in map(period_span, ["2024-02", "2024-Q1", "2024-W09", "2024"])]
    [29, 91, 7, 366]
    """
    day = _iso_day(label)
    if day is not None:
        return day.toordinal(), day.toordinal()
    match = _PERIOD.fullmatch(label)
    if match is None:
        return None
    year = int(match[1])
    try:
        if match[2] is not None:  # month
            month = int(match[2])
            last = calendar.monthrange(year, month)[1]
            first, end = dt.date(year, month, 1), dt.date(year, month, last)
        elif match[3] is not None:  # quarter
            last_month = 3 * int(match[3])
            first = dt.date(year, last_month - 2, 1)
            end = dt.date(year, last_month, calendar.monthrange(year, last_month)[1])
        elif match[4] is not None:  # ISO week
            first = dt.date.fromisocalendar(year, int(match[4]), 1)
            end = first + dt.timedelta(6)
        else:
            first, end = dt.date(year, 1, 1), dt.date(year, 12, 31)
    except (ValueError, calendar.IllegalMonthError):
        return None
    return first.toordinal(), end.toordinal()
