"""The candidate classes of the cheapest seeds (:mod:`._cheapest`), listed with their members.

A candidate is a class of a lattice node holding at least ``k`` records. The first phase
lists those costing at most a share of a row's whole cost, by hashing every row's labels at
each node that has one (:func:`first_phase`, the nodes shared among the threads); the
second lists every class of the rows left, by one walk of the lattice (:func:`walked`).

Guarantee: every candidate of the phase is listed, once, with all its rows. Time
:math:`O(N m b)` for ``N`` lattice nodes and ``m`` distinct rows; memory: one two-byte entry
(four beyond 65,536 rows) per row and node listed.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import chunked, chunks, jit, threads
from ._lattice import child_ranks, next_lowered, split_classes

__all__ = ["first_phase", "row_tables", "walked"]

_ROWS_SHORT = 65536  # rows numbered in two bytes


@jit()
def _class_lists(ranks, prices, fan, offset, weight, cls0, k, members):
    """Walk the lattice from the top, each node once (a node lowers attributes from the last
    one lowered on, as :func:`incrowd.algorithms.recoding.bounds.lattice._walk_lattice`), listing
    its classes of ``k`` records or more: the candidates (the tables of
    :func:`row_tables`, for these rows). Returns each one's cost per record, node code and
    number of records, and where its rows start in ``members`` (which they fill in
    candidate order; one more entry ends the last)."""
    m = weight.size
    b = offset.size - 1
    height = np.empty(b, dtype=np.intp)
    depth = 0
    for j in range(b):
        height[j] = offset[j + 1] - offset[j] - 1
        depth += height[j]
    rec = np.empty((depth + 1, m), dtype=np.intp)
    cls = np.empty((depth + 1, m), dtype=np.intp)
    cnt = np.zeros(depth + 1, dtype=np.intp)
    n_cls = np.zeros(depth + 1, dtype=np.intp)
    lv = np.empty((depth + 1, b), dtype=np.intp)
    nxt = np.zeros(depth + 1, dtype=np.intp)
    size = np.zeros(m + 1, dtype=np.int64)
    named = np.full(m + 1, -1, dtype=np.intp)
    tally = np.zeros(m + 1, dtype=np.intp)
    group = np.empty(m, dtype=np.intp)
    names = np.full(8 * m + 1, -1, dtype=np.intp)
    key = np.empty(m, dtype=np.intp)
    held = np.empty(m, dtype=np.bool_)
    c_cost, c_node, c_weight, c_start = _lists(1024)
    n_cand = 0
    pos = 0
    for u in range(m):
        rec[0, u] = u
        cls[0, u] = cls0[u]
    cnt[0] = m
    n_cls[0] = cls0.max() + 1 if m else 0
    for j in range(b):
        lv[0, j] = height[j]
    d = 0
    visit = True
    while d >= 0:
        if visit:  # keep the rows of classes of k, list those classes
            visit = False
            node = 0
            for j in range(b):
                node = node * (height[j] + 1) + lv[d, j]
            mm = cnt[d]
            for t in range(mm):
                size[cls[d, t]] += weight[rec[d, t]]
            n_big = 0
            for t in range(mm):
                c = cls[d, t]
                held[t] = size[c] >= k
                group[t] = -1
                if not held[t]:
                    continue
                if named[c] < 0:
                    named[c] = n_big
                    n_big += 1
                    c_cost, c_node, c_weight, c_start = _room(
                        c_cost, c_node, c_weight, c_start, n_cand + n_big
                    )
                    u = rec[d, t]
                    price = 0.0
                    for a in range(b):
                        price += prices[offset[a] + lv[d, a], u]
                    c_cost[n_cand + named[c]] = price
                    c_node[n_cand + named[c]] = node
                    c_weight[n_cand + named[c]] = size[c]
                group[t] = named[c]
            pos = _list_members(rec[d], group, mm, n_big, members, pos, c_start, n_cand, tally)
            n_cand += n_big
            kept = 0
            for t in range(mm):
                size[cls[d, t]] = 0
                named[cls[d, t]] = -1
            for t in range(mm):
                if held[t]:
                    rec[d, kept] = rec[d, t]
                    cls[d, kept] = cls[d, t]
                    kept += 1
            cnt[d] = kept
        j = next_lowered(nxt, lv, cnt, d)
        if j < 0:
            d -= 1
            continue
        level = lv[d, j] - 1
        mm = cnt[d]
        c = split_classes(rec[d], cls[d], mm, n_cls[d], ranks[offset[j] + level],
                          fan[offset[j] + level], names, key, rec[d + 1], cls[d + 1])  # fmt: skip
        cnt[d + 1] = mm
        n_cls[d + 1] = c
        lv[d + 1] = lv[d]
        lv[d + 1, j] = level
        nxt[d + 1] = j
        d += 1
        visit = True
    c_start[n_cand] = pos
    return c_cost[:n_cand], c_node[:n_cand], c_weight[:n_cand], c_start[: n_cand + 1]


@jit()
def _cheap_lists(ids, radix, prices, offset, weight, node_levels, k, tau, members):
    """The candidates of cost at most ``tau`` at the lattice nodes ``node_levels`` (a row of
    levels each), as :func:`_class_lists` returns them; each node's classes named afresh
    by hashing each row's labels there (``ids``: per attribute and level, by row, the
    label's number among ``radix`` of that level)."""
    m = weight.size
    b = offset.size - 1
    slots = 1
    while slots < 4 * m:
        slots *= 2
    mask = slots - 1
    h_key = np.full(slots, -1, dtype=np.int64)
    h_cls = np.empty(slots, dtype=np.intp)
    cls = np.empty(m, dtype=np.intp)
    size = np.zeros(m, dtype=np.int64)
    price = np.empty(m)
    slot_of = np.empty(m, dtype=np.intp)
    tally = np.zeros(m + 1, dtype=np.intp)
    group = np.empty(m, dtype=np.intp)
    every = np.arange(m)
    named = np.full(m, -1, dtype=np.intp)
    c_cost, c_node, c_weight, c_start = _lists(1024)
    n_cand = 0
    pos = 0
    for p in range(node_levels.shape[0]):
        lv = node_levels[p]
        node = 0
        for j in range(b):
            node = node * (offset[j + 1] - offset[j]) + lv[j]
        n_cls = 0
        n_slots = 0
        for u in range(m):
            key = 0
            for j in range(b):
                key = key * radix[offset[j] + lv[j]] + ids[offset[j] + lv[j], u]
            h = ((key * 0x5851F42D4C957F2D) >> 20) & mask
            while h_key[h] != -1 and h_key[h] != key:
                h = (h + 1) & mask
            if h_key[h] == -1:
                h_key[h] = key
                h_cls[h] = n_cls
                slot_of[n_slots] = h
                n_slots += 1
                c = 0.0
                for j in range(b):
                    c += prices[offset[j] + lv[j], u]
                price[n_cls] = c
                n_cls += 1
            cls[u] = h_cls[h]
            size[cls[u]] += weight[u]
        for t in range(n_slots):
            h_key[slot_of[t]] = -1
        n_big = 0
        for c in range(n_cls):
            if size[c] >= k and price[c] <= tau:
                named[c] = n_big
                c_cost, c_node, c_weight, c_start = _room(
                    c_cost, c_node, c_weight, c_start, n_cand + n_big
                )
                c_cost[n_cand + n_big] = price[c]
                c_node[n_cand + n_big] = node
                c_weight[n_cand + n_big] = size[c]
                n_big += 1
        for u in range(m):
            group[u] = named[cls[u]]
        pos = _list_members(every, group, m, n_big, members, pos, c_start, n_cand, tally)
        for c in range(n_cls):
            size[c] = 0
            named[c] = -1
        n_cand += n_big
    c_start[n_cand] = pos
    return c_cost[:n_cand], c_node[:n_cand], c_weight[:n_cand], c_start[: n_cand + 1]


