"""The neighbour index: every neighbour query incrowd makes, for one geometry.

Real microdata repeat themselves (Adult's 30,162 records hold 18,109 distinct
quasi-identifier rows), so the index works on the *distinct* rows and expands answers back
to records, which is exact: copies are at distance 0. Queries take record indices.

How the k nearest neighbours of every record are found (:meth:`NeighbourIndex.neighbours`),
always exactly:

- **numbers only**: a KD-tree (scipy ``cKDTree``);
- **labels**: a compiled scan over the distinct rows with early exit, on the codes (on Adult
  many times faster than a KD-tree in the 114-dimensional one-hot space), in parallel
  chunks; at any size when no attribute level has more than :data:`WIDE_CODES` values, else
  up to :data:`SCAN_LISTS_MAX_DISTINCT` distinct rows;
- **more distinct rows with wide levels**: a KD-tree on the dense embedding of the *narrow*
  attributes, and for every attribute with more than :data:`WIDE_CODES` values (names, fine
  zip codes) a split by agreement: for each pattern of which wide levels a pair agrees on,
  records are grouped by those codes and searched within their group, the other wide levels
  counted as different. Each search over-estimates no pair's distance less than the truth
  and is exact for pairs of its own pattern, so the true neighbours are among the union of
  the candidates, which are then ranked by their exact distance. Memory and time grow with
  the records, not with records × values.

Ball, nearest-center and count queries over labels scan the distinct rows (compiled, up to
:data:`SCAN_MAX_DISTINCT` of them): on Adult a KD-tree would search a one-hot embedding of
114 to 213 dimensions. Otherwise they run on a KD-tree over the dense embedding, built on
first use; a geometry too wide for that raises a clear error (:meth:`Geometry.dense`).
"""

from __future__ import annotations

from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from ..._runtime import chunked, chunks, threads
from ...errors import ParameterError
from ..geometry import Geometry
from ..kernels import (
    best_of_candidates,
    brute_groups,
    expand_lists,
    fill_from_points,
    scan_ball,
    scan_counts,
    scan_knn,
    scan_kth_max,
    scan_nearest,
    scan_nearest_rows,
)
from .live_tree import LiveTree

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = ["NeighbourIndex", "SCAN_LISTS_MAX_DISTINCT", "SCAN_MAX_DISTINCT", "WIDE_CODES"]

#: Ball, nearest-center and count queries over labels scan the distinct rows up to this
#: many of them.
SCAN_MAX_DISTINCT = 40_000
#: Neighbour lists scan the distinct rows up to this many of them when an attribute level is
#: wide; without one, at any size. Measured (k = 12 lists, 2 threads; ``python
#: benchmarks/neighbour_lists.py``): census rows with zip codes, 100,000 / 200,000 rows: scan
#: 16.2 / 36.3 s, split search 68.2 / 143 s (the scan's columns dearest difference first;
#: in the table's order it took 47 / 149 s, and 150,000 was the limit); 200,000 rows of
#: two numbers and three labels (no wide level): scan 0.7 s, KD-tree on the one-hot
#: embedding 27 s; 100,000 rows of six 30-value labels: scan 42 s, KD-tree stopped after
#: 10 minutes. With ``--large``: 400,000 / 800,000 census rows, scan 73 / 118 s, split
#: search 261 / 531 s (the scan also took half the memory at 400,000: 1.3 against 2.5 GB
#: at peak). Beyond 1,000,000 rows not measured: the split search is kept there.
SCAN_LISTS_MAX_DISTINCT = 1_000_000
#: An attribute level with more codes than this is searched by agreement, not embedded.
WIDE_CODES = 64
#: Groups up to this size are searched by brute force instead of a KD-tree of their own.
BRUTE_GROUP = 256
#: Deduplicate rows for the dense tree when it is at least this wide (trees are weak there)
#: and the distinct rows are at most this fraction of the records.
DEDUP_MIN_DIM = 9
DEDUP_MAX_FRACTION = 0.9
#: KD-tree leaf size for wide embeddings (one-hot blocks query fastest with big leaves).
WIDE_LEAF_SIZE = 256
WIDE_DIM = 32
#: Largest number of agreement patterns the split search enumerates.
MAX_PATTERNS = 64
#: Greedy covering runs on a tree of live counts up to this many dense dimensions (boxes
#: bound balls poorly in wider embeddings, such as one-hot blocks).
LIVE_TREE_MAX_DIM = 16


