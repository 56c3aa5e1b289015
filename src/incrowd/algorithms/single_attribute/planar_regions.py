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

import os
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from ..._runtime import jit
from ...base import Algorithm, Guarantee, Tags
from ...costs import Classes, LargestCrowd, largest_lower_bound, record_counts
from ...data.columns import CategoricalColumn, NumericColumn
from ...errors import InfeasibleError, InputError, ParameterError
from ...io.tables import read_table
from ...params import CrowdSize, Places
from ...partition import Partition
from ...space.metric_space import MetricSpace

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

#: Swaps the tree improvement makes at most, per node of the graph.
SWAPS_PER_NODE = 4


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


# ----------------------------------------------------------------------------- the graph
def delaunay_edges(points: np.ndarray) -> np.ndarray:
    """The edges (pairs of row indices) of the Delaunay triangulation of distinct 2-d points.

    Points Qhull leaves out (nearly coincident ones) are joined to their nearest vertex;
    fewer than three points, or all on one line, give the path along the line (the
    triangulation's degenerate case), so the graph is always connected and planar.
    """
    from scipy.spatial import Delaunay, QhullError

    pts = np.asarray(points, dtype=np.float64)
    n = pts.shape[0]
    if n < 2:
        return np.zeros((0, 2), np.intp)
    try:
        if n < 3:
            raise QhullError
        tri = Delaunay(pts)
    except QhullError:
        centred = pts - pts.mean(axis=0)
        direction = np.linalg.svd(centred, full_matrices=False)[2][0]
        order = np.argsort(centred @ direction, kind="stable")
        return np.stack([order[:-1], order[1:]], axis=1).astype(np.intp)
    s = tri.simplices
    edges = np.concatenate([s[:, [0, 1]], s[:, [1, 2]], s[:, [0, 2]]])
    if tri.coplanar.size:
        edges = np.concatenate([edges, tri.coplanar[:, [0, 2]]])
    return _undirected(edges, n)


