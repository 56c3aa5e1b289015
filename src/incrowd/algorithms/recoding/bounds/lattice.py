"""The lattice bound: each record's least cost over the generalization lattice's classes.

A crowd's labels are a node of the generalization lattice under which its members share
``u``'s class, so ``u`` pays at least its least cost over the nodes where its class holds
``k`` records (on Adult with ARX's hierarchies, 9–14 % above the attribute bound at
k = 5–25). One walk of the lattice finds it for every record (:func:`lattice_bound`); the
walk's steps (:func:`lattice_top`, :func:`lattice_down`) serve the dual ascent too.

Guarantee: a lower bound on each record's charge in any k-anonymization, so their sum
bounds the optimum. Time :math:`O(N n)` at worst for ``N`` lattice nodes; far less, as
records drop out. Reference: the generalization lattice of Samarati, *Protecting
Respondents' Identities in Microdata Release*, IEEE TKDE 13(6), 2001.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...._runtime import jit
from ....costs import GeneralizationCost
from .._lattice import child_ranks, next_lowered, split_classes
from ._rows import distinct_rows
from .attribute import attribute_terms, narrowest_windows, value_set_cells

__all__ = [
    "LATTICE_NODES",
    "LATTICE_RECORDS",
    "LatticeRows",
    "lattice_bound",
    "lattice_down",
    "lattice_rows",
    "lattice_top",
    "lattice_walks",
]


def lattice_bound(
    model: GeneralizationCost, k: int, walk: LatticeRows | None = None
) -> np.ndarray | None:
    """For every record ``u``: the least cost of ``u`` over the cells that hold ``k``
    records agreeing with ``u`` on them — None when the lattice has more than
    ``LATTICE_NODES`` nodes or the input more than ``LATTICE_RECORDS`` records.

    A crowd ``C ∋ u`` of at least ``k`` records publishes, for each hierarchy attribute, a
    label: an ancestor of ``u``'s value at some level ``l_j``, under which every member
    lies; so the members share ``u``'s ancestors at the levels ``l`` — a node of the
    lattice holding at least ``|C| ≥ k`` such records — and ``u`` pays exactly its cost
    there. A value set or numeric range (a two-level attribute: the value, or not) costs 0
    where every member shares ``u``'s value and otherwise at least the cheapest cell with
    another value (``1 / (domain − 1)``; the gap to the nearest other value), and at least
    :func:`attribute_bound`'s cell. So ``u``'s charge is at least its least cost over the
    nodes where ``k`` records share its class, found by one walk of the lattice that drops
    the records whose class fell below ``k``. Time :math:`O(N n)` at worst for ``N`` nodes;
    far less, as the records drop out. ``walk``: :func:`lattice_rows`, when at hand.
    """
    n = model.n
    if k <= 1 or n < k:
        return np.zeros(n)
    if not lattice_walks(model):
        return None
    walk = walk or lattice_rows(model, k)
    out = np.full(walk.weight.size, np.inf)
    _walk_lattice(walk.offset, walk.ranks, walk.costs, walk.fan, walk.levels, k, walk.top,
                  walk.weight, walk.floor, out)  # fmt: skip
    return out[walk.inverse]


class LatticeRows(NamedTuple):
    """What a walk of the lattice reads, one row per distinct record (see
    :func:`_lattice_columns`): ``ranks``/``costs`` per attribute level, ``fan``, ``levels``
    and ``offset``; each row's class at the top, its number of records (``weight``), its
    ``floor`` per attribute (:func:`attribute_terms`), and each record's row (``inverse``)."""

    offset: np.ndarray
    ranks: np.ndarray
    costs: np.ndarray
    fan: np.ndarray
    levels: np.ndarray
    top: np.ndarray
    weight: np.ndarray
    floor: np.ndarray
    inverse: np.ndarray


def lattice_rows(model: GeneralizationCost, k: int) -> LatticeRows:
    """The distinct rows of ``model`` as a walk of its lattice reads them."""
    offset, ranks, costs, fan, levels = _lattice_columns(model, k)
    first, inverse, weight = distinct_rows(model)
    ranks = np.ascontiguousarray(ranks[:, first])
    costs = np.ascontiguousarray(costs[:, first])
    key = np.zeros(first.size, dtype=np.int64)
    for row in offset[1:] - 1:  # the classes at the top (one unless a hierarchy has several roots)
        key = key * (int(ranks[row].max()) + 1) + ranks[row]
    _, cls = np.unique(key, return_inverse=True)
    floor = np.ascontiguousarray(attribute_terms(model, k)[:, first])
    return LatticeRows(offset, ranks, costs, fan, levels, cls.ravel().astype(np.intp), weight,
                       floor, inverse)  # fmt: skip


