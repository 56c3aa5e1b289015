"""Top-down specialization with local recoding (numba): crowds grown by splitting.

Every record starts in one crowd published at the top of every attribute (``*``). A crowd is
split on the attribute whose split lowers the total cost most, and the parts are split again,
until no split lowers it:

- a **categorical or hierarchical** attribute published at node ``v`` splits its crowd by the
  children of ``v``. A child holding at least ``k`` records becomes a crowd under that child;
  the others stay together under ``v`` (the *rest*, which no longer splits on this attribute).
  A rest of fewer than ``k`` records takes the records nearest to it from the largest child
  when that child can spare them, else absorbs the smallest children;
- a **numeric** attribute splits its crowd at the median (both halves at least ``k``).

Each candidate split is priced by the cost of its parts (every attribute, the crowds'
actual generalization), so a split is taken only when it lowers the cost. The parts of a
crowd are disjoint, every part has at least ``k`` records, and a crowd that no split
improves is final. Time :math:`O(n · d · b (b + \\log n))` for ``b`` attributes and ``d``
the depth of the splits (at most the hierarchies' heights plus ``\\log n`` per numeric
attribute).
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...costs.kernels import record_cost

__all__ = ["diverse", "specialize"]


@jit()
def _cost(perm, lo, hi, cm, stamp, tick):
    return (hi - lo) * record_cost(perm[lo:hi], cm, stamp, tick)


@jit()
def _pair_gap(a, b, cm, stamp, tick, pair):
    pair[0] = a
    pair[1] = b
    return record_cost(pair, cm, stamp, tick)


@jit()
def _split_categorical(perm, lo, hi, j, lv, k, cm, stamp, tick, count, group, order, work, pair):
    """Arrange ``perm[lo:hi]`` by the split of attribute ``j`` one level below ``lv[j]``.

    Returns the number of parts (0: no valid split) and writes the part boundaries into
    ``work`` (``work[0] = lo``, ``work[p] `` the end of part ``p − 1``); the last part is the
    rest when ``has_rest`` (returned second). ``-1`` parts: every record shares one child
    (the caller lowers ``lv[j]`` for free).
    """
    codes, ancestors = cm[2], cm[3]
    level = lv[j] - 1
    m = hi - lo
    n_children = 0
    for i in range(lo, hi):
        c = ancestors[j, level, codes[perm[i], j]]
        if count[c] == 0:
            order[n_children] = c
            n_children += 1
        count[c] += 1
    if n_children == 1:
        count[order[0]] = 0
        return -1, False
    # parts: big children in order of size (largest last), then the rest
    n_big = 0
    rest = 0
    for t in range(n_children):
        c = order[t]
        if count[c] >= k:
            n_big += 1
        else:
            rest += count[c]
    bigs = np.empty(n_big, dtype=np.intp)
    b = 0
    for t in range(n_children):
        if count[order[t]] >= k:
            bigs[b] = order[t]
            b += 1
    # sort the big children by size, smallest first (few children: insertion sort)
    for x in range(1, n_big):
        y = x
        while y > 0 and count[bigs[y - 1]] > count[bigs[y]]:
            bigs[y - 1], bigs[y] = bigs[y], bigs[y - 1]
            y -= 1
    steal = 0
    absorbed = 0
    if 0 < rest < k:
        if n_big > 0 and count[bigs[n_big - 1]] >= 2 * k - rest:
            steal = k - rest
        else:
            while rest < k and absorbed < n_big:
                rest += count[bigs[absorbed]]
                absorbed += 1
    n_parts = n_big - absorbed + (1 if rest > 0 else 0)
    if n_parts < 2:
        for t in range(n_children):
            count[order[t]] = 0
        return 0, False
    # group id of every child: parts 0 .. n_big-absorbed-1 are big children, the last the rest
    rest_id = n_big - absorbed
    for t in range(n_children):
        group[order[t]] = rest_id
    for x in range(absorbed, n_big):
        group[bigs[x]] = x - absorbed
    # counting sort of the segment by part
    sizes = np.zeros(n_parts + 1, dtype=np.intp)
    for i in range(lo, hi):
        sizes[group[ancestors[j, level, codes[perm[i], j]]]] += 1
    work[0] = lo
    for p in range(n_parts):
        work[p + 1] = work[p] + sizes[p]
    fill = np.empty(n_parts, dtype=np.intp)
    for p in range(n_parts):
        fill[p] = work[p]
    seg = perm[lo:hi].copy()
    for i in range(m):
        p = group[ancestors[j, level, codes[seg[i], j]]]
        perm[fill[p]] = seg[i]
        fill[p] += 1
    for t in range(n_children):
        count[order[t]] = 0
    if steal > 0:
        # the largest child (part rest_id - 1) gives the rest its records nearest the rest
        a, e = work[rest_id - 1], work[rest_id]
        anchor = perm[work[rest_id]]
        gap = np.empty(e - a)
        for i in range(a, e):
            mark = tick + (i - a) * (codes.shape[1] + 1)
            gap[i - a] = _pair_gap(anchor, perm[i], cm, stamp, mark, pair)
        near = np.argsort(gap, kind="mergesort")
        block = perm[a:e].copy()
        # the nearest go to the end of the child's block, which becomes the rest's start
        t = 0
        for x in range(steal, e - a):
            perm[a + t] = block[near[x]]
            t += 1
        for x in range(steal):
            perm[a + t] = block[near[x]]
            t += 1
        work[rest_id] = e - steal
    return n_parts, rest > 0


@jit()
def diverse(perm, work, n_parts, sens, ell, seen):
    """Whether each part ``perm[work[p]:work[p + 1]]`` holds ``ell`` distinct ``sens``
    codes (``seen[0]``: the last mark used in ``seen[1:]``)."""
    if ell < 2:
        return True
    for p in range(n_parts):
        seen[0] += 1
        count = 0
        for i in range(work[p], work[p + 1]):
            c = sens[perm[i]] + 1
            if seen[c] != seen[0]:
                seen[c] = seen[0]
                count += 1
                if count >= ell:
                    break
        if count < ell:
            return False
    return True


@jit()
def _split_numeric(perm, lo, hi, j, k, cm):
    """Sort ``perm[lo:hi]`` by numeric attribute ``j``; the median cut, or -1."""
    num = cm[0]
    m = hi - lo
    if m < 2 * k:
        return -1
    values = np.empty(m)
    for i in range(m):
        values[i] = num[perm[lo + i], j]
    order = np.argsort(values, kind="mergesort")
    if values[order[0]] == values[order[m - 1]]:
        return -1
    seg = perm[lo:hi].copy()
    for i in range(m):
        perm[lo + i] = seg[order[i]]
    cut = m // 2
    # move the cut off a run of equal values when the halves stay large enough
    v = num[perm[lo + cut], j]
    a = cut
    while a > k and num[perm[lo + a - 1], j] == v:
        a -= 1
    if num[perm[lo + a - 1], j] != v:
        return lo + a
    return lo + cut


@jit()
def specialize(k, cm, perm, bounds, levels, frag=0.0, sens=None, ell=0):
    """Crowd labels of the top-down specialization (``cm``: the cost's kernel arrays),
    starting from the crowds ``perm[bounds[c]:bounds[c + 1]]`` published at the hierarchy
    levels ``levels[c]`` (one crowd of every record at the top levels: the plain method).
    ``labels[i]`` is the crowd of record ``perm[i]``. With ``ell`` ≥ 2 a split is taken
    only when each part holds ``ell`` distinct ``sens`` codes (distinct l-diversity)."""
    codes_s = np.zeros(1, dtype=np.intp) if sens is None else sens
    seen = np.zeros(codes_s.max() + 2, dtype=np.int64)
    num, codes, ancestors = cm[0], cm[2], cm[3]
    a_num = num.shape[1]
    b = codes.shape[1]
    width = max(ancestors.shape[2], 1)
    stamp = np.zeros(width, dtype=np.int64)
    tick = 1
    count = np.zeros(width, dtype=np.intp)
    group = np.zeros(width, dtype=np.intp)
    order = np.zeros(width, dtype=np.intp)
    work = np.zeros(width + 2, dtype=np.intp)
    best_work = np.zeros(width + 2, dtype=np.intp)
    pair = np.zeros(2, dtype=np.intp)
    n = perm.size
    given = perm
    perm = perm.copy()
    labels = np.full(n, -1, dtype=np.intp)  # by position in the final arrangement
    cap = n // max(k, 1) + 2
    st_lo = np.zeros(cap, dtype=np.intp)
    st_hi = np.zeros(cap, dtype=np.intp)
    st_lv = np.zeros((cap, b), dtype=np.intp)
    st_frozen = np.zeros((cap, b), dtype=np.bool_)
    top = 0
    for c in range(bounds.size - 1):
        st_lo[top] = bounds[c]
        st_hi[top] = bounds[c + 1]
        for j in range(b):
            st_lv[top, j] = levels[c, j]
        top += 1
    n_crowds = 0
    lv = np.zeros(b, dtype=np.intp)
    frozen = np.zeros(b, dtype=np.bool_)
    best_perm = np.empty(n, dtype=np.intp)
    while top > 0:
        top -= 1
        lo, hi = st_lo[top], st_hi[top]
        for j in range(b):
            lv[j] = st_lv[top, j]
            frozen[j] = st_frozen[top, j]
        base = _cost(perm, lo, hi, cm, stamp, tick)
        tick += b + 1
        best_score = 0.0
        best_attr = -1
        best_parts = 0
        best_rest = False
        for j in range(a_num):
            cut = _split_numeric(perm, lo, hi, j, k, cm)
            if cut < 0:
                continue
            work[0], work[1], work[2] = lo, cut, hi
            if not diverse(perm, work, 2, codes_s, ell, seen):
                continue
            parts = _cost(perm, lo, cut, cm, stamp, tick)
            parts += _cost(perm, cut, hi, cm, stamp, tick + b + 1)
            tick += 2 * (b + 1)
            score = (base - parts) / 2.0**frag
            if base - parts > 1e-12 * (1.0 + base) and score > best_score:
                best_score = score
                best_attr = j
                best_parts = 2
                best_rest = False
                best_work[0] = lo
                best_work[1] = cut
                best_work[2] = hi
                for i in range(lo, hi):
                    best_perm[i] = perm[i]
        for j in range(b):
            while not frozen[j] and lv[j] > 0:
                n_parts, has_rest = _split_categorical(
                    perm, lo, hi, j, lv, k, cm, stamp, tick, count, group, order, work, pair
                )
                tick += (hi - lo + 1) * (b + 1)  # the marks of the steal's pair costs
                if n_parts == -1:
                    lv[j] -= 1  # every record shares one child: lower for free
                    continue
                if n_parts > 0:
                    work[n_parts] = hi
                if n_parts > 0 and diverse(perm, work, n_parts, codes_s, ell, seen):
                    parts = 0.0
                    for p in range(n_parts):
                        parts += _cost(perm, work[p], work[p + 1], cm, stamp, tick)
                        tick += b + 1
                    score = (base - parts) / float(n_parts) ** frag
                    if base - parts > 1e-12 * (1.0 + base) and score > best_score:
                        best_score = score
                        best_attr = a_num + j
                        best_parts = n_parts
                        best_rest = has_rest
                        for p in range(n_parts + 1):
                            best_work[p] = work[p]
                        for i in range(lo, hi):
                            best_perm[i] = perm[i]
                break
        if best_attr < 0:
            for i in range(lo, hi):
                labels[i] = n_crowds
            n_crowds += 1
            continue
        for i in range(lo, hi):
            perm[i] = best_perm[i]
        for p in range(best_parts):
            st_lo[top] = best_work[p]
            st_hi[top] = best_work[p + 1]
            for j in range(b):
                st_lv[top, j] = lv[j]
                st_frozen[top, j] = frozen[j]
            if best_attr >= a_num:
                j = best_attr - a_num
                if best_rest and p == best_parts - 1:
                    st_frozen[top, j] = True
                else:
                    st_lv[top, j] = lv[j] - 1
            top += 1
    # align with the given order: the same records, sorted by id on both sides
    out = np.empty(n, dtype=np.intp)
    was = np.argsort(given)
    now = np.argsort(perm)
    for t in range(n):
        out[was[t]] = labels[now[t]]
    return out
