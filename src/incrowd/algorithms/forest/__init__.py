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

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..._runtime import report_progress
from ...base import Algorithm, Guarantee, Tags
from ...costs import SSE, GeneralizationCost, GeneralizeForm, LevelLoss
from ...errors import ParameterError
from ...params import CrowdSize, Flag, outlier_budget
from ...partition import SUPPRESSED, Partition
from ...space.geometry import Geometry
from ...space.metric_space import MetricSpace
from .._shared.generalized import (
    GENERALIZED_PARAMETERS,
    SUPPRESSION_LIMIT,
    GeneralizedMethod,
)
from .._shared.improve import budgeted_deletions, improve_labels
from ._core import Tree, copies_only, decompose, forest_trees, grow_forest, size_limit

__all__ = [
    "ForestKAnonymity",
    "MuApprox",
    "MAX_ROUNDS",
    "MOVE_CANDIDATES",
    "forest_crowds",
    "size_limit",
]

#: Neighbours each record may move towards in the improvement pass (at least k − 1).
MOVE_CANDIDATES = 8
#: Passes of the improvement pass over all records.
MAX_ROUNDS = 20


def _labels(trees: list[Tree], n: int) -> np.ndarray:
    labels = np.full(n, SUPPRESSED, dtype=np.intp)
    for c, tree in enumerate(trees):
        labels[tree.records()] = c
    return labels


def _forest(dist: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, list[Tree]]:
    """FOREST on neighbour lists, and its trees."""
    head, weight = grow_forest(dist[:, : k - 1], idx[:, : k - 1], k)
    return weight, forest_trees(head, weight)


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
    weight, trees = _forest(dist, idx, k)
    trees, stuck = decompose(trees, k, model.pair, refine=False)
    limit = size_limit(k)
    # a tree of copies costs 0 at any size: it bounds nothing
    largest = max((t.size for t in trees if t.size > limit and not copies_only(t)),
                  default=limit)  # fmt: skip
    paper = _labels(trees, n)
    refined = _labels(decompose(trees, k, model.pair, refine=True)[0], n) if refine else None
    return ForestCrowds(float(weight.sum()), paper, stuck, largest, refined)


class ForestKAnonymity(GeneralizedMethod):
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

    Notes
    -----
    **Guarantee**: ``cost_ ≤ max(2k − 1, 3k − 5) · OPT`` (Theorem 5), for the weighted cost,
    with or without row deletion, for both ``generalize`` forms.

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
    ) -> None:
        self.k = k
        self.weights = weights
        self.allow_deletion = allow_deletion
        self.suppression_limit = suppression_limit
        self.generalize = generalize
        self.loss = loss
        self.improve = improve

    def capped_lower_bound(self, cap: np.ndarray) -> float | None:
        """``Σ_u min(d_{k−1}(u), cap[u])`` (see :meth:`Algorithm.capped_lower_bound`)."""
        return float(np.minimum(self._bound_terms, cap).sum())

    def bound_geometry(self, space: MetricSpace) -> Geometry | None:
        return self.cost(space).geometry  # type: ignore[attr-defined]

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        """``max(2k − 1, 3k − 5)``, or the largest unsplittable tree if one was left."""
        return float(max(size_limit(int(self.k)), getattr(self, "max_tree_size_", 0)))

    def _fit(self, space: MetricSpace) -> None:
        k = self.k
        model = self.cost(space)
        n = space.n
        index = space.index(model.geometry)
        dist, idx = index.neighbours(min(n - 1, max(k - 1, MOVE_CANDIDATES)))
        self._bound_terms = dist[:, k - 2].copy()
        self.lower_bound_ = float(self._bound_terms.sum())
        report_progress(1, 4)  # steps: the lists, the trees, the moves, the deletions
        crowds = forest_crowds(dist, idx, k, model, refine=bool(self.improve))
        report_progress(2, 4)
        self.forest_weight_ = crowds.weight
        self.n_stuck_ = crowds.n_stuck
        self.max_tree_size_ = crowds.max_tree_size
        self.paper_partition_ = Partition(crowds.paper)
        self.paper_cost_ = model.of(crowds.paper)
        labels = crowds.refined if crowds.refined is not None else crowds.paper.copy()
        budget = outlier_budget(self.suppression_limit, n)
        if budget and self.allow_deletion:
            msg = ("allow_deletion deletes any number of rows; suppression_limit sets a "
                   "budget: give one of them")  # fmt: skip
            raise ParameterError(msg)
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
        self.partition_ = Partition(labels)
        self.n_deleted_ = self.partition_.n_suppressed
        self.cost_ = model.of(self.partition_.labels)


