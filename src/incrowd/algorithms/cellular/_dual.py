"""The primal-dual of cellular clustering (Aggarwal et al., Sec. 3, Thm 3.5).

Candidate clusters are ``(v, d)``: a center record ``v`` and a radius ``d`` equal to its
distance to some record; the potential members are the records within ``d``. Identical
records are one row with a weight: they are members of the same candidates and connect
together, so the growth over distinct rows is the growth over records. A candidate
is listed by its center and the position ``last`` in the center's sorted neighbour list of
its farthest member (members: ``v`` and ``nbr[v, 0..last]``; ``last = −1``: ``v`` alone).

**Dual growth** (Jain–Vazirani, every member charged the radius): time ``t`` grows, each
unconnected record has ``α = t``; a candidate is *paid* when ``Σ_i (α_i − d)^+`` over its
members reaches its setup cost ``f``. Per candidate we keep ``g`` (unconnected members) and
``frozen`` (``Σ (α_i − d)^+`` of connected ones), so it is paid at
``t = d + (f − frozen) / g``; that time only grows as members connect, so a lazy heap keyed
by it is exact. When a candidate is paid it is *temporarily open* and all its unconnected
members connect to it at once (they are all tight: ``α = t ≥ d``). Ties: earlier time, then
larger radius, then lower candidate number. With a penalty λ per left-out record (the
prize-collecting dual ``α ≤ λ``) the growth would stop at ``t = λ``: that is this growth
cut at λ (:func:`cut_at`).

**Primal** (Lemma 3.3): temporarily open candidates by decreasing radius; one opens for
good iff every record tight to it (member with ``α ≥ d``) is still unassigned, and those
are assigned to it; otherwise it is shut down, blocked by the open cluster of such a
record, whose radius is at least its own. A record whose witness was shut down goes to the
blocker (distance ≤ 2 d' + d ≤ 3 d). Then ``service + 3 · setup ≤ 3 Σ α`` (Lemma 3.4).

Time: ``O(Σ_c |c| log C)`` for the growth over ``C`` candidates (each connection updates
the candidates holding the record), ``O(Σ_{open} |c|)`` for the primal.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit

__all__ = ["assign", "candidates", "cut_at", "grow"]


def candidates(
    dist: np.ndarray, idx: np.ndarray, weight: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate clusters of every center from its neighbour list.

    Rows are distinct records, ``weight[v]`` the records each stands for; ``dist[v]`` and
    ``idx[v]``: ``v``'s nearest other rows, nearest first. A radius is a candidate at the
    last position of each run of equal distances holding at least ``k`` records in all;
    ``v``'s own copies alone (radius 0) are one when they are ``k`` or more. Returns
    ``(start, center, last, radius, size)``: candidates of ``v`` are ``start[v]:start[v+1]``
    by increasing radius, ``size`` their records.
    """
    n, q = dist.shape
    end = np.ones((n, q), dtype=bool)
    end[:, :-1] = dist[:, 1:] > dist[:, :-1]
    held = weight[:, None] + np.cumsum(weight[idx], axis=1) if q else np.zeros((n, 0))
    ok = end & (held >= k)
    alone = ((dist[:, 0] > 0) if q else np.ones(n, dtype=bool)) & (weight >= k)
    mask = np.hstack([alone[:, None], ok])
    counts = mask.sum(axis=1)
    start = np.concatenate(([0], np.cumsum(counts))).astype(np.intp)
    rows, cols = np.nonzero(mask)
    last = (cols - 1).astype(np.intp)
    at = np.maximum(last, 0)
    radius = np.where(last >= 0, dist[rows, at], 0.0) if q else np.zeros(rows.size)
    size = np.where(last >= 0, held[rows, at], weight[rows]) if q else weight[rows]
    return start, rows.astype(np.intp), last, radius, size.astype(np.int64)


@jit(inline=True)
def _before(hk, hr, hc, a, b):
    """Heap order of slots ``a`` and ``b``: earlier time, then larger radius, then lower
    number. Keys live in the heap's own arrays: the growth's time goes to memory traffic."""
    if hk[a] != hk[b]:
        return hk[a] < hk[b]
    if hr[a] != hr[b]:
        return hr[a] > hr[b]
    return hc[a] < hc[b]


@jit(inline=True)
def _swap(hk, hr, hc, a, b):
    hk[a], hk[b] = hk[b], hk[a]
    hr[a], hr[b] = hr[b], hr[a]
    hc[a], hc[b] = hc[b], hc[a]


@jit()
def _sift_down(hk, hr, hc, i, size):
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and _before(hk, hr, hc, left + 1, left):
            child = left + 1
        if _before(hk, hr, hc, child, i):
            _swap(hk, hr, hc, i, child)
            i = child
        else:
            break


@jit()
def _push(hk, hr, hc, size, key, radius, c):
    hk[size], hr[size], hc[size] = key, radius, c
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if _before(hk, hr, hc, i, p):
            _swap(hk, hr, hc, i, p)
            i = p
        else:
            break
    return size + 1


@jit()
def _pop(hk, hr, hc, size):
    top = hc[0]
    size -= 1
    hk[0], hr[0], hc[0] = hk[size], hr[size], hc[size]
    _sift_down(hk, hr, hc, 0, size)
    return top, size


@jit(inline=True)
def _best(start, radius, setup, frozen, g, v):
    """The candidate of center ``v`` paid first (ties: larger radius, lower number), or −1
    when none has an unconnected member."""
    best = -1
    best_due = 0.0
    for c in range(start[v], start[v + 1]):
        if g[c] <= 0:
            continue
        due = radius[c] + (setup[c] - frozen[c]) / g[c]
        if best < 0 or due < best_due or (due == best_due and radius[c] > radius[best]):
            best = c
            best_due = due
    return best


