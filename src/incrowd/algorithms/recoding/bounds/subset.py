"""The subset bound: each record's least cost over the sets of attributes it shares.

With every attribute a value set or a numeric range, a crowd either shares ``u``'s value
on an attribute or holds, within the class of the attributes it shares, enough other values
for ``k`` records (:func:`subset_bound`).

Guarantee: a lower bound on each record's charge in any k-anonymization, at least the
attribute bound's. Time :math:`O(2^b b n \\log n)` at worst for ``b`` attributes; far less,
as classes drop out.
"""

from __future__ import annotations

import numpy as np

from ...._runtime import jit
from ....costs import GeneralizationCost
from ._rows import distinct_rows

__all__ = ["SUBSET_ATTRIBUTES", "subset_bound"]


#: The subset bound runs on at most this many attributes (``2^b`` subsets at worst).
SUBSET_ATTRIBUTES = 16


def subset_bound(model: GeneralizationCost, k: int) -> np.ndarray | None:
    """For every record ``u``, with every attribute a value set or a numeric range: the
    least, over the sets ``S`` of attributes on which ``k`` records share ``u``'s values,
    of ``Σ_{j ∉ S} c_j(u, S)``, where ``c_j(u, S)`` is the cheapest cell of attribute ``j``
    holding ``u``'s value, another value, and values of ``k`` records of ``u``'s class
    under ``S`` (the records sharing its values on ``S``).

    A crowd ``C ∋ u`` of at least ``k`` records agrees with ``u`` exactly on some set ``S``
    of attributes (every member has ``u``'s value there), so ``C`` lies in ``u``'s class
    under ``S``, which holds ``|C| ≥ k`` records; on each other attribute ``C`` holds
    another value of that class and ``k`` records of it: a value set of at least ``1 + m``
    values, ``m`` the fewest of the class's largest value counts that reach the records
    missing from ``u``'s own value (and ``m ≥ 1``); a range at least as wide as the
    narrowest window of the class's sorted values holding ``u``'s and ``k`` records, and
    as the gap to the nearest other value. So ``u``'s charge is at least that sum for its
    crowd's ``S``, and at least the least over all ``S``; with ``S`` empty each term is at
    least :func:`attribute_bound`'s. One walk over the subsets (each adds attributes after
    the last one added), dropping classes below ``k`` and classes none of whose members
    can get cheaper below (a term only grows as classes shrink). Time :math:`O(2^b b n
    \\log n)` at worst; far less, as classes drop out.
    """
    n = model.n
    a, b = model.num.shape[1], model.codes.shape[1]
    if k <= 1 or n < k or a + b == 0:
        return np.zeros(n)
    if a + b > SUBSET_ATTRIBUTES:
        return None
    first, inverse, weight = distinct_rows(model)
    m = first.size
    vals = np.empty((a + b, m), dtype=np.intp)
    xs = np.zeros((a + b, m))
    unit = np.zeros(a + b)
    numeric = np.zeros(a + b, dtype=np.bool_)
    for j in range(a):
        x = model.num[first, j]
        vals[j] = np.unique(x, return_inverse=True)[1].ravel()
        xs[j] = x
        unit[j] = model.num_weight[j]
        numeric[j] = True
    for j in range(b):
        vals[a + j] = np.unique(model.codes[first, j], return_inverse=True)[1].ravel()
        domain = int(model.domain[j])
        unit[a + j] = model.cat_weight[j] / (domain - 1) if domain > 1 else 0.0
    order = np.ascontiguousarray(np.argsort(vals, axis=1, kind="stable"))
    out = np.full(m, np.inf)
    _walk_subsets(vals, xs, unit, numeric, order, weight, k, out)
    return out[inverse]


