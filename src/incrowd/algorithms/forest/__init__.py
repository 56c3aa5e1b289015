"""k-Anonymity by generalization and suppression with the O(k) forest algorithm.

:class:`ForestKAnonymity` implements Sections 2 and 4 of Aggarwal, Feder, Kenthapadi,
Motwani, Panigrahy, Thomas and Zhu, *Approximation Algorithms for k-Anonymity* (J. Privacy
Technology, 2005); :class:`MuApprox` is the same forest on squared Euclidean distances
followed by microaggregation, the μ-Approx heuristic of Domingo-Ferrer, Sebé and Solanas
that Domingo-Ferrer & Sebé compare with in Table 1 of *Optimal Multivariate
2-Microaggregation*.

Guarantee: generalization cost at most ``max(2k − 1, 3k − 5)`` times the optimum
(Theorem 5); FOREST and DECOMPOSE-COMPONENT are in :mod:`._core`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from ..._runtime import report_progress
from ...base import Guarantee, Tags
from ...costs import GeneralizationCost, GeneralizeForm, LevelLoss
from ...errors import ParameterError
from ...params import CrowdSize, Flag, outlier_budget
from ...partition import Partition
from ...space.geometry import Geometry
from ...space.metric_space import MetricSpace
from ...space.neighbours.index import NeighbourIndex
from .._shared.generalized import GENERALIZED_PARAMETERS, SUPPRESSION_LIMIT
from .._shared.improve import budgeted_deletions, improve_labels
from .._shared.levels import (
    LEVEL_PARAMETERS,
    LevelBoundedMethod,
    Solved,
    floor_terms,
    solve_blocks,
)
from ._core import copies_only, decompose, forest_labels, forest_on, size_limit
from ._mu import MuApprox, mu_approx_factor

__all__ = [
    "ForestCrowds",
    "ForestKAnonymity",
    "MuApprox",
    "MAX_ROUNDS",
    "MOVE_CANDIDATES",
    "forest_crowds",
    "mu_approx_factor",
    "size_limit",
]

#: Neighbours each record may move towards in the improvement pass (at least k − 1).
MOVE_CANDIDATES = 8
#: Passes of the improvement pass over all records.
MAX_ROUNDS = 20


@dataclass(frozen=True)
class ForestCrowds:
    """The crowds of the paper's algorithm, and those trees split further."""

    weight: float  # of the FOREST
    paper: np.ndarray  # labels after DECOMPOSE-COMPONENT
    n_stuck: int  # trees above the limit no split could break
    max_tree_size: int  # the largest tree above the limit, else the limit
    refined: np.ndarray | None  # labels with every tree split while that never raises cost


def forest_crowds(
    dist: np.ndarray, idx: np.ndarray, k: int, model: GeneralizationCost, refine: bool
) -> ForestCrowds:
    """FOREST and DECOMPOSE-COMPONENT on neighbour lists (and, with ``refine``, the trees
    split further), for :class:`ForestKAnonymity` and the methods that build on it."""
    n = dist.shape[0]
    weight, trees = forest_on(dist, idx, k)
    trees, stuck = decompose(trees, k, model.pair, refine=False)
    limit = size_limit(k)
    # a tree of copies costs 0 at any size: it bounds nothing
    largest = max((t.size for t in trees if t.size > limit and not copies_only(t)),
                  default=limit)  # fmt: skip
    paper = forest_labels(trees, n)
    refined = forest_labels(decompose(trees, k, model.pair, refine=True)[0], n) if refine else None
    return ForestCrowds(float(weight.sum()), paper, stuck, largest, refined)


