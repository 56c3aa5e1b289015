"""One run of local recoding on a set of records: the constructions, their improvement, the
certificate's bound and the search (:class:`~incrowd.LocalRecoding`'s steps, documented
there); a method with level bounds runs it once per block of the ceilings
(:mod:`incrowd.algorithms._shared.levels`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..._runtime import in_background, progress_part, report_progress
from ...costs import GeneralizationCost
from ...errors import ParameterError
from ...space.neighbours.index import NeighbourIndex
from .._shared.generalized import budgeted_bound
from .._shared.improve import budgeted_deletions, improve_labels
from .._shared.levels import Solved, floor_terms
from ..forest import MAX_ROUNDS, MOVE_CANDIDATES, size_limit
from ._certificate import certificate_bound
from ._pairs import pair_crowds
from ._polish import RESPLIT_ROUNDS, crowds_lacking, polish
from ._search import search
from ._specialize import FRAGMENTATION
from .bounds import (
    CROWD_BOUND_MAX_K,
    CROWD_BOUND_MAX_ROWS,
    CROWD_NEIGHBOURS,
    LATTICE_NODES,
    lattice_walks,
)

if TYPE_CHECKING:
    from . import LocalRecoding

__all__ = ["FOREST_SETS_UP_TO_K", "FOREST_WINS_UP_TO_K", "PHASES", "Run", "run"]

#: Up to this k the specialization does not run: the forest (and at k = 2 the pairs'
#: factor) loses less, in less time (Adult, ``benchmarks/adult.py``).
FOREST_WINS_UP_TO_K = 2
#: With value sets the forest runs up to this k, and the specialization only above it:
#: where each was measured to win on Adult (``benchmarks/adult.py``).
FOREST_SETS_UP_TO_K = 29
#: Progress (:func:`~incrowd._runtime.report_progress`) counts these steps: the neighbour
#: lists 1, the construction 3 (the specialization's seedings and split-downs), the moves 1,
#: the polishing rounds 3, the bound 1, a forest after all 1, the search and deletions 1.
PHASES = 11


class Run(NamedTuple):
    """One run's result (:class:`Solved`) and what the method reports of it."""

    solved: Solved
    construction: str
    paper_cost: float | None
    max_tree_size: int
    neighbourhoods: int
    improved: int


def run(
    method: LocalRecoding,
    model: GeneralizationCost,
    base: GeneralizationCost,
    index: NeighbourIndex,
    sens: np.ndarray | None,
    ell: int,
    deletions: int,
    bound_budget: int,
    seconds: float,
) -> Run:
    """Local recoding of ``model``'s records (``base``: the cost without floors, whose
    bound is taken; ``index``: their neighbours), deleting at most ``deletions`` records;
    the bound allows ``bound_budget`` deletions; ``seconds`` of search (its share of
    ``search_seconds``)."""
    k = int(method.k)
    # every attribute a hierarchy label: the lattice bound is each record's least charge
    exact = method.generalize == "levels" and model.labels_only and lattice_walks(model)
    if method.search_seconds and not (exact and not ell):
        msg = ("search_seconds needs every quasi-identifier a hierarchy label (generalize="
               "'levels', no numeric attribute), a lattice of at most "
               f"{LATTICE_NODES:,} nodes and l = 1")  # fmt: skip
        raise ParameterError(msg)
    near, dist, idx = _neighbour_lists(index, model.n, k, exact)
    # the certificate's bound is computed on a thread of its own while the crowds form
    # and are improved (after the lists, which take every thread)
    bounded = in_background(lambda: _bound(method, model, base, exact, dist, near, bound_budget))
    report_progress(1, PHASES)
    crowds = _Constructions(method, model, base, index, idx, sens, ell)
    crowds.construct()
    lower_bound = bounded()
    report_progress(9, PHASES)
    return crowds.finish(lower_bound, deletions, seconds)


def _neighbour_lists(
    index: NeighbourIndex, n: int, k: int, exact: bool
) -> tuple[tuple[np.ndarray, np.ndarray] | None, np.ndarray, np.ndarray]:
    """The neighbour lists a run takes: the crowd bound's (None unless it is searched), and
    the forest's, the pair bound's and the moves' (distances and indices)."""
    # (at k = 2 a record's least crowd is its nearest pair: the pair bound)
    searched = not exact and 3 <= k <= CROWD_BOUND_MAX_K and n <= CROWD_BOUND_MAX_ROWS
    # the longer lists first: the index slices them for the shorter
    near = index.neighbours(min(n - 1, CROWD_NEIGHBOURS)) if searched else None
    # the forest and the pair bound need k − 1 neighbours; moves, MOVE_CANDIDATES; with
    # the lattice bound exact the pair bound adds nothing (a record's k − 1 classmates
    # at its least node are within its least charge)
    listed = MOVE_CANDIDATES if exact else max(k - 1, MOVE_CANDIDATES)
    dist, idx = index.neighbours(min(n - 1, listed))
    return near, dist, idx


def _bound(
    method: LocalRecoding,
    model: GeneralizationCost,
    base: GeneralizationCost,
    exact: bool,
    dist: np.ndarray,
    near: tuple[np.ndarray, np.ndarray] | None,
    bound_budget: int,
) -> float:
    """The certificate's bound: with floors, on the cost without them (a bound on that
    optimum bounds the floored one), and at least each record's cost alone."""
    k = int(method.k)
    pairs = None if exact or k < 2 else dist[:, k - 2]
    found = certificate_bound(base, k, levels=method.generalize == "levels", exact=exact,
                              pairs=pairs, near=near, rounds=int(method.bound_rounds),
                              budget=bound_budget)  # fmt: skip
    if model is base:
        return found
    return max(found, budgeted_bound(floor_terms(model), model.row_cost, bound_budget))


