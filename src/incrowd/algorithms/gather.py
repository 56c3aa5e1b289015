"""The r-Gather family: minimize the largest cluster radius, every cluster ≥ r records.

Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu. *Achieving Anonymity via
Clustering*. ACM Transactions on Algorithms 6(3), 2010 (PODS 2006). doi:10.1145/1798596.1798602

- :class:`RGather` — Sec. 2.2, 2-approximation (Thm 2.3).
- :class:`RGatherOutliers` — Sec. 2.3, (r, ε)-Gather: 4-approximation (Thm 2.4), or 3 with
  centers restricted to input points.
- :class:`KRCenter` — Sec. 2.4, (k, r)-Center: at most ``k_max`` clusters, 2-approximation.
- :class:`KRCenterOutliers` — Sec. 2.4, (k, r, ε)-Center: 4-approximation (Thm 2.8).

Every estimator returns a certificate: ``lower_bound_`` is proven ≤ the optimal radius (with
arbitrary centers, except ``centers="points"``), so ``radius_ / lower_bound_`` bounds how far
this release is from the best possible one. Centers are input points; ``centers_`` holds
their coordinates, one row per cluster label.
"""

from __future__ import annotations

import heapq
import math
import time
from typing import ClassVar, Literal

import numpy as np

from ..base import Algorithm, Guarantee, check_k
from ..data.recenter import CANDIDATES, recenter
from ..data.space import MetricSpace
from ..errors import InfeasibleError, ParameterError
from ..partition import Partition
from ._gather_core import (
    LiveBalls,
    assign_to_nearest,
    ball,
    diameter_bound,
    greedy_marking,
    neighbour_distances,
    pairwise_candidates,
    reach,
    saturating_assignment,
    search_threshold,
)

__all__ = ["RGather", "RGatherOutliers", "KRCenter", "KRCenterOutliers"]

_PAPER = "Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010"


class _Gather(Algorithm):
    """Shared machinery: parameter checks, the threshold search and the fitted results."""

    size_param: ClassVar[str] = "r"
    cost_measure: ClassVar[str] = "max_radius"
    #: True when ``lower_bound_`` bounds the optimum with centers at input points only.
    point_centers: ClassVar[bool] = False
    allows_suppression: ClassVar[bool] = False

    r: int
    tol: float

    centers_: np.ndarray
    center_records_: np.ndarray
    radius_: float
    threshold_: float
    n_tests_: int

    def _check_common(self, space: MetricSpace) -> int:
        if not (isinstance(self.tol, int | float) and 0 < self.tol < 1):
            msg = f"tol must be in (0, 1), got {self.tol!r}"
            raise ParameterError(msg)
        return check_k(self.r, space.n, "r")

    def _budget(self, space: MetricSpace, r: int) -> int:
        eps = self.epsilon  # type: ignore[attr-defined]
        if isinstance(eps, bool) or not isinstance(eps, int | float) or not 0 <= eps < 1:
            msg = f"epsilon must be in [0, 1), got {eps!r}"
            raise ParameterError(msg)
        budget = math.floor(eps * space.n + 1e-9)
        if space.n - budget < r:
            msg = f"with epsilon={eps}, fewer than r={r} records would be clustered"
            raise InfeasibleError(msg)
        return budget

    def _check_k_max(self) -> int:
        k_max = self.k_max  # type: ignore[attr-defined]
        if isinstance(k_max, bool) or not isinstance(k_max, int | np.integer) or k_max < 1:
            msg = f"k_max must be a positive integer, got {k_max!r}"
            raise ParameterError(msg)
        return int(k_max)

    def _finish(
        self,
        space: MetricSpace,
        centers: np.ndarray,
        labels: np.ndarray,
        threshold: float,
        lower: float,
        tests: int,
    ) -> None:
        """Record the fit: canonical labels, centers per label, radius and certificate."""
        self.partition_ = Partition(labels)
        canonical, first = np.unique(self.partition_.labels, return_index=True)
        keep = canonical >= 0
        order = centers[labels[first[keep]]]  # the center of each canonical label
        labels = self.partition_.labels
        assigned = np.flatnonzero(labels >= 0)
        members = assigned[np.argsort(labels[assigned], kind="stable")]
        starts = np.concatenate(([0], np.cumsum(self.partition_.sizes))).astype(np.intp)
        best, radii = recenter(space.points, members, starts, order, space.norm, CANDIDATES)
        self.centers_ = space.points[best].copy()
        self.center_records_ = best
        self.radius_ = float(radii.max()) if radii.size else 0.0
        self.cost_ = self.radius_
        self.threshold_ = float(threshold)
        self.lower_bound_ = float(lower)
        self.n_tests_ = tests


