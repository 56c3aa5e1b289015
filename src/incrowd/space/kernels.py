"""Compiled kernels of the neighbour index (:mod:`incrowd.space.neighbours.index`) and of distances.

Kernels are plain loops (no slices assigned, no fancy indexing): numba compiles those in a
fraction of the time, which is most of a first run's cost.
"""

from __future__ import annotations

import numpy as np

from .._runtime import jit


@jit(inline=True)
def insert_sorted(best_d, best_i, slot, d, v):
    """Insert ``(d, v)`` into the ascending buffers, whose entry at ``slot`` is free (or the
    one to drop); equal distances keep the earlier entry first."""
    t = slot
    while t > 0 and best_d[t - 1] > d:
        best_d[t] = best_d[t - 1]
        best_i[t] = best_i[t - 1]
        t -= 1
    best_d[t] = d
    best_i[t] = v


@jit(inline=True)
def bounded_distance(num, codes, ent, u, v, norm, limit):
    """Distance between rows ``u`` and ``v`` (squared under L2), or a partial sum above
    ``limit`` as soon as one passes it."""
    d = 0.0
    for j in range(num.shape[1]):
        t = abs(num[u, j] - num[v, j])
        d += t if norm == 1 else t * t
    if d > limit:
        return d
    for j in range(codes.shape[1]):
        if codes[u, j] != codes[v, j]:
            if norm == 1:
                d += ent[u, j] + ent[v, j]
            else:
                d += ent[u, j] * ent[u, j] + ent[v, j] * ent[v, j]
            if d > limit:
                return d
    return d


@jit(inline=True)
def pair_distance(num, codes, ent, u, v, norm):
    """Distance between rows ``u`` and ``v`` (``ent``: each row's entry per code column)."""
    d = bounded_distance(num, codes, ent, u, v, norm, np.inf)
    return d if norm == 1 else np.sqrt(d)


@jit(inline=True)
def _scan_row(num, codes, ent, block_lo, block_hi, run_lo, run_hi, whole, floor, norm, u, cap,
              settle, best_d, best_i, least, gain, when):  # fmt: skip
    """The rows nearest row ``u`` (itself first) closer than ``cap`` (squared under L2), in
    ``best_d`` / ``best_i`` (−1 where fewer than their length); see :func:`scan_knn`. With
    ``settle``: any such rows, as soon as they fill the buffers."""
    m = num.shape[0]
    b = codes.shape[1]
    q = best_d.size
    for t in range(q):
        best_d[t] = cap
        best_i[t] = -1
    best_d[0] = 0.0
    best_i[0] = u
    running = np.inf
    n_whole = 0
    for j in range(b):
        c = ent[u, j] + floor[j] if norm == 1 else ent[u, j] ** 2 + floor[j] ** 2
        running = min(running, c)
        least[j] = running
        if whole[j]:
            gain[n_whole] = c
            when[n_whole] = max(2 * (u - run_lo[j, u]), 2 * (run_hi[j, u] - 1 - u) - 1)
            n_whole += 1
    order = np.argsort(when[:n_whole])
    next_whole = 0
    whole_sum = 0.0
    level = b - 1  # deepest block the window does not hold yet
    floor_left = 0.0  # what every row not yet scanned costs at least
    reach = max(u, m - 1 - u)
    for s in range(1, 2 * reach + 1):
        v = u + (s + 1) // 2 if s % 2 == 1 else u - s // 2
        if 0 <= v < m:
            bound = best_d[q - 1]
            d = bounded_distance(num, codes, ent, u, v, norm, bound)
            if d < bound:
                insert_sorted(best_d, best_i, q - 1, d, v)
                if settle and best_i[q - 1] >= 0:
                    break
        left, right = u - s // 2, u + (s + 1) // 2
        while level >= 0 and left <= block_lo[level, u] and right >= block_hi[level, u] - 1:
            floor_left = max(floor_left, least[level])
            level -= 1
        while next_whole < n_whole and when[order[next_whole]] <= s:
            whole_sum += gain[order[next_whole]]
            floor_left = max(floor_left, whole_sum)
            next_whole += 1
        if best_d[q - 1] <= floor_left:
            break


