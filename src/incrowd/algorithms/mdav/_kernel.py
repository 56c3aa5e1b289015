"""Compiled MDAV loop (numba), on numeric coordinates and codes.

Squared distances are those of the dense one-hot embedding, computed from codes: a record
with code ``c`` (entry ``e_c``) lies ``e_c² (1 − 2 f_c) + Σ_v e_v² f_v²`` from the centroid of
a code column (``f_v``: share of the remaining records with code ``v``; the last term is the
same for every record, so the farthest-record search leaves it out), and two records with
different codes ``e_a² + e_b²`` apart. Code counts are updated as records leave, so a pass
costs O(numeric + code columns) per record, however many values an attribute has.

The remaining records live in a compacted working copy: removing a crowd swaps its rows to
the end, so every pass reads one contiguous block. A pass may be cut into chunks run on
several threads (the ``_parallel`` variants); chunk results are merged with the same tie
rule (smaller original index wins), so the result never depends on the number of threads.
The Python driver (:func:`incrowd.algorithms.mdav.mdav_labels`) runs the loop in epochs and
picks the serial or the parallel variant by measured speed, so a loaded machine is not made
to wait on threads that cannot run.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ..._runtime import jit, variant

__all__ = ["KERNELS", "State"]


def _before(d1, i1, d2, i2):
    """Order for nearest: smaller distance first, then smaller original index."""
    return d1 < d2 or (d1 == d2 and i1 < i2)


def _to_centroid(W, C, R, offs, cnt, q, c, two_over_m):
    """Squared distance of row ``q`` to the centroid, less the constant ``Σ_j S_j``."""
    s = 0.0
    for j in range(W.shape[1]):
        t = W[q, j] - c[j]
        s += t * t
    if C.shape[1]:
        for j in range(C.shape[1]):
            s += R[q, j] * (1.0 - two_over_m * cnt[offs[j] + C[q, j]])
    return s


def _to_centroid_numeric(W, C, R, offs, cnt, q, c, two_over_m):
    """:func:`_to_centroid` for a table of numbers only (no code columns)."""
    s = 0.0
    for j in range(c.size):
        t = W[q, j] - c[j]
        s += t * t
    return s


def _to_row_numeric(W, C, R, q, r, wr):
    """:func:`_to_row` for a table of numbers only (no code columns)."""
    s = 0.0
    for j in range(wr.size):
        t = W[q, j] - wr[j]
        s += t * t
    return s


def _to_row(W, C, R, q, r, wr):
    """Squared distance of rows ``q`` and ``r`` (``wr``: a copy of row ``r``'s numbers)."""
    s = 0.0
    for j in range(wr.size):
        t = W[q, j] - wr[j]
        s += t * t
    if C.shape[1]:
        for j in range(C.shape[1]):
            if C[q, j] != C[r, j]:
                s += R[q, j] + R[r, j]
    return s


def _farthest(W, C, R, offs, cnt, idx, m, c, r, nchunks):
    """Position of the row farthest from the centroid ``c`` (``r < 0``) or from row ``r``;
    ties go to the smaller original index. (The centroid's own spread ``Σ_v e_v² f_v²`` is
    the same for every row and left out.)"""
    best_d = np.empty(nchunks)
    best_p = np.empty(nchunks, dtype=np.intp)
    step = (m + nchunks - 1) // nchunks
    two_over_m = 2.0 / m
    for t in prange(nchunks):
        lo, hi = t * step, min(m, (t + 1) * step)
        bd, bp = -np.inf, -1
        if r < 0:
            for q in range(lo, hi):
                d = _to_centroid(W, C, R, offs, cnt, q, c, two_over_m)
                if d > bd or (d == bd and idx[q] < idx[bp]):
                    bd, bp = d, q
        else:
            wr = W[r].copy()
            for q in range(lo, hi):
                d = _to_row(W, C, R, q, r, wr)
                if d > bd or (d == bd and idx[q] < idx[bp]):
                    bd, bp = d, q
        best_d[t], best_p[t] = bd, bp
    bd, bp = -np.inf, -1
    for t in range(nchunks):
        p = best_p[t]
        if p >= 0 and (best_d[t] > bd or (best_d[t] == bd and idx[p] < idx[bp])):
            bd, bp = best_d[t], p
    return bp


def _nearest(W, C, R, idx, m, r, want, nchunks, out_p):
    """Positions of the ``want`` rows nearest row ``r`` (other than ``r``) into ``out_p``;
    returns the position of the row farthest from ``r`` (classic MDAV's ``s``)."""
    kd = np.empty((nchunks, want))
    ki = np.empty((nchunks, want), dtype=np.intp)
    kp = np.empty((nchunks, want), dtype=np.intp)
    fd = np.empty(nchunks)
    fp = np.empty(nchunks, dtype=np.intp)
    step = (m + nchunks - 1) // nchunks
    wr = W[r].copy()
    for t in prange(nchunks):
        for a in range(want):
            kd[t, a] = np.inf
            ki[t, a] = -1
            kp[t, a] = -1
        lo, hi = t * step, min(m, (t + 1) * step)
        bd, bp = -np.inf, -1
        for q in range(lo, hi):
            d = _to_row(W, C, R, q, r, wr)
            if d > bd or (d == bd and idx[q] < idx[bp]):
                bd, bp = d, q
            if q == r:
                continue
            oq = idx[q]
            if _before(d, oq, kd[t, want - 1], ki[t, want - 1]):
                s = want - 1
                while s > 0 and _before(d, oq, kd[t, s - 1], ki[t, s - 1]):
                    kd[t, s], ki[t, s], kp[t, s] = kd[t, s - 1], ki[t, s - 1], kp[t, s - 1]
                    s -= 1
                kd[t, s], ki[t, s], kp[t, s] = d, oq, q
        fd[t], fp[t] = bd, bp
    out_d = np.empty(want)
    out_i = np.empty(want, dtype=np.intp)
    for a in range(want):
        out_d[a] = np.inf
        out_i[a] = -1
        out_p[a] = -1
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
    bd, bp = -np.inf, -1
    for t in range(nchunks):
        p = fp[t]
        if p >= 0 and (fd[t] > bd or (fd[t] == bd and idx[p] < idx[bp])):
            bd, bp = fd[t], p
    return bp


def _remove(W, C, R, offs, cnt, idx, pos, total, m, rows, nrows):
    """Move the rows at positions ``rows[:nrows]`` past the end of the active block."""
    origs = np.empty(nrows, dtype=np.intp)
    for i in range(nrows):
        origs[i] = idx[rows[i]]
    for i in range(nrows):
        o = origs[i]
        p = pos[o]
        for j in range(C.shape[1]):
            cnt[offs[j] + C[p, j]] -= 1
        last = m - 1
        if p != last:
            for j in range(W.shape[1]):
                tmp = W[p, j]
                W[p, j] = W[last, j]
                W[last, j] = tmp
                total[j] -= tmp
            for j in range(C.shape[1]):
                tmp2 = C[p, j]
                C[p, j] = C[last, j]
                C[last, j] = tmp2
                tmp3 = R[p, j]
                R[p, j] = R[last, j]
                R[last, j] = tmp3
            ol = idx[last]
            idx[p], idx[last] = ol, o
            pos[ol], pos[o] = p, last
        else:
            for j in range(W.shape[1]):
                total[j] -= W[p, j]
        m -= 1
    return m


def _group_around(W, C, R, offs, cnt, idx, pos, total, m, center, k, labels, g, nch, buf):
    near = buf[1:k]
    _nearest(W, C, R, idx, m, center, k - 1, nch, near)
    buf[0] = center
    for i in range(k):
        labels[idx[buf[i]]] = g
    return _remove(W, C, R, offs, cnt, idx, pos, total, m, buf, k)


def _steps(W, C, R, offs, cnt, idx, pos, total, labels, m, g, k, single, budget, nch):
    """Form up to ``budget`` crowds of MDAV's main loop; returns ``(m, g)``: the records
    still remaining and the next crowd label. Stops early when the main loop is over."""
    p = W.shape[1]
    c = np.empty(p)
    buf = np.empty(k, dtype=np.intp)
    formed = 0
    while m >= (2 * k if single else 3 * k) and formed < budget:
        for j in range(p):
            c[j] = total[j] / m
        r = _farthest(W, C, R, offs, cnt, idx, m, c, -1, nch)
        if single:
            m = _group_around(W, C, R, offs, cnt, idx, pos, total, m, r, k, labels, g, nch, buf)
            g += 1
            formed += 1
            continue
        near = buf[1:k]
        far = _nearest(W, C, R, idx, m, r, k - 1, nch, near)
        s_orig = idx[far]
        buf[0] = r
        for i in range(k):
            labels[idx[buf[i]]] = g
        # remember r's coordinates: r's row moves when the crowd is removed
        r_orig = idx[r]
        m = _remove(W, C, R, offs, cnt, idx, pos, total, m, buf, k)
        g += 1
        if labels[s_orig] >= 0:  # only when every remaining record is equally far from r
            s = _farthest(W, C, R, offs, cnt, idx, m, c, pos[r_orig], nch)
        else:
            s = pos[s_orig]
        m = _group_around(W, C, R, offs, cnt, idx, pos, total, m, s, k, labels, g, nch, buf)
        g += 1
        formed += 2
    return m, g


def _finish(W, C, R, offs, cnt, idx, pos, total, labels, m, g, k, single):
    """MDAV's end: (classic) one more crowd around the record farthest from the centroid
    when at least 2k remain; the rest form the last crowd."""
    if not single and m >= 2 * k:
        c = np.empty(W.shape[1])
        for j in range(W.shape[1]):
            c[j] = total[j] / m
        buf = np.empty(k, dtype=np.intp)
        r = _farthest(W, C, R, offs, cnt, idx, m, c, -1, 1)
        m = _group_around(W, C, R, offs, cnt, idx, pos, total, m, r, k, labels, g, 1, buf)
        g += 1
    for q in range(m):
        labels[idx[q]] = g
    return g + 1


@jit()
def _column_sums(W):
    total = np.zeros(W.shape[1])
    for q in range(W.shape[0]):
        for j in range(W.shape[1]):
            total[j] += W[q, j]
    return total


def _build(parallel: bool, coded: bool) -> dict:
    suffix = ("_parallel" if parallel else "_serial") + ("_coded" if coded else "_numeric")
    plain = {
        "_before": _before,
        "_to_centroid": _to_centroid if coded else _to_centroid_numeric,
        "_to_row": _to_row if coded else _to_row_numeric,
    }
    helpers = {name: jit(inline=True)(variant(fn, suffix, {})) for name, fn in plain.items()}
    scans = {
        "_farthest": jit(parallel=parallel)(variant(_farthest, suffix, helpers)),
        "_nearest": jit(parallel=parallel)(variant(_nearest, suffix, helpers)),
    }
    names = helpers | scans
    names["_remove"] = jit()(variant(_remove, suffix, names))
    names["_group_around"] = jit()(variant(_group_around, suffix, names))
    return {
        "steps": jit()(variant(_steps, suffix, names)),
        "finish": jit()(variant(_finish, suffix, names)),
    }


#: The compiled loop, ``KERNELS[parallel, coded]["steps" | "finish"]``: serial or in chunks
#: on threads, for tables with code columns or numbers only (each compiled on first call).
KERNELS = {(p, c): _build(p, c) for p in (False, True) for c in (False, True)}


class State:
    """The working copy MDAV compacts as crowds leave (see the module docstring)."""

    def __init__(self, numeric: np.ndarray, codes: np.ndarray, entries: np.ndarray,
                 offsets: np.ndarray) -> None:  # fmt: skip
        n = numeric.shape[0]
        self.W = np.ascontiguousarray(numeric, dtype=np.float64).copy()
        self.C = np.ascontiguousarray(codes, dtype=np.intp).copy()
        offs = np.ascontiguousarray(offsets[:-1], dtype=np.intp)
        self.offs = offs
        self.R = np.ascontiguousarray(np.asarray(entries, dtype=np.float64)[self.C + offs] ** 2)
        self.cnt = np.bincount((self.C + offs).ravel(), minlength=int(offsets[-1])).astype(
            np.float64
        )
        self.idx = np.arange(n, dtype=np.intp)
        self.pos = np.arange(n, dtype=np.intp)
        self.total = _column_sums(self.W)  # row by row, as MDAV has always summed them
        self.labels = np.full(n, -1, dtype=np.intp)
        self.m = n
        self.g = 0

    def arrays(self) -> tuple:
        return (self.W, self.C, self.R, self.offs, self.cnt, self.idx, self.pos, self.total,
                self.labels)  # fmt: skip
