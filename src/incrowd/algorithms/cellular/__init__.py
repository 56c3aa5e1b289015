"""Cellular clustering: every record pays its crowd's radius, every crowd a setup cost.

Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu. *Achieving Anonymity via
Clustering*. ACM Transactions on Algorithms 6(3), 2010 (PODS 2006), Section 3.

- :class:`CellularClustering` — the primal-dual 3-approximation (Thm 3.5) with setup costs;
  with a crowd size ``k ≥ 2``, the r-cellular algorithm (Thm 3.8) on those setup costs.
- :class:`RCellular` — r-cellular clustering: every crowd ≥ ``k``, cost ``Σ m · R``; a
  36-approximation (Thm 3.8).
- :class:`RCellularOutliers` — (r, ε)-cellular clustering, as prize-collecting r-cellular
  with one penalty per left-out record (the paper states no algorithm or constant).

Unlike the r-Gather family, which minimizes the largest radius, the cellular cost charges
every record its own crowd's radius, so crowds stay small where the data are dense.

**Centers are input records**, as in the paper's LP (a candidate cluster is a record and a
distance from it): the guarantees and ``lower_bound_`` are against the optimum with centers
at input records, which is at most twice the optimum with free centers (re-centering a
crowd on a member at most doubles its radius), so ``lower_bound_ / 2`` bounds the latter.
After the algorithm each crowd may move its center to a member when that is cheaper, which
only lowers the cost.

**Candidates at scale.** The LP has a candidate for every record and every distance from
it. Up to ``_growth.COMPLETE_UP_TO`` records the growth sees them all; beyond, each center's
radii up to its m-th neighbour (``_growth.list_length``). The dual grown there is then checked
against *every* candidate (:mod:`._certify`) and scaled down by the worst
violation, so ``lower_bound_`` is proven for the full problem; ``dual_scale_`` says by how
much it was scaled (1: no candidate was violated).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...base import Guarantee, Tags
from ...costs import SetupCost
from ...params import CrowdSize, Interval, outlier_budget
from ...space.metric_space import MetricSpace
from ._certify import feasible_scale
from ._growth import Dual
from .clustering import PAPER, CellularClustering

__all__ = [
    "CellularClustering",
    "RCellular",
    "RCellularOutliers",
    "compile_kernels",
]


class RCellular(CellularClustering):
    """r-Cellular clustering: crowds of at least ``k``, minimizing ``Σ members · radius``.

    Parameters
    ----------
    k : int, default 5
        Minimum crowd size (the paper's r).

    Notes
    -----
    :class:`CellularClustering` with no setup cost and ``k ≥ 2``: the algorithm of Thm 3.8,
    **cost ≤ 36 · OPT** with centers at input records (``lower_bound_ = Σ α / 2`` of the
    augmented instance; ``Σ α / 4`` bounds the optimum with free centers).

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [100.0, 103.0], [100.0, 100.0], [100.0, 97.0]])
    >>> model = incrowd.RCellular(k=2).fit(X)
    >>> model.labels_.tolist(), model.cost_, round(model.dual_bound_, 6), model.lower_bound_
    ([0, 0, 1, 1, 1], 13.0, 11.5, 13.0)
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "cost <= 36 OPT (centers at input records)", f"{PAPER}, Thm 3.8", 36.0
    )
    parameters: ClassVar[dict] = {"k": CrowdSize()}

    def __init__(self, k: int = 5) -> None:
        self.k = k

    def _setup(self) -> SetupCost:
        return 0.0


class RCellularOutliers(RCellular):
    """(r, ε)-Cellular clustering: r-cellular with up to ``⌊ε n⌋`` records left out.

    Parameters
    ----------
    k : int, default 5
    epsilon : float, default 0.05
        Largest fraction of records left out (label −1, published as suppressed).

    Notes
    -----
    The paper only says that r-cellular "can be combined with the technique of Charikar et
    al. [SODA 2001]" and gives **no algorithm and no constant**; this is the prize-collecting
    variant: each record may be left out at a penalty λ, so the dual has ``α_i ≤ λ`` and the
    growth stops at ``t = λ``, the records still unconnected being left out. The growth up to
    λ is the growth without penalties, so λ is read off one run: the ``(⌊εn⌋ + 1)``-th
    largest ``α``, the least λ leaving at most ``⌊εn⌋`` records. Sharing may bring some of
    them back into crowds.

    **Certificate** (Lagrangian): for an optimal solution of cost ``C*`` leaving ``B ≤ ⌊εn⌋``
    records out, its augmented cost plus ``λ B`` is at least the dual ``Σ α``, so
    ``C* ≥ (Σ α − λ ⌊εn⌋) / 2``; ``lower_bound_`` is that, or 0 when it is not positive.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
    .. [2] M. Charikar, S. Khuller, D. Mount, G. Narasimhan. Algorithms for facility
       location problems with outliers. SODA 2001.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "no proven constant (the paper gives none); Lagrangian lower bound",
        f"{PAPER}, end of Sec. 3.1 (no algorithm given)",
        None,
        proven=False,
    )
    tags: ClassVar[Tags] = Tags(outlier_budget=True, any_norm=True, polished=True)
    parameters: ClassVar[dict] = {"k": CrowdSize(), "epsilon": Interval(0, 1)}

    def __init__(self, k: int = 5, epsilon: float = 0.05) -> None:
        self.k = k
        self.epsilon = epsilon

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        return None

    def _penalty(self, space: MetricSpace, dual: Dual) -> tuple[float, int]:
        budget = outlier_budget(self.epsilon, space.n)
        if budget == 0:
            return float("inf"), 0
        budget = min(budget, space.n - int(self.k))
        alpha = np.sort(dual.alpha[dual.inverse])[::-1]
        return float(alpha[budget]), budget


def compile_kernels() -> None:
    """Compile the certificate's exact searches, which only inputs beyond
    ``_growth.COMPLETE_UP_TO`` records reach."""
    num = np.zeros((3, 1))
    codes = np.zeros((3, 1), dtype=np.intp)
    for c in (codes, codes[:, :0]):
        args = (num, c, np.zeros(c.shape), 2)
        feasible_scale(args, np.ones(3), np.zeros((3, 1)), np.zeros((3, 1), dtype=np.intp),
                       False, np.zeros(3), np.ones(3, dtype=np.int64),
                       lambda v, d: np.zeros(d.shape))  # fmt: skip
