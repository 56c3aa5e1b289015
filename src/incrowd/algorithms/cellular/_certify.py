"""A dual of cellular clustering made feasible for every candidate cluster.

The growth (:mod:`._dual`) may see only the radii up to each center's m-th
neighbour; the LP has a candidate ``(v, d)`` for every record ``v`` and every distance
``d`` from it. The dual ``α`` is feasible for the full LP iff for every candidate

.. math::  S_v(d) = \\sum_{i : D(v,i) \\le d} (α_i − d)^+ \\;\\le\\; f'(v, d)

(``β_{ic} = (α_i − d)^+`` is the least ``β`` the constraint ``α_i − β_{ic} ≤ d`` allows).
Only pairs with ``D(v, i) < α_i`` contribute. For a record whose ``α_i`` is below the
distance to the last record of its own neighbour list, its list holds every such ``v``
(distances are symmetric); for the others the records within ``α_i`` are searched
exactly. Per center, ``S_v − f'`` with ``f'`` non-decreasing in ``d`` is largest where a
contributing record enters, so ``d = max(D(v, i), ρ_v)`` over the contributing pairs covers
every candidate (``ρ_v``: the least radius with ``k`` records).

If some candidate is violated, ``s · α`` with ``s = min f' / S`` is feasible (for
``s ≤ 1`` and ``d ≥ 0``, ``(s α − d)^+ ≤ s (α − d)^+``), so ``s · Σ α`` is the bound.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...space.neighbours.pairs import pairs_within

__all__ = ["Feasibility", "feasible_scale", "radius_floor", "share_floor", "MAX_PAIRS_PER_ROW"]

#: The check gives up (and the dual bound is not claimed) beyond this many pairs per row,
#: or when finding them would take more than ``pairs.MAX_SCAN`` distances.
MAX_PAIRS_PER_ROW = 200


class Feasibility:
    """The outcome of the check: the scale that makes the dual feasible (None: the check
    would have taken more than :data:`MAX_PAIRS_PER_ROW` pairs per row and was not made),
    the pairs checked and how many rows needed an exact search beyond their list."""

    def __init__(
        self, scale: float | None, pairs: int, searched: int, *, needed: bool = True
    ) -> None:
        self.scale = scale
        self.pairs = pairs
        self.searched = searched
        self.needed = needed


@jit()
def _list_pairs(alpha, nd, ni, complete):
    """Contributing pairs ``(v, i, D)`` read from the lists, and the records needing a search."""
    n, q = nd.shape
    count = 0
    far = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if alpha[i] <= 0.0:
            continue
        if not complete and q > 0 and alpha[i] > nd[i, q - 1]:
            far[i] = True
            continue
        count += 1
        for p in range(q):
            if nd[i, p] >= alpha[i]:
                break
            count += 1
    v_out = np.empty(count, dtype=np.intp)
    i_out = np.empty(count, dtype=np.intp)
    d_out = np.empty(count)
    f = 0
    for i in range(n):
        if alpha[i] <= 0.0 or far[i]:
            continue
        v_out[f], i_out[f], d_out[f] = i, i, 0.0
        f += 1
        for p in range(q):
            if nd[i, p] >= alpha[i]:
                break
            v_out[f], i_out[f], d_out[f] = ni[i, p], i, nd[i, p]
            f += 1
    return v_out, i_out, d_out, np.flatnonzero(far)


@jit()
def _by_center(v, at, n):
    """The pairs ordered by center (a counting sort), then by evaluation radius."""
    count = np.zeros(n + 1, dtype=np.intp)
    for p in range(v.size):
        count[v[p] + 1] += 1
    for u in range(n):
        count[u + 1] += count[u]
    order = np.empty(v.size, dtype=np.intp)
    fill = count[:n].copy()
    for p in range(v.size):
        order[fill[v[p]]] = p
        fill[v[p]] += 1
    for u in range(n):
        lo, hi = count[u], count[u + 1]
        if hi - lo > 1:
            group = order[lo:hi].copy()
            order[lo:hi] = group[np.argsort(at[group], kind="mergesort")]
    return order


@jit()
def _worst_ratio(v, a, w, at, setup_at, order):
    """``min f'/S`` over the evaluation points; pairs sorted by (center, distance).

    Per center the evaluation radii ``at`` grow along the order, so the records still
    contributing (``α > x``) are kept in a min-heap by ``α``: each enters and leaves once.
    """
    worst = 1.0
    m = order.size
    heap_a = np.empty(m)
    heap_w = np.empty(m)
    s = 0
    while s < m:
        e = s
        while e < m and v[order[e]] == v[order[s]]:
            e += 1
        size = 0
        total_a = 0.0  # Σ w α over the heap
        total_w = 0.0
        j = s
        while j < e:
            x = at[order[j]]
            # every pair entering at this radius
            while j < e and at[order[j]] == x:
                p = order[j]
                if a[p] > x:
                    heap_a[size] = a[p]
                    heap_w[size] = w[p]
                    i = size
                    size += 1
                    while i > 0 and heap_a[(i - 1) >> 1] > heap_a[i]:
                        q = (i - 1) >> 1
                        heap_a[i], heap_a[q] = heap_a[q], heap_a[i]
                        heap_w[i], heap_w[q] = heap_w[q], heap_w[i]
                        i = q
                    total_a += w[p] * a[p]
                    total_w += w[p]
                j += 1
            while size > 0 and heap_a[0] <= x:
                total_a -= heap_w[0] * heap_a[0]
                total_w -= heap_w[0]
                size -= 1
                heap_a[0] = heap_a[size]
                heap_w[0] = heap_w[size]
                i = 0
                while True:
                    left = 2 * i + 1
                    if left >= size:
                        break
                    c = left
                    if left + 1 < size and heap_a[left + 1] < heap_a[left]:
                        c = left + 1
                    if heap_a[c] < heap_a[i]:
                        heap_a[i], heap_a[c] = heap_a[c], heap_a[i]
                        heap_w[i], heap_w[c] = heap_w[c], heap_w[i]
                        i = c
                    else:
                        break
            total = total_a - total_w * x if size > 0 else 0.0
            f = setup_at[order[j - 1]]
            if total > f:
                worst = min(worst, f / total)
        s = e
    return worst


def _far_pairs(
    geometry_args: tuple, alpha: np.ndarray, far: np.ndarray, budget: int, floor: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Contributing pairs ``(v, i)`` of the rows ``i`` beyond their lists with
    ``α_i > floor[v]``, by the exact search of :mod:`incrowd.space.neighbours.pairs`; None
    when they would be more than ``budget``."""
    num, codes, ent, norm = geometry_args
    found = pairs_within(num, codes, ent, norm, alpha, far, budget)
    if found is None:
        return None
    v, i, d = found
    keep = alpha[i] > floor[v]
    return v[keep], i[keep], d[keep]


