"""Cellular clustering with setup costs: the primal-dual algorithm and its certificate.

:class:`CellularClustering` — the primal-dual 3-approximation (Thm 3.5) with setup costs;
with a crowd size ``k ≥ 2``, the r-cellular algorithm (Thm 3.8) on those setup costs. Its
``lower_bound_`` is the dual (checked against every candidate cluster and scaled down by the
worst violation), or the per-record floors, whichever is larger.

Guarantee and time: see the class. Reference: Aggarwal, Feder, Kenthapadi, Khuller,
Panigrahy, Thomas, Zhu. *Achieving Anonymity via Clustering*. ACM Transactions on
Algorithms 6(3), 2010 (PODS 2006), Section 3.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...base import Algorithm, Guarantee, Tags
from ...costs import CellularCost, SetupCost
from ...params import CrowdSize, SetupCostValue
from ...partition import Partition
from ...space.geometry import Geometry
from ...space.metric_space import MetricSpace
from .._shared.crowd_split import first_of_each, split_crowds
from ._certify import Feasibility
from ._growth import Dual, capped_floors, capped_shares
from ._unshare import unshare

__all__ = ["CHECK_ALWAYS", "PAPER", "CellularClustering"]

PAPER = "Aggarwal et al., Achieving Anonymity via Clustering, ACM TALG 6(3), 2010"

#: Check the dual even where it cannot beat the radius bound (the tests set it).
CHECK_ALWAYS = False


class CellularClustering(Algorithm):
    """Cellular clustering: minimize ``Σ_crowds f(center, R) + members · R``.

    Parameters
    ----------
    setup_cost : float or callable, default 0.0
        The setup cost ``f`` of a crowd: a constant, or ``f(centers, radii) -> costs`` on
        arrays (non-decreasing in the radius at each center).
    k : int, default 1
        Minimum crowd size. ``1``: the paper's cellular clustering (Def. 3.1), no size
        constraint. ``k ≥ 2``: every crowd has at least ``k`` records, by the r-cellular
        algorithm of Thm 3.8 run on these setup costs (as :class:`RCellular`).

    Attributes
    ----------
    labels_, partition_ : the crowds
    center_records_ : ndarray of int, the input record that is each crowd's center
    radii_ : ndarray, each crowd's radius from its center
    cost_ : float, ``Σ f(center, R) + members · R``
    lower_bound_ : float, a proven lower bound on the optimum with centers at input records:
        the largest of ``dual_bound_``, ``radius_bound_`` and ``share_bound_``
    dual_bound_ : float or None, ``Σ α`` (for ``k ≥ 2``, ``Σ α / 2`` of the augmented
        instance) of a dual feasible for every candidate cluster; None when checking that
        would have taken too long (:data:`~._certify.MAX_PAIRS_PER_ROW`), or when
        the candidates were restricted and even the unscaled dual is below
        ``radius_bound_`` (then the check could not raise ``lower_bound_``)
    dual_checked_ : bool, whether that check was made
    radius_bound_ : float, for ``k ≥ 2``: ``Σ_i β_i``, each record's least possible radius
        (a crowd's center has ``k`` records within its radius, and each member within it;
        :func:`~._certify.radius_floor`)
    share_bound_ : float, for ``k = 1``: ``Σ_i γ_i``, each record's least radius plus share
        of its crowd's setup cost (``R + f / |ball(c, R)|`` over the balls holding it;
        :func:`~._certify.share_floor`); 0 otherwise
    certificate_ : dict, which bound it is and how it was proven
    dual_sum_ : float, ``Σ α`` of the dual as grown (before scaling)
    dual_values_ : ndarray, each record's ``α``
    dual_scale_ : float or None, the factor that made it feasible for every candidate
        (1: none violated)
    complete_candidates_ : bool, whether the growth saw every candidate cluster
    shared_cost_ : float or None, for ``k ≥ 2``: the cost of the shared solution (Step 2)
    unrefined_cost_ : float, the cost before crowds of ``2k`` or more were split where
        that is cheaper (:mod:`.._shared.crowd_split`)

    Notes
    -----
    **k = 1** (Thm 3.5). The dual grows as in Jain–Vazirani's facility location, but a
    candidate ``(v, d)`` charges each member the radius ``d``; temporarily open candidates
    are taken by decreasing radius and a record whose witness was shut down goes to the
    cluster that blocked it, within ``3 d`` (Lemma 3.3). Per crowd,
    ``service + 3 · setup ≤ 3 Σ α`` (Lemma 3.4), so **cost ≤ 3 · OPT** for a constant setup
    cost (a setup cost growing with the radius is charged at the crowd's final radius, up to
    ``3 d``: then only the certificate is claimed).

    **k ≥ 2** (Thm 3.8). Setup costs are augmented by ``k · d`` and candidates with fewer
    than ``k`` records are dropped (the augmented optimum is ≤ 2 OPT); the primal-dual
    (≤ 3×); each open cluster shares its center's ``k`` nearest records (paid by the
    augmentation); the shared clusters are made disjoint by increasing actual radius,
    leftovers grouped under their parents (≤ 6×, :mod:`._unshare`). **cost ≤ 36 ·
    OPT** for a constant setup cost; a posteriori ``cost ≤ 6 · shared ≤ 18 · Σ α``.

    **In a generalized release** (:func:`incrowd.anonymize`) the crowds are polished for the
    published loss and kept polished only where this cost, priced from their members, does
    not rise (:mod:`~incrowd.algorithms.release_polish`); ``fit`` itself runs the paper's
    algorithm alone.

    Time: neighbour lists of ``m`` records (``m = n − 1`` up to :data:`COMPLETE_UP_TO`),
    the growth :math:`O(n m^2 \\log(n m))`, the primal and unsharing :math:`O(n m)`, the
    certificate :math:`O(\\sum_v p_v^2)` over the pairs ``D(v, i) < α_i``.
    Memory :math:`O(n m)`.

    References
    ----------
    .. [1] G. Aggarwal et al. Achieving anonymity via clustering. ACM TALG 6(3):49, 2010.
       doi:10.1145/1798596.1798602

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [100.0, 103.0], [100.0, 100.0], [100.0, 97.0]])
    >>> model = incrowd.CellularClustering(setup_cost=5).fit(X)
    >>> model.labels_.tolist(), model.cost_, round(model.lower_bound_, 6)
    ([0, 0, 1, 1, 1], 23.0, 23.0)
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        "cost <= 3 OPT (k = 1), <= 36 OPT (k >= 2), centers at input records, constant setup",
        f"{PAPER}, Thm 3.5 and Thm 3.8",
    )
    tags: ClassVar[Tags] = Tags(any_norm=True, polished=True)
    cost_class: ClassVar[type[CellularCost]] = CellularCost
    parameters: ClassVar[dict] = {"k": CrowdSize(minimum=1), "setup_cost": SetupCostValue()}

    def __init__(self, setup_cost: SetupCost = 0.0, *, k: int = 1) -> None:
        self.setup_cost = setup_cost
        self.k = k

    def _setup(self) -> SetupCost:
        return self.setup_cost

    def cost(self, space: MetricSpace) -> CellularCost:
        return CellularCost.on(space, self._setup())

    @property
    def approximation_ratio_(self) -> float | None:  # type: ignore[override]
        """3 for ``k = 1``, 36 for ``k ≥ 2``; None for a setup cost given as a function."""
        if callable(self._setup()):
            return None
        return 3.0 if int(self.k) == 1 else 36.0

    def _penalty(self, space: MetricSpace, dual: Dual) -> tuple[float, int]:
        """The price λ of leaving a record out, and how many may be left out."""
        return float("inf"), 0

    def _fit(self, space: MetricSpace) -> None:
        k = int(self.k)
        dual = Dual(space, k, self._setup())
        freeze_at, budget = self._penalty(space, dual)
        owner = dual.settle(freeze_at)
        centers_of = dual.first[dual.center]  # candidate -> center record
        if k == 1:
            labels, centers = _relabel(owner, centers_of)
            self.shared_cost_ = None
        else:
            used, local = np.unique(owner[owner >= 0], return_inverse=True)
            owner_local = np.full(owner.size, -1, dtype=np.intp)
            owner_local[owner >= 0] = local
            geometry = space.geometry
            args = (geometry.numeric, geometry.codes, geometry.entry_table(), geometry.norm)
            if dual.weight.size == owner.size:  # no copies: the rows' lists serve
                idx = dual.first[dual.ni[dual.inverse, : k - 1]]
            else:
                _, idx = space.index().neighbours(k - 1)
            labels, centers, shared = unshare(
                args, owner_local, centers_of[used], np.ascontiguousarray(idx), k
            )
            self.shared_cost_ = shared
        canonical = Partition(labels).labels
        crowd_centers = centers[labels[first_of_each(canonical)]]
        best, _, costs = dual.cost.crowds(canonical, crowd_centers)
        self.unrefined_cost_ = float(costs.sum())
        if k >= 2:
            canonical, best = _split_where_cheaper(dual.cost, canonical, best, costs, k)
        self.partition_ = Partition(canonical)
        first = first_of_each(self.partition_.labels)
        best, radii, costs = dual.cost.crowds(self.partition_.labels, best[canonical[first]])
        self.center_records_ = best
        self.radii_ = radii
        self.cost_ = float(costs.sum())
        self._certify(dual, freeze_at, budget)

    def _certify(self, dual: Dual, freeze_at: float, budget: int) -> None:
        """The lower bounds: the dual's (checked against every candidate) and, for crowds
        of ``k``, each record's least possible radius; ``lower_bound_`` is the larger."""
        k = int(self.k)
        total = dual.dual_sum()
        floors = np.sort(dual.radius_floors())
        self.radius_bound_ = float(floors[: floors.size - budget].sum()) if k >= 2 else 0.0
        shares = dual.share_lists if k == 1 and budget == 0 else None
        self.share_bound_ = (float(capped_shares(shares, np.full(dual.inverse.size, np.inf)).sum())
                             if shares is not None else 0.0)  # fmt: skip
        floor = max(self.radius_bound_, self.share_bound_)
        # scaling only lowers the dual: when even the unscaled one is no better than the
        # radius bound, the check (the costliest part at scale) would change nothing
        unscaled = total / 2 if k >= 2 else total
        if dual.complete or CHECK_ALWAYS or unscaled > floor:
            check = dual.feasible()
        else:
            check = Feasibility(None, 0, 0, needed=False)
        self.dual_sum_ = total
        self.dual_values_ = dual.alpha[dual.inverse]
        self.dual_scale_ = check.scale
        self.complete_candidates_ = dual.complete
        self.certificate_pairs_ = check.pairs
        self.certificate_searches_ = check.searched
        self.n_temporarily_open_ = int(dual.opened.size)
        dual_bound = None
        if check.scale is not None:
            # (1 − 1e-12): the rounding of α, d and f in the growth
            value = check.scale * total * (1 - 1e-12) - (freeze_at * budget if budget else 0.0)
            dual_bound = max(0.0, value / 2 if k >= 2 else value)
        self.dual_bound_ = dual_bound
        self.dual_checked_ = check.needed
        self.lower_bound_ = max(dual_bound or 0.0, floor)
        # the radius bound (or for k = 1 the share bound), capped, bounds a larger table's
        # optimum from this part of it; with outliers, per record (capped_bound_terms)
        self._floor_lists = dual.floor_lists if k >= 2 else None
        self._share_lists = shares

    def capped_lower_bound(self, cap: np.ndarray) -> float | None:
        """``Σ_i β_i`` (crowds of ``k ≥ 2``, :func:`capped_floors`) or ``Σ_i γ_i``
        (``k = 1``, :func:`capped_shares`) with each record's distances to records beyond
        this table capped at ``cap[i]``; None with outliers (:meth:`capped_bound_terms`
        instead: the larger table's budget is not this part's). The dual bound is not capped:
        a candidate of the larger table may have a radius below the least this table checked
        (another part's records within it).
        """
        if self.tags.outlier_budget:
            return None
        cap = np.asarray(cap, dtype=float)
        shares = getattr(self, "_share_lists", None)
        if shares is not None:
            return float(capped_shares(shares, cap).sum())
        lists = getattr(self, "_floor_lists", None)
        if lists is None:
            return None
        return float(capped_floors(lists, cap).sum())

    def capped_bound_terms(self, cap: np.ndarray) -> np.ndarray | None:
        """With outliers (crowds of ``k ≥ 2``): each record's least radius ``β_i`` with its
        distances beyond this table capped at ``cap[i]`` (:func:`capped_floors`). A record
        the larger table's optimum keeps pays at least ``β_i`` and one it leaves out pays
        nothing, so that optimum is at least ``Σ β_i`` less the largest
        ``outlier_budget(ε, N)`` of its ``N`` records' terms."""
        lists = getattr(self, "_floor_lists", None)
        if not self.tags.outlier_budget or lists is None:
            return None
        return capped_floors(lists, np.asarray(cap, dtype=float))

    def bound_geometry(self, space: MetricSpace) -> Geometry | None:
        capped = (getattr(self, "_floor_lists", None) is not None
                  or getattr(self, "_share_lists", None) is not None)  # fmt: skip
        return space.geometry if capped else None

    @property
    def certificate_(self) -> dict[str, object]:
        """How ``lower_bound_`` was proven (written to the release metadata)."""
        if not self.dual_checked_:
            dual = "not checked: unscaled, it is already below the radius or share bound"
        elif self.dual_scale_ is None:
            dual = "not claimed: checking it against every candidate was too large a search"
        elif self.complete_candidates_:
            dual = "grown over every candidate cluster"
        else:
            dual = (
                "grown over each center's nearest radii, checked against every candidate, "
                f"scaled by {self.dual_scale_:.6g}"
            )
        bounds = {"dual": self.dual_bound_ or 0.0, "least radius per record": self.radius_bound_,
                  "least radius and setup share per record": self.share_bound_}  # fmt: skip
        return {
            "lower_bound_from": max(bounds, key=bounds.__getitem__),
            "dual_bound": self.dual_bound_,
            "dual": dual,
            "radius_bound": self.radius_bound_,
            "share_bound": self.share_bound_,
            "centers": "input records (the optimum with free centers is at least half)",
        }  # fmt: skip


