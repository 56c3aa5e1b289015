"""Condition (2) of r-Gather as a max-flow (Aggarwal et al., Sec. 2.2).

:func:`saturating_assignment` solves the flow network with scipy's Dinic max-flow. It starts
sparse — each center linked to its ``r`` nearest points in range — and widens only the
centers on the source side of a minimum cut, until the flow saturates or the cut is a true
cut of the full network (then the test really fails).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from ...space.metric_space import MetricSpace
from ._threshold_search import reach

__all__ = ["saturating_assignment"]


def saturating_assignment(
    space: MetricSpace,
    centers: np.ndarray,
    radius: float,
    r: int,
) -> np.ndarray | None:
    """Give every center ``r`` distinct points within ``radius`` (itself included) by max-flow.

    Returns ``chosen`` of shape (len(centers), r) with the points sent to each center, or
    None when no saturating flow exists in the full network (source → center capacity r,
    center → point within radius capacity 1, point → sink capacity 1).
    """
    m = centers.size
    if m == 0:
        return np.empty((0, r), dtype=np.intp)
    limit = np.full(m, r, dtype=np.intp)  # how many nearest points each center is linked to
    queried = np.zeros(m, dtype=np.intp)  # how many were asked for when last queried
    complete = np.zeros(m, dtype=bool)
    lists: list[np.ndarray] = [np.empty(0, dtype=np.intp)] * m
    # query's upper bound is exclusive and compared squared: keep it from underflowing at 0
    bound = max(float(np.nextafter(reach(radius), np.inf)), 1e-150)
    while True:
        stale = np.flatnonzero(~complete & (queried < limit))
        if stale.size:
            k = int(limit[stale].max())
            found = space.index().nearest(centers[stale], k, bound)
            queried[stale] = k
            for i, (pts, whole) in zip(stale, found, strict=True):
                complete[i] = whole
                lists[i] = pts
        chosen, source_side = _max_flow(lists, r)
        if chosen is not None:
            return chosen
        widen = source_side & ~complete
        if not widen.any():
            return None  # the minimum cut is a cut of the full network too
        limit[widen] = np.minimum(limit[widen] * 4, space.n)


def _max_flow(lists: list[np.ndarray], r: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Solve the flow network on the given center lists.

    Returns ``chosen`` (m, r) if the flow saturates, else None, plus a boolean
    mask of the centers reachable from the source in the residual graph (the minimum cut's
    source side) — the only centers whose lists can matter for a better flow.
    """
    m = len(lists)
    sizes = np.array([x.size for x in lists])
    pts = np.concatenate(lists) if m else np.empty(0, dtype=np.intp)
    used, local = np.unique(pts, return_inverse=True)
    u = used.size
    # nodes: 0 source, 1..m centers, m+1..m+u points, m+u+1 sink
    sink = m + u + 1
    rows = np.concatenate([np.zeros(m), 1 + np.repeat(np.arange(m), sizes), m + 1 + np.arange(u)])
    cols = np.concatenate([1 + np.arange(m), m + 1 + local, np.full(u, sink)])
    caps = np.concatenate([np.full(m, r), np.ones(pts.size), np.ones(u)]).astype(np.int32)
    shape = (sink + 1, sink + 1)
    graph = sp.csr_array((caps, (rows.astype(np.int64), cols.astype(np.int64))), shape=shape)
    graph.sum_duplicates()
    res = maximum_flow(graph, 0, sink, method="dinic")
    flow = sp.csr_array(res.flow)
    if res.flow_value == r * m:
        coo = flow.tocoo()
        mask = (coo.row >= 1) & (coo.row <= m) & (coo.col > m) & (coo.col < sink) & (coo.data > 0)
        center = coo.row[mask] - 1
        point = used[coo.col[mask] - m - 1]
        order = np.lexsort((point, center))
        return point[order].reshape(m, r), np.zeros(m, dtype=bool)
    residual = (graph - flow).tocsr()  # remaining capacity, including reverse edges
    residual.data[residual.data < 0] = 0
    residual.eliminate_zeros()
    reached = breadth_first_order(residual, 0, directed=True, return_predecessors=False)
    side = np.zeros(sink + 1, dtype=bool)
    side[reached] = True
    return None, side[1 : m + 1]
