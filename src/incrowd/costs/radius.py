"""The radius of crowds: the largest distance from a record to its crowd's center.

The r-Gather family minimizes the largest radius (Aggarwal et al., *Achieving Anonymity via
Clustering*); the cluster-center release publishes each crowd's radius. A radius is always
measured from a stated center:

- an input record (the algorithms' centers, or the best member: :func:`best_centers`);
- or a published center in coded form (:func:`radii_from`): numeric coordinates, and per
  code column the center's code, or −1 where the center stands for every value below a
  hierarchy node (a record then lies its own entry away).

:class:`MaxRadius` is the objective with centers at input records, which is what the
algorithms' guarantees and the exact solver use.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..space.geometry import Geometry
from ..space.metric_space import MetricSpace
from .base import Cost
from .kernels import recenter, subset_radius

__all__ = [
    "MaxRadius",
    "best_centers",
    "distance_to_center",
    "member_radius",
    "radii_from",
    "CANDIDATES",
]

#: Members tried as the center of a large crowd (those nearest its centroid: the 1-center of
#: a crowd lies near it); small crowds try every member.
CANDIDATES = 32


class MaxRadius(Cost):
    """Largest distance from a record to its crowd's center, centers at input records."""

    name: ClassVar[str] = "max_radius"
    combine: ClassVar[str] = "max"  # type: ignore[assignment]
    centered: ClassVar[bool] = True

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry

    @classmethod
    def on(cls, space: MetricSpace) -> MaxRadius:
        return cls(space.geometry)

    def of(self, labels: np.ndarray, centers: np.ndarray | None = None) -> float:
        """The largest radius, from ``centers`` (a record per crowd, in crowd order) or, when
        None, from the best member of each crowd."""
        _, radii = best_centers(self.geometry, labels, centers, search=centers is None)
        return float(radii.max()) if radii.size else 0.0

    def crowd(self, members: np.ndarray) -> float:
        """The radius of one crowd around the best input record as center, member or not
        (the paper's metric model; exact: every record is tried)."""
        members = np.asarray(members, dtype=np.intp)
        n = self.geometry.n
        d = self.geometry.distance(np.repeat(np.arange(n), members.size), np.tile(members, n))
        return float(d.reshape(n, members.size).max(axis=1).min())

    def merge_price(self, members: np.ndarray) -> float:
        return member_radius(self.geometry, members)[1]

    def subset_costs(self, n: int, k: int) -> np.ndarray:
        rows = np.arange(n)
        d = self.geometry.distance(np.repeat(rows, n), np.tile(rows, n)).reshape(n, n)
        return subset_radius(d, k)


def _crowds(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    labels = np.asarray(labels, dtype=np.intp)
    kept = np.flatnonzero(labels >= 0)
    order = kept[np.argsort(labels[kept], kind="stable")].astype(np.intp)
    sizes = np.bincount(labels[kept]) if kept.size else np.zeros(0, dtype=np.intp)
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    return order, starts


def best_centers(
    geometry: Geometry,
    labels: np.ndarray,
    centers: np.ndarray | None = None,
    *,
    search: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """A center record and the radius of every crowd (labels ``0..m-1``).

    Starts from ``centers`` (or each crowd's first member) and, with ``search``, moves to a
    member with a smaller radius: all members of crowds up to :data:`CANDIDATES`, else those
    nearest the crowd's centroid. Keeping the better of two centers never loses a radius
    guarantee.
    """
    order, starts = _crowds(labels)
    m = starts.size - 1
    start = order[starts[:-1]] if centers is None else np.asarray(centers, dtype=np.intp)
    candidates = np.full((m, CANDIDATES if search else 0), -1, dtype=np.intp)
    if search:
        for c in range(m):
            members = order[starts[c] : starts[c + 1]]
            if members.size > CANDIDATES:
                members = _near_centroid(geometry, members, CANDIDATES)
            candidates[c, : members.size] = members
    ent = geometry.entry_table()
    return recenter(
        geometry.numeric, geometry.codes, ent, order, starts, start, candidates, geometry.norm
    )


def member_radius(geometry: Geometry, members: np.ndarray) -> tuple[int, float]:
    """A center among ``members`` (all of them up to :data:`CANDIDATES`, else those nearest
    the centroid) and the crowd's radius around it."""
    members = np.asarray(members, dtype=np.intp)
    tried = members if members.size <= CANDIDATES else _near_centroid(geometry, members, CANDIDATES)
    d = geometry.distance(np.repeat(tried, members.size), np.tile(members, tried.size))
    radii = d.reshape(tried.size, members.size).max(axis=1)
    best = int(np.argmin(radii))
    return int(tried[best]), float(radii[best])


def _near_centroid(geometry: Geometry, members: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` members nearest the crowd's centroid (numeric mean, most frequent code)."""
    center_num = geometry.numeric[members].mean(axis=0)
    center_codes = np.array(
        [np.bincount(geometry.codes[members, j]).argmax() for j in range(geometry.codes.shape[1])],
        dtype=np.intp,
    )
    d = distance_to_center(geometry, members, center_num, center_codes)
    return members[np.argsort(d, kind="stable")[:count]]


def distance_to_center(
    geometry: Geometry, rows: np.ndarray, center_num: np.ndarray, center_codes: np.ndarray
) -> np.ndarray:
    """Distances of ``rows`` to one coded center (per-row centers when 2-d)."""
    diff = np.abs(geometry.numeric[rows] - center_num)
    codes = geometry.codes[rows]
    own = geometry.entries[codes + geometry.offsets[:-1]]
    other_code = np.maximum(center_codes, 0)
    other = geometry.entries[other_code + geometry.offsets[:-1]]
    other = np.where(center_codes < 0, 0.0, other)
    differ = codes != center_codes
    if geometry.norm == 1:
        return diff.sum(axis=1) + np.where(differ, own + other, 0.0).sum(axis=1)
    sq = (diff**2).sum(axis=1) + np.where(differ, own**2 + other**2, 0.0).sum(axis=1)
    return np.sqrt(sq)


def radii_from(
    geometry: Geometry, labels: np.ndarray, center_num: np.ndarray, center_codes: np.ndarray
) -> np.ndarray:
    """The radius of every crowd from its published center (row ``c`` of ``center_num`` and
    ``center_codes``; a code −1 stands for any value under a hierarchy node)."""
    order, starts = _crowds(labels)
    if order.size == 0:
        return np.zeros(0)
    crowd = np.asarray(labels)[order]
    d = distance_to_center(geometry, order, center_num[crowd], center_codes[crowd])
    return np.maximum.reduceat(d, starts[:-1])
