"""The least-loss node of the full-domain generalization lattice within a suppression limit.

A node ``N`` gives attribute ``j`` level ``N_j`` of its hierarchy (``0 ≤ N_j ≤ h_j``); it
qualifies when the records in classes smaller than ``k`` (or with fewer than ``l`` distinct
sensitive values) number at most the budget; they are suppressed, each costing a full row
(``R = Σ_j w_j``). Its loss is ``Σ_kept price_N(r) + R · |S(N)|``, or for discernibility
``Σ_kept |C|² + n · |S(N)|``.

**Search.** Best first, by a lower bound ``β`` on the loss of a node *and of every node
above it* (more general in every attribute):

- the generalization loss without suppression, ``β(N) = Σ_r price_N(r) = Σ_j A_j[N_j]``
  (precomputed per attribute and level): a record kept at ``M ≥ N`` pays
  ``price_M(r) ≥ price_N(r)`` (a label's price never falls up its hierarchy), and a
  suppressed one pays ``R ≥ price_N(r)``;
- for discernibility, ``Σ_C |C|²`` over all classes of a node below it (each record's class
  only grows up the lattice, and a suppressed record pays ``n``), and ``n · k``.

Nodes leave a heap in order of ``β``; the successors of each (one attribute one level up)
enter it. When the least ``β`` in the heap is at least the best qualifying loss found, every
node not yet taken lies above a node in the heap, so none can do better: the best is the
optimum (the proof of OLA / Flash's pruning by a monotone bound, Kohlmayer et al. 2012, with
the loss itself in place of their heuristic). Suppression makes the loss non-monotone, which
is why it is not used to prune; k-anonymity with a suppression budget is monotone up the
lattice (a class above is a union of classes below, so ``S(M) ⊆ S(N)``), and so is distinct
l-diversity, but the search needs neither.

**A candidate first.** Before the heap, a greedy dive finds a qualifying node and a climb
betters it (:mod:`._dive`); no node whose bound reaches the best found enters the heap. So
a search stopped by its time limit returns a real node, not the top of the lattice; on a tie
the search prefers any node to the top (every attribute ``*``), which publishes nothing.

**Cut lattices.** ``low`` and ``high`` (``min_level`` / ``max_level``) bound each attribute's
level: the search runs on the nodes between them, its bottom ``low``, and the optimum and its
proof are those of that sublattice (``β`` bounds every node above a node in it too).

**Memory.** The heap and the nodes taken hold at most :data:`NODE_LIMIT` nodes: past half of
it in the heap, its worse half is dropped and the least bound dropped kept as a bound on
everything above those nodes (the certificate stays true; the optimum is proven only if the
best found is no worse); past it in all, the search stops as at the time limit.

Progress (:func:`~incrowd._runtime.report_progress`): nodes taken of the
lattice's nodes, then all of them when the search ends (the rest pruned).

With a time limit, the search stops early: the best node found and the least ``β`` in the
heap, a lower bound on the optimum, are returned with ``optimal`` False.

Time: :math:`O(m b)` per node taken (:mod:`._classes`), :math:`O(b \\log N)` per heap step
for a lattice of ``N`` nodes; memory :math:`O(m + \\min(N, L))` for the node limit ``L``.
Reference: Kohlmayer, Prasser,
Eckert, Kemper & Kuhn, *Flash: Efficient, Stable and Optimal k-Anonymity*, PASSAT 2012;
El Emam et al., *A Globally Optimal k-Anonymity Method for the De-Identification of Health
Data* (OLA), JAMIA 16(5), 2009.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..._runtime import report_progress
from ._classes import node_classes, suppressed_classes
from ._dive import Found, Judge, climb, dive

#: A privacy model's verdict per class, given each distinct row's class and their number.
ClassCheck = Callable[[np.ndarray, int], np.ndarray]

__all__ = ["ClassCheck", "LatticeResult", "LatticeTables", "search"]

#: The most nodes the search holds (the heap, the nodes taken): about 150 bytes each. Past
#: it the heap's worse half is dropped, its least bound kept as a bound (never a wrong
#: proof: the optimum is then proven only if no dropped node could do better).
NODE_LIMIT = 2_000_000


@dataclass(frozen=True)
class LatticeTables:
    """The table as the search reads it: its distinct rows, their counts and labels."""

    labels: np.ndarray  # (b, L + 1, m) label of each distinct row per attribute and level
    counts: np.ndarray  # (m,) records of each distinct row
    sensitive: np.ndarray  # (m,) sensitive code of each distinct row (0 without l)
    price: np.ndarray  # (b, L + 1, D): weighted price of each label per record
    height: np.ndarray  # (b,) levels above the leaves
    row_cost: float  # a suppressed record's price
    layout: tuple[np.ndarray, np.ndarray, np.ndarray]  # key_layout of the labels

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def level_totals(self) -> np.ndarray:
        """``A[j, L]``: what every record pays for attribute ``j`` at level ``L``."""
        b, levels, _ = self.labels.shape
        totals = np.zeros((b, levels))
        for j in range(b):
            for level in range(int(self.height[j]) + 1):
                paid = self.price[j, level, self.labels[j, level]]
                totals[j, level] = float(np.dot(self.counts, paid))
        return totals

    def classes(self, levels: np.ndarray) -> tuple[np.ndarray, int]:
        """The class of each distinct row at the node ``levels``, and their number."""
        return node_classes(levels, self.labels, *self.layout)

    def suppressed(self, levels: np.ndarray, k: int, ell: int,
                   check: ClassCheck | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The class of each distinct row at ``levels``, and per class whether it is
        suppressed."""
        cls, n_classes = self.classes(levels)
        meets = self.meets(cls, n_classes, check)
        return cls, suppressed_classes(cls, n_classes, self.counts, self.sensitive, k, ell,
                                       meets)[1]  # fmt: skip

    @staticmethod
    def meets(cls: np.ndarray, n_classes: int, check: ClassCheck | None) -> np.ndarray:
        if check is None:
            return np.ones(n_classes, dtype=np.bool_)
        return np.asarray(check(cls, n_classes), dtype=np.bool_)