def _split_where_cheaper(
    cost: CellularCost, labels: np.ndarray, centers: np.ndarray, costs: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Split each crowd of ``2k`` or more (:func:`split_crowds`) where the parts cost less;
    the labels and a center record per new crowd."""
    split, parent = split_crowds(cost.geometry, labels, centers, k)
    if parent.size == costs.size:
        return labels, centers
    split_centers, _, split_costs = cost.crowds(split)
    cheaper = np.bincount(parent, weights=split_costs, minlength=costs.size) < costs * (1 - 1e-12)
    # a crowd split where that is cheaper: its parts' labels, after every unsplit crowd's
    use = (labels >= 0) & cheaper[np.maximum(labels, 0)]
    out = np.where(use, costs.size + split, labels)
    out = Partition(out).labels
    kept = np.flatnonzero(out >= 0)
    new_centers = np.empty(int(out.max()) + 1 if kept.size else 0, dtype=np.intp)
    new_centers[out[kept]] = np.where(use[kept], split_centers[split[kept]], centers[labels[kept]])
    return out, new_centers


def _relabel(owner: np.ndarray, centers_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels ``0..m-1`` from candidate numbers, and each label's center record."""
    used, labels = np.unique(owner, return_inverse=True)
    labels = labels.astype(np.intp)
    if used.size and used[0] < 0:
        labels -= 1
        used = used[1:]
    return labels, centers_of[used]
