"""A KD-tree whose nodes count the records still live: which ball holds the most of them.

The greedy step of (k, r, ε)-Center (Aggarwal et al., *Achieving Anonymity via
Clustering*, Sec. 2.4) asks up to ``max_clusters`` times for the candidate whose ball of
radius ``x`` holds the most uncovered records, then covers every record within ``2x`` of
it. Counting every candidate's ball costs ``Σ_v |D(v, x)|``: about 10¹⁰ distance checks for
a million Gaussian points in R⁴ at the radius the search ends on. Here

- every node keeps the weight of the live records below it, so a ball count adds whole
  nodes that lie inside the ball and looks at single records only near its boundary;
- a best-first search over the nodes' boxes bounds all candidates of a node at once (a
  record within ``x`` of a candidate lies within ``x`` of the candidate's box) and counts
  exactly only the candidates that reach the top;
- bounds only fall as records are covered, so one heap serves every pick of a greedy run:
  an entry's old key is still an upper bound, and is refreshed only when it reaches the
  top.

The result is exactly the greedy's: the candidate with the largest count, the lowest tie
key among equal counts. The tree is built over the distinct rows (copies are one weighted
point: they are always covered together) of the dense embedding, for the ``L1`` or ``L2``
norm. Build :math:`O(m \\log m)`; a count or a cover visits the nodes that cross the
ball's boundary.
"""

from __future__ import annotations

import heapq

import numpy as np

from .._runtime import jit

__all__ = ["LiveTree", "LEAF_SIZE"]

#: Rows per leaf (at most).
LEAF_SIZE = 32
#: Deep enough for any tree of up to 2⁶⁰ rows (a depth-first walk holds ≤ depth + 2 nodes).
_STACK = 128