class RGather(_Gather):
    """r-Gather: clusters of at least ``r`` records minimizing the largest radius.

    Parameters
    ----------
    r : int, default 3
        Minimum cluster size.
    tol : float, default 1e-3
        Relative width at which the threshold search stops on inputs of more than 2,500
        records (smaller inputs search the exact pairwise distances).

    Attributes
    ----------
    labels_, partition_ : cluster of each record
    centers_ : ndarray, shape (n_clusters, dim) — the chosen centers (input points)
    radius_ : float — largest distance from a record to its cluster's center (``cost_``)
    lower_bound_ : float — proven ≤ the optimal radius (any centers)
    threshold_ : float — the radius 2R at which the test succeeded (``radius_ ≤ threshold_``)

    Notes
    -----
    The threshold method of Sec. 2.2. For a guess 2R: Condition (1), every point has ``r-1``
    others within 2R; Condition (2), greedy marking at 2R chooses centers, then a max-flow
    (source → center capacity r, center → point within 2R capacity 1, point → sink capacity
    1) must saturate; every other point joins its nearest center (≤ 2R). Lemma 2.2: both
    conditions hold for every 2R ≥ d*, the largest diameter of an optimal clustering, so a
    failed test at x proves d* > x and OPT ≥ d*/2. **Guarantee: radius ≤ 2·OPT** (Thm 2.3);
    the problem is NP-hard to approximate better than 2.

    The search never lists the O(n²) distances beyond 2,500 records: it starts at the
    condition-(1) bound (the largest (r-1)-th-neighbour distance, from a KD-tree), brackets
    and bisects; then ``lower_bound_`` is the last failed half-threshold and the certified
    ratio is at most 2(1 + tol). Each test costs the chosen centers' ball queries plus a
    sparse max-flow (scipy Dinic) that starts with each center's r nearest points and widens
    only the centers on the source side of a minimum cut — exact for the full network.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
       doi:10.1145/1798596.1798602

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0], [2.0], [10.0], [13.0], [16.0]])
    >>> model = incrowd.RGather(r=2).fit(X)
    >>> model.labels_.tolist(), model.radius_, model.lower_bound_
    ([0, 0, 1, 1, 1], 3.0, 3.0)
    """

    guarantee: ClassVar[Guarantee] = Guarantee(2.0, "radius <= 2 OPT", f"{_PAPER}, Thm 2.3")

    def __init__(self, r: int = 3, *, tol: float = 1e-3) -> None:
        self.r = r
        self.tol = tol

    def _max_centers(self) -> int | None:
        return None

    def _fit(self, space: MetricSpace) -> None:
        r = self._check_common(space)
        max_centers = self._max_centers()
        lo = float(neighbour_distances(space, r - 1).max())

        def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
            marked = greedy_marking(space, x, max_centers=max_centers)
            if marked is None:
                return None
            centers, _ = marked
            chosen = saturating_assignment(space, centers, x, r)
            if chosen is None:
                return None
            labels = np.full(space.n, -1, dtype=np.intp)
            labels[chosen.ravel()] = np.repeat(np.arange(centers.size), r)
            rest = np.flatnonzero(labels < 0)
            if rest.size:
                labels[rest] = _nearest(space, centers, rest)
            return centers, labels

        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / 2, found.tests)


