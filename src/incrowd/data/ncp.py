"""The normalized certainty penalty (NCP) of a published cell: the one definition.

Xu et al. 2006 (also ARX's "loss"), with the domain taken from the input, as every comparison
with the peer tools scores it (``ncp-definition.md`` in the project notes). Per cell, for an
input of ``n`` records:

- **numeric**: a value costs 0; a range ``lo-hi`` costs ``(hi − lo) / (max − min)``, the
  attribute's spread over the input, the range first clipped to the input's
  ``[min, max]`` (so an open band, ``65+`` or ``<18``, costs the part of the input's
  range it covers: :func:`incrowd.data.ranges.read_range`); ``*`` costs 1;
- **hierarchy label**: ``(values under it − 1) / (values − 1)``, counting only the distinct
  values *that occur in the input* (a hierarchy file may list more: ARX's list ages 1–99);
  when every value of the hierarchy is a number (and the column is not read as codes or
  categories: a zip code's digits name no quantity), a label reads as the interval it names
  (``20-39``), clipped to the input's ``[min, max]``, and costs as a numeric range — a label
  that names no interval stands for the span of the input values under it; when every value
  is an ISO date or datetime (:mod:`incrowd.data.dates`), values are days and a label costs
  the days of the period it names (``2024-03``, ``2024-Q1``, ``2024-W09``, ``2024``) as a
  range, last day − first day; a missing-value leaf (``(missing)``, directly under ``*``)
  is left out of the span and costs 0, and only ``*`` covers it with the others;
- **value set** ``{a|b}``: ``(distinct input values covered − 1) / (values − 1)``.

Costs never decrease up a hierarchy (a parent costs at least each child), which the
k-anonymity analysis needs of any cost.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .columns import MISSING_LABEL, CategoricalColumn, HierarchicalColumn
from .dates import day_number, period_span
from .hierarchy import Hierarchy
from .ranges import read_range

__all__ = [
    "domain_size", "label_penalties", "present_values", "range_of_label", "range_penalty",
    "set_penalty",
]  # fmt: skip

T = TypeVar("T")
Bounds = Callable[[str], tuple[float, float] | None]


def present_values(column: CategoricalColumn | HierarchicalColumn) -> np.ndarray:
    """Leaf codes that occur in the input (sorted)."""
    if isinstance(column, CategoricalColumn):  # categories are the values found in the data
        return np.arange(len(column.categories))
    return _present(column)


def domain_size(column: CategoricalColumn | HierarchicalColumn) -> int:
    """Number of distinct input values of a categorical or hierarchical column."""
    return int(present_values(column).size)


def range_penalty(lo: Any, hi: Any, bounds: tuple[float, float]) -> Any:
    """NCP of numeric ranges ``lo-hi`` (clipped to the input's range ``bounds``)."""
    lo_all, hi_all = bounds
    if hi_all <= lo_all:
        return np.zeros(np.shape(lo))
    width = np.minimum(hi, hi_all) - np.maximum(lo, lo_all)
    return np.maximum(width, 0.0) / (hi_all - lo_all)


def set_penalty(covered: Any, domain: int) -> Any:
    """NCP of value sets covering ``covered`` of the ``domain`` distinct input values."""
    covered = np.asarray(covered, dtype=np.float64)
    return (covered - 1.0) / (domain - 1.0) if domain > 1 else np.zeros(covered.shape)


def label_penalties(column: CategoricalColumn | HierarchicalColumn) -> list[np.ndarray]:
    """NCP of publishing each node, per level (level 0: the values, cost 0; top: 1, or 0
    when the input holds one value). Read-only arrays, computed once per column.

    A categorical column is a one-level hierarchy: its values, then ``*``.
    """
    if isinstance(column, CategoricalColumn):
        top = 1.0 if len(column.categories) > 1 else 0.0
        return [np.zeros(len(column.categories)), np.full(1, top)]
    return list(_label_penalties(column))


#: The reader of a published label's range (:func:`incrowd.data.ranges.read_range`), under
#: the name the measures import it by.
range_of_label = read_range


class _Derived:
    """What is derived from a column, computed once per owner and held only while the owner
    lives. A column whose metric pins a domain owes both to that metric alone (its hierarchy
    and domain), so every column coded with it (each block of a blockwise run, the bound's
    small tables) shares one entry; any other column owns its own."""

    def __init__(self) -> None:
        self._entries: dict[int, object] = {}

    def get(self, column: HierarchicalColumn, build: Callable[[], T]) -> T:
        owner: object = column.metric if column.metric.domain is not None else column
        key = id(owner)
        if key not in self._entries:
            self._entries[key] = build()
            weakref.finalize(owner, self._entries.pop, key, None)
        return self._entries[key]  # type: ignore[return-value]


_PRESENT = _Derived()
_PENALTIES = _Derived()


def _present(column: HierarchicalColumn) -> np.ndarray:
    domain = column.metric.domain

    def build() -> np.ndarray:
        return np.unique(column.codes[:, 0] if domain is None
                         else column.hierarchy.encode(domain)[:, 0])  # fmt: skip

    return _PRESENT.get(column, build)


def _label_penalties(column: HierarchicalColumn) -> tuple[np.ndarray, ...]:
    return _PENALTIES.get(column, lambda: _compute_penalties(column))


def _compute_penalties(column: HierarchicalColumn) -> tuple[np.ndarray, ...]:
    hierarchy = column.hierarchy
    table = hierarchy.codes  # (values, levels)
    present = _present(column)
    widths = [len(labels) for labels in hierarchy.labels]
    cells = column.metric.cells
    # codes and categories are labels whatever their digits (a zip prefix is no range); a
    # hierarchy made in Python without a type: digit values with a leading zero are codes
    labels_only = (cells.kind in ("code", "category") if cells is not None
                   else _leading_zero_codes(hierarchy.values))  # fmt: skip
    points = None if labels_only else _leaf_points(hierarchy)
    numbers, ranged = None, present
    if points is not None:
        values, bounds_of = points
        ranged = present[~np.isnan(values[present])]  # the missing leaf is in no range
        numbers = values[ranged]
    out: list[np.ndarray] = []
    if numbers is not None and numbers.size and numbers.max() > numbers.min():
        lo_all, hi_all = float(numbers.min()), float(numbers.max())
        span = hi_all - lo_all
        for level, width in enumerate(widths):
            node = table[ranged, level]
            lo = np.full(width, np.inf)
            hi = np.full(width, -np.inf)
            np.minimum.at(lo, node, numbers)
            np.maximum.at(hi, node, numbers)
            cost = np.where(hi >= lo, (hi - lo) / span, 0.0)  # span of the values under it
            for code, label in enumerate(hierarchy.labels[level]):
                bounds = bounds_of(label) if level > 0 else None
                if bounds is not None and hi[code] >= lo[code]:
                    a, b = max(bounds[0], lo_all), min(bounds[1], hi_all)
                    cost[code] = max(b - a, 0.0) / span
            out.append(cost)
    else:
        total = present.size
        for level, width in enumerate(widths):
            under = np.bincount(table[present, level], minlength=width).astype(np.float64)
            out.append((under - 1.0) / (total - 1.0) if total > 1 else np.zeros(width))
    out[0] = np.zeros(widths[0])
    out[-1] = np.full(widths[-1], 1.0 if present.size > 1 else 0.0)
    for level in range(1, len(out)):  # a parent costs at least each of its children
        parent = np.zeros(widths[level - 1], dtype=np.intp)
        parent[table[:, level - 1]] = table[:, level]
        np.maximum.at(out[level], parent, out[level - 1])
    for row in out:
        row.setflags(write=False)
    return tuple(out)


def _leading_zero_codes(values: tuple[str, ...]) -> bool:
    """Whether the values are digit strings one of which has a leading zero (``02142``): a
    code, by :mod:`incrowd.data.types`' rule 2."""
    digits = [v for v in values if v != MISSING_LABEL]
    return bool(digits) and all(v.isdigit() for v in digits) and any(
        len(v) > 1 and v.startswith("0") for v in digits)  # fmt: skip


def _leaf_points(hierarchy: Hierarchy) -> tuple[np.ndarray, Bounds] | None:
    """Each value of the hierarchy as a point of a line (NaN: the missing-value leaf) and
    the reader of a label's bounds on it: numbers and ``lo-hi`` ranges when every value is a
    finite number, days and periods when every value is an ISO date or datetime; the
    missing-value leaf may be among them when no node below the top covers it with another.
    None otherwise (labels are priced by the values under them)."""
    values = hierarchy.values
    missing = np.array([v == MISSING_LABEL for v in values])
    rest = [v for v, m in zip(values, missing, strict=True) if not m]
    if not rest:
        return None
    for read, bounds_of in ((float, range_of_label), (day_number, _days_of_label)):
        try:
            points = np.array([read(v) for v in rest], dtype=np.float64)
        except ValueError:
            continue
        if not np.all(np.isfinite(points)):
            return None
        codes = hierarchy.codes[:, :-1]  # the missing leaf shares no node below the top
        if missing.any() and any(np.isin(codes[missing, j], codes[~missing, j]).any()
                                 for j in range(codes.shape[1])):  # fmt: skip
            return None
        out = np.full(len(values), np.nan)
        out[~missing] = points
        return out, bounds_of
    return None


def _days_of_label(label: str) -> tuple[float, float] | None:
    span = period_span(label)
    return None if span is None else (float(span[0]), float(span[1]))