class ForestKAnonymity(LevelBoundedMethod):
    """k-anonymity with generalization: FOREST + DECOMPOSE-COMPONENT, ratio max(2k−1, 3k−5).

    Each record is a vertex; the edge between two records weighs what a crowd of the two
    would cost per record, ``Σ_j w_j c_j(a, b)``, the cost of the lowest hierarchy label
    on which attribute ``j`` of the two agrees (the paper's ``h_ab(j) / l_j`` with
    ``loss="height"``; :mod:`incrowd.costs.generalization`). FOREST (Sec. 4.1) links each
    small tree's sink to its nearest neighbour outside the tree among its ``k − 1``
    nearest, until every tree has ``k`` records; its weight is at most OPT (Lemma 3).
    DECOMPOSE-COMPONENT (Sec. 4.2) then splits every tree above ``max(2k − 1, 3k − 5)``
    records into two trees of at least ``k``, with Steiner copies where a vertex must be
    shared. Each tree becomes a crowd, generalized to the lowest level on which it agrees;
    a crowd of ``|C|`` records costs at most ``|C| · W(tree)``, hence the ratio (Theorem 5).

    Parameters
    ----------
    k : int, default 5
    weights : mapping of attribute name to weight, optional
        Multiplies each attribute's cost (the paper's weighted version); defaults to the
        schema's weights (1). The analysis holds unchanged: edge weights are weighted too.
    allow_deletion : bool, default False
        Allow deleting a row (publishing none of it, which costs ``Σ_j w_j``, all entries
        suppressed) instead of keeping it in a crowd. Deleted rows are suppressed records
        (label −1), counted in the release. The bound still holds (end of Sec. 4): a row's
        charge in any solution, deleted or not, is at least its distance to its (k−1)-th
        nearest neighbour, since no pair costs more than a deletion; and a row is deleted only
        when that lowers the cost.
    suppression_limit : float in [0, 1], default 0
        Delete at most ``⌊suppression_limit · n⌋`` rows (the same deletion, with a budget),
        the largest savings first (:func:`~incrowd.algorithms._shared.improve.budgeted_deletions`);
        not with ``allow_deletion``, which sets no budget. The bound still holds: the charge
        argument above does not depend on how many rows are deleted.
    generalize : {"levels", "sets"}, default "levels"
        What a crowd publishes for a categorical attribute, and so what the cost counts:
        ``"levels"`` a hierarchy label (the paper's cost ``h / l``); ``"sets"`` the set of
        values present, costing ``(distinct − 1) / (domain − 1)`` (the NCP of a value set).
    loss : {"ncp", "height"}, default "ncp"
        How ``"levels"`` prices a hierarchy label: by the input values it covers, its NCP
        (:mod:`incrowd.data.ncp`; what ARX's loss and the peer comparisons measure), or by
        its level, ``h / l`` (the paper's cost). Both satisfy what the analysis needs, so
        the guarantee holds for either.
    improve : bool, default True
        After the paper's algorithm, split every tree that still splits into two of at least
        ``k`` (never raises the cost), then move records between crowds, one at a time, when
        that lowers the cost and keeps every crowd at least ``k``.
    min_level, max_level : mapping of attribute name to level, optional
        No crowd publishes the attribute below ``min_level`` or above ``max_level`` (0: the
        values; :mod:`incrowd.algorithms._shared.levels`): crowds are priced at the higher
        of their agreed level and the floor, and each block of the records' ancestors at
        the ceilings is run by itself; a block under ``k`` is suppressed within the
        suppression limit, else :class:`~incrowd.InfeasibleError`.

    Attributes
    ----------
    partition_, labels_ : the crowds (−1: a deleted row)
    cost_ : float, generalization cost ``Σ_C |C| Σ_j w_j c_j(C)`` plus ``Σ_j w_j`` per
        deleted row
    paper_partition_ : Partition, the crowds of the paper's algorithm alone (before
        ``improve`` and deletions)
    paper_cost_ : float, their cost
    lower_bound_ : float, ``Σ_u d_{k−1}(u)``: each record's distance to its (k−1)-th nearest
        other record, at most its charge in any k-anonymization (the proof of Lemma 3)
    forest_weight_ : float, weight of the FOREST (≤ ``lower_bound_`` ≤ OPT)
    max_tree_size_ : int, largest tree after DECOMPOSE-COMPONENT
    n_stuck_ : int, trees above the limit that no split could break (only possible around
        Steiner vertices; then ``approximation_ratio_`` is their size, the bound that still
        holds)
    n_deleted_ : int
    n_level_suppressed_ : int, of those, the records of blocks under ``k`` (level bounds)

    Notes
    -----
    **Guarantee**: ``cost_ ≤ max(2k − 1, 3k − 5) · OPT`` (Theorem 5), for the weighted cost,
    with or without row deletion, for both ``generalize`` forms.
    With ``max_level`` the records are blocked by their ancestors at the ceilings, and no
    allowed crowd spans two blocks, so each block's bound and ratio hold on its own and
    add up (a block under ``k`` is charged a full row per record, as any allowed solution
    pays). With ``min_level`` the forest is built on the cost without floors and its crowds
    improved on the floored one: a crowd ``C`` costs at most ``Σ_{u∈C} f(u) + |C| c(C)``
    (``f(u)``: ``u``'s cost alone at its floors, at most its charge; ``c``: the cost
    without floors, at most the floored one), so ``cost_ ≤ Σ f + ratio · OPT ≤ (ratio + 1) ·
    OPT``, and :attr:`approximation_ratio_` says ``ratio + 1`` unless
    ``cost_ ≤ ratio · lower_bound_``; ``lower_bound_`` is then ``Σ_u max(d_{k−1}(u), f(u))``.

    Numeric attributes without a hierarchy are generalized to the crowd's range and cost
    ``w_j (max − min) / (column max − column min)``, with pair cost ``w_j |a − b| / range``.
    We use the range rather than an interval hierarchy because it is what the published
    range costs (its NCP), because it needs no bin widths from the user, and because the
    analysis needs only that a crowd costs at least any of its pairs and at most the pair
    costs along a tree through it, which the range satisfies.

    Time: neighbour lists from the space's index for the cost's L1 geometry (no n×n
    matrix; built once per space and cost), FOREST
    :math:`O(nk \\log n)`, each split linear in the tree's size; the improvement pass is
    compiled (numba). Memory :math:`O(n (k + p))`.

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    >>> incrowd.ForestKAnonymity(k=3).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "generalization cost at most max(2k-1, 3k-5) times the optimum",
        "Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 5",
    )
    tags: ClassVar[Tags] = Tags(deletion=True, norm=1, generalized=True)
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        "allow_deletion": Flag(),
        "suppression_limit": SUPPRESSION_LIMIT,
        **GENERALIZED_PARAMETERS,
        "improve": Flag(),
        **LEVEL_PARAMETERS,
    }

    def __init__(
        self,
        k: int = 5,
        *,
        weights: Mapping[str, float] | None = None,
        allow_deletion: bool = False,
        suppression_limit: float = 0.0,
        generalize: GeneralizeForm = "levels",
        loss: LevelLoss = "ncp",
        improve: bool = True,
        min_level: Mapping[str, int] | None = None,
        max_level: Mapping[str, int] | None = None,
    ) -> None:
        self.k = k
        self.weights = weights
        self.allow_deletion = allow_deletion
        self.suppression_limit = suppression_limit
        self.generalize = generalize
        self.loss = loss
        self.improve = improve
        self.min_level = min_level
        self.max_level = max_level

    def capped_lower_bound(self, cap: np.ndarray) -> float | None:
        """``Σ_u min(d_{k−1}(u), cap[u])`` (see :meth:`Algorithm.capped_lower_bound`); None
        with level bounds (the terms are then not distances of one geometry)."""
        if self._bound_terms is None:
            return None
        return float(np.minimum(self._bound_terms, cap).sum())

    def bound_geometry(self, space: MetricSpace) -> Geometry | None:
        return self.cost(space).geometry  # type: ignore[attr-defined]

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        """``max(2k − 1, 3k − 5)``, or the largest unsplittable tree if one was left; one
        more with a ``min_level`` the bound alone does not prove the ratio for."""
        return self._forest_ratio(size_limit(int(self.k)))

    def _fit(self, space: MetricSpace) -> None:
        k = int(self.k)
        bounds, base, model = self._costs(space)
        if outlier_budget(self.suppression_limit, space.n) and self.allow_deletion:
            msg = ("allow_deletion deletes any number of rows; suppression_limit sets a "
                   "budget: give one of them")  # fmt: skip
            raise ParameterError(msg)
        terms = np.zeros(space.n)
        runs: list[tuple[ForestCrowds, float, np.ndarray | None]] = []

        def solve(part: GeneralizationCost, index: NeighbourIndex, rows: np.ndarray | None,
                  deletions: int, bound_budget: int) -> Solved:  # fmt: skip
            below = part if model is base else replace(base, num=part.num, codes=part.codes,
                                                         geometry=part.geometry)  # fmt: skip
            labels, crowds, mine = self._forest_run(part, below, index, k, deletions)
            terms[slice(None) if rows is None else rows] = mine
            runs.append((crowds, part.of(crowds.paper), rows))
            cost = part.of(labels)
            return Solved(labels, cost, float(mine.sum()),
                          certified=cost <= size_limit(k) * float(mine.sum()))  # fmt: skip

        blocked = solve_blocks(space, model, bounds, k, float(self.suppression_limit), solve)
        self._bound_terms = terms if bounds is None else None
        self.lower_bound_ = blocked.lower_bound
        self.forest_weight_ = sum(crowds.weight for crowds, _, _ in runs)
        self.n_stuck_ = sum(crowds.n_stuck for crowds, _, _ in runs)
        self.max_tree_size_ = max(
            (crowds.max_tree_size for crowds, _, _ in runs), default=size_limit(k)
        )  # no run: every block suppressed
        paper = np.full(space.n, -1, dtype=np.intp)
        for crowds, _, rows in runs:  # the paper's crowds of every block, numbered apart
            inner = np.where(crowds.paper >= 0, crowds.paper + paper.max() + 1, -1)
            paper[slice(None) if rows is None else rows] = inner
        self.paper_partition_ = Partition(paper)
        self.paper_cost_ = float(sum(c for _, c, _ in runs)) + model.row_cost * blocked.n_forced
        self.partition_ = Partition(blocked.labels)
        self.n_deleted_ = self.partition_.n_suppressed
        self.n_level_suppressed_ = blocked.n_forced
        self.cost_ = model.of(self.partition_.labels)
        # with floors the crowds cost at most one more OPT (see approximation_ratio_)
        self._extra = int(model is not base and not all(s.certified for s in blocked.solved))

    def _forest_run(
        self, model: GeneralizationCost, base: GeneralizationCost, index: NeighbourIndex, k: int,
        budget: int,
    ) -> tuple[np.ndarray, ForestCrowds, np.ndarray]:  # fmt: skip
        """The forest on ``base``'s pair costs (the paper's algorithm), its crowds improved on
        ``model`` and ``budget`` records deleted: the labels, the forest's crowds and each
        record's term of the bound (at least its cost alone on ``model``)."""
        n = model.n
        dist, idx = index.neighbours(min(n - 1, max(k - 1, MOVE_CANDIDATES)))
        terms = dist[:, k - 2].copy()
        if model is not base:  # each record pays at least its cost alone at its floors
            terms = np.maximum(terms, floor_terms(model))
        report_progress(1, 4)  # steps: the lists, the trees, the moves, the deletions
        crowds = forest_crowds(dist, idx, k, base, refine=bool(self.improve))
        report_progress(2, 4)
        labels = crowds.refined if crowds.refined is not None else crowds.paper.copy()
        if self.improve or self.allow_deletion:
            improve_labels(
                labels, idx, k, bool(self.improve), bool(self.allow_deletion), model.row_cost,
                MAX_ROUNDS, model.kernel_args(),
            )  # fmt: skip
        report_progress(3, 4)
        if budget:
            budgeted_deletions(labels, idx, k, budget, model.row_cost, MAX_ROUNDS,
                               model.kernel_args())  # fmt: skip
        report_progress(4, 4)
        return labels, crowds, terms