@jit()
def _reverse(idx, n):
    """For every record ``i``: the centers whose list holds it, and its position there."""
    q = idx.shape[1]
    counts = np.zeros(n + 1, dtype=np.intp)
    for v in range(n):
        for p in range(q):
            counts[idx[v, p] + 1] += 1
    for i in range(n):
        counts[i + 1] += counts[i]
    center = np.empty(counts[n], dtype=np.intp)
    position = np.empty(counts[n], dtype=np.intp)
    fill = counts[:n].copy()
    for v in range(n):
        for p in range(q):
            i = idx[v, p]
            center[fill[i]] = v
            position[fill[i]] = p
            fill[i] += 1
    return counts, center, position


@jit()
def grow(idx, weight, start, center, last, radius, size, setup):
    """The dual growth over distinct rows, each row ``weight`` records, until every row is
    connected (each row's own candidates hold it). Returns ``(alpha, witness, opened)``:
    each row's dual value (per record), the candidate it connected to, and the temporarily
    open candidates in the order they were paid."""
    n = idx.shape[0]
    n_cand = center.size
    rev_start, rev_center, rev_pos = _reverse(idx, n)
    g = size.copy()
    frozen = np.zeros(n_cand)
    # one heap entry per center, keyed by the least paid time of its candidates when it
    # was pushed (a lower bound: times only grow), so the heap holds n entries, not n·m
    hk = np.empty(n)
    hr = np.empty(n)
    hc = np.empty(n, dtype=np.intp)
    size = 0
    for v in range(n):
        c = _best(start, radius, setup, frozen, g, v)
        if c >= 0:
            hk[size], hr[size], hc[size] = radius[c] + (setup[c] - frozen[c]) / g[c], radius[c], c
            size += 1
    for i in range((size >> 1) - 1, -1, -1):  # heapify
        _sift_down(hk, hr, hc, i, size)
    alpha = np.full(n, -1.0)
    witness = np.full(n, -1, dtype=np.intp)
    opened = np.empty(n_cand, dtype=np.intp)
    n_open = 0
    now = 0.0
    connected = 0
    while size > 0 and connected < n:
        stored = hk[0]
        c, size = _pop(hk, hr, hc, size)
        v = center[c]
        c = _best(start, radius, setup, frozen, g, v)
        if c < 0:
            continue
        due = radius[c] + (setup[c] - frozen[c]) / g[c]
        if due > stored:
            size = _push(hk, hr, hc, size, due, radius[c], c)
            continue
        t = max(due, now)
        now = t
        opened[n_open] = c
        n_open += 1
        v = center[c]
        for p in range(-1, last[c] + 1):
            i = v if p < 0 else idx[v, p]
            if alpha[i] >= 0.0:
                continue
            alpha[i] = t
            witness[i] = c
            connected += 1
            w = weight[i]
            # every candidate holding i: those of center i, and of each center listing i
            # at a position within its radius (a suffix of that center's candidates)
            for c2 in range(start[i], start[i + 1]):
                g[c2] -= w
                frozen[c2] += w * max(0.0, t - radius[c2])
            for e in range(rev_start[i], rev_start[i + 1]):
                u = rev_center[e]
                pos = rev_pos[e]
                c2 = start[u + 1] - 1
                while c2 >= start[u] and last[c2] >= pos:
                    g[c2] -= w
                    frozen[c2] += w * max(0.0, t - radius[c2])
                    c2 -= 1
        c = _best(start, radius, setup, frozen, g, v)
        if c >= 0:
            due = radius[c] + (setup[c] - frozen[c]) / g[c]
            size = _push(hk, hr, hc, size, due, radius[c], c)
    return alpha, witness, opened[:n_open]


@jit()
def assign(idx, center, last, radius, alpha, witness, opened, tol):
    """The primal of Lemma 3.3: each row's open candidate (−1: left out, ``witness`` −1)."""
    n = idx.shape[0]
    order = np.argsort(-radius[opened], kind="mergesort")
    owner = np.full(n, -1, dtype=np.intp)
    blocker = np.full(center.size, -1, dtype=np.intp)
    for o in order:
        c = opened[o]
        v = center[c]
        floor = radius[c] - tol
        blocked = -1
        for p in range(-1, last[c] + 1):
            i = v if p < 0 else idx[v, p]
            if alpha[i] >= floor and owner[i] >= 0:
                blocked = owner[i]
                break
        if blocked >= 0:
            blocker[c] = blocked
            continue
        for p in range(-1, last[c] + 1):
            i = v if p < 0 else idx[v, p]
            if alpha[i] >= floor:
                owner[i] = c
    for i in range(n):
        if owner[i] < 0 and witness[i] >= 0:
            owner[i] = blocker[witness[i]]
    return owner


def cut_at(
    alpha: np.ndarray, witness: np.ndarray, opened: np.ndarray, penalty: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The growth stopped at ``t = penalty``: the candidates paid by then, ``α`` capped at
    the penalty, and no witness for the rows still unconnected (they are left out). Up to
    that time the prize-collecting growth is this one, event for event."""
    paid_at = np.full(int(opened.max()) + 1 if opened.size else 0, np.inf)
    connected = witness >= 0
    paid_at[witness[connected]] = alpha[connected]
    kept = opened[paid_at[opened] <= penalty]
    return np.minimum(alpha, penalty), np.where(alpha > penalty, -1, witness), kept
