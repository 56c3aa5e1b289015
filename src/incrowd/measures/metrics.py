"""Information-loss measures of a release computed from its partition: NCP and
discernibility. (The objectives — SSE, radius, generalization cost — are the costs of
:mod:`incrowd.costs`; measures computed from a *published* table alone live in
:mod:`incrowd.measures.evaluate`.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data.columns import QIColumn
from ..data.ncp import domain_size, label_penalties
from ..partition import Partition
from ..release.crowds import (
    CategoricalSummary,
    CrowdIndex,
    NumericSummary,
    Summary,
    summarize,
)

__all__ = ["discernibility", "ncp_loss", "cell_penalties"]


def discernibility(partition: Partition) -> float:
    """Sum of squared crowd sizes, plus ``n`` for every suppressed record."""
    sizes = partition.sizes.astype(np.float64)
    return float(np.sum(sizes**2) + partition.n * partition.n_suppressed)


def ncp_loss(
    columns: Sequence[QIColumn],
    partition: Partition,
    extra_suppressed: int = 0,
    generalize: str = "levels",
) -> float:
    """Normalized certainty penalty of the generalized table, averaged over all cells.

    Per cell as :mod:`incrowd.data.ncp` defines it (the domain: the input's values). A
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
    """NCP of the generalized cell each crowd publishes for one quasi-identifier
    (:mod:`incrowd.data.ncp`)."""
    if isinstance(summary, NumericSummary):
        lo, hi = summary.column.bounds
        span = hi - lo
        return (summary.hi - summary.lo) / span if span > 0 else np.zeros(summary.lo.size)
    if sets:
        domain = domain_size(summary.column)
        held = np.bincount(summary.present[0], minlength=summary.mode.size).astype(np.float64)
        return (held - 1.0) / (domain - 1.0) if domain > 1 else np.zeros(held.size)
    if isinstance(summary, CategoricalSummary):
        single = domain_size(summary.column) <= 1
        return np.zeros(summary.agrees.size) if single else (~summary.agrees).astype(np.float64)
    penalties = label_penalties(summary.column)
    out = np.zeros(summary.level.size)
    for level in np.unique(summary.level):
        at = summary.level == level
        out[at] = penalties[int(level)][summary.node[at]]
    return out
