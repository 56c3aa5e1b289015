"""2-anonymity, 3-anonymity and 2-microaggregation through minimum-weight factors.

- :class:`TwoAnonymity`: Aggarwal et al., *Approximation Algorithms for k-Anonymity*, Sec. 5 —
  a minimum-weight [1,2]-factor of the pair-cost graph; its components (pairs and triples)
  are the crowds.
- :class:`ThreeAnonymity`: the same paper, Sec. 6 — a minimum-weight 2-factor; cycles of
  3–5 records are crowds, longer cycles are cut into consecutive pieces (Lemma 11).
- :class:`TwoMicroaggregation`: Domingo-Ferrer & Sebé, *Optimal Multivariate
  2-Microaggregation* — the [1,2]-factor on squared Euclidean distances; SSE ≤ 2·OPT.

The factors are solved exactly (:mod:`._solve`) on a sparse candidate graph and
proven optimal for the complete graph by reduced-cost fixing (:mod:`._certify`), or
the gap is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np

from ...base import Algorithm, Guarantee, Tags
from ...costs import SSE, GeneralizationCost, GeneralizeForm, LevelLoss
from ...errors import ParameterError
from ...params import CrowdSize
from ...partition import Partition
from ...space.metric_space import MetricSpace
from .._shared.generalized import GENERALIZED_PARAMETERS, GeneralizedMethod
from ._certify import Certified, certify
from ._groups import factor_groups, group_labels
from ._solve import Factor, FactorKind, solve_factor, unique_edges

__all__ = [
    "TwoAnonymity",
    "ThreeAnonymity",
    "TwoMicroaggregation",
    "min_weight_12_factor",
    "min_weight_2_factor",
    "factor_groups",
    "group_labels",
    "solve_factor",
    "unique_edges",
]

#: Candidate partners per record to start from (the certificate adds any that matter).
CANDIDATES = 10
#: Up to this many records the factor is priced until proven optimal; above it, pricing
#: stops after a few rounds and the gap to a proven bound is reported (time stays near
#: linear: 100,000 records would otherwise take minutes of LP solves).
FULL_CERTIFICATE_MAX = 25_000


def min_weight_12_factor(n: int, edges: object, weights: object) -> Factor:
    """Minimum-weight [1,2]-factor (every degree 1 or 2) of the graph ``(n, edges, weights)``.

    Exact: minimum-weight perfect matching on the doubled split gadget (PyMatching), with
    weights rounded to 22 bits (``Factor.rounding`` bounds the effect). Raises
    :class:`~incrowd.InfeasibleError` when a vertex has no edge.
    """
    e = unique_edges(*np.asarray(edges, dtype=np.intp).reshape(-1, 2).T, n)
    w = _weights_for(edges, weights, e, n)
    return solve_factor("12", n, e, w)


def min_weight_2_factor(n: int, edges: object, weights: object) -> Factor:
    """Minimum-weight 2-factor (every degree 2: disjoint cycles of length ≥ 3).

    Exact: HiGHS branch-and-bound on the degree constraints with relative gap 0.
    """
    e = unique_edges(*np.asarray(edges, dtype=np.intp).reshape(-1, 2).T, n)
    w = _weights_for(edges, weights, e, n)
    return solve_factor("2", n, e, w)


def _weights_for(edges: object, weights: object, unique: np.ndarray, n: int) -> np.ndarray:
    raw = np.asarray(edges, dtype=np.intp).reshape(-1, 2)
    w = np.asarray(weights, dtype=np.float64).ravel()
    if w.size != raw.shape[0]:
        msg = f"{raw.shape[0]} edges but {w.size} weights"
        raise ParameterError(msg)
    lookup: dict[int, float] = {}
    for (a, b), x in zip(raw.tolist(), w.tolist(), strict=True):
        key = min(a, b) * n + max(a, b)
        lookup[key] = min(x, lookup.get(key, np.inf))
    return np.array([lookup[int(a) * n + int(b)] for a, b in unique])


# ----------------------------------------------------------------------- estimators


class _FactorMethod(Algorithm):
    """Shared fit: candidate graph → certified factor → groups."""

    kind: ClassVar[FactorKind]
    sizes: ClassVar[tuple[int, ...]]

    factor_edges_: np.ndarray
    factor_weight_: float
    factor_lower_bound_: float
    factor_optimal_: bool

    def _solve(
        self,
        n: int,
        neighbours: Callable[[int], tuple[np.ndarray, np.ndarray]],
        within: Callable[[np.ndarray, np.ndarray], list[np.ndarray]],
        weight: Callable[[np.ndarray, np.ndarray], np.ndarray],
        cost: Callable[[list[int]], float],
    ) -> Certified:
        full = n <= FULL_CERTIFICATE_MAX
        cert = certify(
            self.kind, n, neighbours, within, weight, CANDIDATES,
            # each 2-factor round solves a MIP: more than one only while that is cheap
            max_rounds=(12 if self.kind == "12" else 3 if n <= 1000 else 1) if full else 1,
            max_cut_rounds=6 if full else 0,
        )  # fmt: skip
        self.factor_edges_ = cert.factor.edges
        self.factor_rounding_ = cert.factor.rounding
        self.factor_weight_ = cert.factor.weight
        self.factor_lower_bound_ = cert.lower_bound
        self.factor_optimal_ = cert.optimal
        weight = cert.factor.weight
        self.factor_gap_ = (weight - cert.lower_bound) / weight if weight > 0 else 0.0
        self.n_candidate_edges_ = cert.n_candidates
        groups = factor_groups(n, cert.factor.edges, self.sizes, cost)
        self.partition_ = Partition(group_labels(groups, n))
        return cert


class _Anonymity(GeneralizedMethod, _FactorMethod):
    """k-anonymity by a factor of the generalization-cost graph (k = 2 or 3)."""

    def __init__(
        self,
        k: int = 2,
        *,
        weights: Mapping[str, float] | None = None,
        generalize: GeneralizeForm = "levels",
        loss: LevelLoss = "ncp",
    ) -> None:
        self.k = k
        self.weights = weights
        self.generalize = generalize
        self.loss = loss

    @staticmethod
    def _binary(model: GeneralizationCost) -> bool:
        """Every attribute numeric or with at most two values: Observation 7 holds with
        equality (a triple costs half its pair costs), which the sharper bounds need."""
        return bool(np.all(model.domain <= 2))

    def _fit(self, space: MetricSpace) -> None:
        model = self.cost(space)
        index = space.index(model.geometry)

        def cost(members: list[int]) -> float:
            return model.crowd(np.asarray(members))

        self.binary_ = self._binary(model)
        self._solve(space.n, index.neighbours, index.balls, index.distance, cost)
        self.cost_ = model.of(self.partition_.labels)
        self.lower_bound_ = self._bound_factor() * self.factor_lower_bound_


class TwoAnonymity(_Anonymity):
    """2-anonymity through a minimum-weight [1,2]-factor (crowds of 2 or 3 records).

    The graph's edge between two records weighs their pair generalization cost (Hamming
    distance when every attribute is suppressed or kept: the paper's setting;
    :mod:`incrowd.costs.generalization` in general). The minimum-weight [1,2]-factor ``F``
    is computed exactly; its components are the crowds (a component that is a longer path
    or a cycle, possible only with ties, is cut into pieces of 2–3 at least cost).

    Parameters
    ----------
    k : int, default 2 — must be 2.
    weights, generalize, loss : as :class:`ForestKAnonymity`.

    Attributes
    ----------
    partition_, labels_, cost_ : as :class:`ForestKAnonymity`
    factor_edges_ : the [1,2]-factor's edges; ``factor_weight_`` its weight
    approximation_ratio_ : the ratio that holds for this input (1.5 or 2)
    factor_optimal_ : bool, the factor is proven minimum over the complete graph
    factor_lower_bound_ : a proven lower bound on the minimum factor weight over all pairs
    factor_gap_ : ``(factor_weight_ − factor_lower_bound_) / factor_weight_``: 0 when proven
        optimal, else how far from the minimum the factor may be
    lower_bound_ : ``2 · factor_lower_bound_`` when every attribute has at most two values or
        is numeric (Lemma 9), else ``1.5 · factor_lower_bound_`` (its general-alphabet form)
    binary_ : bool

    Notes
    -----
    **Guarantee** (Theorem 6): cost ≤ 1.5·OPT when every quasi-identifier is numeric or has
    at most two values, and ≤ 2·OPT otherwise. The proof uses only that a crowd costs at
    least any of its pairs and at most the pair costs along a path through it (Lemma 8, and
    Lemma 9's general form), which every cost of :mod:`incrowd.costs.generalization` has; the
    1.5 needs Observation 7's equality, which holds for two-valued and numeric attributes.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "cost at most 1.5 x OPT (binary or numeric attributes), 2 x OPT in general",
        "Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Theorem 6",
    )
    tags: ClassVar[Tags] = Tags(fixed_k=2, norm=1, generalized=True)
    parameters: ClassVar[dict] = {
        "k": CrowdSize(fixed=2),
        **GENERALIZED_PARAMETERS,
    }
    kind: ClassVar[FactorKind] = "12"
    sizes: ClassVar[tuple[int, ...]] = (2, 3)

    def _bound_factor(self) -> float:
        return 2.0 if self.binary_ else 1.5

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        return 1.5 if getattr(self, "binary_", False) else 2.0


