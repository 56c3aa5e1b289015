"""Points into axis-aligned boxes of at least ``k`` records, the largest as small as possible.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 3 (Theorem 4).

A GPS point (or any point in ``d`` numeric coordinates) is generalized to the rectangle of
its class: the plane is cut into axis-aligned cells, each holding at least ``k`` records,
and every record publishes its cell's bounding box. The paper's algorithm is a kd-tree:
**cut any cell with an axis-parallel line whenever both sides keep at least k records**, and
stop where no cut is possible. Cuts fall between distinct coordinates, so copies of a point
(its multiplicity) are never separated. Finding the optimum is NP-hard, and no algorithm
gets within 4/3 unless P = NP (Thm 4).

Guarantee. A cell no line can cut holds at most ``m + 2d(k − 1)`` records, where ``m`` is
the largest multiplicity (``m + 4(k − 1)`` in the plane). Proof: as no cut along axis 1 is
valid, some coordinate ``x₁*`` has fewer than ``k`` records strictly on either side; of the
records on the slab ``x₁ = x₁*``, those off ``x₂*`` (chosen the same way along axis 2) are
fewer than ``2k − 1``, and so on down to the point ``(x₁*, …, x_d*)``, which holds at most
``m``. As every class of any solution holds at least ``κ = max(k, m)``, the largest class
is at most ``(2d + 1)·OPT`` (5 in the plane). Which valid cut is taken only changes the
quality: here the axis where the cell is widest (relative to the whole data) is tried first,
and on it the gap closest to one of two targets: a multiple of ``k`` near half the cell (so
cells end near ``k`` records rather than near ``2k``, as plain median cuts leave them), or
the weighted median (better where single points are heavy). Both are run and the smaller
largest cell kept.

Lower bound (the certificate): ``max(k, m, ⌈W / ⌊W/k⌋⌉)``
(:func:`~incrowd.costs.largest_lower_bound`).

Complexity: ``O(d·n log n)`` to sort, then ``O(d·n)`` per level of the tree (every axis's
order is partitioned stably at each cut), ``O(d·n log n)`` in all for balanced cuts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..._runtime import jit
from ...base import Algorithm, Guarantee, Tags
from ...costs import Classes, LargestCrowd, largest_lower_bound, record_counts
from ...errors import InputError, ParameterError
from ...params import CrowdSize
from ...partition import Partition
from ...space.metric_space import MetricSpace

__all__ = ["KDRectangles", "Rectangles", "kd_rectangles"]


@dataclass(frozen=True)
class Rectangles(Classes):
    """Points grouped into boxes: ``labels[i]`` is the class of point ``i``.

    ``lows[c]`` / ``highs[c]`` are the bounding box of class ``c`` (what is published);
    ``loads[c]`` its weight; ``bound`` the proven largest class ``m + 2d(k − 1)``.
    """

    labels: np.ndarray
    loads: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    lower_bound: int
    bound: int


@jit()
def _cut_cells(coords, weights, k, order, spread, aim):  # pragma: no cover - compiled
    """Class per distinct point: cut cells while some axis has a gap leaving ≥ k each side."""
    m, d = coords.shape
    labels = np.full(m, -1, np.int64)
    left = np.zeros(m, np.bool_)
    buffer = np.empty(m, np.int64)
    stack = np.empty((2 * m + 2, 2), np.int64)
    stack[0, 0], stack[0, 1] = 0, m
    top, n_classes = 1, 0
    preference = np.empty(d, np.float64)
    while top > 0:
        top -= 1
        lo, hi = stack[top, 0], stack[top, 1]
        total = 0
        for p in range(lo, hi):
            total += weights[order[0, p]]
        best_axis, best_at = -1, -1
        # aim one side at a multiple of k near half: cells then end near k, not near 2k
        target = k * max(1, (total + k) // (2 * k)) if aim else total / 2
        if total >= 2 * k:
            for a in range(d):
                extent = coords[order[a, hi - 1], a] - coords[order[a, lo], a]
                preference[a] = -extent / spread[a] if spread[a] > 0 else 0.0
            for a in np.argsort(preference, kind="mergesort"):
                if preference[a] == 0.0:
                    break
                acc, best_gap = 0, -1.0
                for p in range(lo, hi - 1):
                    acc += weights[order[a, p]]
                    here, there = coords[order[a, p], a], coords[order[a, p + 1], a]
                    if here != there and acc >= k and total - acc >= k:
                        gap = abs(acc - target)
                        if best_at < 0 or gap < best_gap:
                            best_at, best_gap = p + 1, gap
                if best_at >= 0:
                    best_axis = a
                    break
        if best_axis < 0:
            for p in range(lo, hi):
                labels[order[0, p]] = n_classes
            n_classes += 1
            continue
        for p in range(lo, hi):
            left[order[best_axis, p]] = p < best_at
        cut = lo + (best_at - lo)
        for a in range(d):
            if a == best_axis:
                continue
            i, j = lo, 0
            for p in range(lo, hi):
                q = order[a, p]
                if left[q]:
                    order[a, i] = q
                    i += 1
                else:
                    buffer[j] = q
                    j += 1
            for t in range(j):
                order[a, i + t] = buffer[t]
        stack[top, 0], stack[top, 1] = lo, cut
        stack[top + 1, 0], stack[top + 1, 1] = cut, hi
        top += 2
    return labels


def kd_rectangles(points: np.ndarray, weights: np.ndarray | None, k: int) -> Rectangles:
    """Boxes of at least ``k`` records by the kd-cuts of Theorem 4.

    ``points`` (n × d) are the distinct locations (or records: equal rows are merged) and
    ``weights`` their numbers of records (default 1 each). Zero weights ride along.
    """
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[0] == 0 or pts.shape[1] == 0:
        msg = f"points must be a non-empty n x d array, got shape {pts.shape}"
        raise InputError(msg)
    if not np.all(np.isfinite(pts)):
        msg = "points contain NaN or infinite coordinates"
        raise InputError(msg)
    w = (
        np.ones(pts.shape[0], np.int64)
        if weights is None
        else record_counts(weights, pts.shape[0], "point")
    )
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k must be a positive integer, got {k!r}"
        raise ParameterError(msg)
    distinct, inverse = np.unique(pts, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    mass = np.bincount(inverse, weights=w, minlength=distinct.shape[0]).astype(np.int64)
    bound_of = largest_lower_bound(mass[mass > 0], int(k))
    order = np.stack([np.argsort(distinct[:, a], kind="stable") for a in range(pts.shape[1])])
    spread = np.ptp(distinct, axis=0)
    order = order.astype(np.int64)
    best = None
    for aim in (True, False):  # neither target wins everywhere: keep the better
        cells = _cut_cells(distinct, mass, int(k), order.copy(), spread, aim)
        loads = np.bincount(cells, weights=mass).astype(np.int64)
        if best is None or loads.max() < best[1].max():
            best = (cells, loads)
    assert best is not None
    labels = best[0][inverse].astype(np.intp)
    loads = best[1]
    n_classes = loads.size
    lows = np.full((n_classes, pts.shape[1]), np.inf)
    highs = np.full((n_classes, pts.shape[1]), -np.inf)
    np.minimum.at(lows, labels, pts)
    np.maximum.at(highs, labels, pts)
    used = int((spread > 0).sum())
    bound = int(mass.max()) + 2 * used * (int(k) - 1)
    return Rectangles(labels, loads, lows, highs, bound_of, bound)


class KDRectangles(Algorithm):
    """Crowds as the cells of a kd-tree cut while both sides keep ``k`` records.

    Parameters
    ----------
    k : int, default 5

    Attributes
    ----------
    partition_, labels_, cost_ (the largest crowd), lower_bound_
    bound_ : int, the proven largest crowd ``m + 2d(k − 1)`` (``m`` the largest number of
        identical records, ``d`` the coordinates that vary)

    Notes
    -----
    Du, Eppstein, Goodrich, Lueker (WADS 2009), Theorem 4: see the module docstring. In the
    plane (a latitude/longitude pair) the largest crowd is at most ``m + 4(k − 1)``, under
    5·OPT; in ``d`` coordinates under ``(2d + 1)``·OPT, where OPT is the best partition into
    disjoint boxes. Published as a generalized release, every record shows its crowd's
    ranges, which are the crowd's bounding box; boxes of different crowds are disjoint.
    Complexity ``O(d·n log n)``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [0, 1], [1, 0], [5, 5], [5, 6], [6, 5]])
    >>> model = KDRectangles(k=3).fit(X)
    >>> model.labels_.tolist(), model.cost_, model.lower_bound_
    ([0, 0, 0, 1, 1, 1], 3.0, 3)
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        text="largest crowd ≤ m + 2d(k−1) ≤ (2d+1)·OPT over boxes (5 in the plane)",
        reference="Du, Eppstein, Goodrich & Lueker, WADS 2009, Thm 4",
    )
    tags: ClassVar[Tags] = Tags()
    cost_class: ClassVar[type[LargestCrowd]] = LargestCrowd
    parameters: ClassVar[dict] = {"k": CrowdSize()}

    def __init__(self, k: int = 5) -> None:
        self.k = k

    def cost(self, space: MetricSpace) -> LargestCrowd:
        """The largest crowd, where a crowd's bounding box holds no other record."""
        points = space.points

        def alone_in_its_box(members: np.ndarray) -> bool:
            box = points[members]
            inside = np.all((points >= box.min(axis=0)) & (points <= box.max(axis=0)), axis=1)
            return int(inside.sum()) == members.size

        return LargestCrowd.on(space, alone_in_its_box)

    def _fit(self, space: MetricSpace) -> None:
        first, inverse, counts, _ = space.index().distinct_rows
        found = kd_rectangles(space.points[first], counts, int(self.k))
        labels = found.labels[inverse]
        self.partition_ = Partition(labels)
        self.cost_ = float(found.largest)
        self.lower_bound_ = found.lower_bound
        self.bound_ = found.bound
        self._dims = max(1, int((np.ptp(space.points[first], axis=0) > 0).sum()))

    @property
    def approximation_ratio_(self) -> float | None:
        dims = getattr(self, "_dims", None)
        return None if dims is None else float(2 * dims + 1)
