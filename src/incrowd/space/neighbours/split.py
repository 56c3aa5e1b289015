"""The split search by agreement: exact neighbour lists of distinct rows with wide levels.

For every attribute with a level of more codes than the index's ``WIDE_CODES`` (names,
fine zip codes), and for each pattern of which wide levels a pair agrees on, the rows are
grouped by those codes and searched within their group (a KD-tree on the dense embedding
of the *narrow* attributes, the other wide levels counted as different). Each search
over-estimates no pair's distance less than the truth and is exact for pairs of its own
pattern, so the true neighbours are among the union of the candidates, which are then
ranked by their exact distance (:func:`~incrowd.space.kernels.best_of_candidates`).
Memory and time grow with the records, not with records × values.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from ..._runtime import threads
from ...errors import ParameterError
from ..geometry import Geometry
from ..kernels import best_of_candidates, brute_groups, fill_from_points
from .kdtree import WIDE_DIM, WIDE_LEAF_SIZE, kd_tree, tree_lists

__all__ = ["BRUTE_GROUP", "MAX_PATTERNS", "grouped_knn", "select_columns", "split_lists"]

#: Groups up to this size are searched by brute force instead of a KD-tree of their own.
BRUTE_GROUP = 256
#: Largest number of agreement patterns the split search enumerates.
MAX_PATTERNS = 64


def split_lists(
    rows: Geometry, q: int, norm: int, wide_codes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Neighbour lists of ``rows`` (each row first) by the split by agreement of the
    module docstring; levels with more than ``wide_codes`` codes are the wide ones."""
    wide = rows.widths > wide_codes
    if not wide.any():
        return tree_lists(rows, q, norm)
    narrow = select_columns(rows, np.flatnonzero(~wide))
    base = narrow.dense()
    ent = rows.entry_table()
    power = ent if norm == 1 else ent**2
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
        candidates.append(grouped_knn(base, extra, keys, q, norm))
    return best_of_candidates(rows.numeric, rows.codes, ent, np.hstack(candidates), q, norm)


def grouped_knn(
    base: np.ndarray, extra: np.ndarray, keys: np.ndarray, q: int, norm: int
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
        brute_groups(base, offset, sub_order, sub_starts, q, norm, out)
    for g in big:
        members = order[starts[g] : starts[g + 1]]
        extra_coords = extra[members] if norm == 1 else np.sqrt(extra[members])
        coords = np.hstack([base[members], extra_coords])
        query = np.hstack([base[members], np.zeros_like(extra_coords)])
        # many rows share their coordinates here (they differ in the wide codes only):
        # search the distinct coordinates, then take rows of the nearest ones
        points, point_of = np.unique(coords, axis=0, return_inverse=True)
        asks, ask_of = np.unique(query, axis=0, return_inverse=True)
        tree = kd_tree(points, leafsize=WIDE_LEAF_SIZE if points.shape[1] > WIDE_DIM else 16)
        kq = min(q, points.shape[0])
        _, found = tree.query(asks, k=kq, p=norm, workers=threads())
        found = np.asarray(found, dtype=np.intp).reshape(asks.shape[0], kq)
        point_of = point_of.ravel()
        rows_order = np.argsort(point_of, kind="stable").astype(np.intp)
        rows_starts = np.concatenate(([0], np.cumsum(np.bincount(point_of)))).astype(np.intp)
        fill_from_points(found, ask_of.ravel().astype(np.intp), rows_order, rows_starts,
                         members, out)  # fmt: skip
    return out


def select_columns(rows: Geometry, cols: np.ndarray) -> Geometry:
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
