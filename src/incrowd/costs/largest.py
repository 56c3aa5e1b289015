"""The largest crowd: the objective of single-attribute generalization.

Du, Eppstein, Goodrich, Lueker (*On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*, WADS 2009) coarsen one attribute — a
zip code, a GPS point, a label — into classes of at least ``k`` records and minimize the
**largest** class. Each problem restricts which sets of records may form a class (connected
regions of a planar graph, rectangles, unions of whole labels); identical values always
share a class. :class:`LargestCrowd` prices a labelling by its largest crowd and a single
crowd by its size, or as infinite when the problem's shape forbids it, so the exact solver
finds the optimum of a relaxation of the problem (every feasible partition passes), which is
what the methods' lower bounds and guarantees are compared with.

:func:`largest_lower_bound` is the one bound every such method certifies with.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..errors import InfeasibleError, InputError
from ..space.metric_space import MetricSpace
from .base import Cost

__all__ = ["Classes", "LargestCrowd", "largest_lower_bound", "record_counts"]

#: ``admissible(members) -> bool``: whether the records ``members`` may form one class.
Admissible = Callable[[np.ndarray], bool]


class Classes:
    """What every single-attribute result offers: its classes' ``loads`` (records) and a
    proven ``lower_bound`` on the largest class of any solution (fields of the subclass)."""

    loads: np.ndarray
    lower_bound: int

    @property
    def largest(self) -> int:
        """The largest class (records)."""
        return int(self.loads.max())

    @property
    def certified_ratio(self) -> float:
        """``largest / lower_bound``: the optimum is at least ``largest`` divided by this."""
        return self.largest / self.lower_bound

    @property
    def n_classes(self) -> int:
        return int(self.loads.size)


def record_counts(weights: object, n: int, what: str = "item") -> np.ndarray:
    """``weights`` as whole non-negative numbers of records, one per ``what`` (``n``)."""
    w = np.asarray(weights)
    if w.shape != (n,):
        msg = f"need one weight per {what} ({n}), got shape {w.shape}"
        raise InputError(msg)
    if not np.issubdtype(w.dtype, np.number) or not np.all(np.isfinite(w)):
        msg = "weights must be finite numbers"
        raise InputError(msg)
    if np.any(w < 0) or np.any(w != np.round(w)):
        msg = "weights must be whole numbers of records, none negative"
        raise InputError(msg)
    return w.astype(np.int64)


def largest_lower_bound(weights: np.ndarray, k: int) -> int:
    """``max(k, max w, ⌈W / ⌊W/k⌋⌉)``: at most the largest class of any partition of items of
    weights ``w`` (summing to ``W``) into classes of at least ``k`` that keeps each item whole.

    Proof: every class holds ``k``; the class holding the heaviest item holds it whole; there
    are at most ``⌊W/k⌋`` classes, so one holds at least their average.
    """
    weights = np.asarray(weights, dtype=np.int64)
    total = int(weights.sum())
    if total < k:
        msg = f"the counts add up to {total} records, fewer than k={k}: no class can be formed"
        raise InfeasibleError(msg)
    classes = total // k
    return int(max(k, int(weights.max()), -(-total // classes)))


class LargestCrowd(Cost):
    """The number of records in the largest crowd; a crowd the problem forbids costs ∞."""

    name: ClassVar[str] = "largest_crowd"
    combine: ClassVar[str] = "max"  # type: ignore[assignment]

    def __init__(self, rows: np.ndarray, admissible: Admissible | None = None) -> None:
        #: ``rows[i]``: the distinct value of record ``i`` (copies always share a class).
        self.rows = np.asarray(rows, dtype=np.intp)
        self.admissible = admissible

    @classmethod
    def on(cls, space: MetricSpace, admissible: Admissible | None = None) -> LargestCrowd:
        _, inverse, _, _ = space.index().distinct_rows
        return cls(inverse, admissible)

    def of(self, labels: np.ndarray) -> float:
        labels = np.asarray(labels)
        kept = labels[labels >= 0]
        return float(np.bincount(kept).max()) if kept.size else 0.0

    def merge_price(self, members: np.ndarray) -> float:
        return float(np.asarray(members).size)

    def crowd(self, members: np.ndarray) -> float:
        """The size of the crowd; ∞ when it splits a value's copies or the shape forbids it."""
        members = np.asarray(members, dtype=np.intp)
        values = np.unique(self.rows[members])
        whole = np.isin(self.rows, values).sum() == members.size
        if not whole or (self.admissible is not None and not self.admissible(members)):
            return float("inf")
        return float(members.size)
