"""A first qualifying node of the lattice, found by a greedy dive, and bettered by a climb.

The best-first search (:mod:`._search`) proves the optimum, but it takes nodes from the
bottom in order of their bound and may run out of time before any of them qualifies; it would
then have nothing to publish but the top of the lattice (every attribute ``*``). So before it
starts, :func:`dive` walks up from the lowest node, one attribute one level at a time,
taking the successor of least loss (a qualifying one first), until a node qualifies: at most
``Σ_j (high_j − low_j)`` steps of ``b`` nodes each. Past the time limit the walk ends in a
bisection on the line to the top (:math:`O(\\log \\max_j h_j)` nodes), so even a tiny limit
returns a real candidate; if that candidate is the top, the ``b`` nodes one level below it are
tried. :func:`climb` then moves, while time allows, to a qualifying neighbour (one attribute
one level up or down) of less loss, until none is better (a local optimum). The candidate
prunes the best-first search (no node whose bound reaches it enters the heap); the optimum
and its proof are the best-first search's alone.

Time: :math:`O(m b)` per node evaluated (:mod:`._classes`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._classes import node_figures, suppressed_classes

if TYPE_CHECKING:
    from ._search import LatticeTables

__all__ = ["Found", "Judge", "climb", "dive"]

#: The most nodes of the dive and the climb remembered for the best-first search.
_REMEMBERED = 100_000


@dataclass(frozen=True)
class Found:
    """A node evaluated: its loss, records suppressed, bound for the nodes above it (the
    squared class sizes, for discernibility) and whether it qualifies."""

    levels: tuple[int, ...]
    value: float
    suppressed: int
    after: float
    qualifies: bool


@dataclass
class Judge:
    """Evaluates nodes of the lattice of ``tables`` (:class:`~._search.LatticeTables`) for
    ``k``, the suppression ``budget``, ``ell``, the ``loss``, a ``check`` on the classes and
    ``star_class`` (the suppressed records published as one class, none or at least ``k``
    meeting ``ell`` and ``check`` together), remembering each node evaluated."""

    tables: LatticeTables
    k: int
    budget: int
    ell: int
    loss: str
    check: Callable[[np.ndarray, int], np.ndarray] | None
    star_class: bool
    evaluated: int = 0
    totals: np.ndarray = field(init=False)
    seen: dict[tuple[int, ...], Found] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.totals = self.tables.level_totals()

    def prior(self, levels: np.ndarray) -> float:
        """β: the loss of the node and of every node above it is at least this."""
        if self.loss == "discernibility":
            n = self.tables.n
            return float(n) * float(min(self.k, n))
        return float(self.totals[np.arange(levels.size), levels].sum())

    def __call__(self, levels: np.ndarray, keep: bool = True) -> Found:
        """The node ``levels``, evaluated once (``keep``: remembered for the next ask)."""
        node = tuple(int(v) for v in levels)
        known = self.seen.pop(node, None) if not keep else self.seen.get(node)
        if known is not None:
            return known
        t = self.tables
        cls, n_classes = t.classes(levels)
        meets = t.meets(cls, n_classes, self.check)
        sup, sup_price, kept_square, all_square = node_figures(
            levels, t.labels, cls, n_classes, t.counts, t.price, t.sensitive,
            self.k, self.ell, meets)  # fmt: skip
        self.evaluated += 1
        sup = int(sup)
        if self.loss == "discernibility":
            value, after = kept_square + float(t.n) * sup, all_square
        else:
            value, after = self.prior(levels) - sup_price + t.row_cost * sup, 0.0
        found = Found(node, float(value), sup, float(after),
                      self._qualifies(cls, n_classes, meets, sup))  # fmt: skip
        if keep and len(self.seen) < _REMEMBERED:
            self.seen[node] = found
        return found

    def _qualifies(self, cls: np.ndarray, n_classes: int, meets: np.ndarray, sup: int) -> bool:
        if sup > self.budget:
            return False
        if not self.star_class or sup == 0:
            return True
        if sup < self.k:
            return False
        t = self.tables
        bad = suppressed_classes(cls, n_classes, t.counts, t.sensitive, self.k, self.ell,
                                 meets)[1]  # fmt: skip
        starred = bad[cls]
        if self.ell >= 2 and np.unique(t.sensitive[starred]).size < self.ell:
            return False
        return self.check is None or bool(self.check(np.where(starred, 0, -1), 1)[0])


def dive(judge: Judge, low: np.ndarray, high: np.ndarray, deadline: float) -> Found | None:
    """A qualifying node: :func:`_walk`, or, if that is the top of the lattice (every
    attribute ``*``), the best qualifying node one level below it, if any (where qualifying
    is monotone up the lattice, as k-anonymity within a suppression limit is, one of those
    qualifies whenever any node but the top does)."""
    found = _walk(judge, low, high, deadline)
    if found is None or found.levels != tuple(int(h) for h in judge.tables.height):
        return found
    below = []
    for j in np.flatnonzero(high > low):
        high[j] -= 1
        below.append(judge(high))
        high[j] += 1
    return min((f for f in below if f.qualifies), key=lambda f: f.value, default=found)


def _walk(judge: Judge, low: np.ndarray, high: np.ndarray, deadline: float) -> Found | None:
    """A qualifying node reached from ``low`` by raising one attribute a level at a time
    (the successor that qualifies with least loss, else the one of least loss, then fewest
    suppressed); past the ``deadline``, the lowest qualifying node of a bisection on the line
    to ``high`` (:func:`_bisect`). None when the walk reaches ``high`` with none."""
    levels = low.copy()
    here = judge(levels)
    while not here.qualifies:
        steps = np.flatnonzero(levels < high)
        if steps.size == 0:
            return None
        if time.perf_counter() > deadline:
            found = _bisect(judge, levels, high)
            if found is not None:
                return found
            deadline = math.inf  # the top fails: only the walk can find a node (or none)
        options = []
        for j in steps:
            levels[j] += 1
            there = judge(levels)
            levels[j] -= 1
            options.append((not there.qualifies, there.value, there.suppressed, int(j), there))
        j, here = min(options, key=lambda o: o[:4])[3:]
        levels[j] += 1
    return here


def _bisect(judge: Judge, start: np.ndarray, high: np.ndarray) -> Found | None:
    """A qualifying node on the chain from ``start`` (which does not qualify) to ``high``
    (``start + ⌈(high − start) · s / S⌉`` for ``s = 0 .. S``), the lowest if qualifying is
    monotone along it; None if ``high`` does not qualify. :math:`O(\\log S)` nodes."""
    top = judge(high)
    if not top.qualifies:
        return None
    span = int((high - start).max())
    lo, hi, found = 0, span, top
    while hi - lo > 1:
        mid = (lo + hi) // 2
        there = judge(start + -((start - high) * mid // span))  # ceil((high - start) * mid / span)
        if there.qualifies:
            hi, found = mid, there
        else:
            lo = mid
    return found


def climb(judge: Judge, start: Found, low: np.ndarray, high: np.ndarray, deadline: float) -> Found:
    """From the qualifying node ``start``, the qualifying neighbours of less loss, one after
    another, until none is better or the ``deadline`` (a ``time.perf_counter()``) passes."""
    here = start
    while time.perf_counter() < deadline:
        levels = np.array(here.levels, dtype=np.intp)
        better = here
        for j in range(levels.size):
            for step in (-1, 1):
                if not low[j] <= levels[j] + step <= high[j]:
                    continue
                levels[j] += step
                there = judge(levels)
                levels[j] -= step
                if there.qualifies and there.value < better.value:
                    better = there
        if better is here:
            break
        here = better
    return here
