"""The dual of cellular clustering grown on one space's distinct rows, and its floors.

:class:`Dual` lists each center's candidate radii (every other record up to
``COMPLETE_UP_TO`` records, else its ``list_length`` nearest), grows the dual over those
candidates (:mod:`._dual`) and settles the primal at a penalty (Lemma 3.3); the capped
floors give each record's least radius (and, for ``k = 1``, its least radius plus share of
a setup cost) when the table is a part of a larger one.

Guarantee: the growth is the primal-dual algorithm of Thm 3.5 / 3.8; the floors are lower
bounds on each record's cost. Time: neighbour lists of ``m`` records each (``m = n − 1`` up
to ``COMPLETE_UP_TO``), the growth :math:`O(n m^2 \\log(n m))`, the primal :math:`O(n m)`.

Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu. *Achieving Anonymity via
Clustering*. ACM Transactions on Algorithms 6(3), 2010, Section 3.
"""

from __future__ import annotations

import numpy as np

from ...costs import CellularCost, SetupCost
from ...errors import ParameterError
from ...space.metric_space import MetricSpace
from ._certify import Feasibility, feasible_scale, radius_floor, share_floor
from ._dual import assign, candidates, cut_at, grow

__all__ = [
    "COMPLETE_UP_TO",
    "LIST_MIN",
    "LIST_PER_K",
    "Dual",
    "capped_floors",
    "capped_shares",
    "list_length",
]

#: Inputs up to this many records grow the dual over every candidate cluster.
COMPLETE_UP_TO = 1_500
#: Beyond, each center's candidate radii reach its ``max(LIST_PER_K · k, LIST_MIN)``-th
#: neighbour.
LIST_PER_K = 4
LIST_MIN = 24


def list_length(n: int, k: int) -> int:
    """How many neighbours of each center give its candidate radii."""
    if n - 1 <= COMPLETE_UP_TO:
        return n - 1
    return min(n - 1, max(LIST_PER_K * k, LIST_MIN))


class Dual:
    """The dual grown on one space's distinct rows: lists, candidates, ``α``, the primal."""

    def __init__(self, space: MetricSpace, k: int, setup: SetupCost) -> None:
        first, inverse, counts, rows = space.index().distinct_rows
        self.first, self.inverse, self.weight = first, inverse, counts.astype(np.int64)
        geometry = rows.geometry
        self.args = (geometry.numeric, geometry.codes, geometry.entry_table(), geometry.norm)
        m = first.size
        q = list_length(m, k)
        self.complete = q == m - 1
        if q > 0:
            nd, ni = rows.neighbours(q)
        else:
            nd, ni = np.zeros((m, 0)), np.zeros((m, 0), dtype=np.intp)
        self.nd = np.ascontiguousarray(nd)
        self.ni = np.ascontiguousarray(ni, dtype=np.intp)
        start, center, last, radius, size = candidates(self.nd, self.ni, self.weight, k)
        self.cost = CellularCost(space.geometry, setup)
        self.k = k
        f = self.augmented(center, radius)
        if callable(setup):
            check_setup(f, start)
        self.center, self.last, self.radius = center, last, radius
        self.start, self.size, self.f = start, size, f
        self.grown = grow(self.ni, self.weight, start, center, last, radius, size, f)
        self.alpha = self.grown[0]
        self.rho = radius[start[:-1]] if k >= 2 else np.zeros(m)

    def settle(self, penalty: float) -> np.ndarray:
        """The primal (Lemma 3.3) of the growth stopped at ``penalty`` (a left-out record's
        price; ``inf``: none is left out): each record's open candidate, −1 if left out.
        Sets ``alpha`` to the dual so stopped."""
        alpha, witness, opened = cut_at(*self.grown, penalty)
        tol = 1e-12 * (float(self.radius.max()) if self.radius.size else 1.0)
        owner = assign(self.ni, self.center, self.last, self.radius, alpha, witness, opened, tol)
        self.alpha, self.opened = alpha, opened
        return owner[self.inverse]

    def augmented(self, centers: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """Setup costs of candidates: ``f``, plus ``k · d`` for crowds of ``k`` (Thm 3.8)."""
        f = self.cost.setup_of(self.first[centers], radii)
        return f + self.k * radii if self.k >= 2 else f

    def dual_sum(self) -> float:
        """``Σ α`` over records."""
        return float((self.weight * self.alpha).sum())

    def feasible(self) -> Feasibility:
        """The scale making ``α`` feasible for every candidate cluster."""
        return feasible_scale(
            self.args, self.alpha, self.nd, self.ni, self.complete, self.rho, self.weight,
            self.augmented,
        )  # fmt: skip

    def radius_floors(self) -> np.ndarray:
        """Per record, the least radius its crowd can have (:func:`radius_floor`)."""
        return radius_floor(self.nd, self.ni, self.rho)[self.inverse]

    @property
    def floor_lists(self) -> tuple[np.ndarray, ...]:
        """What :func:`capped_floors` needs (the lists, not the growth)."""
        return self.nd, self.ni, self.rho, self.inverse

    @property
    def share_lists(self) -> tuple[np.ndarray, ...]:
        """What :func:`capped_shares` needs: the lists and the candidates (for k = 1)."""
        known = np.full(self.weight.size, np.inf)
        if not self.complete and self.nd.shape[1]:
            known = self.nd[:, -1].copy()  # beyond a list, balls are not known
        return (self.nd, self.ni, self.start, self.radius, self.size, self.f, known,
                self.inverse)  # fmt: skip


def capped_shares(lists: tuple[np.ndarray, ...], cap: np.ndarray) -> np.ndarray:
    """Per record, the least radius plus share of the setup cost it can pay
    (:func:`share_floor`), when this table is a part of a larger one and ``cap[i]`` bounds
    from below record ``i``'s distance to any record outside it."""
    nd, ni, start, radius, size, f, known, inverse = lists
    rows = np.full(known.size, np.inf)
    np.minimum.at(rows, inverse, cap)  # copies of a row share its cap
    return share_floor(nd, ni, start, radius, size, f, np.minimum(known, rows))[inverse]


def capped_floors(lists: tuple[np.ndarray, ...], cap: np.ndarray) -> np.ndarray:
    """Per record, the least radius its crowd can have when this table is a part of a larger
    one and ``cap[i]`` bounds from below record ``i``'s distance to any record outside it: a
    center outside is at least ``cap[i]`` away, and a center ``c`` inside holds ``k``
    records within ``min(ρ_c, cap[c])`` at the closest."""
    nd, ni, rho, inverse = lists
    rows = np.full(rho.size, np.inf)
    np.minimum.at(rows, inverse, cap)  # copies of a row share its cap
    floors = radius_floor(nd, ni, np.minimum(rho, rows))
    return np.minimum(floors, rows)[inverse]


def check_setup(f: np.ndarray, start: np.ndarray) -> None:
    if not np.all(np.isfinite(f)) or (f < 0).any():
        msg = "setup_cost must return finite non-negative costs"
        raise ParameterError(msg)
    step = np.diff(f)
    same_center = np.ones(step.size, dtype=bool)
    same_center[start[1:-1] - 1] = False
    if (step[same_center] < -1e-12 * (1 + np.abs(f[1:][same_center]))).any():
        msg = "setup_cost must not decrease as the radius grows (at a fixed center)"
        raise ParameterError(msg)