def lattice_walks(model: GeneralizationCost) -> bool:
    """Whether :func:`lattice_bound` walks the lattice of ``model`` (or returns None): at
    most ``LATTICE_NODES`` nodes — a number or value set has two levels, a hierarchy its
    height plus one — and at most ``LATTICE_RECORDS`` records."""
    levels = np.where(model.sets, 2, model.height + 1).astype(np.float64)
    nodes = 2.0 ** model.num.shape[1] * float(np.prod(levels))
    return model.n <= LATTICE_RECORDS and nodes <= LATTICE_NODES


#: The lattice bound runs on lattices of at most this many nodes ...
LATTICE_NODES = 50_000
#: ... and on at most this many records (it keeps a few arrays per lattice level).
LATTICE_RECORDS = 2_000_000


def _lattice_columns(
    model: GeneralizationCost, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per attribute and level (row ``offset[j] + l``, the top last): each record's rank
    among its node's siblings (its node's id at the top), its cost there, the most
    siblings, and the number of levels per attribute."""
    n = model.n
    rank_rows, cost_rows, fans, levels = [], [], [], []
    for j in range(model.num.shape[1]):
        values = model.num[:, j]
        distinct, code = np.unique(values, return_inverse=True)
        gap = np.full(distinct.size, 0.0)
        if distinct.size > 1:
            steps = np.diff(distinct)
            gap = np.minimum(np.r_[np.inf, steps], np.r_[steps, np.inf])
        other = model.num_weight[j] * np.maximum(gap[code.ravel()], narrowest_windows(values, k))
        rank_rows += [code.ravel(), np.zeros(n, dtype=np.intp)]
        cost_rows += [np.zeros(n), other]
        fans += [distinct.size, 1]
        levels.append(2)
    cm = model.kernel_args()
    rank, fan = child_ranks(cm)
    for j in range(model.codes.shape[1]):
        leaves = model.codes[:, j]
        w = model.cat_weight[j]
        if model.sets[j]:
            domain = int(model.domain[j])
            other = w * np.maximum(
                1.0 / (domain - 1) if domain > 1 else 0.0, value_set_cells(leaves, k, domain)
            )
            rank_rows += [leaves.astype(np.intp), np.zeros(n, dtype=np.intp)]
            cost_rows += [np.zeros(n), other]
            fans += [int(leaves.max()) + 1, 1]
            levels.append(2)
            continue
        height = int(model.height[j])
        for level in range(height + 1):
            node = model.ancestors[j, level, leaves]
            rank_rows.append(rank[j, level, node] if level < height else node.astype(np.intp))
            cost_rows.append(w * model.node_cost[j, level, node])
            fans.append(int(fan[j, level]) if level < height else int(node.max()) + 1)
        levels.append(height + 1)
    level_count = np.array(levels, dtype=np.intp)
    offset = np.r_[0, np.cumsum(level_count)].astype(np.intp)
    return (
        offset,
        np.ascontiguousarray(np.array(rank_rows, dtype=np.intp).reshape(-1, n)),
        np.ascontiguousarray(np.array(cost_rows, dtype=np.float64).reshape(-1, n)),
        np.array(fans, dtype=np.intp),
        level_count,
    )


@jit()
def _walk_lattice(offset, ranks, costs, fan, levels, k, cls0, weight, floor, out):
    """``out[u]``: the least cost of ``u`` over the lattice nodes where its class holds
    ``k`` records (``weight[u]`` records each), each node once: a node lowers attributes
    from the last one lowered on, so below it the others keep their levels and those it may
    lower cost at least ``floor`` (a class no member of which can get cheaper below is not
    followed further)."""
    walk = lattice_top(offset, costs, levels, cls0)
    rec, cls, row, cnt, n_cls, lv, nxt, names, key = walk
    size = np.zeros(8 * ranks.shape[1] + 1, dtype=np.intp)
    d = 0
    _keep(rec[0], cls[0], row[0], cnt, 0, k, size, weight, out, lv[0], 0, costs, offset, floor)
    while d >= 0:
        j = next_lowered(nxt, lv, cnt, d)
        if j < 0:
            d -= 1
            continue
        lattice_down(walk, d, j, offset, ranks, costs, fan)
        _keep(rec[d + 1], cls[d + 1], row[d + 1], cnt, d + 1, k, size, weight, out, lv[d + 1],
              j, costs, offset, floor)  # fmt: skip
        d += 1


@jit()
def lattice_top(offset, costs, levels, cls0):
    """The state of a walk of the lattice down from its top (one row per distinct record,
    ``cls0`` their classes there): per depth, the rows left, their classes and costs, and
    how many; the classes' count, the levels, the next attribute to lower; scratch."""
    n = costs.shape[1]
    b = levels.size
    depth = 0
    for j in range(b):
        depth += levels[j] - 1
    rec = np.empty((depth + 1, n), dtype=np.intp)
    cls = np.empty((depth + 1, n), dtype=np.intp)
    row = np.empty((depth + 1, n))
    cnt = np.zeros(depth + 1, dtype=np.intp)
    n_cls = np.zeros(depth + 1, dtype=np.intp)
    lv = np.empty((depth + 1, b), dtype=np.intp)
    nxt = np.zeros(depth + 1, dtype=np.intp)
    names = np.full(8 * n + 1, -1, dtype=np.intp)
    key = np.empty(n, dtype=np.intp)
    for u in range(n):
        rec[0, u] = u
        cls[0, u] = cls0[u]
        row[0, u] = 0.0
        for j in range(b):
            row[0, u] += costs[offset[j + 1] - 1, u]
    cnt[0] = n
    n_cls[0] = cls0.max() + 1 if n else 0
    for j in range(b):
        lv[0, j] = levels[j] - 1
    return rec, cls, row, cnt, n_cls, lv, nxt, names, key


