"""Building blocks shared by the r-Gather family (Aggarwal et al., Sec. 2).

- :func:`search_threshold`: the threshold method. The tests of Sec. 2 succeed for every
  radius at or above the optimal clusters' diameter ``d*`` (Lemma 2.2 and its variants), so a
  failed test at ``x`` proves ``d* > x``. Small inputs search the sorted pairwise distances
  themselves (exact: the bound is the next distance above the last failure); larger inputs
  bisect real values without listing pairs, and the bound is the last failure.
- :func:`greedy_marking`: Condition (2)'s marking — each unmarked point in turn becomes a
  center and marks every unmarked point within the radius. Only the chosen centers' balls are
  visited, so the work is the sum of their sizes, not of all balls.
- :func:`saturating_assignment`: the flow network of Condition (2) solved with scipy's Dinic
  max-flow. It starts sparse — each center linked to its ``r`` nearest points in range — and
  widens only the centers on the source side of a minimum cut, until the flow saturates or
  the cut is a true cut of the full network (then the test really fails).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow
from scipy.spatial import cKDTree

from ..data.space import MetricSpace

T = TypeVar("T")

#: Up to this many points, the threshold search walks the exact pairwise distances.
EXACT_SEARCH_LIMIT = 2500
#: Guard against rounding between numpy's and the KD-tree's distance arithmetic.
SLACK = 1e-12


@dataclass(frozen=True)
class Threshold(Generic[T]):
    """Outcome of a threshold search: the succeeding value, its result, and the proof.

    ``lower`` is a value proven ``≤ d*``: the next candidate above the last failure in exact
    mode, the last failure (or the condition-(1) bound) otherwise.
    """

    value: float
    result: T
    lower: float
    tests: int


def pairwise_candidates(space: MetricSpace, at_least: float) -> np.ndarray | None:
    """Sorted distinct pairwise distances ``≥ at_least``, for small inputs (else None)."""
    if space.n > EXACT_SEARCH_LIMIT:
        return None
    d = space.pairwise()
    values = np.unique(d[np.triu_indices(space.n, 1)]) if space.n > 1 else np.zeros(1)
    values = values[values >= at_least * (1 - 1e-12)]
    return values if values.size else np.array([at_least])


def search_threshold(
    test: Callable[[float], T | None],
    lo: float,
    hi: float,
    candidates: np.ndarray | None,
    tol: float,
) -> Threshold[T]:
    """Find a small value where ``test`` succeeds, knowing ``d* ≥ lo`` and success at ``hi``.

    ``test`` returns a result object on success and None on failure. Success is guaranteed
    for every value ≥ d* (the callers' lemmas), so any failure is a lower bound.
    """
    tests = 0
    if candidates is not None:
        a, b = 0, len(candidates) - 1
        best = None
        while a <= b:  # smallest index whose test succeeds (binary search)
            mid = (a + b) // 2
            tests += 1
            res = test(float(candidates[mid]))
            if res is not None:
                best, b = (mid, res), mid - 1
            else:
                a = mid + 1
        if best is None:  # cannot happen when the largest distance is a candidate
            res = test(hi)
            assert res is not None, "the test must succeed at the diameter"
            return Threshold(hi, res, float(candidates[-1]), tests + 1)
        idx, res = best
        # Every candidate below idx that was tested failed; the bound is candidates[idx]
        # only if idx-1 failed or idx is the first candidate (≥ lo, itself a bound).
        return Threshold(float(candidates[idx]), res, float(candidates[idx]), tests)

    tests += 1
    res = test(lo)
    if res is not None:
        return Threshold(lo, res, lo, tests)
    fail = lo
    step = max(lo, hi * 1e-6)
    success_value, success = hi, None
    while fail + step < hi:  # bracket by doubling the step
        x = fail + step
        tests += 1
        res = test(x)
        if res is not None:
            success_value, success = x, res
            break
        fail, step = x, step * 2
    if success is None:
        tests += 1
        success = test(hi)
        assert success is not None, "the test must succeed at the diameter"
    while success_value - fail > tol * success_value:
        x = 0.5 * (fail + success_value)
        tests += 1
        res = test(x)
        if res is not None:
            success_value, success = x, res
        else:
            fail = x
    return Threshold(success_value, success, fail, tests)


def diameter_bound(space: MetricSpace) -> float:
    """A value ≥ the largest pairwise distance (twice the farthest distance from point 0)."""
    if space.n < 2:
        return 0.0
    return float(2.0 * space.distances_to(space.points[0]).max()) * (1 + 1e-9) + 1e-300


def neighbour_distances(space: MetricSpace, k: int) -> np.ndarray:
    """Distance from each point to its ``k``-th nearest other point (0 if k = 0)."""
    return space.records.kth_distance(k)


def reach(radius: float) -> float:
    """A query radius that surely includes points at exactly ``radius``."""
    return float(radius * (1 + SLACK))


def ball(space: MetricSpace, p: int, radius: float) -> np.ndarray:
    """Indices of the points within ``radius`` of point ``p`` (inclusive)."""
    return space.records.ball(space.points[p], reach(radius))


class LiveBalls:
    """Ball queries restricted to a shrinking set of live points.

    The greedy steps of Sec. 2 ask, again and again, for the *unmarked* points near a
    point. Querying a tree of all points returns mostly marked ones; this keeps a tree of
    the live points only and rebuilds it whenever they halve (O(n log n) in all).
    """

    def __init__(self, space: MetricSpace, live: np.ndarray) -> None:
        self.space = space
        self.live = live.copy()
        self.n_live = int(self.live.sum())
        self._build()

    def _build(self) -> None:
        self.ids = np.flatnonzero(self.live)
        if self.ids.size == self.space.n:  # nothing removed yet: the space's own index
            self.index = self.space.records
        else:
            self.index = self.space.records.subset(self.ids, self.space.points)
        self.built_with = self.n_live

    def ball(self, p: int, radius: float) -> np.ndarray:
        """Live points within ``radius`` of point ``p``."""
        if self.n_live * 2 < self.built_with and self.n_live > 0:
            self._build()
        if self.ids.size == 0:
            return self.ids
        found = self.ids[self.index.ball(self.space.points[p], reach(radius))]
        return found[self.live[found]]

    def kill(self, idx: np.ndarray) -> None:
        """Mark points as no longer live."""
        idx = idx[self.live[idx]]
        self.live[idx] = False
        self.n_live -= idx.size


def greedy_marking(
    space: MetricSpace,
    radius: float,
    max_centers: int | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Condition (2)'s marking in index order; returns (centers, owner) or None if more
    than ``max_centers`` centers would be needed.

    ``owner[i]`` is the position in ``centers`` of the center that marked point ``i``.
    Every point is within ``radius`` of its owner.
    """
    n = space.n
    owner = np.full(n, -1, dtype=np.intp)
    todo = LiveBalls(space, np.ones(n, dtype=bool))
    centers: list[int] = []
    for p in np.flatnonzero(todo.live & space.records.representative):
        if not todo.live[p]:
            continue
        if max_centers is not None and len(centers) >= max_centers:
            return None
        members = todo.ball(int(p), radius)
        owner[members] = len(centers)
        todo.kill(members)
        centers.append(int(p))
    return np.asarray(centers, dtype=np.intp), owner


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
            found = space.records.nearest(space.points[centers[stale]], k, bound)
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
    reach = breadth_first_order(residual, 0, directed=True, return_predecessors=False)
    side = np.zeros(sink + 1, dtype=bool)
    side[reach] = True
    return None, side[1 : m + 1]


def assign_to_nearest(
    space: MetricSpace, centers: np.ndarray, who: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest center (position in ``centers``) and its distance, for the points ``who``."""
    tree = cKDTree(space.points[centers])
    dist, idx = tree.query(space.points[who], k=1, p=space.norm, workers=-1)
    return np.asarray(idx, dtype=np.intp), np.asarray(dist)
