"""The greedy steps of the r-Gather family (Aggarwal et al., Sec. 2.2–2.4).

- :func:`greedy_marking`: Condition (2)'s marking — each unmarked point in turn becomes a
  center and marks every unmarked point within the radius. Only the chosen centers' balls
  are visited, so the work is the sum of their sizes, not of all balls.
- :class:`Neighbours`: each record's nearest neighbours, computed once per fit (the space's
  index) and reused by every threshold test; the exact (r−1)-core peeling of Sec. 2.3.
- :func:`greedy_clusters` (Sec. 2.3) and :func:`greedy_k_centers` (Sec. 2.4).

Every query goes through the space's neighbour index; nothing here builds a tree.
"""

from __future__ import annotations

import heapq
import time

import numpy as np

from ..._runtime import threads
from ...space.metric_space import MetricSpace
from ._threshold_search import reach

__all__ = [
    "LiveBalls",
    "Neighbours",
    "ball",
    "cluster_core",
    "cluster_points",
    "greedy_k_centers",
    "greedy_marking",
    "nearest_center",
]


def ball(space: MetricSpace, p: int, radius: float) -> np.ndarray:
    """Indices of the records within ``radius`` of record ``p`` (inclusive)."""
    return space.index().ball(p, reach(radius))


def nearest_center(space: MetricSpace, centers: np.ndarray, who: np.ndarray) -> np.ndarray:
    """Position in ``centers`` of the nearest center of each record of ``who``."""
    return space.index().nearest_among(centers, who)[0]


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
        self.index = self.space.index().subset(self.ids)
        self.built_with = self.n_live

    def ball(self, p: int, radius: float) -> np.ndarray:
        """Live points within ``radius`` of point ``p``."""
        if self.n_live * 2 < self.built_with and self.n_live > 0:
            self._build()
        if self.ids.size == 0:
            return self.ids
        found = self.index.ball(p, reach(radius))
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
    for p in np.flatnonzero(todo.live & space.index().representative):
        if not todo.live[p]:
            continue
        if max_centers is not None and len(centers) >= max_centers:
            return None
        members = todo.ball(int(p), radius)
        owner[members] = len(centers)
        todo.kill(members)
        centers.append(int(p))
    return np.asarray(centers, dtype=np.intp), owner


class Neighbours:
    """Each point's nearest neighbours (computed once per fit, reused by every test)."""

    def __init__(self, space: MetricSpace, r: int) -> None:
        self.space = space
        self.cap = min(space.n - 1, max(2 * r, r + 8))
        self.dist, self.idx = space.index().neighbours(self.cap)

    def kth(self, k: int) -> np.ndarray:
        """Distance to the k-th nearest other point."""
        return self.dist[:, k - 1] if k > 0 else np.zeros(self.space.n)

    def proves_too_few(self, p: int, x: float, remaining: np.ndarray, need: int) -> bool:
        """True when p's neighbour list holds its whole x-ball and fewer than ``need`` of
        those neighbours remain — the greedy attempt at p would fail, no query needed."""
        within = self.dist[p] <= reach(x)
        if self.cap < self.space.n - 1 and within[-1]:
            return False  # the list is truncated: only a ball query can tell
        return int(np.count_nonzero(remaining[self.idx[p][within]])) < need

    def core(self, x: float, need: int) -> np.ndarray:
        """Largest set S in which every point has ``need`` other members within ``x``.

        Exact peeling: counts come from the capped neighbour lists; a point whose list is
        full when its count would drop below ``need`` is recounted with a ball query.
        """
        space, n = self.space, self.space.n
        within = self.dist <= reach(x)
        count = within.sum(axis=1)
        full = within[:, -1] if self.cap < n - 1 else np.zeros(n, dtype=bool)
        alive = np.ones(n, dtype=bool)
        rows, cols = np.nonzero(within)
        listed_by = _group(self.idx[rows, cols], rows, n)  # who lists me as a neighbour
        recounted = np.zeros(n, dtype=bool)  # counted exactly from a ball query
        ball_of: dict[int, list[int]] = {}  # reverse edges of the recounted points
        queue = [int(i) for i in np.flatnonzero(count < need)]
        alive[queue] = False
        while queue:
            v = queue.pop()
            listed = [int(i) for i in listed_by[v] if not recounted[i]]
            for i in listed + ball_of.pop(v, []):
                if not alive[i]:
                    continue
                count[i] -= 1
                if count[i] >= need:
                    continue
                if full[i] and not recounted[i]:  # the list was truncated: count exactly
                    members = ball(space, i, x)
                    members = members[alive[members] & (members != i)]
                    count[i] = members.size
                    recounted[i] = True
                    for j in members:
                        ball_of.setdefault(int(j), []).append(i)
                    if count[i] >= need:
                        continue
                alive[i] = False
                queue.append(i)
        return alive


def _group(keys: np.ndarray, values: np.ndarray, n: int) -> list[np.ndarray]:
    order = np.argsort(keys, kind="stable")
    bounds = np.searchsorted(keys[order], np.arange(n + 1))
    vals = values[order]
    return [vals[bounds[i] : bounds[i + 1]] for i in range(n)]