@jit()
def _list_members(rows, group, count, n_big, members, pos, c_start, first, tally):
    """Write ``rows[t]`` of every ``group[t]`` ≥ 0 (``t < count``; groups ``0 ..
    n_big − 1``) into ``members`` from ``pos``, each group's together and in group order;
    group ``g`` starts at ``c_start[first + g]``. Returns the position after them
    (``tally``: zeros, left so)."""
    for t in range(count):
        if group[t] >= 0:
            tally[group[t]] += 1
    for g in range(n_big):
        c_start[first + g] = pos
        pos += tally[g]
        tally[g] = c_start[first + g]
    for t in range(count):
        g = group[t]
        if g >= 0:
            members[tally[g]] = rows[t]
            tally[g] += 1
    for g in range(n_big):
        tally[g] = 0
    return pos


@jit()
def _lists(cap):
    """Empty candidate lists with room for ``cap``: cost, node, weight, start."""
    return (np.empty(cap), np.empty(cap, dtype=np.intp), np.empty(cap, dtype=np.int64),
            np.empty(cap + 1, dtype=np.intp))  # fmt: skip


@jit()
def _room(c_cost, c_node, c_weight, c_start, used):
    """The candidate lists, doubled when candidate ``used`` would not fit."""
    cap = c_cost.size
    if used < cap:
        return c_cost, c_node, c_weight, c_start
    while used >= cap:
        cap *= 2
    out = _lists(cap)
    out[0][: c_cost.size] = c_cost
    out[1][: c_node.size] = c_node
    out[2][: c_weight.size] = c_weight
    out[3][: c_start.size] = c_start
    return out


