"""Bounds on the generalization levels a method publishes: ``min_level`` and ``max_level``.

A quasi-identifier's levels are those of its hierarchy: 0 the values themselves, 1 their
parents, up to its height (``*``); a category without a hierarchy has two (0: the value,
1: ``*``); a number without a hierarchy has none (it is published as its crowd's range).
ARX bounds each attribute's generalization so; a local method honours the bounds thus:

- ``min_level`` (a floor ``m``): a crowd publishes the attribute at the higher of the
  level on which its records agree and ``m``, and is priced there. The cost's tables are
  raised (:func:`floored_cost`): below ``m`` each value's node is its ancestor at ``m``,
  at that node's cost, so every kernel, move and split prices the published cells.
- ``max_level`` (a ceiling ``M``): no crowd may span two ancestors at level ``M``, so
  the records are blocked by their ancestors at every ceiling (:func:`level_blocks`) and
  each block is solved by itself (:func:`solve_blocks`) — exact, not a loss, since no
  allowed crowd spans two blocks. A block of fewer than ``k`` records can only be
  suppressed, within the suppression limit, else :class:`~incrowd.InfeasibleError`.

Guarantees under the bounds: a raised cost prices every crowd at least as the unbounded
one, and the bounded crowds are among the unbounded ones, so every lower bound on the
unbounded optimum (with at least as many deletions) bounds the bounded one;
each record pays at least its cost alone (:func:`floor_terms`), which bounds it too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from ..._runtime import progress_part
from ...costs import GeneralizationCost
from ...data.columns import CategoricalColumn, NumericColumn
from ...errors import InfeasibleError, ParameterError, option
from ...params import Levels, check_level_bounds, check_levels, outlier_budget
from ...space.metric_space import MetricSpace
from ...space.neighbours.index import NeighbourIndex
from .generalized import GeneralizedMethod

#: The parameters of a method that honours level bounds (None: no bound).
LEVEL_PARAMETERS = {"min_level": Levels("min_level"), "max_level": Levels("max_level")}

__all__ = [
    "LEVEL_PARAMETERS",
    "Blocked",
    "LevelBoundedMethod",
    "LevelBounds",
    "Solved",
    "floor_terms",
    "floored_cost",
    "level_blocks",
    "level_bounds",
    "solve_blocks",
]


class LevelBounds(NamedTuple):
    """Per coded attribute of the cost (categories and hierarchies, in its order): the
    lowest and the highest level a crowd may publish it at."""

    floors: np.ndarray
    ceilings: np.ndarray
    given: Mapping[str, int]  # the max_level asked (for messages)

    @property
    def floored(self) -> bool:
        return bool(self.floors.any())


class LevelBoundedMethod(GeneralizedMethod):
    """Base of the methods that honour :data:`LEVEL_PARAMETERS` and build crowds with the
    forest of Aggarwal et al. (:class:`~incrowd.ForestKAnonymity`,
    :class:`~incrowd.LocalRecoding`): the cost priced at the floors, and the forest's
    ratio, one more where the floors leave it unproven."""

    def cost(self, space: MetricSpace) -> GeneralizationCost:
        """The generalization cost, each attribute priced at least at its ``min_level``."""
        return self._costs(space)[2]

    def _costs(
        self, space: MetricSpace
    ) -> tuple[LevelBounds | None, GeneralizationCost, GeneralizationCost]:
        """The level bounds, the cost without floors (the forest's crowds are built on it)
        and the cost with them (the same object when there is no floor)."""
        bounds = level_bounds(space, self.min_level, self.max_level, self.generalize)  # type: ignore[attr-defined]
        base = super().cost(space)
        return bounds, base, floored_cost(base, bounds)

    def _forest_ratio(self, limit: int) -> float:
        """``limit`` (``max(2k − 1, 3k − 5)``), or the largest unsplittable forest tree if
        one was left; one more when the fit found floors the bound alone does not prove the
        ratio under (``_extra``): the forest's crowds, built on the cost without floors, then
        cost at most ``Σ floors + ratio · OPT``."""
        ratio = max(limit, getattr(self, "max_tree_size_", 0))
        return float(ratio + getattr(self, "_extra", 0))


def level_bounds(
    space: MetricSpace,
    min_level: Mapping[str, int] | None,
    max_level: Mapping[str, int] | None,
    generalize: str = "levels",
) -> LevelBounds | None:
    """The bounds of ``space``'s coded attributes, checked against each column's levels
    (None when none is given). Errors name the column and the setting."""
    if not min_level and not max_level:
        return None
    for name, given in (("min_level", min_level), ("max_level", max_level)):
        if given:
            check_levels(given, name)
    check_level_bounds(min_level, max_level)
    columns = {c.name: c for c in space.columns}
    coded = [c.name for c in space.columns if not isinstance(c, NumericColumn)]
    floors = np.zeros(len(coded), dtype=np.intp)
    tops = np.array([1 if isinstance(columns[c], CategoricalColumn)
                     else columns[c].hierarchy.height for c in coded], dtype=np.intp)  # fmt: skip
    ceilings = tops.copy()
    for setting, given, out in (("min_level", min_level, floors),
                                ("max_level", max_level, ceilings)):  # fmt: skip
        for name, level in (given or {}).items():
            where = option(setting, {name: level})
            column = columns.get(name)
            if column is None:
                known = ", ".join(map(repr, columns)) or "none: a plain matrix has no levels"
                msg = f"{where}: {name!r} is not a quasi-identifier (they are {known})"
                raise ParameterError(msg)
            if isinstance(column, NumericColumn):
                msg = (f"{where}: {name!r} is a number without a hierarchy: its crowd's range "
                       "is published, which has no levels; give it one "
                       f"({option('hierarchies', {name: 'intervals:5,10,20'})})")  # fmt: skip
                raise ParameterError(msg)
            j = coded.index(name)
            if level > tops[j]:
                msg = (f"{where}: {name!r} has levels 0 (its values) to {tops[j]} (*)"
                       + (" (a category without a hierarchy)" if tops[j] == 1 else ""))  # fmt: skip
                raise ParameterError(msg)
            out[j] = level
    if generalize == "sets" and floors.any():
        msg = (f"{option('min_level')} publishes hierarchy labels: it applies to "
               f"{option('generalize', 'levels')}, not value sets")  # fmt: skip
        raise ParameterError(msg)
    return LevelBounds(floors, ceilings, dict(max_level or {}))


def floored_cost(model: GeneralizationCost, bounds: LevelBounds | None) -> GeneralizationCost:
    """``model`` with each attribute priced at least at its floor: below the floor ``m``, a
    value's node is its ancestor at ``m``, at that node's cost (records under one node at
    ``m`` then agree below it, and a crowd pays for the label it publishes). ``model``
    itself when there is no floor."""
    if bounds is None or not bounds.floored:
        return model
    ancestors, node_cost = model.ancestors.copy(), model.node_cost.copy()
    for j, floor in enumerate(bounds.floors.tolist()):
        for level in range(floor):
            ancestors[j, level] = ancestors[j, floor]
            node_cost[j, level] = node_cost[j, floor]
    return replace(model, ancestors=ancestors, node_cost=node_cost)


def floor_terms(model: GeneralizationCost) -> np.ndarray:
    """Each record's cost alone (its values at the floors): at most its charge in any crowd,
    since a crowd's labels only rise as members join."""
    terms = np.zeros(model.n)
    for j in range(model.codes.shape[1]):
        if model.sets[j] or model.height[j] == 0:
            continue
        node = model.ancestors[j, 0][model.codes[:, j]]
        terms += model.cat_weight[j] * model.node_cost[j, 0][node]
    return terms


def level_blocks(model: GeneralizationCost, bounds: LevelBounds | None) -> np.ndarray | None:
    """Each record's block: its ancestors at the ceilings below the top, numbered; None
    when no ceiling cuts (one block)."""
    if bounds is None:
        return None
    cut = np.flatnonzero(bounds.ceilings < model.height)
    if cut.size == 0:
        return None
    keys = np.stack([model.ancestors[j, bounds.ceilings[j]][model.codes[:, j]] for j in cut],
                    axis=1)  # fmt: skip
    return np.unique(keys, axis=0, return_inverse=True)[1].ravel().astype(np.intp)


class Solved(NamedTuple):
    """What one method's run on a block gives: its labels (−1 deleted), cost, a lower bound
    on the block's bounded optimum, and whether its ratio is proven (``certified``: by the
    bound alone)."""

    labels: np.ndarray
    cost: float
    lower_bound: float
    proven: bool = True
    certified: bool = True


@dataclass(frozen=True)
class Blocked:
    """The blocks' runs put together: every record's crowd, the blocks' runs (for what a
    method reports of them) and the records suppressed because their block is under k."""

    labels: np.ndarray
    solved: tuple[Solved, ...]
    n_forced: int
    lower_bound: float


#: ``solve(model, index, rows, deletions, bound_budget)``: one block's run on the records
#: ``rows`` (None: all), deleting at most ``deletions``, its bound allowing ``bound_budget``.
Solve = Callable[[GeneralizationCost, NeighbourIndex, np.ndarray | None, int, int], Solved]


def solve_blocks(
    space: MetricSpace,
    model: GeneralizationCost,
    bounds: LevelBounds | None,
    k: int,
    suppression_limit: float,
    solve: Solve,
) -> Blocked:
    """Run ``solve`` on each block of the ceilings (the whole space when none cuts).

    A block under ``k`` is suppressed; the rest of the budget ``⌊suppression_limit · n⌋``
    is shared among the blocks by size for their deletions, while each block's lower bound
    allows the whole rest (the optimum may spend it anywhere), so the blocks' bounds add
    up to a bound on the whole, each suppressed block's records at a full row."""
    n = model.n
    budget = outlier_budget(suppression_limit, n)
    blocks = level_blocks(model, bounds)
    if blocks is None:
        one = solve(model, space.index(model.geometry), None, budget, budget)
        return Blocked(one.labels, (one,), 0, one.lower_bound)
    sizes = np.bincount(blocks)
    small = np.flatnonzero(sizes < k)
    forced = int(sizes[small].sum())
    if forced > budget:
        assert bounds is not None
        _infeasible(space, model, bounds, blocks, small, forced, budget, k)
    rest, kept = budget - forced, n - forced
    labels = np.full(n, -1, dtype=np.intp)
    solved, next_label, done = [], 0, 0
    for b in np.flatnonzero(sizes >= k):
        rows = np.flatnonzero(blocks == b)
        part = replace(model, num=np.ascontiguousarray(model.num[rows]),
                       codes=np.ascontiguousarray(model.codes[rows]),
                       geometry=model.geometry.take(rows))  # fmt: skip
        deletions = rest * rows.size // kept if kept else 0
        with progress_part(done, done + rows.size, kept):  # one bar over the blocks
            one = solve(part, NeighbourIndex(part.geometry), rows, deletions, rest)
        done += rows.size
        inner = one.labels
        labels[rows] = np.where(inner >= 0, inner + next_label, -1)
        next_label += int(inner.max(initial=-1)) + 1
        solved.append(one)
    bound = sum(s.lower_bound for s in solved) + forced * model.row_cost
    return Blocked(labels, tuple(solved), forced, bound)


def _infeasible(
    space: MetricSpace,
    model: GeneralizationCost,
    bounds: LevelBounds,
    blocks: np.ndarray,
    small: np.ndarray,
    forced: int,
    budget: int,
    k: int,
) -> None:
    """The one-line error when the blocks under ``k`` hold more records than the budget."""
    coded = [c for c in space.columns if not isinstance(c, NumericColumn)]
    first = int(np.flatnonzero(np.isin(blocks, small))[0])
    where = []
    for j, column in enumerate(coded):
        level = int(bounds.ceilings[j])
        if level >= model.height[j]:
            continue
        node = int(model.ancestors[j, level][model.codes[first, j]])
        label = (column.hierarchy.label(level, node) if not isinstance(column, CategoricalColumn)
                 else column.categories[node])  # fmt: skip
        where.append(f"{column.name} {label}")
    share = math.ceil(forced / model.n * 1e4) / 1e4  # enough, in four decimals
    msg = (f"{option('max_level', dict(bounds.given))} leaves {forced} record(s) in groups of "
           f"fewer than k = {k} (such as {', '.join(where)}), which only suppression can "
           f"publish, and the suppression limit allows {budget}: raise the maximum level or "
           f"{option('suppression_limit', share)}")  # fmt: skip
    raise InfeasibleError(msg)