@jit()
def scan_knn(num, codes, ent, block_lo, block_hi, run_lo, run_hi, whole, floor, q, norm, lo,
             hi):  # fmt: skip
    """The ``q`` nearest rows of every row ``lo..hi-1`` (itself first), by an exact scan.

    Rows are sorted by their codes, so each query scans outward from itself (similar rows
    first, the bound tightens early) and drops a candidate as soon as its partial sum
    passes the ``q``-th best. Sums are squared under L2 and rooted at the end.

    The scan stops once every row left must cost at least the ``q``-th best (those rows
    would all be dropped, so stopping changes no answer). A row the scan has not reached
    lies outside the window scanned, so

    - once the window holds every row sharing the query's first ``t + 1`` codes (rows
      ``block_lo[t, u]..block_hi[t, u] − 1``), it differs in some column ``j ≤ t``;
    - once it holds the run of the query's code in a column whose every code forms one run
      (``whole[j]``: rows ``run_lo[j, u]..run_hi[j, u] − 1``; coarser levels of the first
      attribute, for instance), it differs in that column;

    and a difference in column ``j`` adds at least the query's entry plus ``floor[j]``, the
    column's smallest entry.
    """
    b = codes.shape[1]
    out_d = np.empty((hi - lo, q))
    out_i = np.empty((hi - lo, q), dtype=np.intp)
    best_d = np.empty(q)
    best_i = np.empty(q, dtype=np.intp)
    least = np.empty(b)  # least[t]: what a row outside block t costs at least
    gain = np.empty(b)  # each whole column's least cost of a difference
    when = np.empty(b, dtype=np.intp)  # the step at which the window holds its run
    for u in range(lo, hi):
        _scan_row(num, codes, ent, block_lo, block_hi, run_lo, run_hi, whole, floor, norm, u,
                  np.inf, False, best_d, best_i, least, gain, when)  # fmt: skip
        for t in range(q):
            out_d[u - lo, t] = best_d[t] if norm == 1 else np.sqrt(best_d[t])
            out_i[u - lo, t] = best_i[t]
    return out_d, out_i


@jit()
def scan_kth_max(num, codes, ent, block_lo, block_hi, run_lo, run_hi, whole, floor, weight, k,
                 start, norm, lo, hi):  # fmt: skip
    """The largest distance from a record of rows ``lo..hi-1`` to its ``k``-th nearest
    other record (row ``v`` holds ``weight[v]`` records), or ``start`` if that is larger.

    A row is first scanned only until ``k + 1`` rows closer than the largest found so far
    are met: those hold ``k`` other records, so the row cannot raise the maximum, and most
    rows are settled so, early in their scan; the others are scanned in full
    (:func:`scan_knn`)."""
    b = codes.shape[1]
    q = k + 1  # k + 1 rows hold at least k records other than any one
    best_d = np.empty(q)
    best_i = np.empty(q, dtype=np.intp)
    least = np.empty(b)
    gain = np.empty(b)
    when = np.empty(b, dtype=np.intp)
    top = start if norm == 1 else start * start
    for u in range(lo, hi):
        if weight[u] > k:
            continue  # k copies at distance 0
        cap = top
        for settle in (True, False):
            _scan_row(num, codes, ent, block_lo, block_hi, run_lo, run_hi, whole, floor, norm,
                      u, cap, settle, best_d, best_i, least, gain, when)  # fmt: skip
            others = weight[u] - 1
            kth = np.inf
            for t in range(1, q):
                if best_i[t] >= 0:
                    others += weight[best_i[t]]
                    if others >= k:
                        kth = best_d[t]
                        break
            if kth < np.inf:
                top = max(top, kth)
                break
            cap = np.inf  # not settled below the maximum: scan in full
    return top if norm == 1 else np.sqrt(top)


@jit()
def scan_counts(num, codes, ent, weight, asked, radius, norm, lo, hi):
    """For rows ``asked[lo:hi]``: the weight of the rows within ``radius`` (inclusive), by
    an exact scan that drops a row once its partial sum passes the radius."""
    m = num.shape[0]
    limit = radius if norm == 1 else radius * radius
    out = np.zeros(hi - lo, dtype=np.int64)
    for t in range(lo, hi):
        u = asked[t]
        total = 0
        for v in range(m):
            if bounded_distance(num, codes, ent, u, v, norm, limit) <= limit:
                total += weight[v]
        out[t - lo] = total
    return out


@jit()
def scan_ball(num, codes, ent, rows, u, radius, norm):
    """Positions in ``rows`` of the rows within ``radius`` (inclusive) of row ``u``."""
    limit = radius if norm == 1 else radius * radius
    out = np.empty(rows.size, dtype=np.intp)
    m = 0
    for t in range(rows.size):
        if bounded_distance(num, codes, ent, u, rows[t], norm, limit) <= limit:
            out[m] = t
            m += 1
    return out[:m]


@jit()
def scan_nearest(num, codes, ent, targets, asked, norm, lo, hi):
    """For rows ``asked[lo:hi]``: the position in ``targets`` of the nearest target row (the
    first of equals) and its distance, by an exact scan with early exit."""
    where = np.empty(hi - lo, dtype=np.intp)
    dist = np.empty(hi - lo)
    for t in range(lo, hi):
        u = asked[t]
        best, at = np.inf, -1
        for s in range(targets.size):
            d = bounded_distance(num, codes, ent, u, targets[s], norm, best)
            if d < best:
                best, at = d, s
        where[t - lo] = at
        dist[t - lo] = best if norm == 1 else np.sqrt(best)
    return where, dist


