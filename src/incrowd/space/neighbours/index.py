"""The neighbour index: every neighbour query incrowd makes, for one geometry.

Real microdata repeat themselves (Adult's 30,162 records hold 18,109 distinct
quasi-identifier rows), so the index works on the *distinct* rows and expands answers back
to records, which is exact: copies are at distance 0. Queries take record indices.

How the k nearest neighbours of every record are found (:meth:`NeighbourIndex.neighbours`),
always exactly:

- **numbers only**: a KD-tree (scipy ``cKDTree``; :mod:`.kdtree`);
- **labels**: a compiled scan over the distinct rows with early exit, on the codes, in
  parallel chunks (:mod:`.scan`); at any size when no attribute level has more than
  :data:`WIDE_CODES` values, else up to :data:`SCAN_LISTS_MAX_DISTINCT` distinct rows if
  it can stop early (:attr:`.RowScan.stops_early`);
- **more distinct rows with wide levels**: a split by agreement on the wide levels, each
  group searched by a KD-tree on the narrow attributes (:mod:`.split`). Memory and time
  grow with the records, not with records × values.

Ball, nearest-center and count queries over labels scan the distinct rows (up to
:data:`SCAN_MAX_DISTINCT` of them), else run on a KD-tree over the dense embedding, built
on first use; a geometry too wide for that raises a clear error (:meth:`Geometry.dense`).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..._runtime import threads
from ...errors import ParameterError
from ..geometry import Geometry
from ..kernels import expand_lists
from .kdtree import DEDUP_MAX_FRACTION, DEDUP_MIN_DIM, WIDE_DIM, WIDE_LEAF_SIZE, kd_tree, tree_lists
from .live_tree import LiveTree
from .scan import RowScan, members
from .split import split_lists

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = ["NeighbourIndex", "SCAN_LISTS_MAX_DISTINCT", "SCAN_MAX_DISTINCT", "WIDE_CODES"]

#: Ball, nearest-center and count queries over labels scan the distinct rows up to this many.
SCAN_MAX_DISTINCT = 40_000
#: Neighbour lists scan up to this many distinct rows when an attribute level is wide (and
#: the scan can stop early): faster and leaner than the split search up to 800,000 census
#: rows (``python benchmarks/neighbour_lists.py``; ``benchmarks/results/notes/io-space-data.md``).
SCAN_LISTS_MAX_DISTINCT = 1_000_000
#: An attribute level with more codes than this is searched by agreement, not embedded.
WIDE_CODES = 64
#: Greedy covering runs on a tree of live counts up to this many dense dimensions (boxes
#: bound balls poorly in wider embeddings, such as one-hot blocks).
LIVE_TREE_MAX_DIM = 16


class NeighbourIndex:
    """Exact neighbour queries over the records of one :class:`Geometry`."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.n = geometry.n
        self.norm = geometry.norm
        self._lists: tuple[np.ndarray, np.ndarray] | None = None

    # ------------------------------------------------------------ distinct rows
    @cached_property
    def _distinct(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(first, inverse, counts, order, starts)`` of the distinct rows, sorted by key:
        row ``u`` is ``first[u]``; record ``i`` is row ``inverse[i]``; the records of row
        ``u`` are ``order[starts[u]:starts[u+1]]``."""
        if self.n == 0:
            empty = np.zeros(0, dtype=np.intp)
            return empty, empty, empty, empty, np.zeros(1, dtype=np.intp)
        _, first, inverse, counts = np.unique(
            self.geometry.row_keys(), axis=0, return_index=True, return_inverse=True,
            return_counts=True,
        )  # fmt: skip
        inverse = inverse.ravel().astype(np.intp)
        order = np.argsort(inverse, kind="stable").astype(np.intp)
        starts = np.concatenate(([0], np.cumsum(counts))).astype(np.intp)
        return first.astype(np.intp), inverse, counts.astype(np.intp), order, starts

    @property
    def n_distinct(self) -> int:
        return int(self._distinct[0].size)

    @cached_property
    def representative(self) -> np.ndarray:
        """True for one record of each distinct row (copies answer every query alike)."""
        first, _, _, order, starts = self._distinct
        out = np.zeros(self.n, dtype=bool)
        out[order[starts[:-1]]] = True
        return out

    def _rows(self) -> Geometry:
        return self._row_geometry

    @cached_property
    def _row_geometry(self) -> Geometry:
        """The distinct rows, sorted by key."""
        return self.geometry.take(self._distinct[0])

    @cached_property
    def distinct_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, NeighbourIndex]:
        """``(first, inverse, counts, index)``: record ``first[u]`` stands for distinct row
        ``u``, record ``i`` is row ``inverse[i]``, row ``u`` has ``counts[u]`` records, and
        ``index`` answers queries over the distinct rows (numbered ``0..m-1``)."""
        first, inverse, counts, _, _ = self._distinct
        if first.size == self.n:  # no copies: the records are the rows
            rows = np.arange(self.n, dtype=np.intp)
            return rows, rows, np.ones(self.n, dtype=np.intp), self
        return first, inverse, counts, NeighbourIndex(self._rows())

    # ------------------------------------------------------------ neighbour lists
    def neighbours(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per record: distances and indices of its ``k`` nearest other records, nearest
        first (``0 < k < n``). Computed once for the largest ``k`` asked; a shorter list is a
        contiguous copy of its first columns."""
        dist, idx = self._listed(k)
        if dist.shape[1] == k:
            return dist, idx
        # the compiled kernels take contiguous lists: a view would compile them anew
        return np.ascontiguousarray(dist[:, :k]), np.ascontiguousarray(idx[:, :k])

    def _listed(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The lists as computed, at least ``k`` long (``0 < k < n``)."""
        if not 0 < k < self.n:
            msg = f"need 0 < k < {self.n} neighbours, got {k}"
            raise ParameterError(msg)
        if self._lists is None or self._lists[0].shape[1] < k:
            self._lists = self._compute_lists(k)
        return self._lists

    def kth_distance(self, k: int) -> np.ndarray:
        """Per record: distance to its ``k``-th nearest other record (0 when k ≤ 0)."""
        if k <= 0:
            return np.zeros(self.n)
        if k >= self.n:
            return np.full(self.n, np.inf)
        return self._listed(k)[0][:, k - 1].copy()

    def max_kth_distance(self, k: int) -> float:
        """The largest distance from a record to its ``k``-th nearest other record.

        Where the lists would be a scan, a scan that settles most rows as soon as ``k``
        records lie closer than the largest distance found so far (without the lists)."""
        if k <= 0:
            return 0.0
        if k >= self.n:
            return float("inf")
        listed = self._lists is not None and self._lists[0].shape[1] >= k
        if listed or not self._scans_lists(self._rows()):
            return float(self.kth_distance(k).max())
        return self._scan.kth_max(k)

    def _scans_lists(self, rows: Geometry) -> bool:
        """Whether the neighbour lists of the distinct ``rows`` come from a scan."""
        wide = bool((rows.widths > WIDE_CODES).any())
        return bool(rows.codes.shape[1]) and (
            not wide or (rows.n <= SCAN_LISTS_MAX_DISTINCT and self._scan.stops_early)
        )

    def _compute_lists(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        first, _, counts, order, starts = self._distinct
        m = first.size
        q = min(k + 1, m)  # k + 1 distinct rows hold at least k records other than any one
        if m < self.n:  # copies: the index of the distinct rows lists them (and keeps them)
            d_u, i_u = np.zeros((m, 1)), np.arange(m, dtype=np.intp)[:, None]
            if q > 1:
                nd, ni = self.distinct_rows[3].neighbours(q - 1)
                d_u, i_u = np.hstack([d_u, nd]), np.hstack([i_u, ni])
            return expand_lists(d_u, i_u.astype(np.intp), counts, starts, order, k)
        rows = self._rows()
        if rows.codes.shape[1] == 0:
            d_u, i_u = self._tree_lists(rows, q)
        elif self._scans_lists(rows):
            d_u, i_u = self._scan_lists(rows, q)
        else:
            d_u, i_u = self._split_lists(rows, q)
        return expand_lists(d_u, i_u.astype(np.intp), counts, starts, order, k)

    def _scan_lists(self, rows: Geometry, q: int) -> tuple[np.ndarray, np.ndarray]:
        return self._scan.lists(q)

    def _tree_lists(self, rows: Geometry, q: int) -> tuple[np.ndarray, np.ndarray]:
        return tree_lists(rows, q, self.norm)

    def _split_lists(self, rows: Geometry, q: int) -> tuple[np.ndarray, np.ndarray]:
        return split_lists(rows, q, self.norm, WIDE_CODES)

    # ------------------------------------------------------------ dense queries
    @cached_property
    def _tree(self) -> tuple[cKDTree, np.ndarray]:
        """KD-tree over the dense embedding (of the distinct rows when that pays), and the
        dense points of every record."""
        points = self.geometry.dense()
        deduplicate = points.shape[1] >= DEDUP_MIN_DIM and self.n > 1
        if deduplicate and self.n_distinct <= DEDUP_MAX_FRACTION * self.n:
            leaf = WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 64
            return kd_tree(points[self._distinct[0]], leafsize=leaf), points
        return kd_tree(points, leafsize=16), points

    @property
    def deduplicated(self) -> bool:
        tree, _ = self._tree
        return tree.n < self.n

    @property
    def points(self) -> np.ndarray:
        """The dense coordinates of every record."""
        return self._tree[1]

    def expand(self, ids: np.ndarray) -> np.ndarray:
        """Records of the tree's points ``ids``, in that order."""
        ids = np.asarray(ids, dtype=np.intp)
        return self.records_of_rows(ids) if self.deduplicated else ids

    def records_of_rows(self, rows: np.ndarray) -> np.ndarray:
        """Records of the distinct rows ``rows``, in that order."""
        _, _, counts, order, starts = self._distinct
        return members(np.asarray(rows, dtype=np.intp), counts, starts, order)

    # ------------------------------------------------------------ scans of the distinct rows
    @property
    def scans(self) -> bool:
        """Whether ball, nearest-center and count queries scan the distinct rows."""
        return bool(self.geometry.codes.shape[1]) and self.n_distinct <= SCAN_MAX_DISTINCT

    @cached_property
    def _scan(self) -> RowScan:
        """The scans over the distinct rows (:class:`~.scan.RowScan`)."""
        _, inverse, weight, _, _ = self._distinct
        g = self._rows()
        return RowScan(g.numeric, g.codes, g.entry_table(), inverse, weight, self.norm)

    def scan_ball(self, record: int, radius: float, rows: np.ndarray) -> np.ndarray:
        """Positions in ``rows`` (distinct rows) of those within ``radius`` (inclusive) of
        record ``record``."""
        return self._scan.ball(record, radius, rows)

    def ball_around(self, center: np.ndarray, radius: float) -> np.ndarray:
        """Records within ``radius`` (inclusive) of a point of the dense embedding."""
        tree, _ = self._tree
        return self.expand(np.asarray(tree.query_ball_point(center, radius, p=self.norm)))

    def ball(self, record: int, radius: float) -> np.ndarray:
        """Records within ``radius`` (inclusive) of record ``record``."""
        if self.scans:
            every = np.arange(self.n_distinct, dtype=np.intp)
            return self.records_of_rows(self.scan_ball(record, radius, every))
        return self.ball_around(self.points[record], radius)

    def balls(self, records: np.ndarray, radii: np.ndarray) -> list[np.ndarray]:
        """Records within ``radii[i]`` (inclusive) of each record ``records[i]``."""
        if len(records) == 0:
            return []
        tree, points = self._tree
        found = tree.query_ball_point(
            points[np.asarray(records)], np.asarray(radii, dtype=np.float64), p=self.norm,
            workers=threads(),
        )  # fmt: skip
        return [self.expand(np.asarray(ids, dtype=np.intp)) for ids in found]

    def counts(self, records: np.ndarray, radius: float) -> np.ndarray:
        """How many records lie within ``radius`` (inclusive) of each of ``records``.

        Over labels, up to :data:`SCAN_MAX_DISTINCT` distinct rows, a compiled scan of the
        distinct rows (on Adult many times faster than balls in the one-hot embedding)."""
        if self.scans:
            return self._scan.counts(records, radius)
        tree, points = self._tree
        if self.deduplicated:
            ids = tree.query_ball_point(points[records], radius, p=self.norm, workers=threads())
            counts = self._distinct[2]
            return np.array([int(counts[np.asarray(i, dtype=np.intp)].sum()) for i in ids])
        found = tree.query_ball_point(
            points[records], radius, p=self.norm, return_length=True, workers=threads()
        )
        return np.asarray(found, dtype=np.intp)

    @cached_property
    def live_tree(self) -> LiveTree | None:
        """A tree of live counts over the distinct rows (:mod:`incrowd.space.neighbours.live_tree`),
        or None when the dense embedding is wider than :data:`LIVE_TREE_MAX_DIM`."""
        if self.geometry.dense_width() > LIVE_TREE_MAX_DIM:
            return None
        first, _, counts, _ = self.distinct_rows  # the rows of :attr:`distinct_rows`
        return LiveTree(self.points[first], counts, first, self.norm)

    def nearest(self, records: np.ndarray, k: int, bound: float) -> list[tuple[np.ndarray, bool]]:
        """For each record: its ``k`` nearest records closer than ``bound`` (exclusive), and
        whether that list holds every record in range.

        Read from the neighbour lists when they are long enough (no search in the dense
        embedding, which is slow when it is wide), else from a scan of the distinct rows
        (:attr:`scans`), else from the KD-tree."""
        if self._lists is not None and self._lists[0].shape[1] >= k - 1:
            dist, idx = self._lists
            out = []
            for p in np.asarray(records, dtype=np.intp):
                near = idx[p, : k - 1][dist[p, : k - 1] < bound]
                found = np.concatenate(([p], near)).astype(np.intp)
                out.append((found, found.size < k or k >= self.n))
            return out
        if self.scans:
            return self._scan_nearest(np.asarray(records, dtype=np.intp), k, bound)
        tree, points = self._tree
        k_ids = min(k, tree.n)
        _, idx = tree.query(points[records], k=k_ids, p=self.norm, distance_upper_bound=bound)
        idx = np.asarray(idx).reshape(len(records), k_ids)
        out = []
        for row in idx:
            ids = row[row < tree.n]
            complete = ids.size < k_ids or k_ids == tree.n
            out.append((self.expand(ids)[:k], complete))
        return out

    def _scan_nearest(self, records: np.ndarray, k: int, bound: float
                      ) -> list[tuple[np.ndarray, bool]]:  # fmt: skip
        if records.size == 0:
            return []
        q = min(k, self.n_distinct)  # k rows hold at least k records
        rows, total, where = self._scan.nearest_rows(records, q, bound)
        out = []
        for p, a in zip(records, where, strict=True):
            near = self.records_of_rows(rows[a][rows[a] >= 0])
            found = np.concatenate(([p], near[near != p]))[:k]  # the record itself first
            out.append((found, bool(total[a] <= k)))
        return out

    def nearest_to_points(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distances and records of the ``k`` nearest records of each row of ``query``
        (coordinates of the dense embedding)."""
        points = self.points
        tree = kd_tree(points, leafsize=16)
        dist, idx = tree.query(query, k=k, p=self.norm, workers=threads())
        return np.asarray(dist).reshape(len(query), k), np.asarray(idx).reshape(len(query), k)

    def nearest_among(self, centers: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each record of ``who``: the position in ``centers`` of its nearest center, and
        the distance."""
        if self.scans:
            return self._scan.nearest_center(centers, who)
        points = self.points
        tree = kd_tree(points[centers])
        dist, idx = tree.query(points[who], k=1, p=self.norm, workers=threads())
        return np.asarray(idx, dtype=np.intp), np.asarray(dist)

    def subset(self, records: np.ndarray) -> SubsetIndex | NeighbourIndex:
        """Ball queries restricted to the given records (answers in record indices); all
        records: this index itself."""
        records = np.asarray(records, dtype=np.intp)
        if records.size == self.n:
            return self
        return SubsetIndex(self, records)

    def distance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Distances between records ``a[i]`` and ``b[i]``."""
        return self.geometry.distance(a, b)


class SubsetIndex:
    """Ball queries over some records of an index, reusing its distinct rows: a scan of the
    rows they hold (when the index scans) or a KD-tree over them."""

    def __init__(self, parent: NeighbourIndex, records: np.ndarray) -> None:
        self.parent = parent
        self.records = records
        self.present: np.ndarray | None = None
        self.tree: cKDTree | None = None
        if parent.scans or parent.deduplicated:
            rows = parent._distinct[1][records]
            present, local = np.unique(rows, return_inverse=True)
            local = local.ravel()
            self.present = present.astype(np.intp)
            self.local_order = np.argsort(local, kind="stable").astype(np.intp)
            self.local_starts = np.concatenate(([0], np.cumsum(np.bincount(local)))).astype(np.intp)
            if not parent.scans:
                self.tree = kd_tree(parent._tree[0].data[present], leafsize=64)
        elif records.size:
            self.tree = kd_tree(parent.points[records], leafsize=16)

    def ball(self, record: int, radius: float) -> np.ndarray:
        """Records of the subset within ``radius`` (inclusive) of record ``record``."""
        if self.records.size == 0:
            return self.records[:0]
        if self.parent.scans:
            assert self.present is not None
            ids = self.parent.scan_ball(record, radius, self.present)
        else:
            assert self.tree is not None
            center = self.parent.points[record]
            ids = np.asarray(self.tree.query_ball_point(center, radius, p=self.parent.norm),
                             dtype=np.intp)  # fmt: skip
        if self.present is None:
            return self.records[ids]
        sizes = self.local_starts[1:] - self.local_starts[:-1]
        return self.records[members(ids, sizes, self.local_starts, self.local_order)]
