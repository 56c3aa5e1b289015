"""Hierarchy specs: the one reader of the spellings that name a column's generalization
hierarchy, the same on the command line (``--hierarchy age=...``), in the job file's
``[hierarchy]`` table and in Python (``Schema.infer(..., hierarchies={"age": "..."})``).

==================================  ========================================================
spelling                            hierarchy
==================================  ========================================================
``FILE``                            an ARX CSV file; only the rows of the data's values
                                    are read
``prefix``                          codes masked from the right, of one length or several:
                                    ``02138 → 0213* → … → *``, ``C34.9 → C34.9** → C34.***``
                                    (:meth:`~incrowd.data.hierarchy.Hierarchy.from_prefix`)
``intervals:W1,W2,...``             nested intervals of widths W1, W2, … (each a multiple
                                    of the one before): ``37 → 35-39 → 30-39 → *``
``intervals:LO-HI,...``             bands as statistical offices write them, then ``*``:
                                    ``intervals:0-17,18-64,65-120``; open at either end:
                                    ``intervals:<18,18-39,40-64,65+``
``intervals:LO-HI,.../LO-HI,...``   nested bands, ``/`` between levels:
                                    ``intervals:0-17,18-64,65-120/0-64,65-120``
``dates``, ``dates:LEVEL,...``      dates (ISO ``2024-03-05``) by
                                    :func:`incrowd.data.dates.date_hierarchy`, by default
                                    ``dates:month,quarter,year``
==================================  ========================================================

Bands. A band ``LO-HI`` covers ``LO ≤ v ≤ HI`` (both ends included), ``LO+`` every value from
``LO`` up, ``<HI`` every value below ``HI`` (``HI`` itself not). A band is read as a
published label is read back (:func:`incrowd.data.ranges.read_range`: ``LO-HI`` is split at
the first ``-`` after the first character with a number on each side, so negative bounds
read as ``-10--1`` or ``-5-5``) and published in the one style of numeric labels
(:func:`incrowd.data.ranges.range_label`): ``18-64``, ``65+``, ``<18``, whatever the spaces or
``18.0`` it was written with. The bands of a level must not overlap, every value present
must lie in a band of the first level (a value between two bands, such as 17.5 between
``0-17`` and ``18-64``, is refused, naming the value and its row), and each band must lie
within one band of the next level. The top is always ``*``.

Missing cells. When a column has missing cells that the missing-value policy keeps, the
value :data:`~incrowd.data.columns.MISSING_LABEL` is a leaf directly under the root
(:meth:`~incrowd.data.hierarchy.Hierarchy.with_leaf_under_root`): a missing cell shares a
label only with missing cells, or is published as the root.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from ..errors import HierarchyError
from .hierarchy import ROOT, Hierarchy, distinct_values, value_key
from .ranges import range_label, read_range

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HIERARCHY_SPECS", "build_hierarchy", "default_widths", "is_builder", "kind_named"]

#: What a hierarchy spec may be (the answer to any other kind).
HIERARCHY_SPECS = (
    "FILE, prefix or intervals:W1,W2,... (nested widths, e.g. intervals:5,10,20); "
    "intervals:LO-HI,... with / between levels (bands, e.g. intervals:0-17,18-64,65-120"
    "/0-64,65-120; open: <18, 65+); dates or dates:LEVEL,... (e.g. dates:month,quarter,year)"
)

_BUILDERS = ("prefix", "intervals", "dates")


def is_builder(spec: str) -> bool:
    """Whether ``spec`` names a built hierarchy (not a file): ``prefix``, ``dates`` or
    ``KIND:...`` of a known kind."""
    return spec in ("prefix", "dates") or spec.startswith(("intervals:", "dates:"))


def kind_named(spec: str) -> str | None:
    """The kind a spec such as ``bogus:1`` names (None for a path: a one-letter word is a
    Windows drive, and a path has a separator or a dot before any colon)."""
    head, colon, _ = spec.partition(":")
    return head if colon and len(head) > 1 and head.isalpha() else None


def build_hierarchy(
    spec: str, column: pd.Series, name: str, *, missing_leaf: bool | None = None
) -> Hierarchy:
    """The hierarchy ``spec`` names for the values of ``column`` (called ``name`` in messages).

    ``missing_leaf`` (default: whether the column has missing cells) makes
    :data:`~incrowd.data.columns.MISSING_LABEL` a leaf directly under the root; pass False
    when the missing-value policy drops those records. Raises :class:`HierarchyError` for
    an unknown kind, a malformed spec, or values the spec cannot place.
    """
    from .columns import MISSING_LABEL  # both import the schema, which calls this module
    from .schema import is_missing

    missing = is_missing(column)
    if missing_leaf is None:
        missing_leaf = bool(missing.any())
    rows = np.flatnonzero(~missing)
    present = column.iloc[rows]
    if spec == "prefix":
        built = Hierarchy.from_prefix(present.astype(str), source=f"prefix hierarchy of {name!r}")
    elif spec.startswith("intervals:"):
        built = _intervals(spec.split(":", 1)[1], present, rows, name)
    elif spec == "dates" or spec.startswith("dates:"):
        built = _dates(spec, present, name)
    else:
        kind = kind_named(spec)
        if kind is not None and not os.path.lexists(spec):  # a file may be named so
            word = spec if kind in _BUILDERS else kind
            msg = f"unknown hierarchy kind {word!r}; use {HIERARCHY_SPECS}"
            raise HierarchyError(msg)
        # only the rows of the data's values are read (the file may list millions), and the
        # missing label's row wherever cells are missing (as before missing_leaf existed)
        listed = missing_leaf or bool(missing.any())
        keep = list(distinct_values(present)[0]) + ([MISSING_LABEL] if listed else [])
        built = Hierarchy.from_csv(spec, keep=keep)
    return built.with_leaf_under_root(MISSING_LABEL) if missing_leaf else built


def _numbers(present: pd.Series, rows: np.ndarray, source: str) -> np.ndarray:
    """The present cells as floats; a cell that is not a number is named with its row."""
    import pandas as pd

    values = pd.to_numeric(present.astype(str).str.strip(), errors="coerce").to_numpy(float)
    bad = np.flatnonzero(np.isnan(values))
    if bad.size:
        i = int(bad[0])
        msg = f"{source}: value {present.iloc[i]!r} (row {rows[i] + 1}) is not a number"
        raise HierarchyError(msg)
    return values


def _intervals(text: str, present: pd.Series, rows: np.ndarray, name: str) -> Hierarchy:
    source = f"interval hierarchy of {name!r}"
    levels = [[item.strip() for item in level.split(",") if item.strip()]
              for level in text.split("/")]  # fmt: skip
    items = [item for level in levels for item in level]
    if not items:
        msg = f"{source}: no widths or bands given; use {HIERARCHY_SPECS}"
        raise HierarchyError(msg)
    widths = [_width(item) for item in items]
    for item, width in zip(items, widths, strict=True):
        if width is None and _bounds(item) is None:
            msg = (f"{source}: {item!r} is neither a width nor a band (LO-HI with LO <= HI, "
                   "<HI or LO+)")  # fmt: skip
            raise HierarchyError(msg)
    if len(levels) == 1 and all(w is not None for w in widths):
        values = _numbers(present, rows, source)
        return Hierarchy.from_intervals(values, widths, source=source)  # type: ignore[arg-type]
    bands = [[_band(item, source) for item in level] for level in levels]
    for number, level in enumerate(bands, start=1):
        if not level:
            msg = f"{source}: level {number} of the bands is empty"
            raise HierarchyError(msg)
        _check_apart(level, number, source)
    for number, (level, up) in enumerate(zip(bands, bands[1:], strict=False), start=1):
        for label, lo, hi in level:
            if not any(a <= lo and hi <= b for _, a, b in up):
                msg = (
                    f"{source}: band {label!r} of level {number} lies within no band of "
                    f"level {number + 1} ({_listed(up)}); each band must lie within one band "
                    "of the next level"
                )
                raise HierarchyError(msg)
    values = _numbers(present, rows, source)
    return _from_bands(values, rows, bands, source)


def _width(item: str) -> float | None:
    try:
        return float(item)
    except ValueError:
        return None


def _bounds(item: str) -> tuple[float, float] | None:
    """``(lo, hi)`` of a band, read as a published label is read back."""
    return read_range(item) if _width(item) is None else None


def _band(item: str, source: str) -> tuple[str, float, float]:
    bounds = _bounds(item)
    if bounds is None:  # a width: every other item was checked before
        msg = (
            f"{source}: {item!r} is a width among bands; give widths W1,W2,... on one level "
            "(intervals:5,10,20), or bands LO-HI on every level (intervals:0-17,18-64,65-120)"
        )
        raise HierarchyError(msg)
    return range_label(*bounds), bounds[0], bounds[1]


def _listed(bands: list[tuple[str, float, float]]) -> str:
    return ", ".join(label for label, _, _ in bands)


def _check_apart(level: list[tuple[str, float, float]], number: int, source: str) -> None:
    ordered = sorted(level, key=lambda band: (band[1], band[2]))
    for (a, _, a_hi), (b, b_lo, _) in zip(ordered, ordered[1:], strict=False):
        if b_lo <= a_hi:
            msg = (
                f"{source}: bands {a!r} and {b!r} of level {number} overlap (a band covers "
                "both its ends)"
            )
            raise HierarchyError(msg)


def _from_bands(
    values: np.ndarray, rows: np.ndarray, bands: list[list[tuple[str, float, float]]], source: str
) -> Hierarchy:
    """Rows ``[value, band of level 1, …, *]`` for the distinct values."""
    distinct, first = np.unique(values, return_index=True)
    table = []
    for v, at in zip(distinct.tolist(), first.tolist(), strict=True):
        row = [value_key(v)]
        for number, level in enumerate(bands, start=1):
            label = next((label for label, lo, hi in level if lo <= v <= hi), None)
            if label is None:
                msg = (
                    f"{source}: value {value_key(v)} (row {rows[at] + 1}) lies in no band of "
                    f"level {number} ({_listed(level)}); bands cover both their ends and "
                    "nothing between them"
                )
                raise HierarchyError(msg)
            row.append(label)
        table.append([*row, ROOT])
    return Hierarchy.from_rows(table, source=source)


def _dates(spec: str, present: pd.Series, name: str) -> Hierarchy:
    from .dates import date_hierarchy  # another module's builder, loaded when used

    source = f"date hierarchy of {name!r}"
    values = [value_key(v) for v in distinct_values(present)[0]]
    if spec == "dates":
        return date_hierarchy(values, source=source)
    levels = [level.strip() for level in spec.split(":", 1)[1].split(",") if level.strip()]
    if not levels:
        msg = f"{source}: no levels given; use dates or dates:LEVEL,... (e.g. dates:month,year)"
        raise HierarchyError(msg)
    return date_hierarchy(values, levels, source=source)


#: The first level of :func:`default_widths` has at most this many intervals …
MAX_BINS = 20
#: … and levels are added until one has at most this many.
TOP_BINS = 5


def default_widths(values: np.ndarray) -> list[float]:
    """Nested interval widths for ``values`` (for :meth:`Hierarchy.from_intervals`).

    Every width is a "nice" number ``m · 10^e`` with ``m`` in 1, 2, 5. The first is the
    smallest whose intervals (aligned on its multiples) number at most :data:`MAX_BINS`
    — at least 1 for integers — which gives 8 to 20 intervals for any spread; each next
    width is the smallest nice multiple of the one before (``× 2`` from 1 and 5, ``× 5``
    from 2: ``1, 2, 10, 20, 100``; ``5, 10, 20, 100``), added until a level has at most
    :data:`TOP_BINS` intervals. Non-finite values are ignored. O(levels) after one pass.

    >>> default_widths(np.arange(17, 91))  # ages 17-90: 16, 9 and 5 intervals
    [5.0, 10.0, 20.0]
    """
    vals = np.asarray(values, dtype=float)
    vals = vals[np.isfinite(vals)]
    if not vals.size:
        msg = "default widths need at least one finite number"
        raise HierarchyError(msg)
    lo, hi = float(vals.min()), float(vals.max())

    def count(w: tuple[int, int]) -> int:
        width = _nice(w)
        return math.floor(hi / width) - math.floor(lo / width) + 1

    spread = (hi - lo) / MAX_BINS
    e = math.floor(math.log10(spread)) if spread > 0 else 0
    w = (1, e)
    integral = bool(np.all(vals == np.round(vals)))
    if integral and _nice(w) < 1:
        w = (1, 0)
    while _nice(w) < spread or count(w) > MAX_BINS:
        w = {1: (2, w[1]), 2: (5, w[1]), 5: (1, w[1] + 1)}[w[0]]  # 1, 2, 5, 10, ...
    widths = [w]
    while count(widths[-1]) > TOP_BINS:
        widths.append(_next_nice(widths[-1]))
    return [_nice(x) for x in widths]


def _nice(w: tuple[int, int]) -> float:
    m, e = w
    return float(m * 10**e) if e >= 0 else m / 10 ** (-e)


def _next_nice(w: tuple[int, int]) -> tuple[int, int]:
    """The smallest nice multiple of ``w`` above it."""
    m, e = w
    return {1: (2, e), 2: (1, e + 1), 5: (1, e + 1)}[m]