def mu_approx_factor(k: int) -> float:
    """The bound Domingo-Ferrer, Sebé & Solanas prove for μ-Approx (as quoted in
    Domingo-Ferrer & Sebé, Sec. 1.1): ``2 ⌈(3k − 3)/2⌉ (3k − 3)(2k − 1)``."""
    return float(2 * math.ceil((3 * k - 3) / 2) * (3 * k - 3) * (2 * k - 1))


class MuApprox(Algorithm):
    """μ-Approx microaggregation: the k-anonymity forest on squared Euclidean distances.

    FOREST links records to one of their ``k − 1`` nearest neighbours under squared
    Euclidean distance, DECOMPOSE-COMPONENT cuts trees to ``[k, max(2k − 1, 3k − 5)]``
    records, and each tree is a group (published as its centroid by the microaggregated
    release). It is the baseline of Table 1 in Domingo-Ferrer & Sebé.

    Parameters
    ----------
    k : int, default 5

    Attributes
    ----------
    partition_, labels_ : the groups
    cost_ : float, SSE
    lower_bound_ : float, ``Σ_u Σ_{i<k} δ_i(u) / (2k)`` with ``δ_i(u)`` the squared distance
        to the i-th nearest other record. Proof: a group ``G`` has
        ``SSE(G) = Σ_{u∈G} Σ_{b∈G} ‖u − b‖² / (2|G|)``; for each ``u`` the inner sum is at
        least the sum of its ``|G|`` smallest squared distances (``δ_0 = 0`` included), whose
        mean does not decrease with ``|G| ≥ k``.

    Notes
    -----
    **Guarantee**: ``SSE ≤ 2 ⌈(3k−3)/2⌉ (3k−3)(2k−1) · OPT`` (36 at k = 2), as proved by
    Domingo-Ferrer, Sebé & Solanas and quoted in Domingo-Ferrer & Sebé, Sec. 1.1; the
    certified ratio ``cost_ / lower_bound_`` is usually far smaller. Time as
    :class:`ForestKAnonymity` (no improvement pass: this is the published baseline).
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "SSE at most 2*ceil((3k-3)/2)*(3k-3)*(2k-1) times the optimum (36 at k = 2)",
        "Domingo-Ferrer, Sebe & Solanas 2005, quoted in Domingo-Ferrer & Sebe, "
        "Optimal Multivariate 2-Microaggregation, Sec. 1.1",
    )
    parameters: ClassVar[dict] = {"k": CrowdSize()}
    cost_class: ClassVar[type[SSE]] = SSE

    def __init__(self, k: int = 5) -> None:
        self.k = k

    def capped_lower_bound(self, cap: np.ndarray) -> float | None:
        """``Σ_u Σ_{i<k} min(δ_i(u), cap[u]²) / (2k)`` (see
        :meth:`Algorithm.capped_lower_bound`)."""
        return float(np.minimum(self._bound_terms, (cap**2)[:, None]).sum() / (2 * self.k))

    def bound_geometry(self, space: MetricSpace) -> Geometry | None:
        return space.geometry_in(2)

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        return mu_approx_factor(int(self.k)) if getattr(self, "n_stuck_", 0) == 0 else None

    def _fit(self, space: MetricSpace) -> None:
        k = self.k
        geometry = space.geometry_in(2)
        dist, idx = space.index(geometry).neighbours(k - 1)
        dist = dist**2
        _, trees = _forest(dist, idx, k)
        self._bound_terms = dist
        self.lower_bound_ = float(dist.sum() / (2 * k))

        def distance(a: int, b: int) -> float:
            return float(geometry.distance(np.array([a]), np.array([b]))[0] ** 2)

        trees, self.n_stuck_ = decompose(trees, k, distance, refine=False)
        self.partition_ = Partition(_labels(trees, space.n))
        self.cost_ = self.cost(space).of(self.partition_.labels)
