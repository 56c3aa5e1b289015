"""Each quasi-identifier before and after, counted on the same bins (issue 57, item 8).

The input and the release are counted on one set of bins, and every record once on each
side (a centers row for its ``count``):

- **numbers**: bins of one "nice" width on the input's range
  (:func:`~incrowd.data.hierarchy_specs.default_widths`: 8 to 20 of them), labelled in the
  one style of numeric labels (``20-29``, ``0-249.99``). A published range's records are
  spread evenly over the bins it covers, since the release says only that they lie somewhere
  in it (``18-39`` on whole numbers covers 18 to 39.99…; ``65+`` ends at the input's
  largest value, ``<18`` starts at its smallest); a published number falls in its bin;
- **dates**: calendar bins — days, months, quarters or years, the finest with at most 20 of
  them — and a published period's records spread evenly over its days;
- **categories and codes** with a hierarchy: the labels of one level, the lowest at which the
  input holds at most :data:`MAX_CATEGORIES` of them (``021**`` for zip codes), in order of
  their input records; a published value or label below that level counts in the bin that
  holds it, one above it in the bar ``coarser``;
- **categories** without one: the :data:`MAX_CATEGORIES` commonest input values, the rest in
  the bar ``other values`` (a value set ``{a|b}`` across bins is ``coarser``).

Bars of their own, drawn grey after the bins, count what no bin holds: missing cells
(:data:`~incrowd.data.columns.MISSING_LABEL`), cells published as ``*``, ``coarser`` and
``other values`` (a published text that reads as none of the bins). O(distinct values ·
bins) after one pass over the rows.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from decimal import ROUND_FLOOR, Decimal
from typing import Any

import numpy as np
import pandas as pd

from ..data.columns import MISSING_LABEL, shows_missing
from ..data.dates import day_number, period_span
from ..data.hierarchy import Hierarchy
from ..data.hierarchy_specs import default_widths
from ..data.ranges import decimals, format_number, last_below, range_label, read_range
from ..data.schema import Categorical, Hierarchical, Numeric
from ..release.generalize import SUPPRESSED_VALUE, parse_value_set

__all__ = ["Binned", "MAX_CATEGORIES", "bin_column"]

#: Bins of a category plot at most.
MAX_CATEGORIES = 15
#: Bins of a date plot at most (a number plot has 8 to 20: default_widths).
MAX_BINS = 20
#: The bars after the bins, in this order.
COARSER, OTHER = "coarser", "other values"
EXTRAS = (MISSING_LABEL, SUPPRESSED_VALUE, COARSER, OTHER)


@dataclass
class Binned:
    """A column counted on ``labels`` (the bins) before and after, with the extra bars."""

    kind: str  # "number", "date" or "category"
    labels: list[str]
    before: np.ndarray
    after: np.ndarray
    extra_before: dict[str, float] = field(default_factory=dict)
    extra_after: dict[str, float] = field(default_factory=dict)
    note: str = ""

    def extras_note(self) -> str:
        """What each extra bar drawn counts, in words."""
        words = {MISSING_LABEL: "cells with no value", SUPPRESSED_VALUE: "published as * (any "
                 "value)", COARSER: "published above the bins' level", OTHER: "values beside "
                 "the bins"}  # fmt: skip
        shown = self.bars()[0][len(self.labels) :]
        return "; ".join(f"{label}: {words[label]}" for label in shown)

    def bars(self) -> tuple[list[str], list[float], list[float], int]:
        """``(labels, before, after, n_extra)``: the bins, then each extra bar that counts a
        record on either side."""
        extra = [e for e in EXTRAS if self.extra_before.get(e, 0) or self.extra_after.get(e, 0)]
        labels = self.labels + extra
        before = [*self.before.tolist(), *(self.extra_before.get(e, 0.0) for e in extra)]
        after = [*self.after.tolist(), *(self.extra_after.get(e, 0.0) for e in extra)]
        return labels, [_tidy(v) for v in before], [_tidy(v) for v in after], len(extra)


def _tidy(value: float) -> float:
    """A count as a whole number when it is one (spread counts keep 6 decimals)."""
    value = round(float(value), 6)
    return float(round(value)) if value.is_integer() else value


def bin_column(
    name: str, original: pd.Series, published: pd.Series, weights: np.ndarray, metric: Any
) -> Binned:
    """The column ``name`` counted before (``original``, as the report read it) and after
    (``published``, each row weighing ``weights``), on bins chosen by its ``metric``'s type."""
    cells = getattr(metric, "cells", None)
    kind = getattr(cells, "kind", None)
    hierarchy = metric.hierarchy if isinstance(metric, Hierarchical) else None
    missing = shows_missing(original)
    present = original[~missing]
    if kind == "date" or (kind is None and hierarchy is not None and _all_dates(present)):
        binned = _dates(present, published, weights, hierarchy)
    elif kind == "number" or isinstance(metric, Numeric) or (
        kind is None and not isinstance(metric, Categorical) and _all_numbers(present)
    ):  # fmt: skip
        binned = _numbers(present, published, weights, hierarchy)
    else:
        binned = _categories(present, published, weights, hierarchy)
    if binned is None:  # nothing present to draw bins from: only the extra bars
        binned = Binned("category", [], np.zeros(0), np.zeros(0))
        _count_extras(binned, published, weights, lambda _: None)
    binned.extra_before[MISSING_LABEL] = float(missing.sum())
    return binned


