"""Starting crowds for the specialization: global recodings of what is left, one after another.

Each round looks for one set of hierarchy levels (a node of the generalization lattice) for
the records not yet placed: generalized to those levels, the records fall into classes of
equal labels; classes of at least ``k`` records are kept as crowds, the others wait for the
next round, and fewer than ``k`` records never wait alone. This is the iterated global
recoding of ARX's local recoding, with a search of the lattice that descends from the top,
one attribute one level at a time, in place of ARX's; the specialization then refines every
class on its own. Two rules choose the node:

- **mean** (:func:`mean_classes`): the node of least mean cost per kept record that a beam
  search descending from the top finds (a few nodes kept per step);
- **priced** (:func:`global_classes`): to the child with the least
  ``Σ kept costs + wait · (records waiting)``, while that falls, where ``wait`` prices a
  waiting record (what it is expected to cost later).

A step of the mean rule refines the current classes (class, child of its node), so it costs
:math:`O(m)` for ``m`` records left, compiled; a round :math:`O(w m b \\sum_j l_j)` for a beam
of ``w`` nodes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._runtime import jit, report_progress
from ._lattice import child_ranks, dense_keys

__all__ = ["global_classes", "mean_classes"]

#: The running key of a class is compressed when it would pass this bound.
_KEY_LIMIT = 2**52
#: Dense counting of (class, child) keys while their range stays within this many per record;
#: beyond it (flat attributes with huge domains) the keys are sorted instead.
_DENSE_PER_RECORD = 8

# one walk of the lattice: (records left) -> (levels, class of every record, kept)
Walk = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def _label_key(records: np.ndarray, levels: np.ndarray, cm: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Dense class of every record at ``levels`` (equal labels, equal class) and its cost."""
    codes, ancestors, node_cost, weight = cm[2], cm[3], cm[4], cm[8]
    key = np.zeros(records.size, dtype=np.int64)
    cost = np.zeros(records.size)
    bound = 1
    for j in range(codes.shape[1]):
        node = ancestors[j, levels[j], codes[records, j]]
        cost += weight[j] * node_cost[j, levels[j], node]
        width = int(node.max()) + 1
        if bound * width > _KEY_LIMIT:
            _, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            bound = int(key.max()) + 1
        key = key * width + node
        bound *= width
    _, inverse = np.unique(key, return_inverse=True)
    return inverse.ravel().astype(np.intp), cost


def _priced(
    records: np.ndarray, levels: np.ndarray, k: int, wait: float, cm: tuple
) -> tuple[float, np.ndarray | None, np.ndarray | None]:
    """Objective, class of every record and which are kept, for ``records`` at ``levels``;
    an infinite objective when fewer than ``k`` (but some) records would wait."""
    inverse, cost = _label_key(records, levels, cm)
    kept = np.bincount(inverse)[inverse] >= k
    waiting = int(records.size - kept.sum())
    if 0 < waiting < k:
        return np.inf, None, None
    return float(cost[kept].sum() + wait * waiting), inverse, kept


