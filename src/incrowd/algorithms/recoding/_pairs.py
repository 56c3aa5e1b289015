"""Crowds of two and three records (k = 2) by a minimum-weight [1,2]-factor.

Copies of one row form a crowd that costs nothing, so every row held by two records or more
is a crowd of its own. The records left, each alone in its row, are grouped by a
minimum-weight [1,2]-factor of their pair costs (Aggarwal et al., *Approximation Algorithms
for k-Anonymity*, Sec. 5: :class:`~incrowd.TwoAnonymity` on the whole table) over each one's
``PAIR_CANDIDATES`` nearest, solved exactly on that graph; its paths and cycles are cut into
crowds of 2 and 3 at least cost.

On Adult with every QI a hierarchy label (k = 2) this start, improved by moves and
re-splits, loses 0.0198 NCP, against 0.0210 from the forest's crowds; the factor of the
whole table (:class:`~incrowd.TwoAnonymity`, certified) loses 0.0199 before any
improvement, in 35 s. Time: the neighbour lists of the lone records and one matching on a
graph of ``4 s`` nodes and about ``6 · PAIR_CANDIDATES · s`` edges (``s`` lone records;
about 1.0 s for ``s`` = 14,021).
"""

from __future__ import annotations

import numpy as np

from ...costs import GeneralizationCost
from ...errors import InfeasibleError
from ...space.neighbours.index import NeighbourIndex
from ..factors import factor_groups, group_labels, solve_factor, unique_edges

__all__ = ["pair_crowds"]

#: Candidate partners per lone record: more lower the loss a little, at a cost in time
#: (Adult, ``benchmarks/adult.py``).
PAIR_CANDIDATES = 6


def pair_crowds(model: GeneralizationCost, index: NeighbourIndex) -> np.ndarray | None:
    """Crowd labels of 2 or more records each (copies of a row together, the lone records
    in crowds of 2 and 3), or None when the candidate graph of the lone records has no
    [1,2]-factor. ``index``: the neighbour index of ``model.geometry``."""
    _, inverse, counts, _ = index.distinct_rows
    copies = counts[inverse] >= 2
    labels = np.full(model.n, -1, dtype=np.intp)
    _, labels[copies] = np.unique(inverse[copies], return_inverse=True)
    lone = np.flatnonzero(~copies)
    if lone.size == 0:
        return labels
    start = int(labels.max()) + 1
    if lone.size < 2:  # one record alone joins the crowd of its nearest
        nearest = index.neighbours(1)[1][lone[0], 0]
        labels[lone[0]] = labels[nearest]
        return labels
    edges = _lone_neighbours(index, lone)
    # a pair's crowd costs twice its distance in the geometry of pair costs
    weights = 2.0 * model.geometry.distance(lone[edges[:, 0]], lone[edges[:, 1]])
    try:
        factor = solve_factor("12", lone.size, edges, weights)
    except InfeasibleError:
        return None
    groups = factor_groups(lone.size, factor.edges, (2, 3),
                           lambda members: model.crowd(lone[np.asarray(members)]))  # fmt: skip
    labels[lone] = start + group_labels(groups, lone.size)
    return labels


def _lone_neighbours(index: NeighbourIndex, lone: np.ndarray) -> np.ndarray:
    """Candidate pairs of lone records: each one's ``PAIR_CANDIDATES`` nearest lone records,
    searched among them."""
    q = min(PAIR_CANDIDATES, lone.size - 1)
    _, near = NeighbourIndex(index.geometry.take(lone)).neighbours(q)
    return unique_edges(np.repeat(np.arange(lone.size), q), near.ravel(), lone.size)