@jit()
def _walk_subsets(vals, xs, unit, numeric, order, weight, k, out):
    """``out[u]``: the least of ``u``'s free cost over the attribute subsets where its class
    holds ``k`` records (see :func:`subset_bound`)."""
    n_attr, n = vals.shape
    rec = np.empty((n_attr + 1, n), dtype=np.intp)
    cls = np.empty((n_attr + 1, n), dtype=np.intp)
    cnt = np.zeros(n_attr + 1, dtype=np.intp)
    n_cls = np.zeros(n_attr + 1, dtype=np.intp)
    last = np.full(n_attr + 1, -1, dtype=np.intp)
    nxt = np.zeros(n_attr + 1, dtype=np.intp)
    inside = np.zeros((n_attr + 1, n_attr), dtype=np.bool_)
    pos = np.full(n, -1, dtype=np.intp)
    start = np.zeros(n + 2, dtype=np.intp)
    grp = np.empty(n, dtype=np.intp)
    for u in range(n):
        rec[0, u] = u
        cls[0, u] = 0
    cnt[0] = n
    n_cls[0] = 1
    n_cls[0] = _visit(vals, xs, unit, numeric, order, weight, k, out, rec[0], cls[0], cnt, 0,
                      n_cls[0], inside[0], -1, pos, start, grp)  # fmt: skip
    nxt[0] = 0
    d = 0
    while d >= 0:
        j = nxt[d]
        if j >= n_attr or cnt[d] == 0:
            d -= 1
            continue
        nxt[d] = j + 1
        m = cnt[d]
        # the classes split by the value of j
        for t in range(m):
            pos[rec[d, t]] = t
        _grouped(order[j], pos, cls[d], n_cls[d], m, start, grp)
        c = -1
        for g in range(m):
            t = grp[g]
            u = rec[d, t]
            if g == 0:
                c += 1
            elif cls[d, grp[g - 1]] != cls[d, t] or vals[j, rec[d, grp[g - 1]]] != vals[j, u]:
                c += 1
            rec[d + 1, t] = u
            cls[d + 1, t] = c
        for t in range(m):
            pos[rec[d, t]] = -1
        cnt[d + 1] = m
        inside[d + 1] = inside[d]
        inside[d + 1, j] = True
        last[d + 1] = j
        n_cls[d + 1] = _visit(vals, xs, unit, numeric, order, weight, k, out, rec[d + 1],
                              cls[d + 1], cnt, d + 1, c + 1, inside[d + 1], j, pos, start,
                              grp)  # fmt: skip
        nxt[d + 1] = j + 1
        d += 1


@jit()
def _grouped(order_j, pos, cls, n_cls, m, start, grp):
    """The node's records (``pos[u]``: their place, or −1) grouped by class (``start``),
    in the order of ``order_j`` (by value) within each."""
    for c in range(n_cls + 1):
        start[c] = 0
    for t in range(m):
        start[cls[t] + 1] += 1
    for c in range(n_cls):
        start[c + 1] += start[c]
    fill = start[:n_cls].copy()
    for i in range(order_j.size):
        t = pos[order_j[i]]
        if t >= 0:
            grp[fill[cls[t]]] = t
            fill[cls[t]] += 1


