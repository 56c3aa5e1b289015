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
    cm = model.kernel_args()
    n = model.n
    levels = method.generalize == "levels"
    # every attribute a hierarchy label: the lattice bound is each record's least charge
    exact = levels and model.labels_only and lattice_walks(model)
    if method.search_seconds and not (exact and not ell):
        msg = ("search_seconds needs every quasi-identifier a hierarchy label (generalize="
               "'levels', no numeric attribute), a lattice of at most "
               f"{LATTICE_NODES:,} nodes and l = 1")  # fmt: skip
        raise ParameterError(msg)
    # (at k = 2 a record's least crowd is its nearest pair: the pair bound)
    searched = not exact and 3 <= k <= CROWD_BOUND_MAX_K and n <= CROWD_BOUND_MAX_ROWS
    if searched:  # the longer lists first: the index slices them for the shorter
        near = index.neighbours(min(n - 1, CROWD_NEIGHBOURS))
    # the forest and the pair bound need k − 1 neighbours; moves, MOVE_CANDIDATES; with
    # the lattice bound exact the pair bound adds nothing (a record's k − 1 classmates
    # at its least node are within its least charge)
    listed = MOVE_CANDIDATES if exact else max(k - 1, MOVE_CANDIDATES)
    dist, idx = index.neighbours(min(n - 1, listed))

    # the certificate's bound is computed on a thread of its own while the crowds form
    # and are improved (after the lists, which take every thread); with floors, on the
    # cost without them (a bound on that optimum bounds the floored one), and at least
    # each record's cost alone
    def bound() -> float:
        pairs = None if exact or k < 2 else dist[:, k - 2]
        found = certificate_bound(base, k, levels=levels, exact=exact, pairs=pairs,
                                  near=near if searched else None,
                                  rounds=int(method.bound_rounds), budget=bound_budget)  # fmt: skip
        if model is base:
            return found
        return max(found, budgeted_bound(floor_terms(model), model.row_cost, bound_budget))

    bounded = in_background(bound)
    report_progress(1, PHASES)
    limit = size_limit(k)
    forest: dict[str, float | int | None] = {"paper": None, "largest": limit}
    candidates = {}
    frag = FRAGMENTATION[-1]

    def forest_labels() -> np.ndarray:
        # the paper's crowds on the cost without floors (its Theorem 5), refined
        crowds = method._forest(base, index, k)
        forest["largest"], forest["paper"] = crowds.max_tree_size, model.of(crowds.paper)
        assert crowds.refined is not None
        return crowds.refined

    # the forest runs where it was measured to win (value sets up to FOREST_SETS_UP_TO_K,
    # where the specialization does not run; not for l-diverse crowds, which it does not
    # build), where nothing else was built, and below wherever the certificate alone does
    # not prove its ratio for the crowds kept
    sets_forest = method.generalize == "sets" and not ell and k <= FOREST_SETS_UP_TO_K
    if ell or (k > FOREST_WINS_UP_TO_K and not sets_forest):
        with progress_part(1, 4, PHASES):
            candidates["specialization"], _, frag = method._specialize(model, k, sens, ell)
    elif k == 2:
        pairs = pair_crowds(model, index)
        if pairs is not None:
            candidates["factor"] = pairs
    if sets_forest or not candidates:
        candidates["forest"] = forest_labels()
    rounds = 1 if ell else RESPLIT_ROUNDS
    costs, lacking = {}, {}

    def improved(name: str) -> None:
        labels = candidates[name]
        improve_labels(labels, idx, k, True, 0, model.row_cost, MAX_ROUNDS, cm, sens, ell)
        costs[name] = model.of(labels)
        # the forest builds no l-diverse crowds: its crowds lacking diversity would be
        # merged by the repair, at a cost its own does not show
        lacking[name] = crowds_lacking(labels, sens, ell) if ell else 0

    def best() -> str:
        return min(costs, key=lambda name: (lacking[name], costs[name]))

    report_progress(4, PHASES)
    for name in candidates:
        improved(name)
    # l-diverse crowds are polished again after their repair (one round here saves a
    # second on Adult, the loss within 1 %)
    with progress_part(5, 8, PHASES):
        polish(candidates[best()], idx, k, model, frag, sens, ell, rounds)
    costs[best()] = model.of(candidates[best()])
    lower_bound = bounded()
    report_progress(9, PHASES)
    if "forest" not in candidates and costs[best()] > limit * lower_bound:
        with progress_part(9, 10, PHASES):
            candidates["forest"] = forest_labels()
            improved("forest")
            polish(candidates["forest"], idx, k, model, frag, sens, ell, rounds)
        costs["forest"] = model.of(candidates["forest"])
    construction = best()
    labels = candidates[construction]
    neighbourhoods = better = 0
    if method.search_seconds:  # never raises the cost: the guarantee below still holds
        rng = np.random.default_rng(int(method.random_state))
        labels, neighbourhoods, better = search(labels, model, k, seconds, rng)
        costs[construction] = model.of(labels)
    if deletions:  # each deletion lowers the cost: the guarantee below still holds
        budgeted_deletions(labels, idx, k, deletions, model.row_cost, MAX_ROUNDS, cm, sens, ell)
        costs[construction] = model.of(labels)
    report_progress(PHASES, PHASES)
    cost = costs[construction]
    certified = cost <= limit * lower_bound
    solved = Solved(labels, cost, lower_bound, certified or cost <= costs.get("forest", np.inf),
                    certified)  # fmt: skip
    return Run(solved, construction, forest["paper"], int(forest["largest"]),  # type: ignore[arg-type]
               neighbourhoods, better)  # fmt: skip