@dataclass(frozen=True)
class LatticeResult:
    """The node found, its loss and suppression, and how the search went."""

    levels: tuple[int, ...]
    loss: float
    suppressed: int
    lower_bound: float  # at most the optimum over the lattice (equal when optimal)
    optimal: bool
    lattice_nodes: int
    evaluated: int
    stopped: str | None = None  # what ended the search early: "time" or "memory"


def search(
    tables: LatticeTables,
    k: int,
    budget: int,
    *,
    ell: int = 1,
    loss: str = "ncp",
    time_limit: float | None = None,
    check: ClassCheck | None = None,
    star_class: bool = False,
    low: np.ndarray | None = None,
    high: np.ndarray | None = None,
    node_limit: int = NODE_LIMIT,
) -> LatticeResult | None:
    """The node of least ``loss`` with at most ``budget`` suppressed records among the nodes
    from ``low`` to ``high`` (default: the whole lattice; None when none qualifies); see the
    module docstring. With ``star_class`` the suppressed records are published as one class
    (rows of ``*``), so a node qualifies only when it suppresses none, or at least ``k`` that
    meet ``ell`` and ``check`` together."""
    start = time.perf_counter()
    deadline = math.inf if time_limit is None else start + time_limit
    height = tables.height.astype(np.intp)
    low = np.zeros_like(height) if low is None else np.asarray(low, dtype=np.intp)
    high = height.copy() if high is None else np.asarray(high, dtype=np.intp)
    b = height.size
    radix = [int(high[j] - low[j]) + 1 for j in range(b)]
    stride = [math.prod(radix[j + 1 :]) for j in range(b)]  # Python ints: no overflow
    size = math.prod(radix)
    judge = Judge(tables, k, budget, ell, loss, check, star_class)
    everything = tuple(int(v) for v in height)

    def better(found: Found, best: Found | None) -> bool:
        # on a tie, a node that publishes something beats the top (every attribute *)
        return found.qualifies and (best is None or found.value < best.value or (
            found.value == best.value and best.levels == everything != found.levels))  # fmt: skip

    def beaten(bound: float, best: Found | None) -> bool:
        """No node of loss at least ``bound`` can replace ``best``."""
        return best is not None and (bound > best.value or (
            bound == best.value and best.levels != everything))  # fmt: skip

    best = dive(judge, low, high, deadline)
    if best is not None:
        best = climb(judge, best, low, high, deadline)
    known = {0: judge.prior(low)}  # node id → the best bound known for it (inf: taken)
    heap = [(known[0], 0)]
    lower, dropped, stopped, taken = None, math.inf, None, 0
    while heap:
        key, node = heapq.heappop(heap)
        if known.get(node) != key:
            continue  # taken already, pushed again with a higher bound, or dropped
        if beaten(key, best):
            lower = best.value  # type: ignore[union-attr]
            break
        if time.perf_counter() > deadline or len(known) > node_limit:
            stopped = "time" if time.perf_counter() > deadline else "memory"
            lower = key if best is None else min(key, best.value)
            break
        known[node] = math.inf
        taken += 1
        report_progress(taken, size)
        levels = low + np.array([(node // stride[j]) % radix[j] for j in range(b)], np.intp)
        found = judge(levels, keep=False)
        if better(found, best):
            best = found
        bound = max(key, found.after)
        for j in range(b):
            if levels[j] < high[j]:
                up = node + stride[j]
                levels[j] += 1
                guess = max(judge.prior(levels), bound)
                levels[j] -= 1
                if guess > known.get(up, -math.inf) and not beaten(guess, best):
                    known[up] = guess
                    heapq.heappush(heap, (guess, up))
        if len(heap) > node_limit // 2:
            dropped = min(dropped, _drop_worse_half(heap, known))
    report_progress(size, size)  # the nodes not taken were pruned, or the search stopped
    if best is None:
        return None
    lower = min(best.value if lower is None else lower, dropped)
    optimal = lower >= best.value
    return LatticeResult(
        levels=best.levels,
        loss=best.value,
        suppressed=best.suppressed,
        lower_bound=best.value if optimal else float(lower),
        optimal=optimal,
        lattice_nodes=size,
        evaluated=judge.evaluated,
        stopped=None if optimal else stopped or "memory",
    )


def _drop_worse_half(heap: list[tuple[float, int]], known: dict[int, float]) -> float:
    """Keep the better half of ``heap`` (in place); the least bound dropped. Every node
    above a dropped one costs at least its bound, so that bound still bounds the optimum."""
    heap.sort()
    half = len(heap) // 2
    for key, node in heap[half:]:
        if known.get(node) == key:
            del known[node]
    least = heap[half][0]
    del heap[half:]  # a sorted list is a heap
    return least
