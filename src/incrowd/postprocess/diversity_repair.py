"""Repairing a partition until every class meets l-diversity / t-closeness.

:func:`enforce` makes a partition satisfy a :class:`~incrowd.privacy.models.Diversity`: a class
that breaks the requirement takes a record from, swaps one with, or merges with a
neighbouring class, whichever adds least to the method's objective (repairs that satisfy
it first, the cheapest repair of all classes first), until every class holds; with the
generalization cost and distinct l, records then move while that lowers the cost and keeps
every class l-diverse. Every class keeps ≥ k records, so the release stays k-anonymous; its
cost is at least the k-optimum's, and the method's lower bound on the k-optimum is also one
on the (k, l)-optimum: the certified ratio ``cost / lower bound`` remains a proven upper
bound, while the method's a-priori approximation ratio no longer applies.

Complexity: each repair lowers the number of broken classes or of classes, so there are at
most ``n / k`` merges and as many moves per class; each prices ``MERGE_CANDIDATES``
neighbouring classes.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

import numpy as np

from ..algorithms.forest import MAX_ROUNDS
from ..algorithms.recoding import polish
from ..algorithms.release_polish import improve_labels
from ..costs import Cost, GeneralizationCost
from ..errors import InfeasibleError
from ..privacy.models import Diversity, builds_for, class_counts, satisfied

__all__ = ["MERGE_CANDIDATES", "enforce"]

#: Neighbouring classes tried for each merge (by the records' nearest neighbours).
MERGE_CANDIDATES = 12


def _fits(row: np.ndarray, whole: np.ndarray, spec: Diversity, numeric: bool) -> bool:
    """Whether one class (its value counts) meets ``spec``; the common case (distinct l
    only) without building arrays."""
    if spec.t is None and spec.l_kind == "distinct":
        return int(np.count_nonzero(row)) >= spec.l  # type: ignore[operator]
    return bool(satisfied(row[None, :], spec, numeric, whole)[0])


def _spare(
    mine: np.ndarray, here: list[np.ndarray], sensitive: Sequence[tuple[np.ndarray, bool]]
) -> int:
    """A member whose values all occur again in its class (it can be swapped out without
    losing a value), or −1."""
    for y in mine[::-1].tolist():
        if all(h[codes[y]] >= 2 for h, (codes, _) in zip(here, sensitive, strict=True)):
            return int(y)
    return -1


def enforce(
    labels: np.ndarray,
    sensitive: Sequence[tuple[np.ndarray, bool]],
    spec: Diversity,
    cost: Cost,
    neighbours: np.ndarray,
    k: int,
    nearby: Callable[[np.ndarray, int], np.ndarray] | None = None,
) -> tuple[np.ndarray, int]:
    """Repair classes until every class meets ``spec`` for every sensitive attribute.

    A class that breaks it takes the cheapest of: moving one record into it (or swapping
    one) from a neighbouring class that keeps ``k`` records and keeps meeting ``spec``,
    when that makes it meet ``spec``; or merging with a neighbouring class. Actions that
    make it meet ``spec`` come first, then the least added cost
    (:meth:`~incrowd.costs.Cost.merge_price`); so every move lowers the number of broken
    classes, every merge the number of classes, and the repairs end. ``neighbours``: each
    record's nearest records (rows of indices); ``nearby(members, count)``: more records
    near a class, when its neighbours' lists hold no other class. Returns the new labels
    (classes renumbered) and the number of repairs. Raises
    :class:`~incrowd.InfeasibleError` when even all records together fail.
    """
    labels = np.asarray(labels, dtype=np.intp).copy()
    kept = labels >= 0
    sizes_of = [int(codes.max()) + 1 if codes.size else 1 for codes, _ in sensitive]
    whole = [
        np.bincount(codes[kept], minlength=nv)
        for (codes, _), nv in zip(sensitive, sizes_of, strict=True)
    ]
    numeric = [o for _, o in sensitive]
    if not all(_fits(w, w, spec, o) for w, o in zip(whole, numeric, strict=True)):
        msg = (
            "the requested l-diversity / t-closeness cannot be met even with every released "
            f"record in one class ({spec.describe()})"
        )
        raise InfeasibleError(msg)
    n_classes = int(labels.max()) + 1 if kept.any() else 0
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n_classes + 1))
    members = {c: order[bounds[c] : bounds[c + 1]] for c in range(n_classes)}
    counts = [
        class_counts(labels, codes, n_classes, nv)
        for (codes, _), nv in zip(sensitive, sizes_of, strict=True)
    ]

    def good(rows: list[np.ndarray]) -> bool:
        return all(_fits(r, w, spec, o) for r, w, o in zip(rows, whole, numeric, strict=True))

    def row_of(c: int) -> list[np.ndarray]:
        return [t[c] for t in counts]

    price = {c: cost.merge_price(m) for c, m in members.items()}
    repairs = 0

    def choose(c: int) -> tuple[tuple[bool, float], str, int, int, int]:
        """The cheapest repair of class ``c``."""
        mine = members[c]
        near = labels[neighbours[mine].ravel()]
        others = [d for d in dict.fromkeys(near.tolist()) if d != c and d >= 0]
        if len(others) < 2:  # two steps along the neighbour lists
            near = labels[neighbours[np.unique(neighbours[mine].ravel())].ravel()]
            others = [d for d in dict.fromkeys(near.tolist()) if d != c and d >= 0]
        if len(others) < 2 and nearby is not None:
            more = labels[nearby(mine, mine.size + 4 * MERGE_CANDIDATES)]
            others = [d for d in dict.fromkeys(more.tolist()) if d != c and d >= 0]
        if not others:
            others = [d for d in members if d != c]
        best: tuple[tuple[bool, float], str, int, int, int] | None = None
        # moves and swaps: one record of a neighbouring class, which keeps k records and its
        # own diversity without it (a swap gives it back one of this class's records)
        movers = neighbours[mine].ravel()
        if nearby is not None:  # records of other values near a class of many copies
            movers = np.concatenate([movers, nearby(mine, 4 * MERGE_CANDIDATES)])
        movers = np.unique(movers)
        movers = movers[(labels[movers] != c) & (labels[movers] >= 0)]
        here = row_of(c)
        spare = _spare(mine, here, sensitive)
        for x in movers.tolist():
            d = int(labels[x])
            if not any(h[codes[x]] == 0 for h, (codes, _) in zip(here, sensitive, strict=True)):
                if spec.t is None and spec.l_kind == "distinct":
                    continue  # brings no new value
            for y in (-1, spare) if spare >= 0 else (-1,):
                if y < 0 and members[d].size <= k:
                    continue
                gained = [r.copy() for r in here]
                lost = [t[d].copy() for t in counts]
                for r, t_lost, (codes, _) in zip(gained, lost, sensitive, strict=True):
                    r[codes[x]] += 1
                    t_lost[codes[x]] -= 1
                    if y >= 0:
                        r[codes[y]] -= 1
                        t_lost[codes[y]] += 1
                # a move must repair this class (and keep the other's): then every move
                # lowers the number of broken classes and every merge the number of
                # classes, so the repairs end (moves that only help could cycle)
                if not good(lost) or not good(gained):
                    continue
                mine_after = np.append(mine[mine != y], x)
                theirs = members[d][members[d] != x]
                theirs = np.append(theirs, y) if y >= 0 else theirs
                added = (cost.merge_price(mine_after) - price[c]
                         + cost.merge_price(theirs) - price[d])  # fmt: skip
                key = (False, added)
                if best is None or key < best[0]:
                    best = (key, "move", x, d, y)
        for d in others[:MERGE_CANDIDATES]:
            union = np.concatenate([mine, members[d]])
            added = cost.merge_price(union) - price[c] - price[d]
            key = (not good([a + b for a, b in zip(here, row_of(d), strict=True)]), added)
            if best is None or key < best[0]:
                best = (key, "merge", -1, d, -1)
        assert best is not None
        return best

    def apply(c: int, best: tuple[tuple[bool, float], str, int, int, int]) -> int:
        """Carry out a repair; returns the class it leaves to check."""
        mine = members[c]
        _, action, x, d, y = best
        if action == "move":
            labels[x] = c
            members[c] = np.append(mine[mine != y], x)
            members[d] = members[d][members[d] != x]
            for t, (codes, _) in zip(counts, sensitive, strict=True):
                t[c, codes[x]] += 1
                t[d, codes[x]] -= 1
            if y >= 0:
                labels[y] = d
                members[d] = np.append(members[d], y)
                for t, (codes, _) in zip(counts, sensitive, strict=True):
                    t[c, codes[y]] -= 1
                    t[d, codes[y]] += 1
            price[c] = cost.merge_price(members[c])
            price[d] = cost.merge_price(members[d])
            target = c
        else:
            labels[mine] = d
            members[d] = np.concatenate([mine, members[d]])
            del members[c]
            for t in counts:
                t[d] += t[c]
            price[d] = cost.merge_price(members[d])
            target = d
        return target

    # the cheapest repair first (lazily: a class's best repair is priced again when it
    # reaches the top, as its neighbours may have changed)
    heap = []
    for c in range(n_classes):
        if not good(row_of(c)):
            key = choose(c)[0]
            heap.append((key[0], key[1], c))
    heapq.heapify(heap)
    while heap:
        _, _, c = heapq.heappop(heap)
        if c not in members or good(row_of(c)):
            continue
        best = choose(c)
        key = best[0]
        if heap and (key[0], key[1]) > heap[0][:2]:
            heapq.heappush(heap, (key[0], key[1], c))
            continue
        target = apply(c, best)
        repairs += 1
        if not good(row_of(target)):
            key = choose(target)[0]
            heapq.heappush(heap, (key[0], key[1], target))
    _, labels[kept] = np.unique(labels[kept], return_inverse=True)
    if isinstance(cost, GeneralizationCost) and builds_for(spec, len(sensitive)):
        # then records move, and pairs of crowds are re-split, while that lowers the cost
        # and keeps every crowd l-diverse
        assert spec.l is not None
        improve_labels(labels, neighbours, k, True, 0, cost.row_cost, MAX_ROUNDS,
                       cost.kernel_args(), sensitive[0][0], int(spec.l))  # fmt: skip
        polish(labels, neighbours, k, cost, sens=sensitive[0][0], ell=int(spec.l))
    return labels, repairs