# ------------------------------------------------------------------------- reading
def _all_numbers(present: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(present):
        return True
    values = pd.to_numeric(present.astype(str), errors="coerce")
    return bool(len(present)) and bool(values.notna().all())


def _all_dates(present: pd.Series) -> bool:
    texts = present.astype(str).unique()
    return bool(len(texts)) and all(period_span(t) is not None and "-" in t for t in texts)


def _grouped(published: pd.Series, weights: np.ndarray) -> pd.Series:
    """Records per distinct published text (a number published as a number: its text)."""
    if pd.api.types.is_numeric_dtype(published):
        text = pd.Series([MISSING_LABEL if pd.isna(v) else format_number(v)
                          for v in published.tolist()])  # fmt: skip
    else:
        text = published.astype(object).where(published.notna(), MISSING_LABEL).astype(str)
    return pd.Series(weights, dtype=np.float64).groupby(text.to_numpy()).sum()


def _count_extras(binned: Binned, published: pd.Series, weights: np.ndarray, place) -> None:
    """Each published text counted where ``place(text)`` puts it: a bin index, a list of
    ``(bin, share)``, or None (the extra bar it belongs to)."""
    for text, count in _grouped(published, weights).items():
        text = str(text)
        if text.strip() in ("", MISSING_LABEL):
            key = MISSING_LABEL
        elif text == SUPPRESSED_VALUE:
            key = SUPPRESSED_VALUE
        else:
            where = place(text)
            if isinstance(where, str):
                key = where
            elif where is not None:
                for index, share in where:
                    binned.after[index] += count * share
                continue
            else:
                key = OTHER
        binned.extra_after[key] = binned.extra_after.get(key, 0.0) + count


# ------------------------------------------------------------------ ranges on a line
def _spread(edges: np.ndarray, lo: float, hi: float) -> list[tuple[int, float]]:
    """Shares of ``[lo, hi)`` in each bin ``[edges[i], edges[i + 1])``, clipped to the bins
    (a point: its bin's share 1)."""
    n = len(edges) - 1
    lo, hi = max(lo, edges[0]), min(hi, edges[-1])
    if hi <= lo:
        i = int(np.clip(np.searchsorted(edges, lo, side="right") - 1, 0, n - 1))
        return [(i, 1.0)]
    overlap = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0, None)
    return [(int(i), float(overlap[i] / (hi - lo))) for i in np.flatnonzero(overlap)]


def _under(hierarchy: Hierarchy | None, text: str, read) -> tuple[float, float] | None:
    """The span of the values a hierarchy label stands for (a label naming no range)."""
    found = hierarchy.level_of_label(text) if hierarchy is not None else None
    if found is None:
        return None
    level, node = found
    points = [read(v) for v in np.asarray(hierarchy.values)[hierarchy.codes[:, level] == node]
              if v != MISSING_LABEL]  # fmt: skip
    return (min(points), max(points)) if points else None


