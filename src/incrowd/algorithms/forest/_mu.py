"""μ-Approx: the k-anonymity forest on squared Euclidean distances, then microaggregation
(:class:`MuApprox`, exported by :mod:`incrowd.algorithms.forest`)."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from ...base import Algorithm, Guarantee
from ...costs import SSE
from ...params import CrowdSize
from ...partition import Partition
from ...space.geometry import Geometry
from ...space.metric_space import MetricSpace
from ._core import decompose, forest_labels, forest_on

__all__ = ["MuApprox", "mu_approx_factor"]


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
        _, trees = forest_on(dist, idx, k)
        self._bound_terms = dist
        self.lower_bound_ = float(dist.sum() / (2 * k))

        def distance(a: int, b: int) -> float:
            return float(geometry.distance(np.array([a]), np.array([b]))[0] ** 2)

        trees, self.n_stuck_ = decompose(trees, k, distance, refine=False)
        self.partition_ = Partition(forest_labels(trees, space.n))
        self.cost_ = self.cost(space).of(self.partition_.labels)
