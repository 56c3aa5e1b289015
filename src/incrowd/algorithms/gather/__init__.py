"""The r-Gather family: minimize the largest cluster radius, every cluster ≥ r records.

Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu. *Achieving Anonymity via
Clustering*. ACM Transactions on Algorithms 6(3), 2010 (PODS 2006). doi:10.1145/1798596.1798602

- :class:`RGather` — Sec. 2.2, 2-approximation (Thm 2.3).
- :class:`RGatherOutliers` — Sec. 2.3, (r, ε)-Gather: 4-approximation (Thm 2.4), or 3 with
  centers restricted to input points.
- :class:`KRCenter` — Sec. 2.4, (k, r)-Center: at most ``max_clusters`` crowds, 2-approximation.
- :class:`KRCenterOutliers` — Sec. 2.4, (k, r, ε)-Center: 4-approximation (Thm 2.8).

**Refinement** (``refine=True``, the default): afterwards each crowd of ``2k`` or more
records is split into crowds of at least ``k`` around its center
(:mod:`.._shared.crowd_split`); every part lies within the crowd's radius of that center, so
``radius_`` never grows and the guarantee and certificate hold unchanged, while the
release loses far less. ``unrefined_partition_`` and ``unrefined_radius_`` keep the
paper's crowds.

Every estimator returns a certificate: ``lower_bound_`` is proven ≤ the optimal radius (with
arbitrary centers, except ``centers="points"``), so ``radius_ / lower_bound_`` bounds how far
this release is from the best possible one. Centers are input records:
``center_records_`` holds one per crowd label. The paper's ``r`` (crowd size) is ``k``
here, and its ``k`` (number of clusters) is ``max_clusters``, as everywhere in incrowd.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import numpy as np

from ...base import Guarantee, Tags
from ...params import CrowdSize, Flag, Interval, OneOf, PositiveInt
from ...space.metric_space import MetricSpace
from ._base import Gather
from ._flow import saturating_assignment
from ._greedy import (
    Neighbours,
    cluster_core,
    cluster_points,
    greedy_k_centers,
    greedy_marking,
    nearest_center,
)
from ._threshold_search import diameter_bound, pairwise_candidates, search_threshold

__all__ = ["RGather", "RGatherOutliers", "KRCenter", "KRCenterOutliers"]

_PAPER = "Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010"


class RGather(Gather):
    """r-Gather: clusters of at least ``r`` records minimizing the largest radius.

    Parameters
    ----------
    k : int, default 3
        Minimum crowd size (the paper's r).
    tol : float, default 1e-3
        Relative width at which the threshold search stops on inputs of more than 2,500
        records (smaller inputs search the exact pairwise distances).

    Attributes
    ----------
    labels_, partition_ : cluster of each record
    center_records_ : ndarray of int, the record that is each crowd's center
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
    >>> model = incrowd.RGather(k=2).fit(X)
    >>> model.labels_.tolist(), model.radius_, model.lower_bound_
    ([0, 0, 1, 1, 1], 3.0, 3.0)
    """

    guarantee: ClassVar[Guarantee] = Guarantee("radius <= 2 OPT", f"{_PAPER}, Thm 2.3", 2.0)
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        "tol": Interval(0, 1, open_low=True),
        "refine": Flag(),
    }

    def __init__(self, k: int = 3, *, tol: float = 1e-3, refine: bool = True) -> None:
        self.k = k
        self.tol = tol
        self.refine = refine

    def _max_centers(self) -> int | None:
        return None

    def _fit(self, space: MetricSpace) -> None:
        r = self.k
        max_centers = self._max_centers()
        lo = space.index().max_kth_distance(r - 1)

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
                labels[rest] = nearest_center(space, centers, rest)
            return centers, labels

        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / 2, found.tests)


class KRCenter(RGather):
    """(k, r)-Center: at most ``max_clusters`` crowds, each of at least ``k`` records.

    Parameters
    ----------
    max_clusters : int, default 10
        Largest number of crowds (the paper's k).
    k : int, default 3
        Minimum crowd size (the paper's r).
    tol : float, default 1e-3

    Notes
    -----
    Sec. 2.4: the r-Gather test of :class:`RGather` with the extra condition that greedy
    marking chooses at most ``max_clusters`` centers. Lemma 2.2 still holds (at most one center per
    optimal cluster), so **radius ≤ 2·OPT**, with the same certificate.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    """

    guarantee: ClassVar[Guarantee] = Guarantee("radius <= 2 OPT", f"{_PAPER}, Sec. 2.4", 2.0)
    tags: ClassVar[Tags] = Tags(cluster_cap=True, any_norm=True)
    parameters: ClassVar[dict] = RGather.parameters | {"max_clusters": PositiveInt()}

    def __init__(
        self, k: int = 3, *, max_clusters: int = 10, tol: float = 1e-3, refine: bool = True
    ) -> None:
        self.k = k
        self.max_clusters = max_clusters
        self.tol = tol
        self.refine = refine

    def _max_centers(self) -> int | None:
        return int(self.max_clusters)


class RGatherOutliers(Gather):
    """(r, ε)-Gather: like r-Gather, but up to ``⌊ε n⌋`` records may stay unclustered.

    Parameters
    ----------
    k : int, default 3
        Minimum crowd size (the paper's r).
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
        "radius <= 4 OPT (3 OPT with centers='points')", f"{_PAPER}, Thm 2.4", 4.0
    )
    tags: ClassVar[Tags] = Tags(outlier_budget=True, any_norm=True)
    parameters: ClassVar[dict] = RGather.parameters | {
        "epsilon": Interval(0, 1),
        "centers": OneOf("any", "points"),
    }

    def __init__(
        self,
        k: int = 3,
        epsilon: float = 0.05,
        *,
        centers: Literal["any", "points"] = "any",
        tol: float = 1e-3,
        refine: bool = True,
    ) -> None:
        self.k = k
        self.epsilon = epsilon
        self.centers = centers
        self.tol = tol
        self.refine = refine

    @property
    def approximation_ratio_(self) -> float:  # type: ignore[override]
        """The guarantee of the variant fitted: 3 for point centers, 4 otherwise."""
        return 3.0 if self.centers == "points" else 4.0

    def _fit(self, space: MetricSpace) -> None:
        r = self.k
        budget = self._budget(space)
        knn = Neighbours(space, r)
        need = space.n - budget
        if self.centers == "any":
            lo = float(np.sort(knn.kth(r - 1))[need - 1])

            def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
                core = knn.core(x, r - 1)
                if core.sum() < need:
                    return None
                return cluster_core(space, knn, core, x, r)

            halve = 2.0
        else:
            # every clustered point has r-1 others within 2 OPT (through its center)
            lo = float(np.sort(knn.kth(r - 1))[need - 1]) / 2

            def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
                return cluster_points(space, knn, x, r, need)

            halve = 1.0
        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / halve, found.tests)


class KRCenterOutliers(Gather):
    """(k, r, ε)-Center: at most ``max_clusters`` crowds of ≥ ``k`` records, ``⌊εn⌋`` left out.

    Parameters
    ----------
    k : int, default 3
        Minimum crowd size (the paper's r).
    max_clusters : int, default 10
        Largest number of crowds (the paper's k).
    epsilon : float, default 0.05
    tol : float, default 1e-3

    Notes
    -----
    Sec. 2.4, for a guess R (tested at 2R): *filtering* keeps the points S with at least
    ``r`` points within 2R and fails if ``|S| < (1 − ε) n``; the *greedy step* picks up to
    ``max_clusters`` uncovered centers from S, each time the one with the most uncovered points
    within 2R, and covers every uncovered point within 4R; it fails if fewer than
    ``(1 − ε) n`` points are covered; the *assignment* sends each covered point to its
    closest center. Centers are more than 4R apart, so each cluster keeps its whole 2R-ball
    (≥ r points). Lemma 2.7: at R = d*/2 the greedy covers at least as many points as the
    optimum. **Guarantee: radius ≤ 4·OPT** (Thm 2.8).

    The proof of Lemma 2.7 uses only that each pick's count reaches the uncovered part of
    every optimal cluster (|G_1| ≥ max |O_i| in the paper's step (2.2)), a set of diameter
    at most 2R. So in a low-dimensional dense embedding (R⁴, say) a pick is any uncovered
    candidate whose count reaches a proven bound on that: the largest uncovered candidate
    weight in an axis-parallel cube of side 2R, read from a grid
    (:mod:`incrowd.space.neighbours.live_tree`). The exact argmax would recount most of a plateau of
    near-equal counts, every pick: on 10⁶ × R⁴ a test took 307 s that way, 1.4–7 s this
    way. The guarantee and the meaning of a failed test are the paper's; the centers may
    differ from the argmax's. A test also stops once the picks left provably cannot cover
    ``(1 − ε) n``.

    Elsewhere the greedy takes the argmax (the lowest-index candidate among equal counts),
    by a lazy max-heap of neighbourhood counts (they only shrink), recounting exactly only
    the candidates that reach the top: in up to 16 dense dimensions over a KD-tree whose
    nodes count the uncovered records, whose boxes bound all their candidates at once; in
    wider embeddings from exact initial counts when affordable (O(Σ |D(v, 2R)|)), else
    pivot upper bounds |D(v, 2R)| ≤ |D(p, 2R + ρ)| (ρ = R/2).

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    """

    guarantee: ClassVar[Guarantee] = Guarantee("radius <= 4 OPT", f"{_PAPER}, Thm 2.8", 4.0)
    tags: ClassVar[Tags] = Tags(outlier_budget=True, cluster_cap=True, any_norm=True)
    parameters: ClassVar[dict] = RGather.parameters | {
        "epsilon": Interval(0, 1),
        "max_clusters": PositiveInt(),
    }

    def __init__(
        self,
        k: int = 3,
        *,
        max_clusters: int = 10,
        epsilon: float = 0.05,
        tol: float = 1e-3,
        refine: bool = True,
    ) -> None:
        self.k = k
        self.max_clusters = max_clusters
        self.epsilon = epsilon
        self.tol = tol
        self.refine = refine

    def _fit(self, space: MetricSpace) -> None:
        r = self.k
        budget = self._budget(space)
        k_max = int(self.max_clusters)
        knn = Neighbours(space, r)
        need = space.n - budget
        lo = float(np.sort(knn.kth(r - 1))[need - 1])

        def test(x: float) -> tuple[np.ndarray, np.ndarray] | None:
            return greedy_k_centers(space, knn, x, r, k_max, need)

        found = search_threshold(
            test, lo, diameter_bound(space), pairwise_candidates(space, lo), self.tol
        )
        centers, labels = found.result
        self._finish(space, centers, labels, found.value, found.lower / 2, found.tests)