@jit()
def scan_nearest_rows(num, codes, ent, weight, asked, q, bound, norm, lo, hi):
    """For rows ``asked[lo:hi]``: their ``q`` nearest rows closer than ``bound`` (exclusive;
    −1 where fewer), nearest first, and the number of records (``weight``) of every row
    closer than ``bound``."""
    m = num.shape[0]
    limit = bound if norm == 1 else bound * bound
    out = np.empty((hi - lo, q), dtype=np.intp)
    total = np.zeros(hi - lo, dtype=np.int64)
    best_d = np.empty(q)
    best_i = np.empty(q, dtype=np.intp)
    for t in range(lo, hi):
        u = asked[t]
        for s in range(q):
            best_d[s] = np.inf
            best_i[s] = -1
        for v in range(m):
            d = bounded_distance(num, codes, ent, u, v, norm, limit)
            if d < limit:
                total[t - lo] += weight[v]
                if d < best_d[q - 1]:
                    insert_sorted(best_d, best_i, q - 1, d, v)
        for s in range(q):
            out[t - lo, s] = best_i[s]
    return out, total


@jit()
def best_of_candidates(num, codes, ent, cand, q, norm):
    """For each row ``u``, the ``q`` nearest among ``u`` itself and its candidate rows
    ``cand[u]`` (−1 = none; duplicates allowed), by exact distance; ties by row index."""
    m = cand.shape[0]
    out_d = np.empty((m, q))
    out_i = np.empty((m, q), dtype=np.intp)
    for u in range(m):
        for t in range(q):
            out_d[u, t] = np.inf
            out_i[u, t] = -1
        out_d[u, 0] = 0.0
        out_i[u, 0] = u
        for c in range(cand.shape[1]):
            v = cand[u, c]
            if v < 0 or v == u:
                continue
            dup = False
            for t in range(q):
                if out_i[u, t] == v:
                    dup = True
                    break
            if dup:
                continue
            d = pair_distance(num, codes, ent, u, v, norm)
            if d > out_d[u, q - 1] or (d == out_d[u, q - 1] and v > out_i[u, q - 1] >= 0):
                continue
            t = q - 1
            while t > 0 and (out_d[u, t - 1] > d or (out_d[u, t - 1] == d and out_i[u, t - 1] > v)):
                out_d[u, t] = out_d[u, t - 1]
                out_i[u, t] = out_i[u, t - 1]
                t -= 1
            out_d[u, t] = d
            out_i[u, t] = v
    return out_d, out_i


@jit()
def brute_groups(coords, offset, order, starts, q, norm, out):
    """Within each group ``order[starts[g]:starts[g+1]]``: each member's ``q`` nearest
    members (itself included) by the distance of ``coords`` plus ``offset[member]`` (added
    to the L1 sum, or to the squared L2 sum); written into ``out[member]``."""
    best_d = np.empty(q)
    for g in range(starts.size - 1):
        lo, hi = starts[g], starts[g + 1]
        for x in range(lo, hi):
            u = order[x]
            for t in range(q):
                best_d[t] = np.inf
                out[u, t] = -1
            for y in range(lo, hi):
                v = order[y]
                d = 0.0
                for j in range(coords.shape[1]):
                    t = abs(coords[u, j] - coords[v, j])
                    d += t if norm == 1 else t * t
                if v != u:
                    d += offset[v]
                if d >= best_d[q - 1]:
                    continue
                t = q - 1
                while t > 0 and best_d[t - 1] > d:
                    best_d[t] = best_d[t - 1]
                    out[u, t] = out[u, t - 1]
                    t -= 1
                best_d[t] = d
                out[u, t] = v


@jit()
def fill_from_points(found, ask_of, rows_order, rows_starts, members, out):
    """Member ``x`` asked its nearest distinct points ``found[ask_of[x]]``: list the rows
    at those points (``rows_order[rows_starts[p]:rows_starts[p+1]]``, positions in
    ``members``), nearest point first, up to ``out``'s width."""
    q = out.shape[1]
    for x in range(members.size):
        t = 0
        row = found[ask_of[x]]
        for j in range(row.size):
            p = row[j]
            for r in range(rows_starts[p], rows_starts[p + 1]):
                if t == q:
                    break
                out[members[x], t] = members[rows_order[r]]
                t += 1
            if t == q:
                break


@jit()
def expand_lists(d_u, i_u, counts, starts, order, k):
    """Record-level neighbour lists from distinct-row lists: each record gets the records of
    its row's list (its own copies first), minus itself, truncated to ``k``."""
    n = order.size
    out_d = np.empty((n, k))
    out_i = np.empty((n, k), dtype=np.intp)
    m, q = i_u.shape
    for u in range(m):
        for r in range(starts[u], starts[u + 1]):
            rec = order[r]
            t = 0
            for j in range(q):
                if t == k:
                    break
                v = i_u[u, j]
                if v < 0:
                    continue
                for s in range(starts[v], starts[v + 1]):
                    other = order[s]
                    if other == rec:
                        continue
                    out_d[rec, t] = d_u[u, j]
                    out_i[rec, t] = other
                    t += 1
                    if t == k:
                        break
    return out_d, out_i
