"""Seeds of local recoding by the cheapest classes first (numba).

A candidate is a class of a lattice node — the records that share their hierarchy labels at
the node's levels — holding at least ``k`` records; every member would pay the same cost
there. Taken in order of that cost (ties: the class with more records unplaced at the start
of its phase first), a candidate becomes a
class of the seeds when at least ``k`` of its members are still unplaced, and takes them
all. A member never leaves a cheaper class for it: every cheaper candidate holding it was
taken before (and took it) or had fewer than ``k`` members left, a count that only falls. So
each record pays the least cost over the classes still open to it, and a record whose
cheapest class of ``k`` (its term of the lattice bound) is taken pays exactly its term.
Records left at the end (fewer than ``k``: the top node's class takes the rest otherwise)
join the class whose cost they raise least.

Iterated global recoding (:mod:`incrowd.algorithms.recoding._seed`, ARX's local recoding)
takes every class of ``k`` of one lattice node per round, chosen by the mean cost of its
classes; this takes single classes of any node, so a cheap class is never passed over for
its node's dear ones. On Adult with every QI a hierarchy label, the crowds improved alike
lose 0.0517 / 0.0763 / 0.1148 NCP at k = 5 / 10 / 25 against 0.0532 / 0.0792 / 0.1175, and
the seeds take 0.7–0.9 s against 1.1–1.2 s (``benchmarks/adult.py``).

Two phases keep the lists short: the classes costing at most ``CHEAP_SHARE`` of a row's
whole cost, found by hashing every row's labels at each node that has one (about a sixth
of the nodes on Adult, sharing the threads), then every class of the rows left, by one walk
of the lattice. Time :math:`O(N m b)` for ``N`` lattice nodes and ``m`` distinct rows (of
the hierarchy codes); memory: the lists of members, one two-byte entry per row and node
listed at most.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...costs.kernels import record_cost
from ._class_lists import first_phase, row_tables, walked

__all__ = ["TABLE_CELLS", "cheapest_classes"]

#: The seeds list the members of classes when a phase can list at most this many (row,
#: node) entries, two bytes each (Adult lists far fewer; ``benchmarks/adult.py``); beyond,
#: iterated global recoding is used.
TABLE_CELLS = 1 << 27
#: The first phase lists the classes costing at most this share of a row's whole cost: most
#: records are placed there, at a sixth of the nodes (Adult, ``benchmarks/adult.py``).
CHEAP_SHARE = 0.25


@jit()
def _cheapest_first(members, c_start, c_end, order, weight, k):
    """Take the candidates in ``order``: one with ``k`` unplaced records takes them all
    (candidate ``t``'s rows: ``members[c_start[t]:c_end[t]]``). Returns each row's class
    (−1: left over) and each class's candidate."""
    m = weight.size
    placed = np.full(m, -1, dtype=np.intp)
    taken = np.empty(order.size, dtype=np.intp)
    n_taken = 0
    for t in order:
        free = 0
        for i in range(c_start[t], c_end[t]):
            if placed[members[i]] < 0:
                free += weight[members[i]]
        if free < k:
            continue
        for i in range(c_start[t], c_end[t]):
            if placed[members[i]] < 0:
                placed[members[i]] = n_taken
        taken[n_taken] = t
        n_taken += 1
    return placed, taken[:n_taken]


@jit()
def _least_raise(perm, bounds, extra, cm):
    """The class ``perm[bounds[c]:bounds[c + 1]]`` whose cost rises least by taking the
    records ``extra``."""
    width = max(cm[3].shape[2], 1)
    step = cm[2].shape[1] + 1  # the marks one cost leaves in ``stamp``
    stamp = np.zeros(width, dtype=np.int64)
    tick = 1
    best, best_c = np.inf, 0
    joined = np.empty(perm.size + extra.size, dtype=np.intp)
    for c in range(bounds.size - 1):
        lo, hi = bounds[c], bounds[c + 1]
        s = hi - lo
        joined[:s] = perm[lo:hi]
        joined[s : s + extra.size] = extra
        before = s * record_cost(perm[lo:hi], cm, stamp, tick)
        tick += step
        after = (s + extra.size) * record_cost(joined[: s + extra.size], cm, stamp, tick)
        tick += step
        if after - before < best:
            best, best_c = after - before, c
    return best_c


def _levels(c_node: np.ndarray, height: np.ndarray) -> np.ndarray:
    """The levels of each node code (a mixed-radix number, the first attribute highest)."""
    below = np.r_[np.cumprod((height + 1)[::-1])[::-1][1:], 1]  # nodes per step of level j
    return ((c_node[:, None] // below) % (height + 1)).astype(np.intp)


def cheapest_classes(
    n: int, k: int, cm: tuple, cells: int = TABLE_CELLS, share: float = CHEAP_SHARE
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The seeds, cheapest classes first: ``(perm, bounds, levels)``; class ``c`` is
    ``perm[bounds[c]:bounds[c + 1]]``, published at the hierarchy levels ``levels[c]``
    (``cm``: the cost's kernel arrays). None when a phase's member lists could pass
    ``cells`` entries.

    Two phases take the candidates in the same order. The first lists those costing at
    most ``share`` of a row's whole cost, hashing each row's labels at each lattice node
    that has such a class; most records are placed there. The second walks the whole
    lattice over the rows left; a class of the first phase would have fewer than ``k`` of
    them, so listing it again changes nothing. Ties of cost go to the class with more
    records left at the start of its phase."""
    codes, height = cm[2], np.asarray(cm[5], dtype=np.intp)
    b = codes.shape[1]
    if b == 0 or n < k:
        return None
    rows, inverse, weight = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    inverse, weight = inverse.ravel(), weight.astype(np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.intp)
    m = rows.shape[0]
    tables = row_tables(cm, rows)
    ids, radix, prices, _, _, offset = tables
    if np.log2(radix.astype(np.float64)).max(initial=0.0) * b > 62:
        return None  # the labels of a row no longer fit one 64-bit key
    tau = share * float(np.sum(cm[8]))
    cheapest = np.array([prices[offset[j] : offset[j + 1]].min(axis=1) for j in range(b)],
                        dtype=object)  # fmt: skip
    grid = np.array(list(np.ndindex(*(height + 1))), dtype=np.intp)
    least = sum(np.asarray(cheapest[j])[grid[:, j]] for j in range(b))
    near = np.ascontiguousarray(grid[least <= tau])  # nodes with a class of cost ≤ tau
    if m * max(near.shape[0], 1) > cells:
        return None
    members, c_cost, c_node, c_weight, c_start, c_end = first_phase(
        ids, radix, prices, offset, weight, near, k, tau
    )
    order = np.lexsort((-c_weight, c_cost)).astype(np.intp)
    placed, taken = _cheapest_first(members, c_start, c_end, order, weight, k)
    del members
    levels = [_levels(c_node[taken], height)]
    rest = np.flatnonzero(placed < 0)
    if weight[rest].sum() >= k:  # the second phase, over the rows left
        if rest.size * int(np.prod(height + 1)) > cells:
            return None
        c_cost, c_node, c_weight, c_start, members = walked(tables, rest, weight, k)
        order = np.lexsort((-c_weight, c_cost)).astype(np.intp)
        later, taken = _cheapest_first(members, c_start[:-1], c_start[1:], order, weight[rest], k)
        del members
        placed[rest] = np.where(later >= 0, later + len(levels[0]), -1)
        levels.append(_levels(c_node[taken], height))
    levels = np.concatenate(levels).reshape(-1, b)
    label = placed[inverse]
    left = np.flatnonzero(label < 0)
    classes = levels.shape[0]
    perm = np.argsort(np.where(label < 0, classes, label), kind="stable").astype(np.intp)
    bounds = np.r_[0, np.cumsum(np.bincount(label[label >= 0], minlength=classes))]
    bounds = bounds.astype(np.intp)
    if left.size:  # fewer than k records: into the class they raise least, from its top
        c = int(_least_raise(perm, bounds, left, cm))
        label[left] = c
        levels[c] = height
        perm = np.argsort(label, kind="stable").astype(np.intp)
        bounds = np.r_[0, np.cumsum(np.bincount(label, minlength=classes))].astype(np.intp)
    return perm, bounds, levels