def _priced_walk(k: int, wait: float, cm: tuple) -> Walk:
    height = cm[5]

    def walk(left: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        levels = height.copy()
        value, inverse, kept = _priced(left, levels, k, wait, cm)
        while True:
            best = (value, -1, inverse, kept)
            for j in range(height.size):
                if levels[j] == 0:
                    continue
                levels[j] -= 1
                trial = _priced(left, levels, k, wait, cm)
                levels[j] += 1
                if trial[0] < best[0]:
                    best = (trial[0], j, trial[1], trial[2])
            if best[1] < 0:
                break
            levels[best[1]] -= 1
            value, _, inverse, kept = best
        assert inverse is not None and kept is not None
        return levels, inverse, kept

    return walk


@jit()
def _round_columns(left, cm, rank):
    """Per attribute ``j`` and level ``l`` (row ``offset[j] + l``): each record's rank among
    its node's siblings and its weighted cost there, laid out contiguously for the walk."""
    codes, ancestors, node_cost, height, weight = cm[2], cm[3], cm[4], cm[5], cm[8]
    b = codes.shape[1]
    m = left.size
    offset = np.zeros(b + 1, dtype=np.intp)
    for j in range(b):
        offset[j + 1] = offset[j] + height[j] + 1
    ranks = np.zeros((offset[b], m), dtype=np.intp)
    costs = np.zeros((offset[b], m))
    for j in range(b):
        for level in range(height[j] + 1):
            s = offset[j] + level
            for i in range(m):
                v = ancestors[j, level, codes[left[i], j]]
                ranks[s, i] = rank[j, level, v]
                costs[s, i] = weight[j] * node_cost[j, level, v]
    return offset, ranks, costs


@jit()
def _keys(cls, n_cls, lv, j, columns, fan, key, width):
    """Key (class, child one level below ``lv[j]``) of every record into ``key``, below
    ``width`` when the keys' range fits it, else compressed by sorting (below ``m``)."""
    offset, ranks = columns[0], columns[1]
    m = cls.size
    level = lv[j] - 1
    new = offset[j] + level
    f = fan[j, level]
    for i in range(m):
        key[i] = cls[i] * f + ranks[new, i]
    if n_cls * f > width:
        return dense_keys(key)
    return n_cls * f


@jit()
def _count_distinct(key, bound, sens, n_sens, distinct, pairs):
    """``distinct[c]``: the number of distinct ``sens`` codes of the records of key ``c``
    (``distinct`` zero before; ``pairs`` zeros, left so)."""
    m = key.size
    if bound * n_sens <= pairs.size:
        for i in range(m):
            p = key[i] * n_sens + sens[i]
            if pairs[p] == 0:
                pairs[p] = 1
                distinct[key[i]] += 1
        for i in range(m):
            pairs[key[i] * n_sens + sens[i]] = 0
        return
    pair = np.empty(m, dtype=np.int64)
    for i in range(m):
        pair[i] = np.int64(key[i]) * n_sens + sens[i]
    order = np.argsort(pair)
    for t in range(m):
        if t == 0 or pair[order[t]] != pair[order[t - 1]]:
            distinct[key[order[t]]] += 1


@jit()
def _evaluate(cls, n_cls, row, lv, j, columns, fan, k, key, counts, diverse):
    """Records kept (in classes of ``k``, each with ``ell`` distinct sensitive codes) one
    level below ``lv[j]``, and their cost. ``columns``: :func:`_round_columns`;
    ``counts``: zeros, left so; ``diverse``: ``(sens, ell, n_sens, distinct, pairs)``,
    the records' codes and zeroed scratch."""
    bound = _keys(cls, n_cls, lv, j, columns, fan, key, counts.size)
    sens, ell, n_sens, distinct, pairs = diverse
    costs = columns[2]
    new = columns[0][j] + lv[j] - 1
    m = cls.size
    for i in range(m):
        counts[key[i]] += 1
    if ell >= 2:
        _count_distinct(key, bound, sens, n_sens, distinct, pairs)
    kept = 0
    total = 0.0
    for i in range(m):
        if counts[key[i]] >= k and (ell < 2 or distinct[key[i]] >= ell):
            kept += 1
            total += row[i] + costs[new, i] - costs[new + 1, i]
    for i in range(m):
        counts[key[i]] = 0
    if ell >= 2:
        for i in range(m):
            distinct[key[i]] = 0
    return kept, total


@jit()
def _child(cls, n_cls, row, lv, j, columns, fan, key, names, out_cls, out_row):
    """Classes and record costs one level below ``lv[j]`` (into ``out_cls``, ``out_row``);
    returns the number of classes. ``names``: ``-1``, left so."""
    _keys(cls, n_cls, lv, j, columns, fan, key, names.size)
    costs = columns[2]
    new = columns[0][j] + lv[j] - 1
    n_out = 0
    for i in range(cls.size):
        out_row[i] = row[i] + costs[new, i] - costs[new + 1, i]
        if names[key[i]] < 0:
            names[key[i]] = n_out
            n_out += 1
        out_cls[i] = names[key[i]]
    for i in range(cls.size):
        names[key[i]] = -1
    return n_out


@jit()
def _mean_walk(left, k, cm, rank, fan, cls0, n_cls0, width, sens, ell):
    """The lattice node (levels) of least mean cost per kept record that a beam of
    ``width`` nodes finds descending from the top classes ``cls0``; a class is kept when it
    holds ``k`` records and ``ell`` distinct codes ``sens`` (of the records ``left``).

    Each step lowers every node of the beam by one level of each attribute in turn; the
    ``width`` children of least mean cost (some record kept) form the next beam. A child
    where fewer than ``k`` records would wait is never chosen but stays in the beam, as
    nodes below it may be valid. As wide as the lattice's widest rank, the search is
    exhaustive."""
    height = cm[5]
    b = height.size
    m = left.size
    columns = _round_columns(left, cm, rank)
    offset, costs = columns[0], columns[2]
    cls = np.zeros((width, m), dtype=np.intp)
    row = np.zeros((width, m))
    lv = np.zeros((width, b), dtype=np.intp)
    n_cls = np.zeros(width, dtype=np.intp)
    cls[0] = cls0
    n_cls[0] = n_cls0
    lv[0] = height
    for j in range(b):
        row[0] += costs[offset[j] + height[j]]
    n_beam = 1
    best = row[0].sum() / m
    best_lv = height.copy()
    counts = np.zeros(_DENSE_PER_RECORD * m + 1, dtype=np.intp)
    names = np.full(counts.size, -1, dtype=np.intp)
    n_sens = sens.max() + 1
    diverse = (
        sens,
        ell,
        n_sens,
        np.zeros(counts.size if ell >= 2 else 1, dtype=np.intp),
        np.zeros(2 * counts.size if ell >= 2 else 1, dtype=np.intp),
    )
    key = np.empty(m, dtype=np.intp)
    next_cls = np.zeros((width, m), dtype=np.intp)
    next_row = np.zeros((width, m))
    next_lv = np.zeros((width, b), dtype=np.intp)
    next_n = np.zeros(width, dtype=np.intp)
    mean = np.empty(width * b)
    valid = np.empty(width * b, dtype=np.bool_)
    source = np.empty(width * b, dtype=np.intp)
    attr = np.empty(width * b, dtype=np.intp)
    while n_beam > 0:
        found = 0
        for s in range(n_beam):
            for j in range(b):
                if lv[s, j] == 0:
                    continue
                seen = False  # the same node, reached from another node of the beam
                for t in range(found):
                    same = True
                    for a in range(b):
                        if lv[source[t], a] - (a == attr[t]) != lv[s, a] - (a == j):
                            same = False
                            break
                    if same:
                        seen = True
                        break
                if seen:
                    continue
                kept, total = _evaluate(
                    cls[s], n_cls[s], row[s], lv[s], j, columns, fan, k, key, counts, diverse
                )
                if kept == 0:  # and none below: classes only split further
                    continue
                mean[found] = total / kept
                # fewer than k waiting: not a choice, but nodes below it may be
                valid[found] = m - kept == 0 or m - kept >= k
                source[found] = s
                attr[found] = j
                found += 1
        order = np.argsort(mean[:found])[:width]
        for t in range(order.size):
            s, j = source[order[t]], attr[order[t]]
            next_n[t] = _child(
                cls[s],
                n_cls[s],
                row[s],
                lv[s],
                j,
                columns,
                fan,
                key,
                names,
                next_cls[t],
                next_row[t],
            )
            next_lv[t] = lv[s]
            next_lv[t, j] -= 1
            if valid[order[t]] and mean[order[t]] < best:
                best = mean[order[t]]
                best_lv = next_lv[t].copy()
        n_beam = order.size
        cls, next_cls = next_cls, cls
        row, next_row = next_row, row
        lv, next_lv = next_lv, lv
        n_cls, next_n = next_n, n_cls
    return best_lv


def _rounds(n: int, walk: Walk, height: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rounds of ``walk`` until every record is placed: ``(perm, bounds, levels)``."""
    b = height.size
    left = np.arange(n)
    parts: list[np.ndarray] = []
    part_levels: list[np.ndarray] = []
    while left.size:
        levels, inverse, kept = walk(left)
        if not kept.any():  # nothing worth keeping below the top: one class of all that is left
            levels = height.copy()
            inverse = np.zeros(left.size, dtype=np.intp)
            kept = np.ones(left.size, dtype=bool)
        order = np.argsort(inverse[kept], kind="stable")
        members = left[kept][order]
        cls = inverse[kept][order]
        starts = np.flatnonzero(np.r_[True, cls[1:] != cls[:-1]])
        parts += np.split(members, starts[1:])
        part_levels += [levels.copy()] * starts.size
        left = left[~kept]
        report_progress(n - left.size, n)
    perm = np.concatenate(parts) if parts else np.zeros(0, dtype=np.intp)
    bounds = np.r_[0, np.cumsum([p.size for p in parts])].astype(np.intp)
    levels_out = np.array(part_levels, dtype=np.intp).reshape(len(parts), b)
    return perm.astype(np.intp), bounds, levels_out


def global_classes(
    n: int, k: int, wait: float, cm: tuple
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rounds of the priced rule: ``(perm, bounds, levels)``; class ``c`` is
    ``perm[bounds[c]:bounds[c + 1]]``, published at the hierarchy levels ``levels[c]``
    (``cm``: the cost's kernel arrays)."""
    return _rounds(n, _priced_walk(k, wait, cm), cm[5])


def mean_classes(
    n: int, k: int, cm: tuple, width: int = 4, sens: np.ndarray | None = None, ell: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rounds of the mean rule, a beam of ``width`` lattice nodes: ``(perm, bounds, levels)``
    as :func:`global_classes`. With ``ell`` ≥ 2 a class is kept only when it also holds
    ``ell`` distinct ``sens`` codes (distinct l-diversity) while any such class is found;
    the records then left form k-anonymous classes (to be repaired)."""
    rank, fan = child_ranks(cm)
    height = cm[5]
    codes = np.zeros(n, dtype=np.intp) if sens is None else np.asarray(sens, dtype=np.intp)
    ell = int(ell) if sens is not None else 0

    def walk(left: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top, _ = _label_key(left, height, cm)
        mine = np.ascontiguousarray(codes[left])
        for diverse in (ell, 0):  # no l-diverse class left: the rest as k-anonymous ones
            levels = _mean_walk(
                left, k, cm, rank, fan, top, int(top.max()) + 1, width, mine, diverse
            )
            inverse, _ = _label_key(left, levels, cm)
            kept = np.bincount(inverse)[inverse] >= k
            if diverse >= 2:
                n_sens = int(mine.max()) + 1
                pairs = np.unique(inverse * n_sens + mine) // n_sens
                kept &= np.bincount(pairs, minlength=inverse.max() + 1)[inverse] >= diverse
            if kept.any():
                break
        return levels, inverse, kept

    return _rounds(n, walk, height)
