"""Compiled kernels of the costs: the generalization cost of a crowd, and radii.

Plain loops (no slices assigned, no fancy indexing): numba compiles those quickly.
"""

from __future__ import annotations

import numpy as np

from .._runtime import jit
from ..space.kernels import pair_distance

__all__ = [
    "record_cost",
    "n_crowds",
    "farthest_from",
    "recenter",
    "subset_sse",
    "subset_radius",
    "subset_generalization",
]


@jit()
def record_cost(members, cm, stamp, tick):
    """Per-record generalization cost of the crowd ``members`` (``cm``: the arrays of
    :meth:`~incrowd.costs.GeneralizationCost.kernel_args`).

    ``stamp`` is a scratch array (size ≥ the widest domain) holding no value equal to
    ``tick``; counting distinct values marks it with ``tick .. tick + b - 1``.
    """
    num, num_weight, codes, ancestors, node_cost, height, domain, sets, cat_weight = cm
    total = 0.0
    m = members.size
    for j in range(num.shape[1]):
        lo = num[members[0], j]
        hi = lo
        for i in range(1, m):
            v = num[members[i], j]
            if v < lo:
                lo = v
            elif v > hi:
                hi = v
        total += num_weight[j] * (hi - lo)
    for j in range(codes.shape[1]):
        if sets[j]:
            if domain[j] <= 1:
                continue
            mark = tick + j
            distinct = 0
            for i in range(m):
                c = codes[members[i], j]
                if stamp[c] != mark:
                    stamp[c] = mark
                    distinct += 1
            total += cat_weight[j] * (distinct - 1) / (domain[j] - 1)
            continue
        h = height[j]
        if h == 0:
            continue
        first = codes[members[0], j]
        level = 0
        for i in range(1, m):
            c = codes[members[i], j]
            while level < h and ancestors[j, level, c] != ancestors[j, level, first]:
                level += 1
            if level == h:
                break
        total += cat_weight[j] * node_cost[j, level, ancestors[j, level, first]]
    return total


@jit()
def n_crowds(labels):
    """One more than the largest crowd label (−1 labels ignored)."""
    m = 0
    for i in range(labels.size):
        if labels[i] + 1 > m:
            m = labels[i] + 1
    return m


@jit()
def farthest_from(num, codes, ent, members, c, norm):
    """Largest distance from record ``c`` to a record of ``members``."""
    worst = 0.0
    for i in range(members.size):
        d = pair_distance(num, codes, ent, c, members[i], norm)
        if d > worst:
            worst = d
    return worst


@jit()
def recenter(num, codes, ent, order, starts, centers, candidates, norm):
    """Best center (record) and radius of each crowd ``order[starts[c]:starts[c+1]]``.

    ``centers[c]`` is the current center; it is kept unless a candidate does strictly
    better. Candidates are the members ``candidates[c]`` (−1 padded).
    """
    m = starts.size - 1
    best = centers.copy()
    radius = np.empty(m)
    for c in range(m):
        members = order[starts[c] : starts[c + 1]]
        r_best = farthest_from(num, codes, ent, members, centers[c], norm)
        for t in range(candidates.shape[1]):
            a = candidates[c, t]
            if a < 0:
                break
            rad = farthest_from(num, codes, ent, members, a, norm)
            if rad < r_best:
                r_best = rad
                best[c] = a
        radius[c] = r_best
    return best, radius


# ------------------------------------------------------------------ every subset (tiny n)
@jit()
def subset_sse(X, k):
    """SSE of every subset (bitmask) of the rows of ``X`` with at least ``k`` members."""
    n, p = X.shape
    out = np.zeros(1 << n)
    c = np.empty(p)
    for s in range(1, 1 << n):
        m = 0
        for j in range(p):
            c[j] = 0.0
        for i in range(n):
            if (s >> i) & 1:
                m += 1
                for j in range(p):
                    c[j] += X[i, j]
        if m < k:
            continue
        for j in range(p):
            c[j] /= m
        tot = 0.0
        for i in range(n):
            if (s >> i) & 1:
                for j in range(p):
                    d = X[i, j] - c[j]
                    tot += d * d
        out[s] = tot
    return out


@jit(inline=True)
def _members_of(s, n, members):
    """Write the members of the bitmask ``s`` into ``members``; return how many."""
    m = 0
    for i in range(n):
        if (s >> i) & 1:
            members[m] = i
            m += 1
    return m


@jit()
def subset_radius(D, k):
    """For every subset with at least ``k`` members: the smallest over all records of the
    largest distance to a member (``D``: the n×n distances)."""
    n = D.shape[0]
    out = np.zeros(1 << n)
    members = np.empty(n, dtype=np.intp)
    for s in range(1, 1 << n):
        m = _members_of(s, n, members)
        if m < k:
            continue
        best = np.inf
        for a in range(n):
            worst = 0.0
            for b in range(m):
                if D[a, members[b]] > worst:
                    worst = D[a, members[b]]
            if worst < best:
                best = worst
        out[s] = best
    return out


@jit()
def subset_generalization(records, k, cm, stamp, tick):
    """Generalization cost (``cm``: the cost's kernel arrays) of every subset ≥ ``k`` of
    ``records`` (bit ``i`` of a mask: ``records[i]``), and the next free ``tick`` of
    ``stamp`` (see :func:`record_cost`)."""
    n = records.size
    out = np.zeros(1 << n)
    local = np.empty(n, dtype=np.intp)
    members = np.empty(n, dtype=np.intp)
    b = cm[2].shape[1]
    for s in range(1, 1 << n):
        m = _members_of(s, n, local)
        if m < k:
            continue
        for i in range(m):
            members[i] = records[local[i]]
        out[s] = m * record_cost(members[:m], cm, stamp, tick)
        tick += b + 1
    return out, tick
