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

Progress (:func:`~incrowd._runtime.report_progress`): nodes taken of the
lattice's nodes, then all of them when the search ends (the rest pruned).

With a time limit, the search stops early: the best node found and the least ``β`` in the
heap, a lower bound on the optimum, are returned with ``optimal`` False.

Time: :math:`O(m b)` per node taken (:mod:`._classes`), :math:`O(b \\log N)` per heap step
for a lattice of ``N`` nodes; memory :math:`O(m + N)`. Reference: Kohlmayer, Prasser,
Eckert, Kemper & Kuhn, *Flash: Efficient, Stable and Optimal k-Anonymity*, PASSAT 2012;
El Emam et al., *A Globally Optimal k-Anonymity Method for the De-Identification of Health
Data* (OLA), JAMIA 16(5), 2009.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..._runtime import report_progress
from ._classes import node_classes, node_figures, suppressed_classes

#: A privacy model's verdict per class, given each distinct row's class and their number.
ClassCheck = Callable[[np.ndarray, int], np.ndarray]

__all__ = ["ClassCheck", "LatticeResult", "LatticeTables", "search"]


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

    def figures(
        self, levels: np.ndarray, k: int, ell: int, check: ClassCheck | None = None
    ) -> tuple[int, float, float, float]:
        """:func:`~._classes.node_figures` at the node ``levels``."""
        cls, n_classes = self.classes(levels)
        return node_figures(levels, self.labels, cls, n_classes, self.counts, self.price,
                            self.sensitive, k, ell, self.meets(cls, n_classes, check))  # fmt: skip

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
) -> LatticeResult | None:
    """The node of least ``loss`` with at most ``budget`` suppressed records (None when no
    node qualifies); see the module docstring. With ``star_class`` the suppressed records
    are published as one class (rows of ``*``), so a node qualifies only when it suppresses
    none, or at least ``k`` that meet ``ell`` and ``check`` together."""
    start = time.perf_counter()
    height = tables.height.astype(np.intp)
    b = height.size
    stride = np.ones(b, dtype=np.int64)
    for j in range(b - 2, -1, -1):
        stride[j] = stride[j + 1] * (int(height[j + 1]) + 1)
    size = int(np.prod(height.astype(np.float64) + 1.0))
    totals = tables.level_totals()
    n, row = tables.n, tables.row_cost
    discern = loss == "discernibility"
    floor = float(n) * float(min(k, n)) if discern else 0.0

    def prior(levels: np.ndarray) -> float:
        if discern:
            return floor
        return float(totals[np.arange(b), levels].sum())

    def evaluate(levels: np.ndarray) -> tuple[float, int, float]:
        sup, sup_price, kept_square, all_square = tables.figures(levels, k, ell, check)
        if discern:
            return kept_square + float(n) * sup, int(sup), all_square
        value = float(totals[np.arange(b), levels].sum()) - sup_price + row * sup
        return value, int(sup), 0.0

    def qualifies(levels: np.ndarray, sup: int) -> bool:
        if sup > budget:
            return False
        if not star_class or sup == 0:
            return True
        if sup < k:
            return False
        cls, bad = tables.suppressed(levels, k, ell, check)
        starred = bad[cls]
        if ell >= 2 and np.unique(tables.sensitive[starred]).size < ell:
            return False
        return check is None or bool(check(np.where(starred, 0, -1), 1)[0])

    best: tuple[float, int, tuple[int, ...]] | None = None
    evaluated = 0
    top = height.copy()
    value, sup, _ = evaluate(top)
    evaluated += 1
    if qualifies(top, sup):
        best = (value, sup, tuple(int(v) for v in top))

    bottom = np.zeros(b, dtype=np.intp)
    known = {0: prior(bottom)}  # node id → the best bound known for it
    taken: set[int] = set()
    heap = [(known[0], 0)]
    lower = None
    while heap:
        key, node = heapq.heappop(heap)
        if node in taken or key < known[node]:
            continue  # taken already, or pushed again with a higher bound
        if best is not None and key >= best[0]:
            lower = best[0]
            break
        if time_limit is not None and time.perf_counter() - start > time_limit:
            lower = key if best is None else min(key, best[0])
            break
        taken.add(node)
        report_progress(len(taken), size)
        levels = np.array([(node // stride[j]) % (height[j] + 1) for j in range(b)], np.intp)
        if levels.tolist() == top.tolist():
            after = key
        else:
            value, sup, after = evaluate(levels)
            evaluated += 1
            if (best is None or value < best[0]) and qualifies(levels, sup):
                best = (value, sup, tuple(int(v) for v in levels))
        bound = max(key, after)
        for j in range(b):
            if levels[j] < height[j]:
                up = node + int(stride[j])
                if up in taken:
                    continue
                levels[j] += 1
                guess = max(prior(levels), bound)
                levels[j] -= 1
                if guess > known.get(up, -np.inf):
                    known[up] = guess
                    heapq.heappush(heap, (guess, up))
    report_progress(size, size)  # the nodes not taken were pruned, or the time ran out
    if best is None:
        return None
    optimal = lower is None or lower >= best[0]
    return LatticeResult(
        levels=best[2],
        loss=best[0],
        suppressed=best[1],
        lower_bound=best[0] if optimal else float(lower),  # type: ignore[arg-type]
        optimal=optimal,
        lattice_nodes=size,
        evaluated=evaluated,
    )