def _kd_tree(points: np.ndarray, leafsize: int = 16) -> cKDTree:
    """scipy's KD-tree, imported on first use: queries over labels scan rows instead, and
    the import is a tenth of a second of every start-up (the command line, a Dask worker)."""
    from scipy.spatial import cKDTree

    return cKDTree(points, leafsize=leafsize)


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
        rows = self._rows()
        if (self._lists is not None and self._lists[0].shape[1] >= k) or not self._scans_lists(
            rows
        ):
            return float(self.kth_distance(k).max())
        num, codes, ent, weight, _ = self._scan_sorted
        order = self._scan_order

        def largest(start: float, lo: int, hi: int) -> float:
            return scan_kth_max(num, codes, ent, *order, weight, k, start, self.norm, lo, hi)

        m = rows.n
        pilot = largest(0.0, max(0, m // 2 - 128), min(m, m // 2 + 128))
        parts = chunked(lambda lo, hi: largest(pilot, lo, hi),
                        chunks(m, 4 * threads(), minimum=512))  # fmt: skip
        return float(max([pilot, *parts]))

    def _scans_lists(self, rows: Geometry) -> bool:
        """Whether the neighbour lists of the distinct ``rows`` come from a scan."""
        return bool(rows.codes.shape[1]) and (
            rows.n <= SCAN_LISTS_MAX_DISTINCT or not (rows.widths > WIDE_CODES).any()
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
        num, codes, ent, _, row_at = self._scan_sorted
        order = self._scan_order
        parts = chunked(
            lambda lo, hi: scan_knn(num, codes, ent, *order, q, self.norm, lo, hi),
            chunks(rows.n, 4 * threads(), minimum=512),
        )
        dist, idx = np.empty((rows.n, q)), np.empty((rows.n, q), dtype=np.intp)
        dist[row_at] = np.vstack([p[0] for p in parts])
        idx[row_at] = row_at[np.vstack([p[1] for p in parts])]
        return dist, idx

    @cached_property
    def _scan_sorted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(num, codes, entries, weight, row_at)``: the distinct rows as the scans for
        neighbours read them, position ``p`` holding row ``row_at[p]``, sorted by their
        codes with the columns in :func:`_column_order`. A scan stops once every row it has
        not reached differs in a leading column whose least difference costs more than the
        candidates it holds; the dearest differences first keep that floor high. Measured
        (lists of 8 to 12, 2 threads): Adult with all eight hierarchies 1.2 → 0.53 s, with
        age a number 0.95 → 0.55 s, census rows with zip codes (100,000) 49 → 18 s, against
        the columns in the table's order; two numbers and three flat labels (200,000) about
        as before (0.6–0.9 s)."""
        num, codes, ent, _, weight = self._scan_rows
        if not codes.shape[1]:
            return num, codes, ent, weight, np.arange(codes.shape[0], dtype=np.intp)
        columns = _column_order(codes, ent)
        codes = np.ascontiguousarray(codes[:, columns])
        row_at = np.lexsort(codes.T[::-1]).astype(np.intp)  # stable: ties keep the key order
        return (np.ascontiguousarray(num[row_at]), np.ascontiguousarray(codes[row_at]),
                np.ascontiguousarray(ent[row_at][:, columns]), weight[row_at], row_at)  # fmt: skip

    @cached_property
    def _scan_order(self) -> tuple[np.ndarray, ...]:
        """What the scans for neighbours stop on (:func:`scan_knn`): the blocks of equal
        leading codes and the runs of equal codes of the distinct rows in scan order
        (:attr:`_scan_sorted`), and each code column's least entry."""
        _, codes, ent, _, _ = self._scan_sorted
        block_lo, block_hi = _prefix_blocks(codes)
        run_lo, run_hi, whole = _runs(codes)
        floor = ent.min(axis=0) if codes.shape[0] else np.zeros(codes.shape[1])
        return block_lo, block_hi, run_lo, run_hi, whole, floor

    def _tree_lists(self, rows: Geometry, q: int) -> tuple[np.ndarray, np.ndarray]:
        points = rows.dense()
        leaf = WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 16
        tree = _kd_tree(points, leafsize=leaf)
        dist, idx = tree.query(points, k=q, p=self.norm, workers=threads())
        dist, idx = np.asarray(dist).reshape(rows.n, q), np.asarray(idx).reshape(rows.n, q)
        return _self_first(dist, idx)

    def _split_lists(self, rows: Geometry, q: int) -> tuple[np.ndarray, np.ndarray]:
        wide = rows.widths > WIDE_CODES
        if not wide.any():
            return self._tree_lists(rows, q)
        narrow = _select_columns(rows, np.flatnonzero(~wide))
        base = narrow.dense()
        ent = rows.entry_table()
        power = ent if self.norm == 1 else ent**2
        options = []  # per wide attribute: None, or one of its wide levels
        for attr in np.unique(rows.attribute[wide]):
            cols = np.flatnonzero(wide & (rows.attribute == attr))
            options.append([(attr, None)] + [(attr, int(c)) for c in cols])
        patterns = list(product(*options))
        if len(patterns) > MAX_PATTERNS:
            msg = (
                f"{len(patterns)} agreement patterns over wide attributes are too many for an "
                "exact neighbour search; generalize some of them with a hierarchy first"
            )
            raise ParameterError(msg)
        candidates = []
        for pattern in patterns:
            agreed = [c for _, c in pattern if c is not None]
            modeled = []  # wide columns counted as different
            for attr, c in pattern:
                cols = np.flatnonzero(wide & (rows.attribute == attr))
                lowest_agreed = rows.level[c] if c is not None else np.inf
                modeled += [int(j) for j in cols if rows.level[j] < lowest_agreed]
            extra = power[:, modeled] if modeled else np.zeros((rows.n, 0))
            keys = rows.codes[:, agreed] if agreed else np.zeros((rows.n, 1), dtype=np.intp)
            candidates.append(self._grouped_knn(base, extra, keys, q))
        return best_of_candidates(
            rows.numeric, rows.codes, ent, np.hstack(candidates), q, self.norm
        )

    def _grouped_knn(
        self, base: np.ndarray, extra: np.ndarray, keys: np.ndarray, q: int
    ) -> np.ndarray:
        """Per row: up to ``q`` nearest rows with the same ``keys``, by the distance of
        ``base`` plus ``extra`` (each row's own terms for the levels counted as different)."""
        m = base.shape[0]
        out = np.full((m, q), -1, dtype=np.intp)
        _, group = np.unique(keys, axis=0, return_inverse=True)
        group = group.ravel()
        order = np.argsort(group, kind="stable").astype(np.intp)
        sizes = np.bincount(group)
        starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
        big = np.flatnonzero(sizes > BRUTE_GROUP)
        small = np.flatnonzero(sizes <= BRUTE_GROUP)
        offset = extra.sum(axis=1) if extra.shape[1] else np.zeros(m)
        if small.size:
            sub_order = order[np.repeat(sizes <= BRUTE_GROUP, sizes)]
            sub_starts = np.concatenate(([0], np.cumsum(sizes[small]))).astype(np.intp)
            brute_groups(base, offset, sub_order, sub_starts, q, self.norm, out)
        for g in big:
            members = order[starts[g] : starts[g + 1]]
            extra_coords = extra[members] if self.norm == 1 else np.sqrt(extra[members])
            coords = np.hstack([base[members], extra_coords])
            query = np.hstack([base[members], np.zeros_like(extra_coords)])
            # many rows share their coordinates here (they differ in the wide codes only):
            # search the distinct coordinates, then take rows of the nearest ones
            points, point_of = np.unique(coords, axis=0, return_inverse=True)
            asks, ask_of = np.unique(query, axis=0, return_inverse=True)
            tree = _kd_tree(points, leafsize=WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 16)
            kq = min(q, points.shape[0])
            _, found = tree.query(asks, k=kq, p=self.norm, workers=threads())
            found = np.asarray(found, dtype=np.intp).reshape(asks.shape[0], kq)
            point_of = point_of.ravel()
            rows_order = np.argsort(point_of, kind="stable").astype(np.intp)
            rows_starts = np.concatenate(([0], np.cumsum(np.bincount(point_of)))).astype(np.intp)
            fill_from_points(found, ask_of.ravel().astype(np.intp), rows_order, rows_starts,
                             members, out)  # fmt: skip
        return out

    # ------------------------------------------------------------ dense queries
    @cached_property
    def _tree(self) -> tuple[cKDTree, np.ndarray]:
        """KD-tree over the dense embedding (of the distinct rows when that pays), and the
        dense points of every record."""
        points = self.geometry.dense()
        deduplicate = points.shape[1] >= DEDUP_MIN_DIM and self.n > 1
        if deduplicate and self.n_distinct <= DEDUP_MAX_FRACTION * self.n:
            leaf = WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 64
            return _kd_tree(points[self._distinct[0]], leafsize=leaf), points
        return _kd_tree(points, leafsize=16), points

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
        return _members(np.asarray(rows, dtype=np.intp), counts, starts, order)

    # ------------------------------------------------------------ scans of the distinct rows
    @property
    def scans(self) -> bool:
        """Whether ball, nearest-center and count queries scan the distinct rows."""
        return bool(self.geometry.codes.shape[1]) and self.n_distinct <= SCAN_MAX_DISTINCT

    @cached_property
    def _scan_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(num, codes, entries, inverse, weight)`` of the distinct rows: their coordinates,
        codes and entry table, each record's row, and each row's number of records."""
        _, inverse, weight, _, _ = self._distinct
        g = self._rows()
        return g.numeric, g.codes, g.entry_table(), inverse, weight

    def scan_ball(self, record: int, radius: float, rows: np.ndarray) -> np.ndarray:
        """Positions in ``rows`` (distinct rows) of those within ``radius`` (inclusive) of
        record ``record``."""
        num, codes, ent, inverse, _ = self._scan_rows
        return scan_ball(num, codes, ent, rows, inverse[record], float(radius), self.norm)

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
            num, codes, ent, inverse, weight = self._scan_rows
            asked, where = np.unique(inverse[np.asarray(records, dtype=np.intp)],
                                     return_inverse=True)  # fmt: skip
            parts = chunked(
                lambda lo, hi: scan_counts(
                    num, codes, ent, weight, asked, radius, self.norm, lo, hi
                ),  # fmt: skip
                chunks(asked.size, 4 * threads(), minimum=64),
            )
            found = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
            return found[where.ravel()].astype(np.intp)
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
        num, codes, ent, inverse, weight = self._scan_rows
        asked, where = np.unique(inverse[records], return_inverse=True)
        q = min(k, self.n_distinct)  # k rows hold at least k records
        parts = chunked(
            lambda lo, hi: scan_nearest_rows(
                num, codes, ent, weight, asked, q, float(bound), self.norm, lo, hi
            ),  # fmt: skip
            chunks(asked.size, 4 * threads(), minimum=64),
        )
        rows = np.vstack([p[0] for p in parts])
        total = np.concatenate([p[1] for p in parts])
        out = []
        for p, a in zip(records, where.ravel(), strict=True):
            near = self.records_of_rows(rows[a][rows[a] >= 0])
            found = np.concatenate(([p], near[near != p]))[:k]  # the record itself first
            out.append((found, bool(total[a] <= k)))
        return out

    def nearest_to_points(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Distances and records of the ``k`` nearest records of each row of ``query``
        (coordinates of the dense embedding)."""
        points = self.points
        tree = _kd_tree(points, leafsize=16)
        dist, idx = tree.query(query, k=k, p=self.norm, workers=threads())
        return np.asarray(dist).reshape(len(query), k), np.asarray(idx).reshape(len(query), k)

    def nearest_among(self, centers: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each record of ``who``: the position in ``centers`` of its nearest center, and
        the distance."""
        if self.scans:
            num, codes, ent, inverse, _ = self._scan_rows
            targets = inverse[np.asarray(centers, dtype=np.intp)]
            asked, where = np.unique(inverse[np.asarray(who, dtype=np.intp)], return_inverse=True)
            parts = chunked(
                lambda lo, hi: scan_nearest(num, codes, ent, targets, asked, self.norm, lo, hi),
                chunks(asked.size, 4 * threads(), minimum=64),
            )
            at = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.intp)
            dist = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
            return at[where.ravel()], dist[where.ravel()]
        points = self.points
        tree = _kd_tree(points[centers])
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
                self.tree = _kd_tree(parent._tree[0].data[present], leafsize=64)
        elif records.size:
            self.tree = _kd_tree(parent.points[records], leafsize=16)

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
        return self.records[_members(ids, sizes, self.local_starts, self.local_order)]


def _members(rows: np.ndarray, counts: np.ndarray, starts: np.ndarray, order: np.ndarray
             ) -> np.ndarray:  # fmt: skip
    """The members of groups ``rows``, in that order: group ``u`` holds ``counts[u]``
    members, ``order[starts[u]:starts[u] + counts[u]]``."""
    lengths = counts[rows]
    shift = starts[rows] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return order[np.repeat(shift, lengths) + np.arange(int(lengths.sum()))]


def _column_order(codes: np.ndarray, ent: np.ndarray) -> np.ndarray:
    """The order in which the scans read the code columns: the dearest least difference
    first (a column's smallest entry; ties: the column with more codes first)."""
    sizes = np.array([np.unique(codes[:, j]).size for j in range(codes.shape[1])])
    return np.lexsort((-sizes, -ent.min(axis=0)))


def _prefix_blocks(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by their codes: row ``u``'s rows sharing its first ``t + 1`` codes
    are ``block_lo[t, u]..block_hi[t, u] - 1``."""
    m, b = codes.shape
    block_lo = np.empty((b, m), dtype=np.intp)
    block_hi = np.empty((b, m), dtype=np.intp)
    changed = np.zeros(m, dtype=bool)
    for t in range(b):
        if m:
            changed[1:] |= codes[1:, t] != codes[:-1, t]
            changed[0] = True
        block_lo[t], block_hi[t] = _spans(changed)
    return block_lo, block_hi


def _runs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, row ``u``'s run of equal codes (``run_lo[j, u]..run_hi[j, u] - 1``), and
    whether every code of the column forms a single run."""
    m, b = codes.shape
    run_lo = np.empty((b, m), dtype=np.intp)
    run_hi = np.empty((b, m), dtype=np.intp)
    whole = np.zeros(b, dtype=bool)
    for j in range(b):
        changed = np.r_[True, codes[1:, j] != codes[:-1, j]] if m else np.zeros(0, dtype=bool)
        run_lo[j], run_hi[j] = _spans(changed)
        whole[j] = m == 0 or int(changed.sum()) == np.unique(codes[:, j]).size
    return run_lo, run_hi, whole


def _spans(changed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each position's span, spans starting where
    ``changed``."""
    m = changed.size
    positions = np.arange(m)
    starts = np.maximum.accumulate(np.where(changed, positions, 0)) if m else positions
    ends = np.minimum.accumulate(np.where(np.r_[changed[1:], True], positions, m)[::-1])[::-1]
    return starts, ends + 1


def _self_first(dist: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lists with each row itself first: distinct rows can still be at distance 0 (a node
    that costs nothing to generalize), and a tree may list such a twin first."""
    q = idx.shape[1]
    for u in np.flatnonzero(idx[:, 0] != np.arange(idx.shape[0])):
        others = idx[u] != u
        idx[u] = np.concatenate(([u], idx[u][others]))[:q]
        dist[u] = np.concatenate(([0.0], dist[u][others]))[:q]
    return dist, idx


def _select_columns(rows: Geometry, cols: np.ndarray) -> Geometry:
    """The geometry with only the given code columns."""
    offsets = rows.offsets
    entries = [rows.entries[offsets[j] : offsets[j + 1]] for j in cols]
    new_offsets = np.concatenate(([0], np.cumsum([e.size for e in entries]))).astype(np.intp)
    return Geometry(
        numeric=rows.numeric,
        codes=np.ascontiguousarray(rows.codes[:, cols]),
        entries=np.concatenate(entries) if entries else np.zeros(0),
        offsets=new_offsets,
        attribute=rows.attribute[cols],
        level=rows.level[cols],
        norm=rows.norm,
        key=None,
    )
