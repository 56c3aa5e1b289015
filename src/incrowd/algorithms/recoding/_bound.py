"""A per-record lower bound on the generalization cost, attribute by attribute.

In any k-anonymization a record ``u`` shares its crowd with at least ``k − 1`` others, and
the crowd publishes, for each attribute ``j``, one cell covering all of their values. So
``u``'s charge (its crowd's cost per record) is at least ``Σ_j w_j b_j(u)``, where
``b_j(u)`` is the cost of the cheapest cell of attribute ``j`` that holds ``u``'s value and
the values of at least ``k`` records of the input:

- a **hierarchy label** holds the records under it; costs never decrease up the hierarchy,
  so ``b_j(u)`` is the cost of the lowest ancestor of ``u``'s value with ``k`` records
  under it;
- a **numeric range** holding ``u``'s value and ``k`` records is at least as wide as the
  narrowest window of ``k`` consecutive sorted values that contains ``u``'s position;
- a **value set** holding ``u``'s value and ``k`` records has at least ``1 + m`` values,
  ``m`` the fewest values whose counts reach the ``k − count(u's value)`` records missing;
  taking the largest counts (``u``'s own value among them) gives a smaller ``m``, so the
  bound stays valid.

Each is a lower bound for its attribute whatever the other attributes do, so their sum is
one for the record, and the sum over records is one for the optimum. Time
:math:`O(n (k + b L))`.

:func:`lattice_bound` couples the attributes: the crowd's labels are a node of the
generalization lattice under which its members share ``u``'s class, so ``u`` pays at least
its least cost over the nodes where its class holds ``k`` records (on Adult with ARX's
hierarchies, 9–14 % above the attribute bound at k = 5–25). :func:`subset_bound` does the
same for value sets and ranges, where a crowd either shares ``u``'s value on an attribute
or holds, within the class of the attributes it shares, enough other values for ``k``
records. :func:`crowd_bound` prices the crowds among each record's nearest records, and
:func:`excess_bound` adds what every crowd of a record costs beyond the mean of its
members' terms.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._runtime import chunked, chunks, jit, threads
from ...costs import GeneralizationCost
from ...costs.kernels import record_cost
from ._seed import child_ranks, next_lowered, split_classes

__all__ = ["attribute_bound", "crowd_bound", "excess_bound", "lattice_bound", "subset_bound"]


def attribute_bound(model: GeneralizationCost, k: int) -> np.ndarray:
    """``Σ_j w_j b_j(u)`` for every record ``u`` (see the module's docstring)."""
    return attribute_terms(model, k).sum(axis=0)


def attribute_terms(model: GeneralizationCost, k: int) -> np.ndarray:
    """``w_j b_j(u)``: one row per attribute (the numeric ones first, as in ``model``)."""
    n = model.n
    out = np.zeros((model.num.shape[1] + model.codes.shape[1], n))
    if k <= 1 or n < k:
        return out
    for j in range(model.num.shape[1]):
        out[j] = model.num_weight[j] * _numeric(model.num[:, j], k)
    a = model.num.shape[1]
    for j in range(model.codes.shape[1]):
        leaves = model.codes[:, j]
        if model.sets[j]:
            out[a + j] = model.cat_weight[j] * _value_set(leaves, k, int(model.domain[j]))
        else:
            out[a + j] = model.cat_weight[j] * _label(model, j, leaves, k)
    return out


def _numeric(values: np.ndarray, k: int) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    x = values[order]
    n = x.size
    window = x[k - 1 :] - x[: n - k + 1]  # width of the window starting at each position
    padded = np.concatenate([np.full(k - 1, np.inf), window, np.full(k - 1, np.inf)])
    # position p lies in the windows starting at p − k + 1 .. p
    narrowest = sliding_window_view(padded, k).min(axis=1)[:n]
    out = np.empty(n)
    out[order] = narrowest
    return out


def _label(model: GeneralizationCost, j: int, leaves: np.ndarray, k: int) -> np.ndarray:
    height = int(model.height[j])
    codes, inverse = np.unique(leaves, return_inverse=True)
    cost = np.full(codes.size, np.nan)
    for level in range(height + 1):  # the top holds all n >= k records: every value hits
        nodes = model.ancestors[j, level]
        under = np.bincount(nodes[leaves], minlength=nodes.max() + 1)
        hit = np.isnan(cost) & (under[nodes[codes]] >= k)
        cost[hit] = model.node_cost[j, level, nodes[codes[hit]]]
    return cost[inverse.ravel()]


def _value_set(leaves: np.ndarray, k: int, domain: int) -> np.ndarray:
    if domain <= 1:
        return np.zeros(leaves.size)
    codes, inverse, counts = np.unique(leaves, return_inverse=True, return_counts=True)
    reach = np.cumsum(np.sort(counts)[::-1])  # records held by the m + 1 largest values
    missing = np.maximum(k - counts, 0)
    others = np.where(missing > 0, np.searchsorted(reach, missing) + 1, 0)
    return (others / (domain - 1))[inverse.ravel()]


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
    first, inverse, weight = _distinct_rows(model)
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


def _distinct_rows(model: GeneralizationCost) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, inverse, weight)``: equal records go through a walk together, one row
    each, weighing their number."""
    rows = np.column_stack([model.num, model.codes.astype(np.float64)])
    _, first, inverse, weight = np.unique(
        rows, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return first, inverse.ravel(), weight.astype(np.intp)


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
        other = model.num_weight[j] * np.maximum(gap[code.ravel()], _numeric(values, k))
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
                1.0 / (domain - 1) if domain > 1 else 0.0, _value_set(leaves, k, domain)
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
    first, inverse, weight = _distinct_rows(model)
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


#: Nearest records among which :func:`crowd_bound` and :func:`excess_bound` look for each
#: record's crowds (on Adult with value sets at k = 5 the crowd bound alone rises 3 %, 10 %
#: and 14 % with 8, 16 and 32; with the excess bound the certified ratio is 2.017 with 32,
#: 2.000 with 40 and 1.993 with 48, the release 3.9 s).
CROWD_NEIGHBOURS = 48
#: Crowds each search prices per record before it gives that record up (its term then 0):
#: on Adult at k = 5, 1,000 give up often enough to lose half the crowd bound's gain,
#: 3,000 keep it; the excess bound gains 3.1 % with 3,000, 2.5 % with 1,500.
CROWD_BUDGET = 3_000
#: The two searches run up to this k: on Adult at k = 10 they lower the certified ratio
#: from 3.22 to 3.13 but take the release from 3.3 to 13.8 s.
CROWD_BOUND_MAX_K = 5
#: ... and up to this many records: their lists of ``CROWD_NEIGHBOURS`` cost more than the
#: release (``python benchmarks/crowd_searches.py``; census rows with zip codes, k = 5, the
#: release the same): 100,000 rows 39.5 s with the searches, 21.5 s without (certified
#: ratio 1.63 against 1.88); 200,000 rows 120 s against 53 s (1.63 against 1.86).
CROWD_BOUND_MAX_ROWS = 100_000


def crowd_bound(model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """For every record ``u``: the least per-record cost of a crowd of ``u`` and ``k − 1``
    of its listed nearest records (``idx``, each row sorted by pair cost ``dist``), or its
    pair cost with the last listed record if that is less; 0 for a record whose search
    prices more than ``CROWD_BUDGET`` crowds.

    A crowd's per-record cost never falls when a member joins (ranges, value sets and
    labels only widen). Let ``C ∋ u`` be any crowd of at least ``k`` records. If ``k − 1``
    of its other members are listed, ``C`` costs at least the crowd of ``u`` and those
    ``k − 1``, which the search prices (it skips only crowds holding a record whose pair
    cost with ``u`` reaches the best found, and crowds holding a part that already costs
    that much: neither can be cheaper; the best found starts at the last listed pair cost,
    the term's cap, unless the lists hold every other record); otherwise ``C`` holds an
    unlisted record ``w``, and costs at least ``u`` with ``w`` alone, at least the last
    listed pair cost.
    So ``u``'s charge in any k-anonymization is at least the term, and the sum bounds the
    optimum. Where the lists hold every other record the term is the least cost of a crowd
    of ``u`` exactly. Time :math:`O(n · CROWD\\_BUDGET · k b)` at worst; compiled.
    """
    return _searched(_crowd_search, model, k, dist, idx)


@jit()
def _crowd_search(dist, idx, k, cm, scratch, budget, complete, lo, hi):
    """The terms of :func:`crowd_bound` for the records ``lo .. hi − 1``."""
    width = dist.shape[1]
    out = np.zeros(hi - lo)
    stamp, members, pick = _search_state(k, scratch)
    tick, step = 1, cm[2].shape[1] + 1
    for u in range(lo, hi):
        members[0] = u
        # the term is at most the last listed pair cost: no dearer crowd need be priced
        best = np.inf if complete else dist[u, width - 1]
        spent = 0
        depth = 0  # members[1 .. depth + 1] are the listed records picks[0 .. depth] name
        pick[0] = -1
        while depth >= 0:
            spent += 1
            if spent > budget:
                best = -1.0
                break
            pick[depth] += 1
            i = pick[depth]
            # the rest of the crowd needs k − 2 − depth records listed after i; a record
            # whose pair cost reaches the best makes no cheaper crowd, nor any after it
            if i > width - (k - 1 - depth) or dist[u, i] >= best:
                depth -= 1
                continue
            members[depth + 1] = idx[u, i]
            g = record_cost(members[: depth + 2], cm, stamp, tick)
            tick += step
            if g >= best:
                continue
            if depth + 2 == k:
                best = g
                continue
            depth += 1
            pick[depth] = i
        if best < 0:
            out[u - lo] = 0.0
        elif complete:
            out[u - lo] = best
        else:
            out[u - lo] = min(best, dist[u, width - 1])
    return out


def excess_bound(
    model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray, terms: np.ndarray
) -> np.ndarray:
    """What may be added to per-record ``terms`` that each bound every crowd of their
    record (as the terms of the other bounds here do): for every record ``u``,
    ``s_u = max(0, min(k e_u, d_W(u) − y_u)) / (2k − 1)``, where ``y`` are the terms,
    ``e_u`` the least ``g(S) − ȳ_S`` over the crowds ``S`` of ``u`` and ``k − 1`` of its
    listed nearest records (``g``: per-record cost, ``ȳ_S``: the mean of ``y`` over ``S``)
    and ``d_W(u)`` its last listed pair cost; 0 for a record whose search prices more than
    ``CROWD_BUDGET`` crowds.

    For any numbers ``y``, a k-anonymization with crowds ``C`` costs
    ``Σ_C |C| g(C) = Σ_u y_u + Σ_u (g(C_u) − ȳ_{C_u})``; some optimal one has crowds of
    fewer than ``2k`` records (a larger crowd splits into two of ``k`` or more, neither
    dearer per record). As every ``y_v`` is at most ``g`` of every crowd of ``v``, each
    share ``g(C) − y_v`` is at least 0. Let ``u`` be in such a crowd ``C``. If ``C`` holds
    only listed records, ``k`` of them with ``u`` form ``S ⊆ C``, and
    ``|C| (g(C) − ȳ_C) ≥ Σ_{v∈S} (g(C) − y_v) ≥ Σ_{v∈S} (g(S) − y_v) ≥ k e_u`` (costs never
    fall when a member joins); otherwise ``C`` holds an unlisted ``w``, and
    ``|C| (g(C) − ȳ_C) ≥ g(C) − y_u ≥ d_W(u) − y_u``. Either way
    ``g(C_u) − ȳ_{C_u} ≥ s_u``, so the optimum is at least ``Σ_u (y_u + s_u)``. Where the
    lists hold every other record, the second case does not arise and ``s_u = k e_u /
    (2k − 1)``.

    The search for ``e_u`` prunes a partial crowd ``P`` when even its cheapest completion
    costs as much as the best found: each member's share is at least ``max(0, g(P) − y_v)``,
    and a member still to come at list position ``t`` also at least its pair cost
    ``dist[u, t] − y_v`` — the ``k − |P|`` least of those are added. Time
    :math:`O(n · CROWD\\_BUDGET · k (b + W))` at worst, on :func:`~incrowd._runtime.threads`
    threads; compiled.
    """
    return _searched(_excess_search, model, k, dist, idx, np.asarray(terms, dtype=np.float64))


def _searched(
    search: Any, model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray, *data: Any
) -> np.ndarray:
    """``search(dist, idx, *data, k, cm, scratch, budget, complete, lo, hi)``, one compiled
    search per record, over ranges of records on :func:`~incrowd._runtime.threads` threads
    (the kernels release the GIL): its terms for every record."""
    n, width = dist.shape
    if k <= 1 or n < k or width < k - 1:
        return np.zeros(n)
    cm = model.kernel_args()
    scratch = max(model.ancestors.shape[2], 1)
    dist, idx = np.ascontiguousarray(dist), np.ascontiguousarray(idx)
    data = tuple(np.ascontiguousarray(d) for d in data)
    complete = width >= n - 1
    parts = chunked(
        lambda lo, hi: search(dist, idx, *data, k, cm, scratch, CROWD_BUDGET, complete, lo, hi),
        chunks(n, 4 * threads(), minimum=256),
    )
    return np.concatenate(parts)


@jit()
def _search_state(k, scratch):
    """A search's scratch: the stamps of :func:`~incrowd.costs.kernels.record_cost`, the
    crowd's members and the list positions picked."""
    return np.zeros(scratch, dtype=np.int64), np.empty(k, dtype=np.intp), np.empty(k, dtype=np.intp)


@jit()
def _excess_search(dist, idx, y, k, cm, scratch, budget, complete, lo, hi):
    """``s_u`` of :func:`excess_bound` for the records ``lo .. hi − 1``."""
    width = dist.shape[1]
    out = np.zeros(hi - lo)
    stamp, members, pick = _search_state(k, scratch)
    tick, step = 1, cm[2].shape[1] + 1
    total = np.empty(k)  # total[p]: Σ y over members[0 .. p]
    cost = np.zeros(k)  # cost[p]: g of members[0 .. p]
    shares = np.zeros(k)  # shares[p]: Σ max(0, cost[p] − y_v) over members[0 .. p]
    low = np.empty(k)
    for u in range(lo, hi):
        cap = np.inf if complete else dist[u, width - 1] - y[u]
        if cap <= 0:
            continue
        best = cap / k  # e_u matters only below this
        members[0] = u
        total[0] = y[u]
        spent = 0
        depth = 0  # members[1 .. depth + 1] are the listed records pick[0 .. depth] name
        pick[0] = -1
        gave_up = False
        while depth >= 0:
            spent += 1
            if spent > budget:
                gave_up = True
                break
            pick[depth] += 1
            i = pick[depth]
            if i > width - (k - 1 - depth):
                depth -= 1
                continue
            v = idx[u, i]
            # no crowd with v and what is picked can cost less than these shares
            if shares[depth] + max(0.0, cost[depth] - y[v], dist[u, i] - y[v]) >= k * best:
                continue
            members[depth + 1] = v
            size = depth + 2
            g = record_cost(members[:size], cm, stamp, tick)
            tick += step
            with_i = total[depth] + y[v]
            if size == k:
                best = min(best, g - with_i / k)
                continue
            floor = _completion_floor(g, members, size, idx[u], dist[u], y, i + 1, k - size, low)
            if floor >= k * best:
                continue
            total[depth + 1] = with_i
            cost[depth + 1] = g
            shares[depth + 1] = _shares(g, members, size, y)
            depth += 1
            pick[depth] = i
        if not gave_up and best < np.inf:
            out[u - lo] = max(0.0, min(k * best, cap)) / (2 * k - 1)
    return out


@jit()
def _completion_floor(g, members, size, near, dist, y, start, need, low):
    """Least ``Σ_{v∈S} (g(S) − y_v)`` over the crowds ``S`` that add ``need`` records listed
    from ``start`` on to ``members[:size]`` (of cost ``g``): see :func:`excess_bound`."""
    floor = _shares(g, members, size, y)
    m = 0  # the ``need`` least shares of the records still to come, sorted, in low[:m]
    for t in range(start, near.size):
        share = max(0.0, g - y[near[t]], dist[t] - y[near[t]])
        if m < need:
            q = m
            m += 1
        elif share < low[m - 1]:
            q = m - 1
        else:
            continue
        while q > 0 and low[q - 1] > share:
            low[q] = low[q - 1]
            q -= 1
        low[q] = share
    if m < need:
        return np.inf
    for q in range(need):
        floor += low[q]
    return floor


@jit()
def _shares(g, members, size, y):
    """``Σ max(0, g − y_v)`` over ``members[:size]``."""
    total = 0.0
    for q in range(size):
        total += max(0.0, g - y[members[q]])
    return total