@jit()
def radius_floor(nd, ni, rho):
    """Per row, ``β_i = min_c max(D(i, c), ρ_c)``: the least radius of a crowd with ``k``
    records whose center (an input record ``c``) is within that radius of ``i``.

    In any solution record ``i`` pays its crowd's radius ``R``; the center ``c`` is within
    ``R`` of ``i`` and has ``k`` records within ``R``, so ``R ≥ max(D(i, c), ρ_c) ≥ β_i``,
    and the optimum (centers at input records) is at least ``Σ_i β_i``. ``c = i`` gives
    ``ρ_i``, so only centers closer than ``ρ_i`` matter, and the list holds them all.
    """
    n, q = nd.shape
    out = rho.copy()
    for i in range(n):
        for p in range(q):
            if nd[i, p] >= out[i]:
                break
            val = max(nd[i, p], rho[ni[i, p]])
            if val < out[i]:
                out[i] = val
    return out


@jit()
def share_floor(nd, ni, start, radius, size, f, limit):
    """Per row, ``γ_i = min (R + f(c, R) / |B(c, R)|)`` over the candidates ``(c, R)`` with
    ``D(i, c) ≤ R`` whose ball ``B`` is known: ``R < limit[c]``; a candidate beyond that
    counts ``max(D(i, c), limit[c])``, a center beyond ``i``'s list ``limit[i]``.

    In any solution record ``i`` pays its crowd's radius ``R`` and its share ``f / |C|`` of
    the setup cost, and its crowd ``C`` lies in the ball ``B(c, R)`` of its center, so
    ``i`` pays at least ``R + f / |B(c, R)|``, and the optimum (centers at input records)
    is at least ``Σ_i γ_i``. Between the radii where the ball grows that sum only grows
    with ``R`` (``f`` non-decreasing), so the candidates' radii are the ones to try. Where
    the ball is not known — beyond a center's list (``limit[c]`` its last distance), or, in
    a part of a larger table, from the part's boundary on (``limit[c]`` at most the distance
    ``cap[c]`` to it) — the share is at least 0 and the radius at least ``limit[c]``;
    a center in no list of ``i``'s, or beyond the part, is at least ``limit[i]`` away.
    Candidates of ``c`` are ``start[c]:start[c + 1]``, by increasing radius.
    """
    n, q = nd.shape
    suffix = np.empty(radius.size)
    for c in range(n):
        best = np.inf
        for t in range(start[c + 1] - 1, start[c] - 1, -1):
            if radius[t] < limit[c]:
                value = radius[t] + f[t] / size[t]
                if value < best:
                    best = value
            suffix[t] = best
    out = np.empty(n)
    for i in range(n):
        best = limit[i]
        for p in range(-1, q):
            c = i if p < 0 else ni[i, p]
            d = 0.0 if p < 0 else nd[i, p]
            if d >= best:
                break
            value = max(d, limit[c])
            lo, hi = start[c], start[c + 1]
            while lo < hi:  # the first candidate of c with radius >= d
                mid = (lo + hi) // 2
                if radius[mid] < d:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < start[c + 1] and suffix[lo] < value:
                value = suffix[lo]
            if value < best:
                best = value
        out[i] = best
    return out