def _members(rows: int, nodes: int) -> np.ndarray:
    """Room for the rows of every candidate: a row lies in one class per node (pages never
    written are never taken)."""
    return np.empty(rows * nodes, dtype=np.uint16 if rows <= _ROWS_SHORT else np.int32)


def row_tables(cm: tuple, rows: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per attribute and level (row ``offset[j] + l``), laid out by distinct row: the
    number of the row's label among the labels of that level present (of ``radix``), its
    cost there, and its rank among its label's siblings (of ``fan``); and the offsets."""
    ancestors, node_cost, height, cw = cm[3], cm[4], cm[5], cm[8]
    rank, fan = child_ranks(cm)
    b = rows.shape[1]
    offset = np.r_[0, np.cumsum(np.asarray(height) + 1)].astype(np.intp)
    ids = np.empty((offset[b], rows.shape[0]), dtype=np.int64)
    prices = np.empty((offset[b], rows.shape[0]))
    ranks = np.zeros((offset[b], rows.shape[0]), dtype=np.intp)
    radix = np.empty(offset[b], dtype=np.int64)
    fans = np.ones(offset[b], dtype=np.intp)
    for j in range(b):
        for level in range(int(height[j]) + 1):
            node = ancestors[j, level, rows[:, j]]
            present, ids[offset[j] + level] = np.unique(node, return_inverse=True)
            radix[offset[j] + level] = present.size
            prices[offset[j] + level] = cw[j] * node_cost[j, level, node]
            if level < height[j]:
                ranks[offset[j] + level] = rank[j, level, node]
                fans[offset[j] + level] = fan[j, level]
    return ids, radix, prices, ranks, fans, offset


def walked(
    tables: tuple[np.ndarray, ...], rest: np.ndarray, weight: np.ndarray, k: int
) -> tuple[np.ndarray, ...]:
    """Every candidate of the rows ``rest`` (:func:`_class_lists`) and their member
    lists, numbered among ``rest``."""
    ids, _, prices, ranks, fans, offset = tables
    b = offset.size - 1
    top = np.zeros(rest.size, dtype=np.int64)
    for j in range(b):  # the classes at the top (one unless a hierarchy has several roots)
        label = ids[offset[j + 1] - 1, rest]
        top = top * (int(label.max()) + 1) + label
    cls0 = np.unique(top, return_inverse=True)[1].ravel().astype(np.intp)
    members = _members(rest.size, int(np.prod(np.diff(offset))))
    lists = _class_lists(np.ascontiguousarray(ranks[:, rest]),
                         np.ascontiguousarray(prices[:, rest]), fans, offset, weight[rest],
                         cls0, k, members)  # fmt: skip
    return (*lists, members)


def first_phase(
    ids: np.ndarray, radix: np.ndarray, prices: np.ndarray, offset: np.ndarray,
    weight: np.ndarray, near: np.ndarray, k: int, tau: float,
) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The candidates costing at most ``tau`` at the nodes ``near`` (:func:`_cheap_lists`),
    the nodes shared among the threads: ``(members, cost, node, weight, start, end)``,
    candidate ``t``'s rows being ``members[start[t]:end[t]]``."""
    m = weight.size
    members = _members(m, near.shape[0])

    def listed(lo: int, hi: int) -> tuple[np.ndarray, ...]:  # nodes lo..hi-1, their room
        found = _cheap_lists(ids, radix, prices, offset, weight, near[lo:hi], k, tau,
                             members[m * lo : m * hi])  # fmt: skip
        return found[0], found[1], found[2], found[3][:-1] + m * lo, found[3][1:] + m * lo

    if near.shape[0] == 0:  # no node has so cheap a class (every label above a floor)
        none = np.zeros(0, dtype=np.intp)
        return members, np.zeros(0), none, np.zeros(0, dtype=np.int64), none, none
    parts = chunked(listed, chunks(near.shape[0], threads()))
    return (members, *(np.concatenate([p[i] for p in parts]) for i in range(5)))
