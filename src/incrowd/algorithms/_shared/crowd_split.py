"""Splitting crowds of ``2k`` or more records into crowds of ``k`` or more.

The r-cellular algorithm's crowds can be large where the data are spread (its growth
prefers candidates holding many records), and the r-Gather family's are as large as the
largest radius allows. A crowd splits like MDAV within itself: the member farthest from the
crowd's center and its ``k − 1`` nearest members form a part, until fewer than ``2k`` are
left, which form the last part. Every part lies within the crowd's radius of its center, so
a split never raises the largest radius (r-Gather keeps its guarantee); r-cellular keeps a
split only where it lowers the cost.

That peeling costs O(m²/k) distances in a crowd of m: minutes for the crowds of 10⁴ and
more that a few large crowds over 10⁶ records hold. A crowd of more than :data:`CHUNK`
records (more than Adult's largest r-Gather crowd, 3,118) is first cut in halves by distance
to its member farthest from the crowd's center, each half again, until every piece holds at
most :data:`CHUNK` (and so at least ``CHUNK / 2 ≥ 2k``); the peeling then runs within each
piece. O(m log² m + m·CHUNK/k) in all; on Gaussian crowds of 3,000 cut in pieces of 1,000
the parts' spread was 3–4 % above the whole crowd's peeling.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...space.geometry import Geometry
from ...space.kernels import insert_sorted, pair_distance

__all__ = ["first_of_each", "split_crowds", "split_parts"]


#: Crowds larger than this are cut into pieces of at most this many before the peeling.
CHUNK = 4096


@jit()
def _pieces(num, codes, ent, norm, members, to_center, most):
    """Positions ``0..m-1`` of ``members`` reordered so that consecutive runs, delimited by
    the returned bounds, hold at most ``most`` each: a run too large is cut by distance to
    its member farthest from the center, the nearer half first."""
    m = members.size
    pos = np.arange(m)
    bounds = [0]
    stack = [(0, m)]
    while stack:
        a, b = stack.pop()
        if b - a <= most:
            bounds.append(b)
            continue
        far = pos[a]
        for t in pos[a:b]:
            if to_center[t] > to_center[far]:
                far = t
        gap = np.empty(b - a)
        for j in range(b - a):
            gap[j] = pair_distance(num, codes, ent, members[far], members[pos[a + j]], norm)
        pos[a:b] = pos[a:b][np.argsort(gap, kind="mergesort")]
        mid = a + (b - a) // 2
        stack.append((mid, b))  # popped last: the nearer half is cut and emitted first
        stack.append((a, mid))
    out = np.empty(len(bounds), dtype=np.intp)
    for j in range(len(bounds)):
        out[j] = bounds[j]
    return pos, out


@jit()
def split_parts(num, codes, ent, norm, order, starts, centers, k):
    """For every crowd ``order[starts[c]:starts[c+1]]`` (center record ``centers[c]``), a
    part number per member (aligned with ``order``); crowds under ``2k`` stay whole."""
    part = np.zeros(order.size, dtype=np.intp)
    best_d = np.empty(k)
    best_t = np.empty(k, dtype=np.intp)
    most = max(CHUNK, 8 * k)
    for c in range(starts.size - 1):
        lo, hi = starts[c], starts[c + 1]
        m = hi - lo
        if m < 2 * k:
            continue
        members = order[lo:hi]
        to_center = np.empty(m)
        for t in range(m):
            to_center[t] = pair_distance(num, codes, ent, centers[c], members[t], norm)
        pos, bounds = _pieces(num, codes, ent, norm, members, to_center, most)
        left = np.ones(m, dtype=np.bool_)
        p = 0
        for piece in range(bounds.size - 1):
            # in member order: ties go to the earlier member, as a stable sort would
            sub = np.sort(pos[bounds[piece] : bounds[piece + 1]])
            n_left = sub.size
            while n_left >= 2 * k:
                far = -1
                for t in sub:
                    if left[t] and (far < 0 or to_center[t] > to_center[far]):
                        far = t
                # the k nearest members still left (the farthest itself first, at distance 0)
                count = 0
                for t in sub:
                    if not left[t]:
                        continue
                    dt = pair_distance(num, codes, ent, members[far], members[t], norm)
                    if count < k:
                        count += 1
                    elif dt >= best_d[k - 1]:
                        continue
                    insert_sorted(best_d, best_t, count - 1, dt, t)
                for j in range(k):
                    t = best_t[j]
                    left[t] = False
                    part[lo + t] = p
                n_left -= k
                p += 1
            for t in sub:
                if left[t]:
                    left[t] = False
                    part[lo + t] = p
            p += 1
    return part


def split_crowds(
    geometry: Geometry, labels: np.ndarray, centers: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Every crowd (labels ``0..m-1``, center record ``centers[c]``) split by
    :func:`split_parts`: the new labels ``0..P-1`` and the crowd each came from."""
    labels = np.asarray(labels, dtype=np.intp)
    kept = np.flatnonzero(labels >= 0)
    if kept.size == 0:
        return labels.copy(), np.zeros(0, dtype=np.intp)
    order = kept[np.argsort(labels[kept], kind="stable")].astype(np.intp)
    sizes = np.bincount(labels[kept])
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.intp)
    args = (geometry.numeric, geometry.codes, geometry.entry_table(), geometry.norm)
    part = split_parts(*args, order, starts, np.asarray(centers, dtype=np.intp), k)
    n_parts = np.maximum.reduceat(part, starts[:-1]) + 1
    offset = np.concatenate(([0], np.cumsum(n_parts)[:-1]))
    out = labels.copy()
    out[order] = offset[labels[order]] + part
    return out, np.repeat(np.arange(sizes.size), n_parts).astype(np.intp)


def first_of_each(labels: np.ndarray) -> np.ndarray:
    """The first record of each crowd ``0..m-1``."""
    labels = np.asarray(labels)
    kept = np.flatnonzero(labels >= 0)
    _, first = np.unique(labels[kept], return_index=True)
    return kept[first]
