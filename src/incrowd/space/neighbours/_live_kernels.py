"""The compiled kernels under :class:`~.live_tree.LiveTree`: building the tree, distances to
points and boxes, live counts within a ball, covering, and the cube bound's sums over a grid
(see :mod:`incrowd.space.neighbours.live_tree` for what each computes and why it is exact).
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit

__all__: list[str] = []  # private to live_tree

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
def _cube_max(cell_of, weight, cand, dims, splits, src, dst):
    """Largest live weight (of candidates only, when ``cand`` is not empty) in ``splits + 1``
    consecutive cells along every axis of the grid ``dims`` (C order; ``cell_of`` is each
    row's cell), and the lowest cell of a window holding it: one sliding window sum per
    axis, O(cells · d)."""
    src[:] = 0
    for i in range(cell_of.size):
        if weight[i] > 0 and (cand.size == 0 or cand[i]):
            src[cell_of[i]] += weight[i]
    stride = 1
    for k in range(dims.size - 1, -1, -1):
        g = dims[k]
        block = stride * g
        reach = (splits + 1) * stride
        for base in range(0, src.size, block):
            for c in range(g - 1, -1, -1):
                f0 = base + c * stride
                for f in range(f0, f0 + stride):
                    v = src[f]
                    if c + 1 < g:
                        v += dst[f + stride]
                    if c + splits + 1 < g:
                        v -= src[f + reach]
                    dst[f] = v
        src, dst = dst, src
        stride = block
    at = src.argmax()
    return np.int64(src[at]), at


@jit()
def _near_window(anchor, dims, splits, low, side, by_cell, cell_sorted, pts, cand, want):
    """Up to ``want`` live candidate rows nearest the center of the window of ``splits + 1``
    cells per axis whose lowest cell is ``anchor``."""
    d = dims.size
    corner = np.empty(d, dtype=np.int64)
    rest = anchor
    for k in range(d - 1, -1, -1):
        corner[k] = rest % dims[k]
        rest //= dims[k]
    center = np.empty(d)
    for k in range(d):
        center[k] = low[k] + (corner[k] + (splits + 1) / 2) * side
    rows = np.full(want, -1, dtype=np.intp)
    gaps = np.full(want, np.inf)
    for w in range((splits + 1) ** d):
        rest, flat, stride, inside = w, 0, 1, True
        for k in range(d - 1, -1, -1):
            c = corner[k] + rest % (splits + 1)
            rest //= splits + 1
            if c >= dims[k]:
                inside = False
                break
            flat += c * stride
            stride *= dims[k]
        if not inside:
            continue
        for at in range(np.searchsorted(cell_sorted, flat), np.searchsorted(cell_sorted, flat + 1)):
            i = by_cell[at]
            if not cand[i]:
                continue
            gap = 0.0
            for k in range(d):
                gap += (pts[i, k] - center[k]) ** 2
            worst = gaps.argmax()
            if gap < gaps[worst]:
                gaps[worst], rows[worst] = gap, i
    return rows[rows >= 0]
