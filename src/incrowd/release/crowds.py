"""Per-crowd summaries of each quasi-identifier, shared by every release form and by NCP.

For each crowd: the range and mean of a numeric attribute, the mode of a categorical one and
whether the crowd agrees on it, the lowest hierarchy level on which a hierarchical
attribute agrees (with the node there), and the set of values each crowd holds. Computed
with one sort of the labels and numpy ``reduceat``, so it is linear in the number of records
after the sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn, QIColumn
from ..partition import Partition

__all__ = ["CrowdIndex", "NumericSummary", "CategoricalSummary", "HierarchySummary", "summarize"]


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
    agrees: np.ndarray  # bool
    present: tuple[np.ndarray, np.ndarray]  # (crowd, code) of every value a crowd holds


@dataclass(frozen=True, eq=False)
class HierarchySummary:
    column: HierarchicalColumn
    level: np.ndarray  # lowest level on which the crowd agrees
    node: np.ndarray  # code of the shared node at that level
    mode: np.ndarray  # most frequent original value (level-0 code)
    present: tuple[np.ndarray, np.ndarray]  # (crowd, level-0 code) of every value held


Summary = NumericSummary | CategoricalSummary | HierarchySummary


def summarize(columns: list[QIColumn] | tuple[QIColumn, ...], index: CrowdIndex) -> list[Summary]:
    """One summary per quasi-identifier column."""
    sizes = index.sizes.astype(np.float64)
    out: list[Summary] = []
    for col in columns:
        if isinstance(col, NumericColumn):
            v = col.values
            mean = index.reduce(np.add, v) / np.maximum(sizes, 1.0)
            out.append(
                NumericSummary(col, index.reduce(np.minimum, v), index.reduce(np.maximum, v), mean)
            )
        elif isinstance(col, CategoricalColumn):
            agrees = index.reduce(np.minimum, col.codes) == index.reduce(np.maximum, col.codes)
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
            level = np.argmax(agree, axis=1).astype(np.intp)
            lows = index.reduce(np.minimum, codes)
            node = lows[np.arange(level.size), level]
            n_codes = len(col.hierarchy.values)
            mode = index.mode(codes[:, 0], n_codes)
            present = index.distinct(codes[:, 0], n_codes)
            out.append(HierarchySummary(col, level, node, mode, present))
    return out
