"""What the r-Gather family shares: the fitted results, refined within a cap on crowds.

:class:`Gather` records a fit (canonical labels, each crowd's best center, the radius and
the certificate) and, with ``refine``, splits crowds of ``2k`` or more around their centers
(:func:`~incrowd.algorithms._shared.crowd_split.split_crowds`), only the largest ones when
the number of crowds is capped (:func:`within_cap`). Splitting never raises a radius. Time
:math:`O(n)` beyond the split.

Aggarwal, Feder, Kenthapadi, Khuller, Panigrahy, Thomas, Zhu. *Achieving Anonymity via
Clustering*. ACM Transactions on Algorithms 6(3), 2010, Section 2.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...base import Algorithm, Tags
from ...costs import MaxRadius, best_centers
from ...errors import InfeasibleError
from ...params import outlier_budget
from ...partition import Partition
from ...space.metric_space import MetricSpace
from .._shared.crowd_split import first_of_each, split_crowds

__all__ = ["Gather", "within_cap"]


class Gather(Algorithm):
    """Shared machinery: the threshold search and the fitted results."""

    tags: ClassVar[Tags] = Tags(any_norm=True)
    cost_class: ClassVar[type[MaxRadius]] = MaxRadius

    k: int
    tol: float
    refine: bool

    centers_: np.ndarray
    center_records_: np.ndarray
    radius_: float
    threshold_: float
    n_tests_: int

    def _budget(self, space: MetricSpace) -> int:
        budget = outlier_budget(self.epsilon, space.n)  # type: ignore[attr-defined]
        if space.n - budget < self.k:
            msg = f"with epsilon={self.epsilon}, fewer than k={self.k} records would be clustered"  # type: ignore[attr-defined]
            raise InfeasibleError(msg)
        return budget

    def _finish(
        self,
        space: MetricSpace,
        centers: np.ndarray,
        labels: np.ndarray,
        threshold: float,
        lower: float,
        tests: int,
    ) -> None:
        """Record the fit: canonical labels, centers per label, radius and certificate;
        with ``refine``, crowds of ``2k`` or more split around their centers."""
        self.unrefined_partition_ = Partition(labels)
        canonical, first = np.unique(self.unrefined_partition_.labels, return_index=True)
        keep = canonical >= 0
        order = centers[labels[first[keep]]]  # the center of each canonical label
        best, radii = best_centers(space.geometry, self.unrefined_partition_.labels, order)
        self.unrefined_radius_ = float(radii.max()) if radii.size else 0.0
        self.partition_ = self.unrefined_partition_
        cap = self._max_crowds()
        if self.refine and (cap is None or cap > best.size):  # at the cap, nothing may split
            split, parent = split_crowds(space.geometry, self.partition_.labels, best, self.k)
            if cap is not None and parent.size > cap:
                split, parent = within_cap(self.partition_.labels, split, parent, cap)
            self.partition_ = Partition(split)
            # each part starts from its crowd's center, so no radius grows
            start = best[parent[split[first_of_each(self.partition_.labels)]]]
            best, radii = best_centers(space.geometry, self.partition_.labels, start)
        self.center_records_ = best
        self.radius_ = float(radii.max()) if radii.size else 0.0
        self.cost_ = self.radius_
        self.threshold_ = float(threshold)
        self.lower_bound_ = float(lower)
        self.n_tests_ = tests

    def _max_crowds(self) -> int | None:
        """The cap on the number of crowds, for the methods that have one."""
        return int(self.max_clusters) if self.tags.cluster_cap else None  # type: ignore[attr-defined]


def within_cap(
    labels: np.ndarray, split: np.ndarray, parent: np.ndarray, cap: int
) -> tuple[np.ndarray, np.ndarray]:
    """Split only the largest crowds, as many as keep at most ``cap`` crowds."""
    sizes = np.bincount(labels[labels >= 0])
    parts = np.bincount(parent, minlength=sizes.size)
    room = cap - sizes.size
    chosen = np.zeros(sizes.size, dtype=bool)
    for c in np.argsort(-sizes, kind="stable"):
        if parts[c] > 1 and parts[c] - 1 <= room:
            chosen[c] = True
            room -= parts[c] - 1
    use = (labels >= 0) & chosen[np.maximum(labels, 0)]
    out = np.where(use, sizes.size + split, labels)
    out_parent = np.concatenate([np.arange(sizes.size), parent])
    return out, out_parent
