"""Compiled MDAV loop (numba).

The remaining records live in a compacted working copy: removing a crowd swaps its rows to
the end, so every pass reads one contiguous block. Each pass over the remaining rows is cut
into one chunk per thread; chunk results are merged with the same tie rule (smaller index
wins), so the result does not depend on the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _before(d1: float, i1: int, d2: float, i2: int) -> bool:
    """Order for nearest: smaller distance first, then smaller original index."""
    return d1 < d2 or (d1 == d2 and i1 < i2)


@njit(cache=True, inline="always")
def _sqdist(W: np.ndarray, row: int, c: np.ndarray) -> float:
    s = 0.0
    for j in range(W.shape[1]):
        t = W[row, j] - c[j]
        s += t * t
    return s


@njit(cache=True, parallel=True)
def _farthest(W, idx, m, c, nchunks):
    """Position (in W) of the row farthest from c; ties go to the smaller original index."""
    best_d = np.full(nchunks, -1.0)
    best_p = np.full(nchunks, -1, dtype=np.intp)
    step = (m + nchunks - 1) // nchunks
    for t in prange(nchunks):
        lo, hi = t * step, min(m, (t + 1) * step)
        bd, bp = -1.0, -1
        for q in range(lo, hi):
            d = _sqdist(W, q, c)
            if d > bd or (d == bd and idx[q] < idx[bp]):
                bd, bp = d, q
        best_d[t], best_p[t] = bd, bp
    bd, bp = -1.0, -1
    for t in range(nchunks):
        p = best_p[t]
        if p >= 0 and (best_d[t] > bd or (best_d[t] == bd and idx[p] < idx[bp])):
            bd, bp = best_d[t], p
    return bp


@njit(cache=True, parallel=True)
def _nearest(W, idx, m, c, exclude, want, nchunks):
    """Positions of the ``want`` rows nearest to c, other than position ``exclude``.

    Also returns the position of the farthest row (used by classic MDAV to find s).
    """
    kd = np.full((nchunks, want), np.inf)
    ki = np.full((nchunks, want), -1, dtype=np.intp)
    kp = np.full((nchunks, want), -1, dtype=np.intp)
    fd = np.full(nchunks, -1.0)
    fp = np.full(nchunks, -1, dtype=np.intp)
    step = (m + nchunks - 1) // nchunks
    for t in prange(nchunks):
        lo, hi = t * step, min(m, (t + 1) * step)
        bd, bp = -1.0, -1
        for q in range(lo, hi):
            d = _sqdist(W, q, c)
            if d > bd or (d == bd and idx[q] < idx[bp]):
                bd, bp = d, q
            if q == exclude:
                continue
            oq = idx[q]
            if _before(d, oq, kd[t, want - 1], ki[t, want - 1]):
                s = want - 1
                while s > 0 and _before(d, oq, kd[t, s - 1], ki[t, s - 1]):
                    kd[t, s], ki[t, s], kp[t, s] = kd[t, s - 1], ki[t, s - 1], kp[t, s - 1]
                    s -= 1
                kd[t, s], ki[t, s], kp[t, s] = d, oq, q
        fd[t], fp[t] = bd, bp
    # merge the per-chunk lists
    out_d = np.full(want, np.inf)
    out_i = np.full(want, -1, dtype=np.intp)
    out_p = np.full(want, -1, dtype=np.intp)
    for t in range(nchunks):
        for a in range(want):
            d, oq, q = kd[t, a], ki[t, a], kp[t, a]
            if q < 0 or not _before(d, oq, out_d[want - 1], out_i[want - 1]):
                break
            s = want - 1
            while s > 0 and _before(d, oq, out_d[s - 1], out_i[s - 1]):
                out_d[s], out_i[s], out_p[s] = out_d[s - 1], out_i[s - 1], out_p[s - 1]
                s -= 1
            out_d[s], out_i[s], out_p[s] = d, oq, q
    bd, bp = -1.0, -1
    for t in range(nchunks):
        p = fp[t]
        if p >= 0 and (fd[t] > bd or (fd[t] == bd and idx[p] < idx[bp])):
            bd, bp = fd[t], p
    return out_p, bp


@njit(cache=True)
def _remove(W, idx, pos, total, m, rows):
    """Move the rows at W-positions ``rows`` past the end of the active block."""
    origs = idx[rows].copy()
    for o in origs:
        p = pos[o]
        last = m - 1
        if p != last:
            for j in range(W.shape[1]):
                tmp = W[p, j]
                W[p, j] = W[last, j]
                W[last, j] = tmp
                total[j] -= tmp
            ol = idx[last]
            idx[p], idx[last] = ol, o
            pos[ol], pos[o] = p, last
        else:
            for j in range(W.shape[1]):
                total[j] -= W[p, j]
        m -= 1
    return m


@njit(cache=True)
def _group_around(W, idx, pos, total, m, center_pos, k, labels, g, nchunks):
    c = W[center_pos].copy()
    near, _ = _nearest(W, idx, m, c, center_pos, k - 1, nchunks)
    rows = np.empty(k, dtype=np.intp)
    rows[0] = center_pos
    rows[1:] = near
    for q in rows:
        labels[idx[q]] = g
    return _remove(W, idx, pos, total, m, rows)


@njit(cache=True)
def mdav_labels(X: np.ndarray, k: int, single: bool, threads: int) -> np.ndarray:
    """MDAV crowds of ``X`` (classic: two per round; single: one per round)."""
    n, p = X.shape
    nchunks = max(1, min(threads, n // 4096 + 1))
    W = X.copy()
    idx = np.arange(n)
    pos = np.arange(n)
    labels = np.full(n, -1, dtype=np.intp)
    total = np.zeros(p)
    for q in range(n):
        for j in range(p):
            total[j] += W[q, j]
    m = n
    g = 0
    c = np.empty(p)
    while m >= (2 * k if single else 3 * k):
        for j in range(p):
            c[j] = total[j] / m
        r = _farthest(W, idx, m, c, nchunks)
        if single:
            m = _group_around(W, idx, pos, total, m, r, k, labels, g, nchunks)
            g += 1
            continue
        rv = W[r].copy()
        near, far = _nearest(W, idx, m, rv, r, k - 1, nchunks)
        s_orig = idx[far]
        rows = np.empty(k, dtype=np.intp)
        rows[0] = r
        rows[1:] = near
        for q in rows:
            labels[idx[q]] = g
        m = _remove(W, idx, pos, total, m, rows)
        g += 1
        if labels[s_orig] >= 0:  # only when every remaining record is equally far from r
            s = _farthest(W, idx, m, rv, nchunks)
        else:
            s = pos[s_orig]
        m = _group_around(W, idx, pos, total, m, s, k, labels, g, nchunks)
        g += 1
    if not single and m >= 2 * k:
        for j in range(p):
            c[j] = total[j] / m
        r = _farthest(W, idx, m, c, nchunks)
        m = _group_around(W, idx, pos, total, m, r, k, labels, g, nchunks)
        g += 1
    for q in range(m):
        labels[idx[q]] = g
    return labels
