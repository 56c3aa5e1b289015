"""The cellular cost: every record pays its crowd's radius, every crowd its setup cost.

Aggarwal et al., *Achieving Anonymity via Clustering* (Def. 3.1): a crowd with center ``v``
(an input record), ``m`` members and radius ``R`` (the largest distance from ``v`` to a
member) costs ``f(v, R) + m · R``. Unlike the largest radius of the r-Gather family, it
lets crowds stay small where the data are dense.

Centers are input records, as in the paper's LP and the guarantees of its algorithms; the
center need not be a member. :meth:`CellularCost.crowd` tries every record (what the exact
solver uses); :meth:`CellularCost.of` starts from the centers an algorithm chose and moves
a crowd's center to a member when that is cheaper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np

from ..space.geometry import Geometry
from ..space.metric_space import MetricSpace
from .base import Cost
from .radius import best_centers, member_radius

__all__ = ["CellularCost", "SetupCost"]

#: A setup cost: a constant, or ``f(centers, radii) -> costs`` on arrays (one entry per crowd).
SetupCost = float | Callable[[np.ndarray, np.ndarray], np.ndarray]


class CellularCost(Cost):
    """``Σ_crowds f(v, R) + m · R``, centers at input records."""

    name: ClassVar[str] = "cellular"
    combine: ClassVar[str] = "sum"  # type: ignore[assignment]
    centered: ClassVar[bool] = True

    def __init__(self, geometry: Geometry, setup: SetupCost = 0.0) -> None:
        self.geometry = geometry
        self.setup = setup

    @classmethod
    def on(cls, space: MetricSpace, setup: SetupCost = 0.0) -> CellularCost:
        return cls(space.geometry, setup)

    def setup_of(self, centers: np.ndarray, radii: np.ndarray) -> np.ndarray:
        """The setup cost of crowds centered at ``centers`` with the given radii."""
        radii = np.asarray(radii, dtype=np.float64)
        if callable(self.setup):
            out = np.asarray(self.setup(np.asarray(centers, dtype=np.intp), radii), dtype=float)
            return np.broadcast_to(out, radii.shape).astype(np.float64)
        return np.full(radii.shape, float(self.setup))

    def crowds(
        self, labels: np.ndarray, centers: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per crowd (labels ``0..m-1``): its center record, radius and cost.

        Starts from ``centers`` (one record per crowd; default: the first member) and takes
        the member of least radius instead when that costs less.
        """
        labels = np.asarray(labels, dtype=np.intp)
        sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0, int)
        if centers is None:
            best, radii = best_centers(self.geometry, labels)
            return best, radii, self.setup_of(best, radii) + sizes * radii
        given = np.asarray(centers, dtype=np.intp)
        _, given_radii = best_centers(self.geometry, labels, given, search=False)
        best, radii = best_centers(self.geometry, labels, given)
        given_cost = self.setup_of(given, given_radii) + sizes * given_radii
        best_cost = self.setup_of(best, radii) + sizes * radii
        keep = given_cost <= best_cost
        return (
            np.where(keep, given, best),
            np.where(keep, given_radii, radii),
            np.where(keep, given_cost, best_cost),
        )

    def of(self, labels: np.ndarray, centers: np.ndarray | None = None) -> float:
        """The cost of a labelling, from ``centers`` (a record per crowd) or its members."""
        return float(self.crowds(labels, centers)[2].sum())

    def merge_price(self, members: np.ndarray) -> float:
        center, radius = member_radius(self.geometry, members)
        setup = self.setup_of(np.array([center]), np.array([radius]))[0]
        return float(setup + np.asarray(members).size * radius)

    def crowd(self, members: np.ndarray) -> float:
        """The cost of one crowd around the best input record as center (exact: every record
        is tried)."""
        members = np.asarray(members, dtype=np.intp)
        n = self.geometry.n
        d = self.geometry.distance(np.repeat(np.arange(n), members.size), np.tile(members, n))
        radii = d.reshape(n, members.size).max(axis=1)
        return float((self.setup_of(np.arange(n), radii) + members.size * radii).min())