def _undirected(edges: np.ndarray, n: int) -> np.ndarray:
    edges = np.sort(np.asarray(edges, dtype=np.int64), axis=1)
    edges = edges[edges[:, 0] != edges[:, 1]]
    keys = np.unique(edges[:, 0] * n + edges[:, 1])
    return np.stack([keys // n, keys % n], axis=1).astype(np.intp)


def _csr(n: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    both = np.concatenate([edges, edges[:, ::-1]])
    graph = sparse.csr_matrix(
        (np.ones(both.shape[0], np.int8), (both[:, 0], both[:, 1])), shape=(n, n)
    )
    graph.sort_indices()
    return graph.indptr.astype(np.int64), graph.indices.astype(np.int64)


# ----------------------------------------------------------------------------- the tree
@jit()
def _dfs_forest(indptr, indices):  # pragma: no cover - compiled
    """Parent per node of a depth-first spanning forest (−1 at each root)."""
    n = indptr.size - 1
    parent = np.full(n, -2, np.int64)
    cursor = indptr[:-1].copy()
    stack = np.empty(n, np.int64)
    for root in range(n):
        if parent[root] != -2:
            continue
        parent[root] = -1
        stack[0], top = root, 1
        while top > 0:
            x = stack[top - 1]
            if cursor[x] < indptr[x + 1]:
                y = indices[cursor[x]]
                cursor[x] += 1
                if parent[y] == -2:
                    parent[y] = x
                    stack[top] = y
                    top += 1
            else:
                top -= 1
    return parent


@jit()
def _euler(parent):  # pragma: no cover - compiled
    """Degrees, entry / exit times and the children (CSR) of a forest given by parents."""
    n = parent.size
    degree = np.zeros(n, np.int64)
    count = np.zeros(n + 1, np.int64)
    for x in range(n):
        if parent[x] >= 0:
            degree[x] += 1
            degree[parent[x]] += 1
            count[parent[x] + 1] += 1
    start = np.cumsum(count)
    child = np.empty(max(start[n], 1), np.int64)
    fill = start[:-1].copy()
    for x in range(n):
        if parent[x] >= 0:
            child[fill[parent[x]]] = x
            fill[parent[x]] += 1
    tin = np.zeros(n, np.int64)
    tout = np.zeros(n, np.int64)
    cursor = start[:-1].copy()
    stack = np.empty(n, np.int64)
    clock = 0
    for root in range(n):
        if parent[root] != -1:
            continue
        stack[0], top = root, 1
        tin[root] = clock
        clock += 1
        while top > 0:
            x = stack[top - 1]
            if cursor[x] < start[x + 1]:
                y = child[cursor[x]]
                cursor[x] += 1
                tin[y] = clock
                clock += 1
                stack[top] = y
                top += 1
            else:
                tout[x] = clock
                top -= 1
    return degree, tin, tout, start, child


@jit()
def _branch(u, x, parent, tin, tout, start, child):  # pragma: no cover - compiled
    """The neighbour of ``u`` on the tree path from ``u`` to ``x``."""
    if tin[u] < tin[x] < tout[u]:
        for p in range(start[u], start[u + 1]):
            c = child[p]
            if tin[c] <= tin[x] < tout[c]:
                return c
    return parent[u]


@jit()
def _reroot(parent, x, stop):  # pragma: no cover - compiled
    """Reverse the parent pointers on the path from ``x`` up to ``stop`` (``x`` a root)."""
    previous = -1
    while True:
        up = parent[x]
        parent[x] = previous
        if x == stop:
            return
        previous, x = x, up


@jit()
def _lower_degree(indptr, indices, parent, max_swaps):  # pragma: no cover - compiled
    """Fürer–Raghavachari swaps while they lower the largest degree of the forest."""
    swaps = 0
    while swaps < max_swaps:
        degree, tin, tout, start, child = _euler(parent)
        top = degree.max()
        if top <= 2:
            break
        swapped = False
        for u in range(parent.size):
            if degree[u] != top:
                continue
            for p in range(indptr[u], indptr[u + 1]):
                v = indices[p]
                if degree[v] > top - 2:
                    continue
                for q in range(indptr[v], indptr[v + 1]):
                    w = indices[q]
                    if w == u or degree[w] > top - 2 or parent[v] == w or parent[w] == v:
                        continue
                    bv = _branch(u, v, parent, tin, tout, start, child)
                    bw = _branch(u, w, parent, tin, tout, start, child)
                    if bv == bw or bv == u or bw == u:
                        continue
                    # add (v, w), remove u's edge towards v
                    if bv == parent[u]:  # v is outside u's subtree: hang u's part from v
                        parent[u] = -1
                        _reroot(parent, w, u)
                        parent[w] = v
                    else:  # v is below u: hang v's part from w
                        _reroot(parent, v, bv)
                        parent[v] = w
                    swapped = True
                    swaps += 1
                    break
                if swapped:
                    break
            if swapped:
                break
        if not swapped:
            break
    return parent


def spanning_tree(n: int, edges: np.ndarray) -> tuple[np.ndarray, int]:
    """A spanning forest of the graph (``n`` nodes, ``edges`` pairs) with a small largest
    degree: ``(tree edges, largest degree)``. Depth-first, then degree-lowering swaps."""
    edges = _undirected(edges, max(n, 1)) if len(edges) else np.zeros((0, 2), np.intp)
    indptr, indices = _csr(n, edges)
    parent = _dfs_forest(indptr, indices)
    parent = _lower_degree(indptr, indices, parent, SWAPS_PER_NODE * n + 16)
    kids = np.flatnonzero(parent >= 0)
    tree = np.stack([parent[kids], kids], axis=1).astype(np.intp)
    degree = np.bincount(tree.ravel(), minlength=n)
    return tree, int(degree.max()) if n else 0


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
    indptr, indices = _csr(n, tree)
    labels = _split_tree(indptr, indices, w, int(k)).astype(np.intp)
    loads = np.bincount(labels, weights=w).astype(np.int64)
    lower = max(largest_lower_bound(w[(part == p) & (w > 0)], int(k)) for p in range(n_parts))
    bound = max(int(k), int(w.max())) + degree * (int(k) - 1)
    return Regions(labels, loads, lower, degree, bound, tree)


# ----------------------------------------------------------------------------- the method
#: ``places="us-zip"``: the bundled residents-per-zip table (zip, lat, lon).
US_ZIP = "us-zip"


def places_table(places: object) -> dict[str, tuple[float, float]]:
    """Value → (longitude, latitude) from a places table: ``"us-zip"`` (bundled), a CSV path,
    or a DataFrame; its first column names the place, ``lon`` and ``lat`` give its point."""
    if isinstance(places, pd.DataFrame):
        frame = places
    elif places == US_ZIP:
        from ...datasets import load_zip_population

        frame = load_zip_population()
    elif isinstance(places, str | os.PathLike):
        frame = read_table(places)
    else:
        msg = f"places must be {US_ZIP!r}, a CSV path or a DataFrame, got {places!r}"
        raise ParameterError(msg)
    missing = [c for c in ("lon", "lat") if c not in frame.columns]
    if missing:
        msg = f"the places table needs columns 'lon' and 'lat' (missing: {', '.join(missing)})"
        raise InputError(msg)
    lon = pd.to_numeric(frame["lon"], errors="coerce").to_numpy(dtype=np.float64)
    lat = pd.to_numeric(frame["lat"], errors="coerce").to_numpy(dtype=np.float64)
    keys = frame.iloc[:, 0].astype(str).to_numpy()
    return {key: (x, y) for key, x, y in zip(keys, lon, lat, strict=True)
            if np.isfinite(x) and np.isfinite(y)}  # fmt: skip


def plane_coordinates(space: MetricSpace, places: object = US_ZIP) -> np.ndarray:
    """One point per record (n × 2): the two numeric quasi-identifiers as given (longitude
    and latitude, not rescaled), or the point of the record's place (its one categorical
    quasi-identifier, a zip code) in the ``places`` table."""
    if space.columns:
        numeric = [c for c in space.columns if isinstance(c, NumericColumn)]
        if len(space.columns) == 2 and len(numeric) == 2:
            return np.column_stack([c.values for c in numeric]).astype(np.float64)
        if len(space.columns) == 1 and isinstance(space.columns[0], CategoricalColumn):
            column = space.columns[0]
            lookup = places_table(places)
            unknown = next((v for v in column.categories if v not in lookup), None)
            if unknown is not None:
                msg = (
                    f"value {unknown!r} of {column.name!r} is not a place of the places table "
                    f"({places if isinstance(places, str) else 'given'}); give the table of "
                    "places (value, lon, lat) with places=..."
                )
                raise InputError(msg)
            points = np.array([lookup[v] for v in column.categories], dtype=np.float64)
            return points[column.codes]
        names = ", ".join(c.name for c in space.columns)
        msg = (
            "planar regions need a place per record: two numeric quasi-identifiers "
            f"(longitude and latitude) or one categorical one (a zip code); got {names}"
        )
        raise InputError(msg)
    if space.geometry.numeric.shape[1] != 2 or space.geometry.codes.shape[1]:
        msg = f"planar regions need points with two coordinates, got {space.dim}"
        raise InputError(msg)
    return np.asarray(space.geometry.numeric, dtype=np.float64)


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
