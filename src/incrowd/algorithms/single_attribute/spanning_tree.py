"""The graph of places and a spanning tree of it with a small largest degree.

:func:`delaunay_edges`: the Delaunay triangulation of the points (planar, always connected),
:math:`O(n \\log n)`. :func:`spanning_tree`: a depth-first spanning forest improved by the
local swaps of Fürer and Raghavachari (add a non-tree edge between two vertices of degree
≤ d − 2 whose tree path crosses a vertex of degree ``d``, remove that vertex's edge on the
path), which brings Delaunay triangulations of zip points to ``d = 3`` or ``4``; the
largest degree ``d`` is reported, not proven (no known practical algorithm builds
Barnette's tree of degree 3). Time :math:`O(n)` plus :math:`O(n)` per swap, at most
``SWAPS_PER_NODE`` swaps per node.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 2.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ..._runtime import jit

__all__ = ["SWAPS_PER_NODE", "csr", "delaunay_edges", "spanning_tree"]

#: Swaps the tree improvement makes at most, per node of the graph.
SWAPS_PER_NODE = 4


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


def csr(n: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    indptr, indices = csr(n, edges)
    parent = _dfs_forest(indptr, indices)
    parent = _lower_degree(indptr, indices, parent, SWAPS_PER_NODE * n + 16)
    kids = np.flatnonzero(parent >= 0)
    tree = np.stack([parent[kids], kids], axis=1).astype(np.intp)
    degree = np.bincount(tree.ravel(), minlength=n)
    return tree, int(degree.max()) if n else 0
