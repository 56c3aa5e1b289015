"""FOREST and DECOMPOSE-COMPONENT (Aggarwal et al., *Approximation Algorithms for
k-Anonymity*, Sec. 4), shared by :class:`~incrowd.ForestKAnonymity` and
:class:`~incrowd.MuApprox`.

A *tree* here is a connected piece of the forest whose nodes are records (``real``) or
Steiner copies of records (points that connect a piece but are published elsewhere). Sizes
count real nodes only.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...partition import SUPPRESSED

__all__ = ["Tree", "grow_forest", "forest_trees", "split_tree", "decompose", "size_limit",
           "forest_labels", "forest_on"]  # fmt: skip


def size_limit(k: int) -> int:
    """Largest crowd DECOMPOSE-COMPONENT leaves: ``max(2k − 1, 3k − 5)`` (Theorem 5)."""
    return max(2 * k - 1, 3 * k - 5)


def grow_forest(dist: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm FOREST: the out-edge of every record (``-1``: none) and its weight.

    ``idx[u]`` lists the ``k − 1`` nearest other records of ``u``, nearest first, and
    ``dist[u]`` their distances. While some tree has fewer than ``k`` records, its only record
    without an out-edge (its sink) links to its nearest listed neighbour outside the tree;
    one exists because the tree holds at most ``k − 2`` others. Trees are served cheapest link
    first, which keeps the forest light; any order keeps Lemma 3's bound, since every edge is
    paid by the record it leaves and costs at most that record's distance to its (k−1)-th
    nearest neighbour.
    """
    n = idx.shape[0]
    head = np.full(n, -1, dtype=np.intp)
    weight = np.zeros(n)
    root = list(range(n))
    size = [1] * n
    sink = list(range(n))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    if k <= 1:
        return head, weight
    heap = [(float(dist[u, 0]), u) for u in range(n)]
    heapq.heapify(heap)
    while heap:
        d, u = heapq.heappop(heap)
        r = find(u)
        if size[r] >= k or sink[r] != u:
            continue
        t = 0
        while find(int(idx[u, t])) == r:
            t += 1
        du = float(dist[u, t])
        if du > d:  # neighbours joined the tree since this entry was pushed
            heapq.heappush(heap, (du, u))
            continue
        v = int(idx[u, t])
        rv = find(v)
        head[u], weight[u] = v, du
        big, small = (r, rv) if size[r] >= size[rv] else (rv, r)
        root[small] = big
        size[big] += size[small]
        sink[big] = sink[rv]
        if size[big] < k:
            s = sink[big]
            heapq.heappush(heap, (float(dist[s, 0]), s))
    return head, weight


@dataclass
class Tree:
    """A piece of the forest: ``nodes[i]`` is the record at node ``i``; ``adj[i]`` maps a
    neighbour node to the edge weight."""

    nodes: list[int]
    real: list[bool]
    adj: list[dict[int, float]]

    @property
    def size(self) -> int:
        return sum(self.real)

    @property
    def weight(self) -> float:
        return sum(sum(a.values()) for a in self.adj) / 2.0

    def records(self) -> list[int]:
        return [r for r, keep in zip(self.nodes, self.real, strict=True) if keep]


def forest_trees(head: np.ndarray, weight: np.ndarray) -> list[Tree]:
    """The trees of a forest given by out-edges (as undirected trees)."""
    n = head.size
    root = np.arange(n)

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = int(root[x])
        return x

    for u in np.flatnonzero(head >= 0):
        a, b = find(int(u)), find(int(head[u]))
        if a != b:
            root[a] = b
    comp = np.array([find(u) for u in range(n)])
    order = np.argsort(comp, kind="stable")
    bounds = np.flatnonzero(np.diff(comp[order])) + 1
    trees = []
    for members in np.split(order, bounds):
        local = {int(r): i for i, r in enumerate(members)}
        adj: list[dict[int, float]] = [{} for _ in members]
        for r in members:
            v = int(head[r])
            if v >= 0:
                a, b = local[int(r)], local[v]
                adj[a][b] = adj[b][a] = float(weight[r])
        trees.append(Tree([int(r) for r in members], [True] * len(members), adj))
    return trees