@jit()
def _select(order, lo, hi, kth, points, dim):
    """Reorder ``order[lo:hi]`` so the row at ``kth`` has the ``kth`` smallest value of
    column ``dim``, none after it smaller and none before it larger (Hoare quickselect)."""
    while hi - lo > 1:
        a = points[order[lo], dim]
        b = points[order[(lo + hi - 1) // 2], dim]
        c = points[order[hi - 1], dim]
        pivot = max(min(a, b), min(max(a, b), c))  # median of three
        i, j = lo, hi - 1
        while i <= j:
            while points[order[i], dim] < pivot:
                i += 1
            while points[order[j], dim] > pivot:
                j -= 1
            if i <= j:
                t = order[i]
                order[i] = order[j]
                order[j] = t
                i += 1
                j -= 1
        if kth <= j:
            hi = j + 1
        elif kth >= i:
            lo = i
        else:
            return


@jit()
def _build(points, levels):
    """Implicit complete tree of ``2^(levels+1) − 1`` nodes: node ``t`` has children
    ``2t + 1`` and ``2t + 2`` and holds ``order[lo[t]:hi[t]]``; boxes per node."""
    m, d = points.shape
    n_nodes = 2 ** (levels + 1) - 1
    first_leaf = 2**levels - 1
    order = np.arange(m)
    lo = np.zeros(n_nodes, dtype=np.intp)
    hi = np.zeros(n_nodes, dtype=np.intp)
    hi[0] = m
    for t in range(first_leaf):
        a, b = lo[t], hi[t]
        best, dim = -1.0, 0
        for j in range(d):
            mn, mx = np.inf, -np.inf
            for i in range(a, b):
                v = points[order[i], j]
                mn = min(mn, v)
                mx = max(mx, v)
            if mx - mn > best:
                best, dim = mx - mn, j
        mid = (a + b) // 2
        if b - a > 1:
            _select(order, a, b, mid, points, dim)
        lo[2 * t + 1], hi[2 * t + 1] = a, mid
        lo[2 * t + 2], hi[2 * t + 2] = mid, b
    pts = np.empty((m, d))
    for i in range(m):
        for j in range(d):
            pts[i, j] = points[order[i], j]
    box_lo = np.full((n_nodes, d), np.inf)
    box_hi = np.full((n_nodes, d), -np.inf)
    leaf_of = np.empty(m, dtype=np.intp)
    for t in range(first_leaf, n_nodes):
        for i in range(lo[t], hi[t]):
            leaf_of[i] = t
            for j in range(d):
                box_lo[t, j] = min(box_lo[t, j], pts[i, j])
                box_hi[t, j] = max(box_hi[t, j], pts[i, j])
    for t in range(first_leaf - 1, -1, -1):
        for j in range(d):
            box_lo[t, j] = min(box_lo[2 * t + 1, j], box_lo[2 * t + 2, j])
            box_hi[t, j] = max(box_hi[2 * t + 1, j], box_hi[2 * t + 2, j])
    return order, pts, lo, hi, box_lo, box_hi, leaf_of


@jit(inline=True)
def _power(t, norm):
    return t if norm == 1 else t * t


@jit(inline=True)
def _to_point(pts, i, q, norm):
    s = 0.0
    for j in range(q.size):
        s += _power(abs(pts[i, j] - q[j]), norm)
    return s


@jit(inline=True)
def _to_box(q, box_lo, box_hi, t, norm):
    """``(min, max)`` distance (to the power ``norm``) from point ``q`` to box ``t``."""
    near = 0.0
    far = 0.0
    for j in range(q.size):
        near += _power(max(box_lo[t, j] - q[j], q[j] - box_hi[t, j], 0.0), norm)
        far += _power(max(q[j] - box_lo[t, j], box_hi[t, j] - q[j]), norm)
    return near, far


@jit(inline=True)
def _box_to_box(box_lo, box_hi, s, t, norm):
    """``(min, max)`` distance (to the power ``norm``) between points of boxes s and t."""
    near = 0.0
    far = 0.0
    for j in range(box_lo.shape[1]):
        gap = max(box_lo[s, j] - box_hi[t, j], box_lo[t, j] - box_hi[s, j], 0.0)
        span = max(box_hi[s, j] - box_lo[t, j], box_hi[t, j] - box_lo[s, j])
        near += _power(gap, norm)
        far += _power(span, norm)
    return near, far


@jit()
def _live_within(pts, weight, live, lo, hi, box_lo, box_hi, first_leaf, s, q, radius, norm):
    """Live weight within ``radius`` (to the power ``norm``) of point ``q``, or of box ``s``
    when ``s ≥ 0`` (at least the count of any point in that box)."""
    stack = np.empty(_STACK, dtype=np.intp)
    stack[0] = 0
    top = 1
    total = 0
    p = np.empty(pts.shape[1])
    while top:
        top -= 1
        t = stack[top]
        if live[t] == 0:
            continue
        if s >= 0:
            near, far = _box_to_box(box_lo, box_hi, s, t, norm)
        else:
            near, far = _to_box(q, box_lo, box_hi, t, norm)
        if near > radius:
            continue
        if far <= radius:
            total += live[t]
        elif t >= first_leaf:
            for i in range(lo[t], hi[t]):
                if weight[i] == 0:
                    continue
                if s >= 0:
                    for j in range(p.size):
                        p[j] = pts[i, j]
                    gap = _to_box(p, box_lo, box_hi, s, norm)[0]
                else:
                    gap = _to_point(pts, i, q, norm)
                if gap <= radius:
                    total += weight[i]
        else:
            stack[top] = 2 * t + 1
            stack[top + 1] = 2 * t + 2
            top += 2
    return total


@jit()
def _cover(pts, weight, live, cand, n_cand, lo, hi, box_lo, box_hi, first_leaf, leaf_of,
           q, radius, norm):  # fmt: skip
    """Mark every live row within ``radius`` of ``q`` covered, keeping the counts."""
    stack = np.empty(_STACK, dtype=np.intp)
    stack[0] = 0
    top = 1
    while top:
        top -= 1
        t = stack[top]
        if live[t] == 0:
            continue
        near, far = _to_box(q, box_lo, box_hi, t, norm)
        if near > radius:
            continue
        if t < first_leaf and far > radius:
            stack[top] = 2 * t + 1
            stack[top + 1] = 2 * t + 2
            top += 2
            continue
        for i in range(lo[t], hi[t]):
            w = weight[i]
            if w == 0 or (far > radius and _to_point(pts, i, q, norm) > radius):
                continue
            weight[i] = 0
            c = 1 if cand[i] else 0
            cand[i] = False
            u = leaf_of[i]
            while True:
                live[u] -= w
                n_cand[u] -= c
                if u == 0:
                    break
                u = (u - 1) // 2


@jit()
def _greedy(pts, weight, cand, tie, lo, hi, box_lo, box_hi, first_leaf, leaf_of, x, cover,
            norm, max_picks):  # fmt: skip
    """Up to ``max_picks`` centers, each the live candidate with the most live weight within
    ``x`` (lowest ``tie`` among equals), covering the live rows within ``cover`` of it."""
    n_nodes = lo.size
    live = np.zeros(n_nodes, dtype=np.int64)
    n_cand = np.zeros(n_nodes, dtype=np.int64)
    low_tie = np.full(n_nodes, np.iinfo(np.int64).max, dtype=np.int64)
    for t in range(first_leaf, n_nodes):
        for i in range(lo[t], hi[t]):
            live[t] += weight[i]
            if cand[i]:
                n_cand[t] += 1
                low_tie[t] = min(low_tie[t], tie[i])
    for t in range(first_leaf - 1, -1, -1):
        live[t] = live[2 * t + 1] + live[2 * t + 2]
        n_cand[t] = n_cand[2 * t + 1] + n_cand[2 * t + 2]
        low_tie[t] = min(low_tie[2 * t + 1], low_tie[2 * t + 2])
    q = np.empty(pts.shape[1])
    centers = []
    # entries (−bound, tie key, node ≥ 0 or −(row + 1), pick the bound is exact for or −1)
    if n_cand[0] == 0:
        return np.zeros(0, dtype=np.intp)
    heap = [(-live[0], low_tie[0], np.int64(0), np.int64(-1))]
    picks = 0
    while heap and picks < max_picks:
        neg, key, ident, exact_at = heapq.heappop(heap)
        if ident >= 0:
            t = ident
            if n_cand[t] == 0:
                continue
            bound = _live_within(pts, weight, live, lo, hi, box_lo, box_hi, first_leaf, t, q,
                                 x, norm)  # fmt: skip
            if heap and (-bound, key) > (heap[0][0], heap[0][1]):
                heapq.heappush(heap, (-bound, key, ident, np.int64(-1)))
            elif t >= first_leaf:
                for i in range(lo[t], hi[t]):
                    if cand[i]:
                        heapq.heappush(heap, (-bound, tie[i], np.int64(-(i + 1)), np.int64(-1)))
            else:
                for c in (2 * t + 1, 2 * t + 2):
                    if n_cand[c]:
                        heapq.heappush(heap, (-bound, low_tie[c], np.int64(c), np.int64(-1)))
            continue
        i = -ident - 1
        if not cand[i]:
            continue
        if exact_at != picks:
            for j in range(q.size):
                q[j] = pts[i, j]
            count = _live_within(pts, weight, live, lo, hi, box_lo, box_hi, first_leaf, -1, q,
                                 x, norm)  # fmt: skip
            if heap and (-count, key) > (heap[0][0], heap[0][1]):
                heapq.heappush(heap, (-count, key, ident, np.int64(picks)))
                continue
        for j in range(q.size):
            q[j] = pts[i, j]
        centers.append(i)
        _cover(pts, weight, live, cand, n_cand, lo, hi, box_lo, box_hi, first_leaf, leaf_of,
               q, cover, norm)  # fmt: skip
        picks += 1
    out = np.empty(len(centers), dtype=np.intp)
    for t in range(len(centers)):
        out[t] = centers[t]
    return out


class LiveTree:
    """A static KD-tree over weighted points for greedy covering by balls.

    Parameters
    ----------
    points : (m, d) array, the dense coordinates of the distinct rows
    weight : (m,) int array, how many records each row stands for
    tie : (m,) int array, the order among equal counts (lowest first): the rows' records
    norm : 1 or 2
    """

    def __init__(
        self, points: np.ndarray, weight: np.ndarray, tie: np.ndarray, norm: int
    ) -> None:
        m = points.shape[0]
        levels = max(0, int(np.ceil(np.log2(max(m, 1) / LEAF_SIZE))))
        built = _build(np.ascontiguousarray(points, dtype=np.float64), levels)
        self.order, self.pts, self.lo, self.hi, self.box_lo, self.box_hi, self.leaf_of = built
        self.first_leaf = 2**levels - 1
        self.weight = np.asarray(weight, dtype=np.int64)[self.order]
        self.tie = np.asarray(tie, dtype=np.int64)[self.order]
        self.norm = int(norm)

    def greedy_cover(
        self, candidate: np.ndarray, x: float, cover: float, max_picks: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The greedy covering: ``(centers, covered)`` as rows (positions in ``points``).

        Each pick is the candidate row, not yet covered, with the largest weight of
        uncovered rows within ``x`` (inclusive; the lowest ``tie`` among equal weights);
        every uncovered row within ``cover`` of it is then covered. Stops after
        ``max_picks`` picks or when no candidate is left uncovered.
        """
        weight = self.weight.copy()
        cand = np.asarray(candidate, dtype=bool)[self.order].copy()
        power = 1 if self.norm == 1 else 2
        picked = _greedy(self.pts, weight, cand, self.tie, self.lo, self.hi, self.box_lo,
                         self.box_hi, self.first_leaf, self.leaf_of, float(x) ** power,
                         float(cover) ** power, self.norm, int(max_picks))  # fmt: skip
        covered = np.zeros(self.order.size, dtype=bool)
        covered[self.order] = (weight == 0) & (self.weight > 0)
        return self.order[picked], covered