class _Constructions:
    """One run's constructions of crowds (:meth:`construct`), each improved and the best
    polished, then a forest after all where the bound does not prove the ratio, the search
    and the deletions (:meth:`finish`)."""

    def __init__(
        self,
        method: LocalRecoding,
        model: GeneralizationCost,
        base: GeneralizationCost,
        index: NeighbourIndex,
        idx: np.ndarray,
        sens: np.ndarray | None,
        ell: int,
    ) -> None:
        self.method, self.model, self.base, self.index, self.idx = method, model, base, index, idx
        self.sens, self.ell, self.k = sens, ell, int(method.k)
        self.cm = model.kernel_args()
        self.limit = size_limit(self.k)
        self.paper: float | None = None
        self.largest = self.limit
        self.frag = FRAGMENTATION[-1]
        self.rounds = 1 if ell else RESPLIT_ROUNDS
        self.candidates: dict[str, np.ndarray] = {}
        self.costs: dict[str, float] = {}
        self.lacking: dict[str, int] = {}

    def construct(self) -> None:
        """The constructions, each improved, the best polished."""
        method, model, k, ell = self.method, self.model, self.k, self.ell
        # the forest runs where it was measured to win (value sets up to FOREST_SETS_UP_TO_K,
        # where the specialization does not run; not for l-diverse crowds, which it does not
        # build), where nothing else was built, and below wherever the certificate alone does
        # not prove its ratio for the crowds kept
        sets_forest = method.generalize == "sets" and not ell and k <= FOREST_SETS_UP_TO_K
        if ell or (k > FOREST_WINS_UP_TO_K and not sets_forest):
            with progress_part(1, 4, PHASES):
                self.candidates["specialization"], _, self.frag = method._specialize(
                    model, k, self.sens, ell
                )
        elif k == 2:
            pairs = pair_crowds(model, self.index)
            if pairs is not None:
                self.candidates["factor"] = pairs
        if sets_forest or not self.candidates:
            self.candidates["forest"] = self._forest_labels()
        report_progress(4, PHASES)
        for name in self.candidates:
            self._improve(name)
        # l-diverse crowds are polished again after their repair (one round here saves a
        # second on Adult, the loss within 1 %)
        best = self._best()
        with progress_part(5, 8, PHASES):
            self._polish(best)
        self.costs[best] = model.of(self.candidates[best])

    def finish(self, lower_bound: float, deletions: int, seconds: float) -> Run:
        """The forest after all where the certificate alone does not prove the ratio for the
        best crowds, then the search and the deletions on the best; the run's result."""
        method, model, k, costs = self.method, self.model, self.k, self.costs
        if "forest" not in self.candidates and costs[self._best()] > self.limit * lower_bound:
            with progress_part(9, 10, PHASES):
                self.candidates["forest"] = self._forest_labels()
                self._improve("forest")
                self._polish("forest")
            costs["forest"] = model.of(self.candidates["forest"])
        construction = self._best()
        labels = self.candidates[construction]
        neighbourhoods = better = 0
        if method.search_seconds:  # never raises the cost: the guarantee below still holds
            rng = np.random.default_rng(int(method.random_state))
            labels, neighbourhoods, better = search(labels, model, k, seconds, rng)
            costs[construction] = model.of(labels)
        if deletions:  # each deletion lowers the cost: the guarantee below still holds
            budgeted_deletions(labels, self.idx, k, deletions, model.row_cost, MAX_ROUNDS,
                               self.cm, self.sens, self.ell)  # fmt: skip
            costs[construction] = model.of(labels)
        report_progress(PHASES, PHASES)
        cost = costs[construction]
        certified = cost <= self.limit * lower_bound
        solved = Solved(labels, cost, lower_bound,
                        certified or cost <= costs.get("forest", np.inf), certified)  # fmt: skip
        return Run(solved, construction, self.paper, int(self.largest), neighbourhoods, better)

    def _forest_labels(self) -> np.ndarray:
        # the paper's crowds on the cost without floors (its Theorem 5), refined
        crowds = self.method._forest(self.base, self.index, self.k)
        self.largest, self.paper = crowds.max_tree_size, self.model.of(crowds.paper)
        assert crowds.refined is not None
        return crowds.refined

    def _improve(self, name: str) -> None:
        labels, model, sens, ell = self.candidates[name], self.model, self.sens, self.ell
        improve_labels(labels, self.idx, self.k, True, 0, model.row_cost, MAX_ROUNDS, self.cm,
                       sens, ell)  # fmt: skip
        self.costs[name] = model.of(labels)
        # the forest builds no l-diverse crowds: its crowds lacking diversity would be
        # merged by the repair, at a cost its own does not show
        self.lacking[name] = crowds_lacking(labels, sens, ell) if ell else 0

    def _polish(self, name: str) -> None:
        polish(self.candidates[name], self.idx, self.k, self.model, self.frag, self.sens,
               self.ell, self.rounds)  # fmt: skip

    def _best(self) -> str:
        return min(self.costs, key=lambda name: (self.lacking[name], self.costs[name]))
