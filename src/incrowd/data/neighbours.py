"""Neighbour queries over records, answered on distinct points.

Real microdata repeat themselves (the 30,162 Adult records have 18,109 distinct
quasi-identifier combinations), and a KD-tree in a one-hot embedding of a hundred
dimensions pays for every copy. :class:`RecordIndex` builds the tree on the distinct points
and expands each answer back to records, which is exact: copies are at distance 0.
"""

from __future__ import annotations

import numba
import numpy as np
from scipy.spatial import cKDTree

__all__ = ["RecordIndex"]

#: Deduplicate when the embedding is at least this wide (trees are weak there) ...
DEDUP_MIN_DIM = 9
#: ... and the distinct points are at most this fraction of the records.
DEDUP_MAX_FRACTION = 0.9


class RecordIndex:
    """KD-tree over the distinct points of ``points``, answering in record indices."""

    def __init__(
        self,
        points: np.ndarray,
        norm: int,
        _distinct: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
        *,
        keys: np.ndarray | None = None,
        leafsize: int | None = None,
    ) -> None:
        """``keys`` (optional) are narrower rows equal exactly when the points are equal,
        such as attribute codes; finding the distinct rows on them is much faster."""
        self.norm = norm
        self.n = points.shape[0]
        if _distinct is None and points.shape[1] >= DEDUP_MIN_DIM and self.n > 1:
            rows = points if keys is None else keys
            _, first, inverse, counts = np.unique(
                rows, axis=0, return_index=True, return_inverse=True, return_counts=True
            )
            if first.size <= DEDUP_MAX_FRACTION * self.n:
                _distinct = (points[first], inverse.ravel(), counts)
        if _distinct is None:
            self.points = points
            self.inverse = np.arange(self.n)
            self.counts = np.ones(self.n, dtype=np.intp)
        else:
            self.points, self.inverse, counts = _distinct
            self.counts = counts.astype(np.intp)
        self.order = np.argsort(self.inverse, kind="stable")
        self.starts = np.concatenate(([0], np.cumsum(self.counts)))
        self.deduplicated = _distinct is not None
        #: True for one record of each distinct point (copies answer every query alike)
        self.representative = np.zeros(self.n, dtype=bool)
        self.representative[self.order[self.starts[:-1]]] = True
        if leafsize is None:
            leafsize = 64 if self.deduplicated else 16
        self.tree = cKDTree(self.points, leafsize=leafsize)

    def subset(self, records: np.ndarray, all_points: np.ndarray) -> RecordIndex:
        """An index of the given records (numbered 0.. in that order), reusing this index's
        distinct points instead of finding them again."""
        if not self.deduplicated:
            return RecordIndex(all_points[records], self.norm)
        present, inverse = np.unique(self.inverse[records], return_inverse=True)
        counts = np.bincount(inverse, minlength=present.size)
        return RecordIndex(
            all_points[records], self.norm, _distinct=(self.points[present], inverse, counts)
        )

    def expand(self, ids: np.ndarray) -> np.ndarray:
        """Records of the distinct points ``ids``, in that order."""
        if not self.deduplicated:
            return np.asarray(ids, dtype=np.intp)
        ids = np.asarray(ids, dtype=np.intp)
        lengths = self.counts[ids]
        total = int(lengths.sum())
        offsets = np.repeat(self.starts[ids] - np.concatenate(([0], np.cumsum(lengths)[:-1])),
                            lengths)  # fmt: skip
        return self.order[offsets + np.arange(total)]

    def ball(self, center: np.ndarray, radius: float) -> np.ndarray:
        """Records within ``radius`` (inclusive) of the point ``center``."""
        ids = self.tree.query_ball_point(center, radius, p=self.norm)
        return self.expand(np.asarray(ids, dtype=np.intp))

    def balls(self, centers: np.ndarray, radii: np.ndarray) -> list[np.ndarray]:
        """Records within ``radii[i]`` (inclusive) of each point ``centers[i]`` (all cores)."""
        if len(centers) == 0:
            return []
        found = self.tree.query_ball_point(
            centers, np.asarray(radii, dtype=np.float64), p=self.norm, workers=-1
        )
        return [self.expand(np.asarray(ids, dtype=np.intp)) for ids in found]

    def nearest(self, centers: np.ndarray, k: int, bound: float) -> list[tuple[np.ndarray, bool]]:
        """For each center: its ``k`` nearest records closer than ``bound`` (exclusive), and
        whether that list holds every record in range."""
        k_ids = min(k, self.points.shape[0])
        _, idx = self.tree.query(centers, k=k_ids, p=self.norm, distance_upper_bound=bound)
        idx = np.asarray(idx).reshape(len(centers), k_ids)
        out = []
        for row in idx:
            ids = row[row < self.points.shape[0]]
            complete = ids.size < k_ids or k_ids == self.points.shape[0]
            out.append((self.expand(ids)[:k], complete))
        return out

    def neighbour_lists(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per record: distances and indices of its ``k`` nearest other records, nearest
        first (``k`` must be below the number of records)."""
        if not self.deduplicated:
            dist, idx = self.tree.query(self.points, k=k + 1, p=self.norm, workers=-1)
            dist, idx = (
                np.asarray(dist).reshape(self.n, k + 1),
                np.asarray(idx).reshape(self.n, k + 1),
            )
            own = idx == np.arange(self.n)[:, None]
            own[own.sum(axis=1) == 0, -1] = True  # self tied beyond the list: drop the last
            keep = ~own
            return dist[keep].reshape(self.n, k), idx[keep].reshape(self.n, k)
        m = self.points.shape[0]
        q = min(k + 1, m)
        d_u, i_u = self.tree.query(self.points, k=q, p=self.norm, workers=-1)
        d_u, i_u = np.asarray(d_u).reshape(m, q), np.asarray(i_u).reshape(m, q)
        # k + 1 distinct points hold at least k records other than any one of them.
        return _expand_lists(d_u, i_u.astype(np.intp), self.counts, self.starts, self.order, k)

    def kth_distance(self, k: int) -> np.ndarray:
        """Per record: distance to its ``k``-th nearest other record (0 when k ≤ 0)."""
        if k <= 0:
            return np.zeros(self.n)
        m = self.points.shape[0]
        q = min(k + 1, m)
        dist, idx = self.tree.query(self.points, k=q, p=self.norm, workers=-1)
        dist = np.asarray(dist).reshape(m, q)
        idx = np.asarray(idx).reshape(m, q)
        # records reachable at each rank: the point's own copies count (minus itself) first
        weight = self.counts[idx]
        self_col = idx == np.arange(m)[:, None]
        weight = np.where(self_col, weight - 1, weight)
        reached = np.cumsum(weight, axis=1)
        pos = np.argmax(reached >= k, axis=1)
        ok = reached[np.arange(m), pos] >= k
        per_point = np.where(ok, dist[np.arange(m), pos], np.inf)
        out = np.empty(self.n)
        out[self.order] = np.repeat(per_point, self.counts)
        return out


@numba.njit(cache=True)
def _expand_lists(d_u, i_u, counts, starts, order, k):
    """Record-level neighbour lists from distinct-point lists: each record gets the records of
    its point's list (its own copies first), minus itself, truncated to ``k``."""
    n = order.size
    out_d = np.empty((n, k))
    out_i = np.empty((n, k), dtype=np.intp)
    m, q = i_u.shape
    for u in range(m):
        for r in range(starts[u], starts[u + 1]):
            rec = order[r]
            t = 0
            for j in range(q):
                if t == k:
                    break
                v = i_u[u, j]
                for s in range(starts[v], starts[v + 1]):
                    other = order[s]
                    if other == rec:
                        continue
                    out_d[rec, t] = d_u[u, j]
                    out_i[rec, t] = other
                    t += 1
                    if t == k:
                        break
    return out_d, out_i