def _numbers(present: pd.Series, published: pd.Series, weights: np.ndarray,
             hierarchy: Hierarchy | None) -> Binned | None:  # fmt: skip
    values = pd.to_numeric(present.astype(str).str.strip(), errors="coerce").to_numpy(float)
    values = values[np.isfinite(values)]
    if not values.size:
        return None
    width = Decimal(repr(default_widths(values)[0]))
    distinct = np.unique(values)
    step = Decimal(1).scaleb(-max(decimals(x) for x in [float(width), *distinct.tolist()]))
    low, high = Decimal(repr(float(distinct[0]))), Decimal(repr(float(distinct[-1])))
    origin = (low / width).to_integral_value(rounding=ROUND_FLOOR) * width
    starts = [origin + i * width for i in range(int((high - origin) // width) + 1)]
    edges = np.array([float(s) for s in [*starts, starts[-1] + width]])
    labels = [range_label(float(s), last_below(s + width, step)) for s in starts]
    index = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(starts) - 1)
    before = np.bincount(index, minlength=len(starts)).astype(float)
    binned = Binned("number", labels, before, np.zeros(len(starts)))
    last = float(high + step)

    def place(text: str) -> list[tuple[int, float]] | None:
        bounds = read_range(text) or _under(hierarchy, text, float)
        if bounds is None:
            return None
        lo, hi = bounds
        if lo == -math.inf:  # <b: from the input's smallest value up to b
            return _spread(edges, edges[0], float(np.nextafter(hi, math.inf)))
        if hi == math.inf:  # a+: from a to the input's largest value
            return _spread(edges, lo, last)
        # a closed range holds the values up to hi at the data's precision: 18-39 is [18, 40)
        return _spread(edges, lo, lo) if lo == hi else _spread(edges, lo, hi + float(step))

    _count_extras(binned, published, weights, place)
    binned.note = (
        f"bins of width {format_number(float(width))} on the input's range; each published "
        "range's records are spread evenly over the bins it covers (the release says only "
        "that they lie somewhere in it), a published number counts in its bin"
    )
    return binned


# ---------------------------------------------------------------------------- dates
def _date_bins(first: dt.date, last: dt.date) -> tuple[list[str], list[int], str]:
    """Calendar bins covering ``first``–``last``: their labels, their first days (and the
    day after the last bin) and their unit, the finest with at most :data:`MAX_BINS` bins."""
    if (last - first).days < MAX_BINS:
        days = [first + dt.timedelta(i) for i in range((last - first).days + 2)]
        return [d.isoformat() for d in days[:-1]], [d.toordinal() for d in days], "day"
    units = ((1, "{y:04d}-{m:02d}", "month"), (3, "{y:04d}-Q{q}", "quarter"),
             (12, "{y:04d}", "year"))  # fmt: skip
    for months, spell, unit in units:
        start = (first.year * 12 + first.month - 1) // months * months
        stop = (last.year * 12 + last.month - 1) // months * months
        if (stop - start) // months + 1 <= MAX_BINS:
            marks = range(start, stop + months + 1, months)
            days = [dt.date(m // 12, m % 12 + 1, 1).toordinal() for m in marks]
            labels = [spell.format(y=m // 12, m=m % 12 + 1, q=m % 12 // 3 + 1)
                      for m in marks[:-1]]  # fmt: skip
            return labels, days, unit
    years = next(w for w in (2, 5, 10, 20, 50, 100, 1000)
                 if (last.year // w - first.year // w) + 1 <= MAX_BINS)  # fmt: skip
    marks = range(first.year // years * years, (last.year // years + 1) * years + 1, years)
    labels = [range_label(y, y + years - 1) for y in marks[:-1]]
    return labels, [dt.date(y, 1, 1).toordinal() for y in marks], f"{years} years"


def _dates(present: pd.Series, published: pd.Series, weights: np.ndarray,
           hierarchy: Hierarchy | None) -> Binned | None:  # fmt: skip
    texts = present.astype(str)
    counts = texts.value_counts()
    days = {t: day_number(t) for t in counts.index}
    if not days:
        return None
    first, last = (dt.date.fromordinal(f(days.values())) for f in (min, max))
    labels, starts, unit = _date_bins(first, last)
    edges = np.array(starts, dtype=float)
    index = np.clip(np.searchsorted(edges, [days[t] for t in counts.index], side="right") - 1,
                    0, len(labels) - 1)  # fmt: skip
    before = np.bincount(index, weights=counts.to_numpy(float), minlength=len(labels))
    binned = Binned("date", labels, before, np.zeros(len(labels)))

    def place(text: str) -> list[tuple[int, float]] | None:
        span = period_span(text) or _under(hierarchy, text, day_number)
        return None if span is None else _spread(edges, span[0], span[1] + 1)

    _count_extras(binned, published, weights, place)
    binned.note = (
        f"bins of {'one ' if ' ' not in unit else ''}{unit}; each published period's records "
        "are spread evenly over its days (the release says only that they lie somewhere in it)"
    )
    return binned


# ----------------------------------------------------------------------- categories
def _categories(present: pd.Series, published: pd.Series, weights: np.ndarray,
                hierarchy: Hierarchy | None) -> Binned | None:  # fmt: skip
    counts = present.astype(str).value_counts()
    if not len(counts):
        return None
    if hierarchy is not None:
        binned = _hierarchy_level(counts, published, weights, hierarchy)
        if binned is not None:
            return binned
    order = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    labels = [str(v) for v, _ in order[:MAX_CATEGORIES]]
    at = {v: i for i, v in enumerate(labels)}
    before = np.array([float(c) for _, c in order[:MAX_CATEGORIES]])
    binned = Binned("category", labels, before, np.zeros(len(labels)))
    rest = float(sum(c for _, c in order[MAX_CATEGORIES:]))
    if rest:
        binned.extra_before[OTHER] = rest

    def place(text: str) -> list[tuple[int, float]] | str | None:
        members = parse_value_set(text) or [text]
        bins = {at.get(m) for m in members}
        if len(bins) > 1:
            return COARSER
        (one,) = bins
        return None if one is None else [(one, 1.0)]

    _count_extras(binned, published, weights, place)
    others = f"; the other {len(order) - len(labels):,} are the bar '{OTHER}'" if rest else ""
    binned.note = f"the {len(labels)} commonest input values{others}"
    return binned


def _hierarchy_level(counts: pd.Series, published: pd.Series, weights: np.ndarray,
                     hierarchy: Hierarchy) -> Binned | None:  # fmt: skip
    """Bins of the lowest level with at most MAX_CATEGORIES labels of the input's values
    (below the top), or None when only the top has so few."""
    values = [v for v in counts.index if v in hierarchy]
    if not values:
        return None
    stray = float(counts.sum() - counts[values].sum())  # no value of the hierarchy: not drawn
    codes = hierarchy.encode(values)
    level = next((j for j in range(hierarchy.height)
                  if len(np.unique(codes[:, j])) <= MAX_CATEGORIES), None)  # fmt: skip
    if level is None:
        return None
    per = pd.Series(counts[values].to_numpy(float)).groupby(codes[:, level]).sum()
    order = sorted(per.items(), key=lambda item: (-item[1], hierarchy.label(level, item[0])))
    at = {int(node): i for i, (node, _) in enumerate(order)}
    labels = [hierarchy.label(level, int(node)) for node, _ in order]
    binned = Binned("category", labels, np.array([c for _, c in order]), np.zeros(len(order)))
    if stray:
        binned.extra_before[OTHER] = stray
    up = {j: {} for j in range(level + 1)}  # node of level j -> its node at the bins' level
    for row in hierarchy.codes[:, : level + 1].tolist():
        for j in range(level + 1):
            up[j][row[j]] = row[level]

    def place(text: str) -> list[tuple[int, float]] | str | None:
        nodes = set()
        for member in parse_value_set(text) or [text]:
            found = hierarchy.level_of_label(member)
            if found is None:
                return None
            j, node = found
            if j > level:
                return COARSER
            nodes.add(up[j][node])
        if len(nodes) > 1:
            return COARSER
        (node,) = nodes
        return [(at[node], 1.0)] if node in at else None

    _count_extras(binned, published, weights, place)
    binned.note = (
        f"drawn at level {level} of its hierarchy, the lowest with at most {MAX_CATEGORIES} "
        "labels of the input's values: a published value or label at or below it counts in "
        "the bin that holds it"
    )
    return binned
