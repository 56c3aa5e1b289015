"""l-diversity and t-closeness: what a crowd's sensitive values may reveal, as measures and as
constraints.

k-anonymity hides who a record is, not what it says: a crowd whose members all share one
diagnosis discloses it. For every sensitive attribute and every class (the records that
share their published quasi-identifiers), with ``r₁ ≥ r₂ ≥ … ≥ r_m`` the counts of the
class's distinct sensitive values, ``p`` their shares in the class and ``q`` the shares in
the whole table (the same definitions as the pycanon library):

- **distinct l-diversity**: ``m ≥ l``;
- **entropy l-diversity**: ``−Σ p log p ≥ log l`` (the class's *entropy l* is
  ``exp(−Σ p log p)``);
- **recursive (c, l)-diversity**: ``r₁ < c (r_l + r_{l+1} + … + r_m)`` (``m ≥ l``);
- **t-closeness**, equal distance (labels): ``½ Σ |p_i − q_i| ≤ t``; ordered distance
  (numbers, or labels in their sorted order): with the ``M`` values of the whole table
  sorted, ``Σ_i |Σ_{j≤i} (p_j − q_j)| / (M − 1) ≤ t``.

:func:`class_measures` computes them per class (verification and evaluation read them from
the published table). :func:`enforce` makes a partition satisfy them: a class that breaks
the requirement takes a record from, swaps one with, or merges with a neighbouring class,
whichever adds least to the method's objective (repairs that satisfy it first, the cheapest
repair of all classes first), until every class holds; with the generalization cost and
distinct l, records then move while that lowers the cost and keeps every class l-diverse.
Every class keeps ≥ k records, so the release stays k-anonymous; its cost is at least the
k-optimum's, and the method's lower bound on the k-optimum is also one on the
(k, l)-optimum: the certified ratio ``cost / lower bound`` remains a proven upper bound,
while the method's a-priori approximation ratio no longer applies.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from .algorithms.forest import MAX_ROUNDS, improve_labels
from .algorithms.recoding import polish
from .costs import Cost, GeneralizationCost
from .errors import InfeasibleError, ParameterError

__all__ = [
    "Diversity",
    "class_measures",
    "enforce",
    "published_counts",
    "published_figures",
    "satisfied",
    "sensitive_codes",
]

LKind = Literal["distinct", "entropy", "recursive"]
TKind = Literal["auto", "equal", "ordered"]
#: Neighbouring classes tried for each merge (by the records' nearest neighbours).
MERGE_CANDIDATES = 12


@dataclass(frozen=True)
class Diversity:
    """What every class must hold, for every sensitive attribute: ``l`` (with ``l_kind`` and,
    for recursive diversity, ``c``) and/or ``t`` (with ``t_kind``; ``auto``: ordered for a
    numeric attribute, equal for labels)."""

    l: float | None = None  # noqa: E741 - the literature's name
    l_kind: LKind = "distinct"
    c: float = 1.0
    t: float | None = None
    t_kind: TKind = "auto"

    def __post_init__(self) -> None:
        if self.l is not None and (not np.isfinite(self.l) or self.l < 1):
            raise ParameterError(f"l must be a number >= 1, got {self.l!r}")
        if self.l_kind not in ("distinct", "entropy", "recursive"):
            raise ParameterError(
                f"l-kind must be distinct, entropy or recursive, got {self.l_kind!r}"
            )
        if self.l_kind == "distinct" and self.l is not None and self.l != int(self.l):
            raise ParameterError(f"distinct l-diversity needs a whole l, got {self.l!r}")
        if not self.c > 0:
            raise ParameterError(f"c must be positive, got {self.c!r}")
        if self.t is not None and not 0 <= self.t <= 1:
            raise ParameterError(f"t must be in [0, 1], got {self.t!r}")
        if self.t_kind not in ("auto", "equal", "ordered"):
            raise ParameterError(f"t-kind must be auto, equal or ordered, got {self.t_kind!r}")

    @property
    def active(self) -> bool:
        return self.l is not None or self.t is not None

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.l is not None:
            out |= {"l": self.l, "l_kind": self.l_kind}
            if self.l_kind == "recursive":
                out["c"] = self.c
        if self.t is not None:
            out |= {"t": self.t, "t_kind": self.t_kind}
        return out


def builds_for(spec: Diversity | None, n_sensitive: int) -> bool:
    """Whether ``spec`` is what the l-diverse local search (and a method that builds
    l-diverse crowds itself) keeps: distinct l-diversity with a whole ``l`` ≥ 2, no
    t-closeness, one sensitive column."""
    return (
        spec is not None
        and spec.l is not None
        and spec.l >= 2
        and spec.l_kind == "distinct"
        and spec.t is None
        and n_sensitive == 1
    )


def sensitive_codes(values: pd.Series) -> tuple[np.ndarray, bool]:
    """Codes of a sensitive column in the order of its values (numbers numerically), and
    whether it is numeric."""
    numbers = pd.to_numeric(values, errors="coerce")
    numeric = bool(numbers.notna().all()) and len(values) > 0
    keys = numbers.to_numpy() if numeric else values.astype(str).to_numpy()
    _, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1).astype(np.intp), numeric


def _counts(labels: np.ndarray, codes: np.ndarray, n_classes: int, n_values: int,
            weights: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """Classes × values table of counts (records with label −1 left out)."""
    kept = labels >= 0
    flat = labels[kept] * n_values + codes[kept]
    w = None if weights is None else weights[kept]
    return np.bincount(flat, weights=w, minlength=n_classes * n_values).reshape(n_classes, n_values)


def class_measures(
    table: np.ndarray, ordered: bool, whole: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """Per class (rows of a classes × values count table): distinct values, entropy l,
    the counts sorted (for recursive diversity), and t against ``whole`` (the counts of the
    whole table; default: the sum of the rows)."""
    table = np.asarray(table, dtype=np.float64)
    sizes = table.sum(axis=1)
    p = table / np.maximum(sizes, 1)[:, None]
    total = table.sum(axis=0) if whole is None else np.asarray(whole, dtype=np.float64)
    q = total / max(total.sum(), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
    if ordered:
        m = max(int((q > 0).sum()), 2)
        present = q > 0
        t = np.abs(np.cumsum((p - q)[:, present], axis=1)).sum(axis=1) / (m - 1)
    else:
        t = 0.5 * np.abs(p - q).sum(axis=1)
    return {
        "distinct": (table > 0).sum(axis=1),
        "entropy_l": np.exp(entropy),
        "sorted_counts": -np.sort(-table, axis=1),
        "t": t,
    }


def satisfied(
    table: np.ndarray, spec: Diversity, numeric: bool, whole: np.ndarray | None = None
) -> np.ndarray:
    """Per class: whether it meets ``spec`` (``numeric``: the attribute's values are numbers,
    so ``auto`` t-closeness uses the ordered distance)."""
    ordered = numeric if spec.t_kind == "auto" else spec.t_kind == "ordered"
    m = class_measures(table, ordered, whole)
    ok = np.ones(table.shape[0], dtype=bool)
    if spec.l is not None:
        if spec.l_kind == "distinct":
            ok &= m["distinct"] >= spec.l
        elif spec.l_kind == "entropy":
            ok &= m["entropy_l"] >= spec.l * (1 - 1e-12)
        else:
            level = int(np.ceil(spec.l))
            r = m["sorted_counts"]
            tail = r[:, level - 1 :].sum(axis=1) if r.shape[1] >= level else np.zeros(len(r))
            ok &= (m["distinct"] >= level) & (r[:, 0] < spec.c * tail)
    if spec.t is not None:
        ok &= m["t"] <= spec.t + 1e-12
    return ok


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
        _counts(labels, codes, n_classes, nv)
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
        improve_labels(labels, neighbours, k, True, False, cost.row_cost, MAX_ROUNDS,
                       cost.kernel_args(), sensitive[0][0], int(spec.l))  # fmt: skip
        polish(labels, neighbours, k, cost, sens=sensitive[0][0], ell=int(spec.l))
    return labels, repairs


def published_counts(
    table: pd.DataFrame, qi: Sequence[str], name: str, centers: bool
) -> tuple[np.ndarray, bool]:
    """Classes × values counts of sensitive attribute ``name`` in a published table (rows
    with identical quasi-identifiers form a class; a centers row holds a JSON multiset),
    and whether its values are numbers."""
    import json

    keys = table[list(qi)].astype(str)
    group = keys.groupby(list(qi), sort=False, dropna=False).ngroup().to_numpy()
    if centers:
        rows, values, weights = [], [], []
        for g, cell in zip(group, table[name], strict=True):
            for value, count in json.loads(str(cell)).items():
                rows.append(g)
                values.append(value)
                weights.append(int(count))
        series = pd.Series(values, dtype=object)
        group, w = np.asarray(rows, dtype=np.intp), np.asarray(weights, dtype=np.float64)
    else:
        series, w = table[name].reset_index(drop=True), None
    codes, numeric = sensitive_codes(series)
    n_classes = int(group.max()) + 1 if group.size else 0
    n_values = int(codes.max()) + 1 if codes.size else 1
    return _counts(group, codes, n_classes, n_values, w), numeric


def published_figures(
    table: pd.DataFrame, qi: Sequence[str], sensitive: Sequence[str], centers: bool,
    spec: Diversity | None = None,
) -> dict[str, dict[str, float | int]]:  # fmt: skip
    """Per sensitive attribute of a published table: the smallest distinct count and entropy
    l over its classes, the largest t (equal and ordered distances) and, with ``spec``, the
    classes that break it."""
    out: dict[str, dict[str, float | int]] = {}
    for name in sensitive:
        counts, numeric = published_counts(table, qi, name, centers)
        if counts.shape[0] == 0:
            continue
        equal = class_measures(counts, ordered=False)
        ordered = class_measures(counts, ordered=True)
        figures: dict[str, float | int] = {
            "distinct_l": int(equal["distinct"].min()),
            "entropy_l": float(equal["entropy_l"].min()),
            "t_equal": float(equal["t"].max()),
            "t_ordered": float(ordered["t"].max()),
        }
        if spec is not None and spec.active:
            figures["classes_failing"] = int((~satisfied(counts, spec, numeric)).sum())
        out[name] = figures
    return out