@jit()
def _visit(vals, xs, unit, numeric, order, weight, k, out, rec, cls, cnt, d, n_cls, inside,
           last, pos, start, grp):  # fmt: skip
    """One subset: drop the classes below ``k``, charge each record its free attributes'
    cells, and drop the classes none of whose members can get cheaper below; returns the
    number of class ids in use."""
    n_attr = vals.shape[0]
    m = cnt[d]
    size = np.zeros(n_cls, dtype=np.intp)
    for t in range(m):
        size[cls[t]] += weight[rec[t]]
    kept = 0
    for t in range(m):
        if size[cls[t]] >= k:
            rec[kept] = rec[t]
            cls[kept] = cls[t]
            kept += 1
    m = kept
    free = np.zeros(m)
    below = np.zeros(m)  # what stays free below: the attributes before the last one added
    for t in range(m):
        pos[rec[t]] = t
    for j in range(n_attr):
        if inside[j]:
            continue
        _grouped(order[j], pos, cls, n_cls, m, start, grp)
        for c in range(n_cls):
            lo, hi = start[c], start[c + 1]
            if hi > lo:
                _charge(vals[j], xs[j], numeric[j], unit[j], weight, k, rec, grp[lo:hi],
                        free, below, j < last)  # fmt: skip
    for t in range(m):
        pos[rec[t]] = -1
    follow = np.zeros(n_cls, dtype=np.bool_)
    for t in range(m):
        u = rec[t]
        if free[t] < out[u]:
            out[u] = free[t]
        if below[t] < out[u] and (out[u] == np.inf or below[t] < out[u] - 1e-12 * (1.0 + out[u])):
            follow[cls[t]] = True
    kept = 0
    for t in range(m):
        if follow[cls[t]]:
            rec[kept] = rec[t]
            cls[kept] = cls[t]
            kept += 1
    cnt[d] = kept
    return n_cls


@jit()
def _charge(val, x, is_numeric, unit, weight, k, rec, members, free, below, stays):
    """Add to ``free`` (and to ``below`` when ``stays``) each member's cheapest cell of one
    attribute within its class (``members``: node places, sorted by value)."""
    size = members.size
    # runs of equal values: their counts (weighted) and first places
    runs = np.empty(size, dtype=np.intp)
    counts = np.zeros(size, dtype=np.intp)
    run_of = np.empty(size, dtype=np.intp)
    r = -1
    for g in range(size):
        u = rec[members[g]]
        if g == 0 or val[rec[members[g - 1]]] != val[u]:
            r += 1
            runs[r] = g
        counts[r] += weight[u]
        run_of[g] = r
    n_runs = r + 1
    cost = np.empty(n_runs)
    if n_runs == 1:
        cost[0] = np.inf  # no other value: this subset cannot leave the attribute out
    elif not is_numeric:
        ranked = -np.sort(-counts[:n_runs])
        reach = np.cumsum(ranked)
        for r in range(n_runs):
            missing = k - counts[r]
            others = 1
            if missing > 0:
                others = max(1, np.searchsorted(reach, missing) + 1)
            cost[r] = unit * others
    else:
        xv = np.empty(n_runs)
        for r in range(n_runs):
            xv[r] = x[rec[members[runs[r]]]]
        width = np.full(n_runs, np.inf)  # of the narrowest window from each run holding k
        q, acc = 0, 0
        for p in range(n_runs):
            while q < n_runs and acc < k:
                acc += counts[q]
                q += 1
            if acc >= k:
                width[p] = xv[q - 1] - xv[p]
            acc -= counts[p]
        # the narrowest window holding run i: from p <= i, to max(end(p), i)
        ends = np.empty(n_runs, dtype=np.intp)
        q, acc = 0, 0
        for p in range(n_runs):
            while q < n_runs and acc < k:
                acc += counts[q]
                q += 1
            ends[p] = q - 1 if acc >= k else n_runs
            acc -= counts[p]
        queue = np.empty(n_runs, dtype=np.intp)
        head, tail, lo = 0, 0, 0
        for i in range(n_runs):
            while tail > head and width[queue[tail - 1]] >= width[i]:
                tail -= 1
            queue[tail] = i
            tail += 1
            while lo < i and ends[lo] < i:
                lo += 1
            while queue[head] < lo:
                head += 1
            best = width[queue[head]]
            if lo > 0 and xv[i] - xv[lo - 1] < best:
                best = xv[i] - xv[lo - 1]
            gap = np.inf
            if i > 0:
                gap = xv[i] - xv[i - 1]
            if i + 1 < n_runs and xv[i + 1] - xv[i] < gap:
                gap = xv[i + 1] - xv[i]
            cost[i] = unit * max(best, gap)
    for g in range(size):
        t = members[g]
        free[t] += cost[run_of[g]]
        if stays:
            below[t] += cost[run_of[g]]
