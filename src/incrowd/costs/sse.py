"""SSE: the within-crowd sum of squared Euclidean distances to the crowd's centroid.

The microaggregation objective (Domingo-Ferrer & Sebé). Numeric coordinates add
``Σ (x − mean)²``; a one-hot block kept as codes adds, per crowd of ``m`` records holding
code ``v`` ``c_v`` times, ``Σ_v e_v² c_v (1 − c_v / m)`` (``e_v`` the code's entry): the
same number the dense one-hot matrix would give, without building it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..space.geometry import Geometry
from ..space.metric_space import MetricSpace
from .base import Cost
from .kernels import subset_sse

__all__ = ["SSE", "l_sse"]


class SSE(Cost):
    """Sum of squared distances to the crowd centroid, in an L2 geometry."""

    name: ClassVar[str] = "sse"
    combine: ClassVar[str] = "sum"  # type: ignore[assignment]

    def __init__(self, geometry: Geometry) -> None:
        if geometry.norm != 2:
            msg = "SSE is measured in an L2 geometry"
            raise ValueError(msg)
        self.geometry = geometry

    @classmethod
    def on(cls, space: MetricSpace) -> SSE:
        """SSE in the space's L2 geometry (its own, or its twin under L2)."""
        return cls(space.geometry_in(2))

    def of(self, labels: np.ndarray) -> float:
        labels = np.asarray(labels, dtype=np.intp)
        kept = labels >= 0
        return _sse(self.geometry, np.flatnonzero(kept), labels[kept])

    def crowd(self, members: np.ndarray) -> float:
        members = np.asarray(members, dtype=np.intp)
        return _sse(self.geometry, members, np.zeros(members.size, dtype=np.intp))

    def total(self) -> float:
        """SST: the SSE of all records in one crowd."""
        return self.crowd(np.arange(self.geometry.n))

    def subset_costs(self, n: int, k: int) -> np.ndarray:
        return subset_sse(self.geometry.dense(), k)

    def size_cap(self, k: int) -> int | None:
        """An SSE-optimal partition has no crowd of ``2k`` or more (it would split)."""
        return 2 * k - 1


def l_sse(cost: SSE, labels: np.ndarray) -> float:
    """``100 · SSE / SST`` in percent (Domingo-Ferrer & Sebé); 0 for a constant table."""
    total = cost.total()
    return 100.0 * cost.of(labels) / total if total > 0 else 0.0


def _sse(g: Geometry, rows: np.ndarray, crowd: np.ndarray) -> float:
    if rows.size == 0:
        return 0.0
    _, crowd = np.unique(crowd, return_inverse=True)
    crowd = crowd.ravel()
    m = int(crowd.max()) + 1
    sizes = np.bincount(crowd, minlength=m).astype(np.float64)
    total = 0.0
    for j in range(g.numeric.shape[1]):
        x = g.numeric[rows, j]
        mean = np.bincount(crowd, weights=x, minlength=m) / sizes
        d = x - mean[crowd]
        total += float(np.dot(d, d))
    for j in range(g.codes.shape[1]):
        codes = g.codes[rows, j]
        width = int(g.offsets[j + 1] - g.offsets[j])
        pairs, counts = np.unique(crowd.astype(np.int64) * width + codes, return_counts=True)
        owner = pairs // width
        entry = g.entries[g.offsets[j] + pairs % width]
        c = counts.astype(np.float64)
        total += float(np.sum(entry**2 * c * (1.0 - c / sizes[owner])))
    return total