def split_tree(tree: Tree, k: int, distance: Callable[[int, int], float]) -> list[Tree] | None:
    """Break ``tree`` (at least ``2k`` real nodes) into two trees of at least ``k`` real nodes
    each, splitting its edges between them; None when no such split exists.

    Edge splits come first (the heaviest edge whose removal leaves ``k`` on both sides; ties to
    the more balanced cut). Otherwise a vertex ``x`` is split: its branches are grouped into two
    sides by an exact subset-sum, ``x`` stays real on one side and a Steiner copy of ``x`` joins
    the other. This covers the four cases A–D of DECOMPOSE-COMPONENT (A is an edge split; B, C
    and D split the vertices ``v``, ``u`` and ``u``), and it also works where the paper's
    candidate walk would stop at a Steiner vertex, whose size is 0.
    """
    n_nodes = len(tree.nodes)
    real = tree.real
    s = sum(real)
    start = real.index(True)
    parent = [-1] * n_nodes
    up = [0.0] * n_nodes
    order: list[int] = []
    stack = [start]
    while stack:  # preorder: every subtree is a contiguous slice of ``order``
        x = stack.pop()
        order.append(x)
        for y, w in tree.adj[x].items():
            if y != parent[x]:
                parent[y], up[y] = x, w
                stack.append(y)
    pos = [0] * n_nodes
    for i, x in enumerate(order):
        pos[x] = i
    sub = [int(r) for r in real]
    count = [1] * n_nodes
    for x in reversed(order[1:]):
        sub[parent[x]] += sub[x]
        count[parent[x]] += count[x]

    best, best_key = -1, None
    for x in order[1:]:
        a = sub[x]
        if a >= k and s - a >= k:
            key = (up[x], -abs(s - 2 * a))
            if best_key is None or key > best_key:
                best, best_key = x, key
    if best >= 0:
        inside = order[pos[best] : pos[best] + count[best]]
        outside = order[: pos[best]] + order[pos[best] + count[best] :]
        return [_piece(tree, inside, None, True, distance),
                _piece(tree, outside, None, True, distance)]  # fmt: skip

    for x in sorted(range(n_nodes), key=lambda v: not real[v]):
        branches = [y for y in tree.adj[x] if y != parent[x]]
        sizes = [sub[y] for y in branches]
        if parent[x] >= 0:
            branches.append(parent[x])
            sizes.append(s - sub[x])
        group = _subset_in_window(sizes, k - real[x], sum(sizes) - k + real[x], k, real[x])
        if group is None:
            continue
        side = [False] * len(branches)
        for i in group:
            side[i] = True
        parts: tuple[list[int], list[int]] = ([], [])
        for i, y in enumerate(branches):
            if y == parent[x]:
                nodes = order[: pos[x]] + order[pos[x] + count[x] :]
            else:
                nodes = order[pos[y] : pos[y] + count[y]]
            parts[0 if side[i] else 1].extend(nodes)
        first = sum(sizes[i] for i in group)
        x_first = real[x] and first < k
        return [_piece(tree, parts[0], x, x_first, distance),
                _piece(tree, parts[1], x, real[x] and not x_first, distance)]  # fmt: skip
    return None


def _subset_in_window(sizes: list[int], lo: int, hi: int, k: int, real: bool) -> list[int] | None:
    """Indices of a subset of ``sizes`` whose sum lies in ``[lo, hi]`` (bitset subset-sum),
    where a sum below ``k`` must be the side that takes the real vertex."""
    if lo > hi or len(sizes) < 2:
        return None
    reach = [1]
    for b in sizes:
        reach.append(reach[-1] | (reach[-1] << b))
    total = sum(sizes)
    target = next(
        (
            t
            for t in range(lo, hi + 1)
            if (reach[-1] >> t) & 1 and not (real and t < k and total - t < k)
        ),
        None,
    )
    if target is None:
        return None
    chosen = []
    for i in range(len(sizes) - 1, -1, -1):
        if not (reach[i] >> target) & 1:
            chosen.append(i)
            target -= sizes[i]
    return chosen


