"""Compiled scans over the distinct rows of labels, for neighbour lists, balls and counts.

On labels a KD-tree would search a one-hot embedding of many dimensions (114 to 213 on
Adult); a scan over the codes with early exit is many times faster. For neighbour lists
the rows are sorted by their codes, the columns dearest least difference first
(:func:`column_order`): a scan stops once every row it has not reached differs in a
leading column whose least difference costs more than the candidates it holds, and the
dearest differences first keep that floor high (``python benchmarks/neighbour_lists.py``;
the figures are in ``benchmarks/results/notes/io-space-data.md``).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..._runtime import chunked, chunks, threads
from ..kernels import (
    scan_ball,
    scan_counts,
    scan_knn,
    scan_kth_max,
    scan_nearest,
    scan_nearest_rows,
)

__all__ = ["RowScan", "column_order", "members", "prefix_blocks", "runs", "scan_lists",
           "scan_order", "scan_sorted", "spans"]  # fmt: skip

Rows = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def scan_sorted(num: np.ndarray, codes: np.ndarray, ent: np.ndarray, weight: np.ndarray,
                columns: np.ndarray | None = None) -> Rows:  # fmt: skip
    """``(num, codes, entries, weight, row_at)``: the distinct rows (their coordinates,
    codes, entry table and records) as the scans for neighbours read them, position ``p``
    holding row ``row_at[p]``, sorted by their codes with the columns in
    :func:`column_order` (``columns``, when already known)."""
    if not codes.shape[1]:
        return num, codes, ent, weight, np.arange(codes.shape[0], dtype=np.intp)
    columns = column_order(codes, ent) if columns is None else columns
    codes = np.ascontiguousarray(codes[:, columns])
    row_at = np.lexsort(codes.T[::-1]).astype(np.intp)  # stable: ties keep the key order
    return (np.ascontiguousarray(num[row_at]), np.ascontiguousarray(codes[row_at]),
            np.ascontiguousarray(ent[row_at][:, columns]), weight[row_at], row_at)  # fmt: skip


def scan_order(codes: np.ndarray, ent: np.ndarray) -> tuple[np.ndarray, ...]:
    """What the scans for neighbours stop on (:func:`~incrowd.space.kernels.scan_knn`): the
    blocks of equal leading codes and the runs of equal codes of the rows in scan order
    (the ``codes`` and ``entries`` of :func:`scan_sorted`), and each code column's least
    entry."""
    block_lo, block_hi = prefix_blocks(codes)
    run_lo, run_hi, whole = runs(codes)
    floor = ent.min(axis=0) if codes.shape[0] else np.zeros(codes.shape[1])
    return block_lo, block_hi, run_lo, run_hi, whole, floor


def scan_lists(
    rows: Rows, order: tuple[np.ndarray, ...], q: int, norm: int
) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists (``q`` long) of the rows of :func:`scan_sorted`, numbered as before
    the sort, by a scan in parallel chunks."""
    num, codes, ent, _, row_at = rows
    m = row_at.size
    parts = chunked(
        lambda lo, hi: scan_knn(num, codes, ent, *order, q, norm, lo, hi),
        chunks(m, 4 * threads(), minimum=512),
    )
    dist, idx = np.empty((m, q)), np.empty((m, q), dtype=np.intp)
    dist[row_at] = np.vstack([p[0] for p in parts])
    idx[row_at] = row_at[np.vstack([p[1] for p in parts])]
    return dist, idx