def feasible_scale(
    geometry_args: tuple,
    alpha: np.ndarray,
    nd: np.ndarray,
    ni: np.ndarray,
    complete: bool,
    rho: np.ndarray,
    weight: np.ndarray,
    setup_at,
) -> Feasibility:
    """The largest ``s ≤ 1`` with ``s · α`` feasible for every candidate ``(v, d)``.

    Rows are distinct records, ``weight`` the records each stands for. ``setup_at(v, d)``:
    the (augmented) setup cost of candidates, non-decreasing in ``d``; ``rho[v]``: the
    least candidate radius at ``v``.
    """
    num, codes, ent, norm = geometry_args
    # the growth saw every candidate of v below its list's last distance, with all its
    # members: only radii from there on can be violated
    floor = np.zeros(alpha.size) if complete or nd.shape[1] == 0 else nd[:, -1]
    v, i, d, far = _list_pairs(alpha, nd, ni, complete)
    budget = MAX_PAIRS_PER_ROW * max(1, alpha.size) - v.size
    keep = alpha[i] > floor[v]
    v, i, d = v[keep], i[keep], d[keep]
    if far.size:
        found = _far_pairs(geometry_args, alpha, far.astype(np.intp), budget, floor)
        if found is None:
            return Feasibility(None, v.size, int(far.size))
        fv, fi, fd = found
        v, i, d = np.concatenate([v, fv]), np.concatenate([i, fi]), np.concatenate([d, fd])
    if v.size == 0:
        return Feasibility(1.0, 0, int(far.size))
    at = np.maximum(np.maximum(d, rho[v]), floor[v])
    setup = np.asarray(setup_at(v, at), dtype=np.float64)
    order = _by_center(v, at, alpha.size)
    scale = _worst_ratio(v, alpha[i], weight[i].astype(np.float64), at, setup, order)
    return Feasibility(float(scale), int(v.size), int(far.size))