class KRCenter(RGather):
    """(k, r)-Center: at most ``k_max`` clusters, each of at least ``r`` records.

    Parameters
    ----------
    k_max : int, default 10
        Largest number of clusters.
    r : int, default 3
    tol : float, default 1e-3

    Notes
    -----
    Sec. 2.4: the r-Gather test of :class:`RGather` with the extra condition that greedy
    marking chooses at most ``k_max`` centers. Lemma 2.2 still holds (at most one center per
    optimal cluster), so **radius ≤ 2·OPT**, with the same certificate.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(2.0, "radius <= 2 OPT", f"{_PAPER}, Sec. 2.4")

    def __init__(self, k_max: int = 10, r: int = 3, *, tol: float = 1e-3) -> None:
        self.k_max = k_max
        self.r = r
        self.tol = tol

    def _max_centers(self) -> int | None:
        return self._check_k_max()


class RGatherOutliers(_Gather):
    """(r, ε)-Gather: like r-Gather, but up to ``⌊ε n⌋`` records may stay unclustered.

    Parameters
    ----------
    r : int, default 3
    epsilon : float, default 0.05
        Largest fraction of records left out (label −1, published as suppressed).
    centers : {"any", "points"}, default "any"
        ``"any"``: the 4-approximation against the optimum with arbitrary centers.
        ``"points"``: the 3-approximation against the optimum whose centers are input points.
    tol : float, default 1e-3

    Notes
    -----
    Sec. 2.3, ``centers="any"``: for a guess 2R, peel the points with fewer than ``r-1``
    neighbours within 2R inside the remaining set S (an (r−1)-core); the test fails if
    ``|S| < n − ⌊εn⌋``. Then greedily form clusters of all remaining points of S within 2R of
    a point that has ``r-1`` of them, and send every leftover point of S to its nearest
    center (≤ 4R, since a neighbour within 2R was clustered). At R = OPT the optimal clusters
    survive the peeling, so a failure proves OPT > R: **radius ≤ 4·OPT** (Thm 2.4).

    ``centers="points"``: candidates are points with ``r`` points within R; S is the set of
    points within R of a candidate; clusters of radius R are formed greedily around
    candidates with ``r`` uncovered points, and each remaining point of S reaches a center
    within 3R through its candidate: **radius ≤ 3·OPT** against point centers.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        4.0, "radius <= 4 OPT (3 OPT with centers='points')", f"{_PAPER}, Thm 2.4"
    )
    allows_suppression: ClassVar[bool] = True

    def __init__(
        self,
        r: int = 3,
        epsilon: float = 0.05,
        *,
        centers: Literal["any", "points"] = "any",
        tol: float = 1e-3,
    ) -> None:
        self.r = r
        self.epsilon = epsilon
        self.centers = centers
        self.tol = tol

    @property
    def factor_(self) -> float:  # type: ignore[override]
        """The guarantee of the variant fitted: 3 for point centers, 4 otherwise."""
        return 3.0 if self.centers == "points" else 4.0

    def _fit(self, space: MetricSpace) -> None:
        r = self._check_common(space)
        budget = self._budget(space, r)
        if self.centers not in ("any", "points"):
            msg = f"centers must be 'any' or 'points', got {self.centers!r}"
            raise ParameterError(msg)
        knn = _Neighbours(space, r)
        need = space.n - budget
        if self.centers == "any":
            lo = float(np.sort(knn.kth(r - 1))[need - 1])

            def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
                core = knn.core(x, r - 1)
                if core.sum() < need:
                    return None
                return _cluster_core(space, knn, core, x, r)

            halve = 2.0
        else:
            # every clustered point has r-1 others within 2 OPT (through its center)
            lo = float(np.sort(knn.kth(r - 1))[need - 1]) / 2

            def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
                return _cluster_points(space, knn, x, r, need)

            halve = 1.0
        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / halve, found.tests)


class KRCenterOutliers(_Gather):
    """(k, r, ε)-Center: at most ``k_max`` clusters of ≥ ``r`` records, ``⌊εn⌋`` left out.

    Parameters
    ----------
    k_max : int, default 10
    r : int, default 3
    epsilon : float, default 0.05
    tol : float, default 1e-3

    Notes
    -----
    Sec. 2.4, for a guess R (tested at 2R): *filtering* keeps the points S with at least
    ``r`` points within 2R and fails if ``|S| < (1 − ε) n``; the *greedy step* picks up to
    ``k_max`` uncovered centers from S, each time the one with the most uncovered points
    within 2R, and covers every uncovered point within 4R; it fails if fewer than
    ``(1 − ε) n`` points are covered; the *assignment* sends each covered point to its
    closest center. Centers are more than 4R apart, so each cluster keeps its whole 2R-ball
    (≥ r points). Lemma 2.7: at R = d*/2 the greedy covers at least as many points as the
    optimum. **Guarantee: radius ≤ 4·OPT** (Thm 2.8).

    The greedy keeps a lazy max-heap of neighbourhood counts (they only shrink), so each
    step recounts exactly only the candidates that reach the top. Its initial keys are exact
    counts from one parallel KD-tree call when that is affordable (O(Σ |D(v, 2R)|)), and
    otherwise pivot upper bounds |D(v, 2R)| ≤ |D(p, 2R + ρ)| (ρ = R/2). Either way the
    center chosen is the lowest-index candidate with the largest count, so the choice changes
    the running time, never the result.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(4.0, "radius <= 4 OPT", f"{_PAPER}, Thm 2.8")
    allows_suppression: ClassVar[bool] = True

    def __init__(
        self, k_max: int = 10, r: int = 3, epsilon: float = 0.05, *, tol: float = 1e-3
    ) -> None:
        self.k_max = k_max
        self.r = r
        self.epsilon = epsilon
        self.tol = tol

    def _fit(self, space: MetricSpace) -> None:
        r = self._check_common(space)
        budget = self._budget(space, r)
        k_max = self._check_k_max()
        knn = _Neighbours(space, r)
        need = space.n - budget
        lo = float(np.sort(knn.kth(r - 1))[need - 1])

        def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
            return _greedy_k_centers(space, knn, x, r, k_max, need)

        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / 2, found.tests)


# --------------------------------------------------------------------------- helpers
def _nearest(space: MetricSpace, centers: np.ndarray, who: np.ndarray) -> np.ndarray:
    return assign_to_nearest(space, centers, who)[0]


class _Neighbours:
    """Each point's nearest neighbours (computed once per fit, reused by every test)."""

    def __init__(self, space: MetricSpace, r: int) -> None:
        self.space = space
        self.cap = min(space.n - 1, max(2 * r, r + 8))
        self.dist, self.idx = space.records.neighbour_lists(self.cap)

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