class RowScan:
    """The compiled scans over the distinct rows (numbered ``0..m-1``) of one geometry:
    their coordinates ``num``, ``codes`` and entry table ``ent``, each record's row
    ``inverse`` and each row's number of records ``weight``. Rows in, rows out: the index
    maps records to rows and back."""

    def __init__(self, num: np.ndarray, codes: np.ndarray, ent: np.ndarray,
                 inverse: np.ndarray, weight: np.ndarray, norm: int) -> None:  # fmt: skip
        self.num, self.codes, self.ent = num, codes, ent
        self.inverse, self.weight, self.norm = inverse, weight, norm

    @cached_property
    def columns(self) -> np.ndarray:
        """The code columns in the order the scans read them (:func:`column_order`)."""
        return column_order(self.codes, self.ent)

    @cached_property
    def sorted(self) -> Rows:
        """The rows as the scans for neighbours read them (:func:`scan_sorted`)."""
        columns = self.columns if self.codes.shape[1] else None
        return scan_sorted(self.num, self.codes, self.ent, self.weight, columns)

    @cached_property
    def order(self) -> tuple[np.ndarray, ...]:
        """What the scans for neighbours stop on (:func:`scan_order`)."""
        _, codes, ent, _, _ = self.sorted
        return scan_order(codes, ent)

    @cached_property
    def stops_early(self) -> bool:
        """Whether the rows agree often enough in the column the scans read first for a
        scan for neighbours to stop early. When most rows hold a value of that column that
        no other row holds (a name, an id), every candidate differs there at its dearest
        cost and the scan reads every row: 60,000 unique names took 36 s against 2 s by the
        split search (``python benchmarks/wide_categorical.py``)."""
        if not self.codes.shape[1]:
            return True
        return 2 * np.unique(self.codes[:, self.columns[0]]).size <= self.codes.shape[0]

    def lists(self, q: int) -> tuple[np.ndarray, np.ndarray]:
        """Every row's ``q`` nearest rows (itself first) and their distances."""
        return scan_lists(self.sorted, self.order, q, self.norm)

    def kth_max(self, k: int) -> float:
        """The largest distance from a record to its ``k``-th nearest other record: a scan
        that settles most rows as soon as ``k`` records lie closer than the largest distance
        found so far (a pilot on the middle rows sets the first bar)."""
        num, codes, ent, weight, _ = self.sorted
        order = self.order

        def largest(start: float, lo: int, hi: int) -> float:
            return scan_kth_max(num, codes, ent, *order, weight, k, start, self.norm, lo, hi)

        m = codes.shape[0]
        pilot = largest(0.0, max(0, m // 2 - 128), min(m, m // 2 + 128))
        parts = chunked(lambda lo, hi: largest(pilot, lo, hi),
                        chunks(m, 4 * threads(), minimum=512))  # fmt: skip
        return float(max([pilot, *parts]))

    def ball(self, record: int, radius: float, rows: np.ndarray) -> np.ndarray:
        """Positions in ``rows`` of those within ``radius`` (inclusive) of record ``record``."""
        u = self.inverse[record]
        return scan_ball(self.num, self.codes, self.ent, rows, u, float(radius), self.norm)

    def counts(self, records: np.ndarray, radius: float) -> np.ndarray:
        """How many records lie within ``radius`` (inclusive) of each of ``records``."""
        num, codes, ent, weight = self.num, self.codes, self.ent, self.weight
        asked, where = np.unique(self.inverse[np.asarray(records, dtype=np.intp)],
                                 return_inverse=True)  # fmt: skip
        parts = chunked(
            lambda lo, hi: scan_counts(num, codes, ent, weight, asked, radius, self.norm, lo, hi),
            chunks(asked.size, 4 * threads(), minimum=64),
        )
        found = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        return found[where.ravel()].astype(np.intp)

    def nearest_rows(
        self, records: np.ndarray, q: int, bound: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For the rows of ``records`` (at least one): their ``q`` nearest rows closer than
        ``bound`` (-1 where fewer), the records within ``bound`` of each, and each record's
        position among the rows asked."""
        num, codes, ent, weight = self.num, self.codes, self.ent, self.weight
        asked, where = np.unique(self.inverse[records], return_inverse=True)
        parts = chunked(
            lambda lo, hi: scan_nearest_rows(
                num, codes, ent, weight, asked, q, float(bound), self.norm, lo, hi
            ),  # fmt: skip
            chunks(asked.size, 4 * threads(), minimum=64),
        )
        rows = np.vstack([p[0] for p in parts])
        total = np.concatenate([p[1] for p in parts])
        return rows, total, where.ravel()

    def nearest_center(self, centers: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each record of ``who``: the position in ``centers`` (records) of its nearest
        center, and the distance."""
        targets = self.inverse[np.asarray(centers, dtype=np.intp)]
        asked, where = np.unique(self.inverse[np.asarray(who, dtype=np.intp)],
                                 return_inverse=True)  # fmt: skip
        num, codes, ent = self.num, self.codes, self.ent
        parts = chunked(
            lambda lo, hi: scan_nearest(num, codes, ent, targets, asked, self.norm, lo, hi),
            chunks(asked.size, 4 * threads(), minimum=64),
        )
        at = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, dtype=np.intp)
        dist = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
        return at[where.ravel()], dist[where.ravel()]


def column_order(codes: np.ndarray, ent: np.ndarray) -> np.ndarray:
    """The order in which the scans read the code columns: the dearest least difference
    first (a column's smallest entry; ties: the column with more codes first)."""
    sizes = np.array([np.unique(codes[:, j]).size for j in range(codes.shape[1])])
    return np.lexsort((-sizes, -ent.min(axis=0)))


def prefix_blocks(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
        block_lo[t], block_hi[t] = spans(changed)
    return block_lo, block_hi


def runs(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per column, row ``u``'s run of equal codes (``run_lo[j, u]..run_hi[j, u] - 1``), and
    whether every code of the column forms a single run."""
    m, b = codes.shape
    run_lo = np.empty((b, m), dtype=np.intp)
    run_hi = np.empty((b, m), dtype=np.intp)
    whole = np.zeros(b, dtype=bool)
    for j in range(b):
        changed = np.r_[True, codes[1:, j] != codes[:-1, j]] if m else np.zeros(0, dtype=bool)
        run_lo[j], run_hi[j] = spans(changed)
        whole[j] = m == 0 or int(changed.sum()) == np.unique(codes[:, j]).size
    return run_lo, run_hi, whole


def spans(changed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of each position's span, spans starting where
    ``changed``."""
    m = changed.size
    positions = np.arange(m)
    starts = np.maximum.accumulate(np.where(changed, positions, 0)) if m else positions
    ends = np.minimum.accumulate(np.where(np.r_[changed[1:], True], positions, m)[::-1])[::-1]
    return starts, ends + 1


def members(rows: np.ndarray, counts: np.ndarray, starts: np.ndarray, order: np.ndarray
             ) -> np.ndarray:  # fmt: skip
    """The members of groups ``rows``, in that order: group ``u`` holds ``counts[u]``
    members, ``order[starts[u]:starts[u] + counts[u]]``."""
    lengths = counts[rows]
    shift = starts[rows] - np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return order[np.repeat(shift, lengths) + np.arange(int(lengths.sum()))]