def greedy_clusters(
    space: MetricSpace,
    knn: Neighbours,
    live: np.ndarray,
    candidates: np.ndarray,
    x: float,
    r: int,
    center_must_be_live: bool,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.3's greedy phase and reassignment, shared by both center variants.

    Each candidate in turn takes every live point within ``x`` as a new cluster when there
    are at least ``r`` of them; afterwards each point still live joins its nearest center.
    Returns None when no cluster forms.
    """
    labels = np.full(space.n, -1, dtype=np.intp)
    open_ = LiveBalls(space, live)
    centers: list[int] = []
    for c in candidates:
        own = 1 if open_.live[c] else 0
        if (center_must_be_live and not own) or knn.proves_too_few(int(c), x, open_.live, r - own):
            continue
        members = open_.ball(int(c), x)
        if members.size < r:
            continue
        labels[members] = len(centers)
        open_.kill(members)
        centers.append(int(c))
    if not centers:
        return None
    ctr = np.asarray(centers, dtype=np.intp)
    left = np.flatnonzero(open_.live)
    if left.size:
        labels[left] = nearest_center(space, ctr, left)
    return ctr, labels


def cluster_core(
    space: MetricSpace, knn: Neighbours, core: np.ndarray, x: float, r: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.3 on the core S: clusters of radius 2R = x, leftovers within 4R of a center."""
    reps = np.flatnonzero(core & space.index().representative)
    return greedy_clusters(space, knn, core, reps, x, r, center_must_be_live=True)


def cluster_points(
    space: MetricSpace, knn: Neighbours, x: float, r: int, need: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.3's point-center variant at radius x (clusters of radius x, reach 3x)."""
    candidate = knn.kth(r - 1) <= reach(x)
    cand = np.flatnonzero(candidate & space.index().representative)
    if cand.size == 0:
        return None
    in_s = candidate.copy()  # a candidate is within 0 of a candidate
    others = np.flatnonzero(~candidate)
    if others.size:
        _, dist = space.index().nearest_among(cand, others)
        in_s[others] = dist <= reach(x)
    if in_s.sum() < need:
        return None
    return greedy_clusters(space, knn, in_s, cand, x, r, center_must_be_live=False)


#: Estimated seconds above which exact ball counts give way to pivot upper bounds.
COUNT_BUDGET_SECONDS = 40.0


def _count_bounds(space: MetricSpace, cand: np.ndarray, x: float) -> np.ndarray:
    """Upper bounds on |D(v, x)| for the lazy heap of the (k, r, ε)-Center greedy step.

    Exact counts (one parallel KD-tree call) when the balls are small enough; otherwise
    pivot bounds, |D(v, x)| ≤ |D(p, x + ρ)| for a pivot p within ρ of v, which cost one
    ball per pivot. Either way the heap recounts exactly whatever reaches its top.
    """
    index = space.index()
    sample = cand[:: max(1, cand.size // 256)]
    start = time.perf_counter()
    index.counts(sample, reach(x))
    estimate = (time.perf_counter() - start) * cand.size / sample.size / threads()
    if estimate <= COUNT_BUDGET_SECONDS:
        return index.counts(cand, reach(x))
    rho = 0.25 * x
    pivots, owner = greedy_marking(space, rho)  # type: ignore[misc]
    pivot_count = np.array([ball(space, int(p), x + rho).size for p in pivots])
    return pivot_count[owner[cand]]


def greedy_k_centers(
    space: MetricSpace,
    knn: Neighbours,
    x: float,
    r: int,
    k_max: int,
    need: int,
    enough: str = "cube",
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.4's filtering, greedy and assignment steps for the guess 2R = x.

    ``enough="cube"`` lets the live tree take any pick whose count reaches a bound on every
    optimal cluster's uncovered part (all Lemma 2.7 uses); ``"exact"`` takes the paper's
    argmax (:mod:`incrowd.space.neighbours.live_tree`). Wide embeddings, without the tree,
    always take the argmax.
    """
    n = space.n
    in_s = knn.kth(r - 1) <= reach(x)  # |D(v, 2R)| >= r
    if in_s.sum() < need:
        return None
    tree = space.index().live_tree
    if tree is not None:
        first, inverse, _, _ = space.index().distinct_rows
        rows, covered_rows = tree.greedy_cover(
            in_s[first], reach(x), reach(2 * x), k_max, enough, need
        )
        return _assign(space, first[rows], covered_rows[inverse], need)
    cand = np.flatnonzero(in_s & space.index().representative)
    heap = [(-int(c), int(v)) for c, v in zip(_count_bounds(space, cand, x), cand, strict=True)]
    heapq.heapify(heap)
    open_ = LiveBalls(space, np.ones(n, dtype=bool))  # uncovered points
    centers: list[int] = []
    while heap and len(centers) < k_max:
        neg, v = heapq.heappop(heap)
        if not open_.live[v]:
            continue
        current = open_.ball(v, x).size
        if current != -neg:  # counts only shrink: a stale key goes back with its true count
            heapq.heappush(heap, (-current, v))
            continue
        open_.kill(open_.ball(v, 2 * x))
        centers.append(v)
    return _assign(space, np.asarray(centers, dtype=np.intp), ~open_.live, need)


def _assign(
    space: MetricSpace, centers: np.ndarray, covered: np.ndarray, need: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Each covered record to its nearest center; None when fewer than ``need`` are
    covered (the greedy step failed)."""
    if covered.sum() < need or not centers.size:
        return None
    labels = np.full(space.n, -1, dtype=np.intp)
    who = np.flatnonzero(covered)
    labels[who] = nearest_center(space, centers, who)
    return centers, labels