def _greedy_clusters(
    space: MetricSpace,
    knn: _Neighbours,
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
        labels[left] = _nearest(space, ctr, left)
    return ctr, labels


def _cluster_core(
    space: MetricSpace, knn: _Neighbours, core: np.ndarray, x: float, r: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.3 on the core S: clusters of radius 2R = x, leftovers within 4R of a center."""
    reps = np.flatnonzero(core & space.records.representative)
    return _greedy_clusters(space, knn, core, reps, x, r, center_must_be_live=True)


def _cluster_points(
    space: MetricSpace, knn: _Neighbours, x: float, r: int, need: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.3's point-center variant at radius x (clusters of radius x, reach 3x)."""
    candidate = knn.kth(r - 1) <= reach(x)
    cand = np.flatnonzero(candidate & space.records.representative)
    if cand.size == 0:
        return None
    in_s = candidate.copy()  # a candidate is within 0 of a candidate
    others = np.flatnonzero(~candidate)
    if others.size:
        _, dist = assign_to_nearest(space, cand, others)
        in_s[others] = dist <= reach(x)
    if in_s.sum() < need:
        return None
    return _greedy_clusters(space, knn, in_s, cand, x, r, center_must_be_live=False)


#: Estimated seconds above which exact ball counts give way to pivot upper bounds.
COUNT_BUDGET_SECONDS = 40.0


def _count_bounds(space: MetricSpace, cand: np.ndarray, x: float) -> np.ndarray:
    """Upper bounds on |D(v, x)| for the lazy heap of the (k, r, ε)-Center greedy step.

    Exact counts (one parallel KD-tree call) when the balls are small enough; otherwise
    pivot bounds, |D(v, x)| ≤ |D(p, x + ρ)| for a pivot p within ρ of v, which cost one
    ball per pivot. Either way the heap recounts exactly whatever reaches its top.
    """
    tree = space.tree
    sample = cand[:: max(1, cand.size // 256)]
    start = time.perf_counter()
    tree.query_ball_point(space.points[sample], reach(x), p=space.norm, return_length=True)
    estimate = (time.perf_counter() - start) * cand.size / sample.size / 2  # two workers
    if estimate <= COUNT_BUDGET_SECONDS:
        return np.asarray(
            tree.query_ball_point(
                space.points[cand], reach(x), p=space.norm, return_length=True, workers=-1
            )
        )
    rho = 0.25 * x
    pivots, owner = greedy_marking(space, rho)  # type: ignore[misc]
    pivot_count = np.array([ball(space, int(p), x + rho).size for p in pivots])
    return pivot_count[owner[cand]]


def _greedy_k_centers(
    space: MetricSpace, knn: _Neighbours, x: float, r: int, k_max: int, need: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sec. 2.4's filtering, greedy and assignment steps for the guess 2R = x."""
    n = space.n
    in_s = knn.kth(r - 1) <= reach(x)  # |D(v, 2R)| >= r
    if in_s.sum() < need:
        return None
    cand = np.flatnonzero(in_s & space.records.representative)
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
    covered = ~open_.live
    if covered.sum() < need or not centers:
        return None
    ctr = np.asarray(centers, dtype=np.intp)
    labels = np.full(n, -1, dtype=np.intp)
    who = np.flatnonzero(covered)
    labels[who] = _nearest(space, ctr, who)
    return ctr, labels
