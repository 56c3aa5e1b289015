"""Per-crowd summaries of each quasi-identifier, shared by every release form and by NCP.

For each crowd: the range and mean of a numeric attribute, the mode of a categorical one and
whether the crowd agrees on it, the lowest hierarchy level on which a hierarchical
attribute agrees (with the node there), and the set of values each crowd holds. With fixed
``levels`` (a global recoding: one level per attribute for the whole table), a crowd's
hierarchical attribute is published at the higher of its agreed level and the fixed one,
and a categorical attribute at level 1 is ``*`` for every crowd. Computed
with one sort of the labels and numpy ``reduceat``, so it is linear in the number of records
after the sort.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn, QIColumn
from ..errors import ParameterError
from ..partition import Partition

__all__ = ["CrowdIndex", "NumericSummary", "CategoricalSummary", "HierarchySummary", "summarize",
           "check_levels", "Levels"]  # fmt: skip

#: One hierarchy level per quasi-identifier (None: the crowd's own), or None for all.
Levels = Sequence[int | None] | None


@dataclass(frozen=True, eq=False)
class CrowdIndex:
    """Records of the published crowds sorted by crowd: ``order[starts[c]:starts[c+1]]``."""

    order: np.ndarray
    starts: np.ndarray  # length n_clusters + 1
    labels: np.ndarray  # crowd of each record in ``order``

    @classmethod
    def from_partition(cls, partition: Partition) -> CrowdIndex:
        labels = partition.labels
        assigned = np.flatnonzero(labels >= 0)
        order = assigned[np.argsort(labels[assigned], kind="stable")]
        starts = np.concatenate(([0], np.cumsum(partition.sizes))).astype(np.intp)
        return cls(order, starts, labels[order])

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.starts)

    def reduce(self, ufunc: np.ufunc, values: np.ndarray) -> np.ndarray:
        """``ufunc.reduceat`` of ``values`` (per record) over each crowd."""
        if self.order.size == 0:
            return np.empty((0,) + values.shape[1:], dtype=values.dtype)
        return ufunc.reduceat(values[self.order], self.starts[:-1], axis=0)

    def mode(self, codes: np.ndarray, n_codes: int) -> np.ndarray:
        """Most frequent code of each crowd; ties go to the smallest code."""
        if self.order.size == 0:  # every record suppressed: no crowd
            return np.zeros(0, dtype=np.intp)
        key = self.labels.astype(np.int64) * n_codes + codes[self.order]
        uniq, counts = np.unique(key, return_counts=True)
        crowd, code = np.divmod(uniq, n_codes)
        # np.unique sorts by (crowd, code); a stable sort on (crowd, -count) keeps the
        # smallest code first among equal counts.
        pick = np.lexsort((-counts, crowd))
        first = np.concatenate(([True], crowd[pick][1:] != crowd[pick][:-1]))
        return code[pick][first].astype(np.intp)

    def distinct(self, codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
        """The distinct codes of every crowd, as parallel arrays ``(crowd, code)`` sorted by
        crowd, then code."""
        key = np.unique(self.labels.astype(np.int64) * n_codes + codes[self.order])
        crowd, code = np.divmod(key, n_codes)
        return crowd.astype(np.intp), code.astype(np.intp)


@dataclass(frozen=True, eq=False)
class NumericSummary:
    column: NumericColumn
    lo: np.ndarray
    hi: np.ndarray
    mean: np.ndarray


@dataclass(frozen=True, eq=False)
class CategoricalSummary:
    column: CategoricalColumn
    mode: np.ndarray  # code
    agrees: np.ndarray  # bool: the crowd publishes its value (it agrees, at level 0)
    present: tuple[np.ndarray, np.ndarray]  # (crowd, code) of every value a crowd holds


@dataclass(frozen=True, eq=False)
class HierarchySummary:
    column: HierarchicalColumn
    level: np.ndarray  # the level published: the lowest agreed (at least the fixed one)
    node: np.ndarray  # code of the shared node at that level
    mode: np.ndarray  # most frequent original value (level-0 code)
    present: tuple[np.ndarray, np.ndarray]  # (crowd, level-0 code) of every value held


Summary = NumericSummary | CategoricalSummary | HierarchySummary


def check_levels(columns: Sequence[QIColumn], levels: Levels) -> tuple[int, ...]:
    """Fixed levels as one int per column (0: the crowd's own); a
    :class:`~incrowd.ParameterError` naming the column for a level it cannot take (a number
    has no levels, a categorical column one, a hierarchy its height)."""
    if levels is None:
        return (0,) * len(columns)
    levels = list(levels)
    if len(levels) != len(columns):
        msg = f"levels must give one level per quasi-identifier ({len(columns)}), got {len(levels)}"
        raise ParameterError(msg)
    out = []
    for col, level in zip(columns, levels, strict=True):
        if level is None:
            out.append(0)
            continue
        if isinstance(level, bool) or not isinstance(level, int | np.integer) or level < 0:
            msg = f"the level of {col.name!r} must be a whole number from 0, got {level!r}"
            raise ParameterError(msg)
        top = (0 if isinstance(col, NumericColumn) else 1 if isinstance(col, CategoricalColumn)
               else col.hierarchy.height)  # fmt: skip
        if level > top:
            what = ("a numeric column has no levels (give it a hierarchy)" if top == 0
                    else f"its highest level is {top}")  # fmt: skip
            msg = f"level {level} of {col.name!r} is not possible: {what}"
            raise ParameterError(msg)
        out.append(int(level))
    return tuple(out)


def summarize(
    columns: list[QIColumn] | tuple[QIColumn, ...], index: CrowdIndex, levels: Levels = None
) -> list[Summary]:
    """One summary per quasi-identifier column; ``levels`` fixes a level per column, below
    which no crowd is published (:func:`check_levels`)."""
    sizes = index.sizes.astype(np.float64)
    fixed = check_levels(columns, levels)
    out: list[Summary] = []
    for col, floor in zip(columns, fixed, strict=True):
        if isinstance(col, NumericColumn):
            v = col.values
            mean = index.reduce(np.add, v) / np.maximum(sizes, 1.0)
            out.append(
                NumericSummary(col, index.reduce(np.minimum, v), index.reduce(np.maximum, v), mean)
            )
        elif isinstance(col, CategoricalColumn):
            agrees = index.reduce(np.minimum, col.codes) == index.reduce(np.maximum, col.codes)
            if floor:  # level 1: * for every crowd
                agrees = np.zeros_like(agrees)
            n_codes = len(col.categories)
            out.append(
                CategoricalSummary(
                    col,
                    index.mode(col.codes, n_codes),
                    agrees,
                    index.distinct(col.codes, n_codes),
                )
            )
        else:
            codes = col.codes
            agree = index.reduce(np.minimum, codes) == index.reduce(np.maximum, codes)
            # The top level always agrees, so argmax finds the lowest agreeing level.
            level = np.maximum(np.argmax(agree, axis=1), floor).astype(np.intp)
            lows = index.reduce(np.minimum, codes)
            node = lows[np.arange(level.size), level]
            n_codes = len(col.hierarchy.values)
            mode = index.mode(codes[:, 0], n_codes)
            present = index.distinct(codes[:, 0], n_codes)
            out.append(HierarchySummary(col, level, node, mode, present))
    return out