class ThreeAnonymity(_Anonymity):
    """3-anonymity through a minimum-weight 2-factor (crowds of 3 to 5 records).

    The minimum-weight 2-factor (disjoint cycles of at least 3 records) of the pair-cost
    graph is computed exactly; cycles of 3–5 records become crowds and longer cycles are cut
    into consecutive pieces of 3–5, choosing among all cuts and rotations the one of least
    generalization cost (Lemma 11 averages over the cuts into pieces of 3 and 4; the least
    is no more than the average).

    Parameters
    ----------
    k : int, default 3 — must be 3.
    weights, generalize, loss : as :class:`ForestKAnonymity`.

    Attributes
    ----------
    As :class:`TwoAnonymity`; ``lower_bound_`` is ``1.5 · factor_lower_bound_`` when every
    attribute has at most two values or is numeric (Lemma 10), else ``factor_lower_bound_``.

    Notes
    -----
    **Guarantee**: cost ≤ 2·OPT when every quasi-identifier is numeric or two-valued
    (Lemmas 10 and 11). With hierarchies (``generalize="levels"``) ≤ 3·OPT: Lemma 11 still
    holds, since around a cycle every attribute changes its top-level branch at least twice,
    but Lemma 10 weakens to ``w(F) ≤ OPT`` (a crowd of s costs at least s times its heaviest
    pair, no less than its cheapest Hamiltonian cycle). With value sets ≤ 4·OPT (a whole
    5-cycle costs at most 5 times its length less its heaviest edge).
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "cost at most 2 x OPT (binary or numeric attributes), 3 x OPT with hierarchies, "
        "4 x OPT with value sets",
        "Aggarwal et al., Approximation Algorithms for k-Anonymity, JPT 2005, Lemmas 10-11",
    )
    tags: ClassVar[Tags] = Tags(fixed_k=3, norm=1, generalized=True)
    parameters: ClassVar[dict] = TwoAnonymity.parameters | {"k": CrowdSize(fixed=3)}
    kind: ClassVar[FactorKind] = "2"
    sizes: ClassVar[tuple[int, ...]] = (3, 4, 5)

    def __init__(
        self,
        k: int = 3,
        *,
        weights: Mapping[str, float] | None = None,
        generalize: GeneralizeForm = "levels",
        loss: LevelLoss = "ncp",
    ) -> None:
        super().__init__(k, weights=weights, generalize=generalize, loss=loss)

    def _bound_factor(self) -> float:
        return 1.5 if self.binary_ else 1.0

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        if getattr(self, "binary_", False):
            return 2.0
        return 4.0 if self.generalize == "sets" else 3.0


class TwoMicroaggregation(_FactorMethod):
    """2-μ-Approx: 2-microaggregation through a minimum-weight [1,2]-factor.

    The complete graph on the records weighs each pair by its squared Euclidean distance;
    the components of its minimum-weight [1,2]-factor (pairs and triples) are the groups,
    published as their centroids (Domingo-Ferrer & Sebé, Algorithm 1).

    Parameters
    ----------
    k : int, default 2 — must be 2.

    Attributes
    ----------
    partition_, labels_ ; cost_ : SSE
    factor_edges_, factor_weight_, factor_optimal_, factor_lower_bound_ : as
        :class:`TwoAnonymity`
    lower_bound_ : ``factor_lower_bound_ / 2`` — SSE(OPT) ≥ w(F_min)/2 (Lemma 1)

    Notes
    -----
    **Guarantee**: SSE ≤ 2·OPT (Theorem 1). The paper needed 81 minutes for 600 records;
    here the factor is solved on candidate pairs and certified optimal for all pairs.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "SSE at most 2 x OPT",
        "Domingo-Ferrer & Sebe, Optimal Multivariate 2-Microaggregation, Theorem 1",
        2.0,
    )
    tags: ClassVar[Tags] = Tags(fixed_k=2)
    parameters: ClassVar[dict] = {"k": CrowdSize(fixed=2)}
    cost_class: ClassVar[type[SSE]] = SSE
    kind: ClassVar[FactorKind] = "12"
    sizes: ClassVar[tuple[int, ...]] = (2, 3)

    def __init__(self, k: int = 2) -> None:
        self.k = k

    def _fit(self, space: MetricSpace) -> None:
        sse = self.cost(space)
        index = space.index(sse.geometry)

        def neighbours(m: int) -> tuple[np.ndarray, np.ndarray]:
            dist, idx = index.neighbours(m)
            return dist**2, idx

        def within(vertices: np.ndarray, radii: np.ndarray) -> list[np.ndarray]:
            return index.balls(vertices, np.sqrt(np.maximum(radii, 0.0)))

        def weight(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return index.distance(a, b) ** 2

        def cost(members: list[int]) -> float:
            return sse.crowd(np.asarray(members))

        self._solve(space.n, neighbours, within, weight, cost)
        self.cost_ = sse.of(self.partition_.labels)
        self.lower_bound_ = self.factor_lower_bound_ / 2.0