@jit()
def lattice_down(walk, d, j, offset, ranks, costs, fan):
    """One step of a walk (:func:`lattice_top`) from depth ``d`` down to ``d + 1``, lowering
    attribute ``j`` by one level: classes split, costs updated."""
    rec, cls, row, cnt, n_cls, lv, nxt, names, key = walk
    level = lv[d, j] - 1
    r = offset[j] + level
    m = cnt[d]
    c = split_classes(rec[d], cls[d], m, n_cls[d], ranks[r], fan[r], names, key, rec[d + 1],
                      cls[d + 1])  # fmt: skip
    for t in range(m):
        u = rec[d, t]
        row[d + 1, t] = row[d, t] + costs[r, u] - costs[r + 1, u]
    cnt[d + 1] = m
    n_cls[d + 1] = c
    lv[d + 1] = lv[d]
    lv[d + 1, j] = level
    nxt[d + 1] = j


@jit()
def _keep(rec, cls, row, cnt, d, k, size, weight, out, lv, low, costs, offset, floor):
    """Keep the records whose class holds ``k`` (their cost here bounds theirs); drop the
    others, for good: below, classes only split. Drop too the classes none of whose members
    can get cheaper below (attributes ``low ..`` lowered at best to their ``floor``)."""
    m = cnt[d]
    for t in range(m):
        size[cls[t]] += weight[rec[t]]
    held = np.empty(m, dtype=np.bool_)
    for t in range(m):
        held[t] = size[cls[t]] >= k
    for t in range(m):
        size[cls[t]] = 0
    for t in range(m):
        if held[t]:
            u = rec[t]
            if row[t] < out[u]:
                out[u] = row[t]
            slack = 0.0
            for j in range(low, lv.size):
                slack += costs[offset[j] + lv[j], u] - floor[j, u]
            if row[t] - slack < out[u] - 1e-12 * (1.0 + out[u]):
                size[cls[t]] = 1  # a member may still get cheaper: follow the class
    kept = 0
    for t in range(m):
        if held[t] and size[cls[t]] > 0:
            rec[kept] = rec[t]
            cls[kept] = cls[t]
            row[kept] = row[t]
            kept += 1
    for t in range(kept):
        size[cls[t]] = 0
    cnt[d] = kept
