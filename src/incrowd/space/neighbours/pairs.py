"""Every pair within a radius of its own: for rows ``i`` with radii ``r_i``, the pairs
``(v, i, D(v, i))`` with ``D(v, i) < r_i`` over all records ``v``, or None when they
would be more than a budget.

Numbers only: a KD-tree (:func:`.kdtree.kd_tree`), counted first and then read as
k-nearest queries as deep as each chunk's largest ball (a ball's records are its
nearest). Labels: a compiled scan over every record. Either way a sample of the rows is
counted first: most inputs that exceed the budget show it there.

Complexity: the tree's ball counts plus O(pairs · log n) for numbers; O(|rows| · n · d)
distances for labels, twice (a count, then the pairs in place), refused beyond
:data:`MAX_SCAN`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import prange

from ..._runtime import jit, threads
from ..kernels import pair_distance
from .kdtree import kd_tree

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

__all__ = ["MAX_SCAN", "pairs_within"]

#: The scan gives up when finding the pairs would take more than this many distances.
MAX_SCAN = 2_000_000_000
#: Rows of a sample counted before all of them.
SAMPLE = 256
#: Entries of one k-nearest query of the tree's search.
TREE_CHUNK = 4_000_000


def pairs_within(
    num: np.ndarray,
    codes: np.ndarray,
    ent: np.ndarray,
    norm: int,
    radius: np.ndarray,
    rows: np.ndarray,
    budget: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(v, i, d)``: every record ``v`` within ``radius[i]`` (strictly) of each row ``i``
    of ``rows``, with the distance; None when they would be more than ``budget``."""
    sample = rows[:: max(1, rows.size // SAMPLE)]
    if codes.shape[1] == 0:
        tree = kd_tree(num)
        count = tree.query_ball_point(
            num[sample], radius[sample], p=norm, return_length=True, workers=threads()
        )
        if np.sum(count) * (rows.size / sample.size) > budget:
            return None
        lengths = np.asarray(
            tree.query_ball_point(num[rows], radius[rows], p=norm, return_length=True,
                                  workers=threads()), dtype=np.intp,
        )  # fmt: skip
        if lengths.sum() > budget:
            return None
        return _tree_pairs(tree, num, norm, radius, rows, lengths)
    if rows.size * num.shape[0] > MAX_SCAN:
        return None
    for part in (sample, rows):
        counts = _count_pairs(num, codes, ent, norm, radius, part)
        if counts.sum() * (rows.size / part.size) > budget:
            return None
    # the counts of every row place each row's pairs: one more pass fills them in parallel
    starts = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return _scan_pairs(num, codes, ent, norm, radius, rows, starts)


def _tree_pairs(
    tree: cKDTree,
    num: np.ndarray,
    norm: int,
    radius: np.ndarray,
    rows: np.ndarray,
    lengths: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of ``rows`` within their radii: rows in chunks of similar ball sizes, each
    a k-nearest query as deep as its largest ball, filtered by each row's own radius."""
    by_size = np.argsort(lengths, kind="stable")
    parts = []
    lo = 0
    while lo < rows.size:
        depth = max(1, int(lengths[by_size[min(rows.size - 1, lo)]]))
        hi = lo
        while hi < rows.size and lengths[by_size[hi]] <= 2 * depth:
            hi += 1
        hi = max(hi, lo + 1)
        hi = min(hi, lo + max(1, TREE_CHUNK // (2 * depth)))
        chunk = rows[by_size[lo:hi]]
        k = max(1, int(lengths[by_size[hi - 1]]))
        bound = float(np.nextafter(radius[chunk].max(), np.inf))
        d, j = tree.query(num[chunk], k=k, p=norm, distance_upper_bound=bound,
                          workers=threads())  # fmt: skip
        d, j = np.asarray(d).reshape(chunk.size, k), np.asarray(j).reshape(chunk.size, k)
        i = np.broadcast_to(chunk[:, None], j.shape)
        hit = (j < num.shape[0]) & (d < radius[chunk][:, None])
        parts.append((j[hit].astype(np.intp), i[hit], d[hit]))
        lo = hi
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))  # type: ignore[return-value]


@jit(parallel=True)
def _count_pairs(num, codes, ent, norm, radius, rows):
    """How many records lie within each row's radius (strictly)."""
    n = num.shape[0]
    counts = np.zeros(rows.size, dtype=np.int64)
    for r in prange(rows.size):
        i = rows[r]
        c = 0
        for v in range(n):
            if pair_distance(num, codes, ent, v, i, norm) < radius[i]:
                c += 1
        counts[r] = c
    return counts


@jit(parallel=True)
def _scan_pairs(num, codes, ent, norm, radius, rows, starts):
    """The pairs, row ``r``'s at ``starts[r]:starts[r + 1]`` (its counts' prefix sums)."""
    n = num.shape[0]
    total = starts[rows.size]
    v_out = np.empty(total, dtype=np.intp)
    i_out = np.empty(total, dtype=np.intp)
    d_out = np.empty(total)
    for r in prange(rows.size):
        i = rows[r]
        f = starts[r]
        for v in range(n):
            d = pair_distance(num, codes, ent, v, i, norm)
            if d < radius[i]:
                v_out[f], i_out[f], d_out[f] = v, i, d
                f += 1
    return v_out, i_out, d_out
