"""Information-loss measures (``*_loss``: lower is better) computed from a partition.

Measures computed from a *published* table alone live in :mod:`incrowd.evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data.columns import QIColumn
from .data.space import MetricSpace
from .partition import Partition
from .release.crowds import (
    CategoricalSummary,
    CrowdIndex,
    NumericSummary,
    Summary,
    summarize,
)

__all__ = [
    "crowd_centroids",
    "sse_loss",
    "sst",
    "l_sse",
    "discernibility",
    "max_radius",
    "ncp_loss",
    "cell_penalties",
]


def crowd_centroids(points: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centroid and size of each crowd (labels ``0..m-1``; ``-1`` ignored)."""
    keep = labels >= 0
    lab = labels[keep]
    m = int(lab.max()) + 1 if lab.size else 0
    counts = np.bincount(lab, minlength=m).astype(np.float64)
    pts = points[keep]
    sums = np.empty((m, points.shape[1]))
    for j in range(points.shape[1]):
        sums[:, j] = np.bincount(lab, weights=pts[:, j], minlength=m)
    return sums / np.maximum(counts, 1.0)[:, None], counts


def sse_loss(points: np.ndarray, labels: np.ndarray) -> float:
    """Sum of squared Euclidean distances of published points to their crowd's centroid."""
    centroids, _ = crowd_centroids(points, labels)
    keep = labels >= 0
    diff = points[keep] - centroids[labels[keep]]
    return float(np.einsum("ij,ij->", diff, diff))


def sst(points: np.ndarray) -> float:
    """Total sum of squares: squared distances of all points to the overall mean."""
    diff = points - points.mean(axis=0)
    return float(np.einsum("ij,ij->", diff, diff))


def l_sse(points: np.ndarray, labels: np.ndarray) -> float:
    """``100 * SSE / SST`` in percent (Domingo-Ferrer & Sebé); 0 for a constant table."""
    total = sst(points)
    return 100.0 * sse_loss(points, labels) / total if total > 0 else 0.0


def discernibility(partition: Partition) -> float:
    """Sum of squared crowd sizes, plus ``n`` for every suppressed record."""
    sizes = partition.sizes.astype(np.float64)
    return float(np.sum(sizes**2) + partition.n * partition.n_suppressed)


def max_radius(space: MetricSpace, partition: Partition) -> float:
    """Largest distance from a published record to its crowd's centroid (in the space's norm)."""
    labels = partition.labels
    keep = labels >= 0
    if not keep.any():
        return 0.0
    centroids, _ = crowd_centroids(space.points, labels)
    diff = space.points[keep] - centroids[labels[keep]]
    d = np.abs(diff).sum(axis=1) if space.norm == 1 else np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return float(d.max())


def ncp_loss(
    columns: Sequence[QIColumn],
    partition: Partition,
    extra_suppressed: int = 0,
    generalize: str = "levels",
) -> float:
    """Normalized certainty penalty of the generalized table, averaged over all cells.

    Per cell: a numeric range costs (hi − lo) / (column max − min); a categorical ``*`` costs 1;
    a hierarchy label costs (values it covers − 1) / (values in the hierarchy − 1); with
    ``generalize="sets"`` a set of values costs (values in the set − 1) / (domain − 1). A
    suppressed record (including ``extra_suppressed`` records left out before partitioning)
    costs 1 per cell. 0 is the original table, 1 everything suppressed.
    """
    n_total = partition.n + extra_suppressed
    n_cells = n_total * len(columns)
    if n_cells == 0:
        return 0.0
    index = CrowdIndex.from_partition(partition)
    sizes = index.sizes.astype(np.float64)
    penalty = float(partition.n_suppressed + extra_suppressed) * len(columns)
    for summary in summarize(columns, index):
        penalty += float(np.dot(sizes, cell_penalties(summary, generalize == "sets")))
    return penalty / n_cells


def cell_penalties(summary: Summary, sets: bool = False) -> np.ndarray:
    """NCP of the generalized cell each crowd publishes for one quasi-identifier."""
    if isinstance(summary, NumericSummary):
        v = summary.column.values
        span = float(v.max() - v.min())
        return (summary.hi - summary.lo) / span if span > 0 else np.zeros(summary.lo.size)
    if sets:
        col = summary.column
        domain = (
            len(col.categories)
            if isinstance(summary, CategoricalSummary)
            else len(col.hierarchy.values)
        )
        held = np.bincount(summary.present[0], minlength=summary.mode.size).astype(np.float64)
        return (held - 1.0) / (domain - 1.0) if domain > 1 else np.zeros(held.size)
    if isinstance(summary, CategoricalSummary):
        single = len(summary.column.categories) <= 1
        return np.zeros(summary.agrees.size) if single else (~summary.agrees).astype(np.float64)
    hierarchy = summary.column.hierarchy
    total = len(hierarchy.values)
    if total <= 1:
        return np.zeros(summary.level.size)
    covered = hierarchy.leaves_under_many(summary.level, summary.node).astype(np.float64)
    return (covered - 1.0) / (total - 1.0)
