"""Places (zip codes) into connected regions of at least ``k`` records, the largest as small
as possible.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 2 (Theorem 3).

A zip code is generalized to a region: a connected set of zip codes in a planar graph of
places (two places are adjacent when they border each other), holding at least ``k``
records. The objective is the largest region. It is NP-hard even with unit weights and
``k = 3``, and no algorithm gets within 4/3 unless P = NP (Thm 3).

The algorithm: take a spanning tree ``T`` of the graph with small largest degree ``d``; then,
while some tree edge leaves at least ``k`` on both sides, cut the one whose lighter side
``T₁`` is as light as possible, publish ``T₁`` as a region and go on with the rest.

Guarantee (Thm 3, Lemmas 1–2): every region weighs at most ``κ + d(k − 1)``, where
``κ = max(k, heaviest place)`` — so at most ``(d + 1)·OPT``; 4·OPT for ``d = 3`` (every
3-connected planar graph has such a tree, Barnette) and 3·OPT for ``d = 2``. The bound holds
for the ``d`` of the tree actually used, which the result reports: no known practical
algorithm builds Barnette's tree, so the tree here is a depth-first tree improved by the
local swaps of Fürer and Raghavachari (add a non-tree edge between two vertices of degree
≤ d − 2 whose tree path crosses a vertex of degree ``d``, remove that vertex's edge on the
path), which brings Delaunay triangulations of zip points to ``d = 3`` or ``4``.

The default graph is the Delaunay triangulation of the points exactly as given (copies of a
point merged): it is planar, and it is what is at hand when no boundary files are. A graph
that is not connected is solved per connected part; a part holding fewer than ``k`` records
cannot be published and is an error.

Lower bound (the certificate): ``max(k, heaviest place, ⌈W / ⌊W/k⌋⌉)``
(:func:`~incrowd.costs.largest_lower_bound`), per connected part.

Complexity: the Delaunay triangulation ``O(n log n)``; the tree ``O(n)`` plus ``O(n)`` per
swap; the splitting ``O(n)`` per region, ``O(n · regions)`` in all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from ..._runtime import jit
from ...base import Algorithm, Guarantee, Tags
from ...costs import Classes, LargestCrowd, largest_lower_bound, record_counts
from ...errors import InfeasibleError, InputError, ParameterError
from ...params import CrowdSize, Places
from ...partition import Partition
from ...space.metric_space import MetricSpace
from .places import US_ZIP, places_table, plane_coordinates
from .spanning_tree import csr, delaunay_edges, spanning_tree

__all__ = [
    "US_ZIP",
    "PlanarRegions",
    "Regions",
    "delaunay_edges",
    "places_table",
    "planar_regions",
    "plane_coordinates",
    "spanning_tree",
]


@dataclass(frozen=True)
class Regions(Classes):
    """Places grouped into connected regions: ``labels[i]`` is the region of place ``i``.

    ``degree`` is the largest degree ``d`` of the spanning tree used, ``bound`` the proven
    largest region ``κ + d(k − 1)``, ``tree`` its edges (pairs of places).
    """

    labels: np.ndarray
    loads: np.ndarray
    lower_bound: int
    degree: int
    bound: int
    tree: np.ndarray


# ----------------------------------------------------------------------------- splitting
@jit()
def _split_tree(indptr, indices, weights, k):  # pragma: no cover - compiled
    """Region per node: cut the tree edge with the lightest valid side, again and again."""
    n = weights.size
    region = np.full(n, -1, np.int64)
    order = np.empty(n, np.int64)
    parent = np.empty(n, np.int64)
    below = np.empty(n, np.int64)  # weight of each node's subtree
    nodes = np.empty(n, np.int64)  # nodes in it
    position = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    n_regions = 0
    for start in range(n):
        if region[start] != -1:
            continue
        root = start
        while True:
            # a preorder of what is left of this tree: every subtree is a contiguous run
            stack[0], top, size = root, 1, 0
            parent[root] = -1
            while top > 0:
                top -= 1
                x = stack[top]
                position[x] = size
                order[size] = x
                size += 1
                for p in range(indptr[x], indptr[x + 1]):
                    y = indices[p]
                    if y != parent[x] and region[y] == -1:
                        parent[y] = x
                        stack[top] = y
                        top += 1
            for i in range(size):
                x = order[i]
                below[x] = weights[x]
                nodes[x] = 1
            for i in range(size - 1, 0, -1):
                x = order[i]
                below[parent[x]] += below[x]
                nodes[parent[x]] += nodes[x]
            total = below[root]
            best, cut = -1, -1
            for i in range(1, size):
                x = order[i]
                a = below[x]
                b = total - a
                if a >= k and b >= k:
                    light = min(a, b)
                    if best < 0 or light < best:
                        best, cut = light, x
            if cut < 0:
                for i in range(size):
                    region[order[i]] = n_regions
                n_regions += 1
                break
            lo, hi = position[cut], position[cut] + nodes[cut]
            if below[cut] <= total - below[cut]:  # the cut-off subtree is the region
                for i in range(lo, hi):
                    region[order[i]] = n_regions
            else:  # the rest is the region; go on below the cut
                for i in range(size):
                    if i < lo or i >= hi:
                        region[order[i]] = n_regions
                root = cut
            n_regions += 1
    return region


def planar_regions(
    points: np.ndarray | None,
    weights: np.ndarray | None,
    k: int,
    *,
    edges: np.ndarray | None = None,
    n: int | None = None,
) -> Regions:
    """Connected regions of at least ``k`` records by the tree splitting of Theorem 3.

    Give ``points`` (n × 2: the graph is their Delaunay triangulation; equal points must be
    merged by the caller, as :class:`PlanarRegions` does) or ``edges`` (pairs of place
    indices, any graph, with ``n`` places). ``weights`` are records per place (default 1).
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k must be a positive integer, got {k!r}"
        raise ParameterError(msg)
    if edges is None:
        if points is None:
            msg = "give the places' points or the graph's edges"
            raise InputError(msg)
        pts = np.asarray(points, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 2 or pts.shape[0] == 0:
            msg = f"points must be an n x 2 array of (longitude, latitude), got {pts.shape}"
            raise InputError(msg)
        if not np.all(np.isfinite(pts)):
            msg = "points contain NaN or infinite coordinates"
            raise InputError(msg)
        n = pts.shape[0]
        edges = delaunay_edges(pts)
    else:
        edges = np.asarray(edges)
        if n is None:
            n = int(edges.max()) + 1 if edges.size else 0
        if edges.size and (edges.ndim != 2 or edges.shape[1] != 2):
            msg = f"edges must be pairs of place indices, got shape {edges.shape}"
            raise InputError(msg)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            msg = f"edges name places outside 0..{n - 1}"
            raise InputError(msg)
        edges = edges.astype(np.intp).reshape(-1, 2)
    if n == 0:
        msg = "there are no places"
        raise InputError(msg)
    w = np.ones(n, np.int64) if weights is None else record_counts(weights, n, "place")
    tree, degree = spanning_tree(n, edges)
    n_parts, part = connected_components(
        sparse.coo_matrix((np.ones(len(tree)), (tree[:, 0], tree[:, 1])), shape=(n, n)),
        directed=False,
    )
    mass = np.bincount(part, weights=w, minlength=n_parts)
    if (mass < k).any():
        light = int(np.flatnonzero(mass < k)[0])
        members = np.flatnonzero(part == light)
        msg = (
            f"the graph falls into {n_parts} separate parts and one of them (places "
            f"{members[:5].tolist()}{'…' if members.size > 5 else ''}) holds "
            f"{int(mass[light])} records, fewer than k={k}: it cannot form a region; "
            "join it to a neighbour in the graph"
        )
        raise InfeasibleError(msg)
    indptr, indices = csr(n, tree)
    labels = _split_tree(indptr, indices, w, int(k)).astype(np.intp)
    loads = np.bincount(labels, weights=w).astype(np.int64)
    lower = max(largest_lower_bound(w[(part == p) & (w > 0)], int(k)) for p in range(n_parts))
    bound = max(int(k), int(w.max())) + degree * (int(k) - 1)
    return Regions(labels, loads, lower, degree, bound, tree)


class PlanarRegions(Algorithm):
    """Crowds as connected regions of the Delaunay graph of the records' places.

    Parameters
    ----------
    k : int, default 5
    places : "us-zip", path or DataFrame, default "us-zip"
        Where the point of each place is looked up when the quasi-identifier is one label
        (a zip code): a table whose first column names the place and whose ``lon`` and
        ``lat`` columns give its point; ``"us-zip"`` is the bundled table of 33,774 US zips.

    Attributes
    ----------
    partition_, labels_, cost_ (the largest crowd), lower_bound_
    degree_ : int, the largest degree ``d`` of the spanning tree used
    bound_ : int, the proven largest crowd ``κ + d(k − 1)``

    Notes
    -----
    Du, Eppstein, Goodrich, Lueker (WADS 2009), Theorem 3: see the module docstring. The
    quasi-identifiers are one place per record, as two numbers (longitude and latitude of
    the record's zip code, say); records at one place are one node of weight their number.
    The largest crowd is at most ``κ + d(k − 1) ≤ (d + 1)·OPT`` over connected regions of
    the graph; ``approximation_ratio_`` is ``d + 1`` for the tree found. The generalized
    release publishes each crowd's ranges (its bounding box) for a longitude/latitude
    pair, and with ``generalize="sets"`` the set of zip codes of each region for a zip code;
    the hierarchy builder (``incrowd hierarchy regions``) names regions instead.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0, 0], [1, 0], [2, 0], [10, 0], [11, 0], [12, 0]])
    >>> model = PlanarRegions(k=3).fit(X)
    >>> model.labels_.tolist(), model.cost_, model.degree_
    ([0, 0, 0, 1, 1, 1], 3.0, 2)
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        text="largest crowd ≤ κ + d(k−1) ≤ (d+1)·OPT over connected regions (d: tree degree)",
        reference="Du, Eppstein, Goodrich & Lueker, WADS 2009, Thm 3",
    )
    tags: ClassVar[Tags] = Tags(coordinates=2)
    cost_class: ClassVar[type[LargestCrowd]] = LargestCrowd
    parameters: ClassVar[dict] = {"k": CrowdSize(), "places": Places()}

    def __init__(self, k: int = 5, *, places: object = US_ZIP) -> None:
        self.k = k
        self.places = places

    def cost(self, space: MetricSpace) -> LargestCrowd:
        """The largest crowd, where a crowd's places are connected in the Delaunay graph."""
        first, inverse, _, _ = space.index().distinct_rows
        edges = delaunay_edges(plane_coordinates(space, self.places)[first])

        def connected(members: np.ndarray) -> bool:
            places = np.unique(inverse[members])
            inside = np.isin(edges, places).all(axis=1)
            local = np.searchsorted(places, edges[inside])
            graph = sparse.coo_matrix(
                (np.ones(len(local)), (local[:, 0], local[:, 1])), shape=(places.size,) * 2
            )
            return connected_components(graph, directed=False)[0] == 1

        return LargestCrowd.on(space, connected)

    def _fit(self, space: MetricSpace) -> None:
        first, inverse, counts, _ = space.index().distinct_rows
        # two labels (zip codes) may share a point: a place is a distinct point
        points, merged = np.unique(
            plane_coordinates(space, self.places)[first], axis=0, return_inverse=True
        )
        merged = merged.reshape(-1)
        weights = np.bincount(merged, weights=counts, minlength=points.shape[0])
        found = planar_regions(points, weights.astype(np.int64), int(self.k))
        inverse = merged[inverse]
        self.partition_ = Partition(found.labels[inverse])
        self.cost_ = float(found.largest)
        self.lower_bound_ = found.lower_bound
        self.degree_ = found.degree
        self.bound_ = found.bound

    @property
    def approximation_ratio_(self) -> float | None:
        degree = getattr(self, "degree_", None)
        return None if degree is None else float(max(degree, 1) + 1)