def _piece(
    tree: Tree,
    nodes: list[int],
    shared: int | None,
    shared_real: bool,
    distance: Callable[[int, int], float],
) -> Tree:
    """The sub-tree on ``nodes`` (plus the split vertex ``shared``, real or a Steiner copy),
    keeping the edges with both ends inside, then without needless Steiner nodes."""
    members = list(nodes) + ([shared] if shared is not None else [])
    local = {x: i for i, x in enumerate(members)}
    adj = [{local[y]: w for y, w in tree.adj[x].items() if y in local} for x in members]
    real = [tree.real[x] for x in nodes] + ([shared_real] if shared is not None else [])
    records = [tree.nodes[x] for x in members]
    return _prune_steiner(Tree(records, real, adj), distance)


def _prune_steiner(tree: Tree, distance: Callable[[int, int], float]) -> Tree:
    """Drop Steiner leaves and bypass Steiner nodes of degree 2 (the direct edge is no
    heavier, by the triangle inequality), then renumber."""
    alive = [True] * len(tree.nodes)
    queue = [i for i, r in enumerate(tree.real) if not r]
    while queue:
        x = queue.pop()
        if not alive[x] or tree.real[x]:
            continue
        nbrs = list(tree.adj[x])
        if len(nbrs) == 1:
            (y,) = nbrs
            del tree.adj[y][x]
        elif len(nbrs) == 2:
            a, b = nbrs
            del tree.adj[a][x], tree.adj[b][x]
            w = distance(tree.nodes[a], tree.nodes[b])
            tree.adj[a][b] = tree.adj[b][a] = w
        else:
            continue
        alive[x] = False
        tree.adj[x] = {}
        queue.extend(y for y in nbrs if not tree.real[y])
    if all(alive):
        return tree
    keep = [i for i, a in enumerate(alive) if a]
    local = {x: i for i, x in enumerate(keep)}
    return Tree(
        [tree.nodes[x] for x in keep],
        [tree.real[x] for x in keep],
        [{local[y]: w for y, w in tree.adj[x].items()} for x in keep],
    )


def copies_only(tree: Tree) -> bool:
    """Whether ``tree`` joins copies of one record only (real nodes, every edge of weight 0):
    on real microdata most records of a large table are such copies."""
    return all(tree.real) and not any(w for a in tree.adj for w in a.values())


def decompose(
    trees: list[Tree],
    k: int,
    distance: Callable[[int, int], float],
    refine: bool,
) -> tuple[list[Tree], int]:
    """DECOMPOSE-COMPONENT on every tree above ``max(2k − 1, 3k − 5)`` records, and with
    ``refine`` on every tree that can still be split into two of at least ``k``.

    Splitting never raises the generalization cost (a subset costs no more per record than
    its superset) and keeps the sum of edge weights, so refining keeps the guarantee. A tree
    of copies of one record (every edge of weight 0) is kept whole, whatever its size: it
    costs 0, and its pieces would publish the same rows.
    Returns the final trees and how many stayed above the limit because no split exists
    (possible only around Steiner vertices; their size then bounds the ratio instead).
    """
    limit = size_limit(k)
    work = list(trees)
    final: list[Tree] = []
    stuck = 0
    while work:
        tree = work.pop()
        s = tree.size
        if s >= 2 * k and copies_only(tree):  # any split costs 0 and publishes the same rows
            final.append(tree)
            continue
        if s >= 2 * k and (refine or s > limit):
            parts = split_tree(tree, k, distance)
            if parts is not None:
                work.extend(parts)
                continue
            stuck += s > limit
        final.append(tree)
    return final, stuck


def forest_labels(trees: list[Tree], n: int) -> np.ndarray:
    """Each record's tree (−1: in none)."""
    labels = np.full(n, SUPPRESSED, dtype=np.intp)
    for c, tree in enumerate(trees):
        labels[tree.records()] = c
    return labels


def forest_on(dist: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, list[Tree]]:
    """FOREST on neighbour lists (each record's ``k − 1`` nearest), and its trees."""
    head, weight = grow_forest(dist[:, : k - 1], idx[:, : k - 1], k)
    return weight, forest_trees(head, weight)
