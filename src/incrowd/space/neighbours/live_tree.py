"""A KD-tree whose nodes count the records still live: which ball holds the most of them.

The greedy step of (k, r, ε)-Center (Aggarwal et al., *Achieving Anonymity via
Clustering*, Sec. 2.4) asks up to ``max_clusters`` times for the candidate whose ball of
radius ``x`` holds the most uncovered records, then covers every record within ``2x`` of
it. Counting every candidate's ball costs ``Σ_v |D(v, x)|``: about 10¹⁰ distance checks for
a million Gaussian points in R⁴ at the radius the search ends on. Here

- every node keeps the weight of the live records below it, so a ball count adds whole
  nodes that lie inside the ball and looks at single records only near its boundary;
- a best-first search over the nodes' boxes bounds all candidates of a node at once (a
  record within ``x`` of a candidate lies within ``x`` of the candidate's box) and counts
  exactly only the candidates that reach the top;
- bounds only fall as records are covered, so one heap serves every pick of a greedy run:
  an entry's old key is still an upper bound, and is refreshed only when it reaches the
  top.

With ``enough="exact"`` the pick is exactly the greedy's: the candidate with the largest
count, the lowest tie key among equal counts. But the proof of the greedy (Lemma 2.7) uses
only that each pick's count is at least the uncovered part of every optimal cluster, a set
of diameter at most ``x``. With ``enough="cube"`` a pick is taken as soon as its exact count
reaches a proven bound on that (:func:`_cube_max`): any set of diameter ``≤ x`` in an
``L_p`` norm (p ≥ 1) lies in an axis-parallel cube of side ``x``, which meets at most
``(m + 1)^d`` cells of a grid of side ``x / m``, so the largest sum of live candidate weight
over ``(m + 1)^d`` consecutive cells bounds it. In R⁴ with m = 4 that window holds half a
ball's volume (with m = 3, 0.64), so a candidate counted near the densest spot is taken;
the exact argmax would recount most of a smooth plateau of near-equal counts, every pick.
m is at most 4 (finer grids were tighter but slower to sum; figures in
``benchmarks/results/notes/io-space-data.md``). The bound only falls as records are
covered, so a stale one stays valid and is recomputed (one O(cells) pass per axis) only
when a count falls short of it.

The tree is built over the distinct rows (copies are one weighted point: they are always
covered together) of the dense embedding, for the ``L1`` or ``L2`` norm. Build
:math:`O(m \\log m)`; a count or a cover visits the nodes that cross the ball's boundary.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ..._runtime import jit
from ._live_kernels import _build, _cover, _cube_max, _live_within, _near_window

__all__ = ["LiveTree", "LEAF_SIZE", "CUBE_CELLS"]

#: Rows per leaf (at most).
LEAF_SIZE = 32
#: Most cells of the grid behind the cube bound (two int32 buffers of this size) ...
CUBE_CELLS = 2**24
#: ... and at most this many per row (or 2**16): a grid far sparser than the rows costs
#: time and memory in every sum and bounds nothing better.
CUBE_CELLS_PER_ROW = 16
#: Largest number of cells across a cube's side (finer grids: tighter bounds, slower sums).
_CUBE_SPLITS = 4
#: The cube bound is used when its window holds at most this share of a ball's volume.
_CUBE_USEFUL = 0.7
#: Relative widening of the cells, absorbing rounding in the cell index.
_CUBE_MARGIN = 1e-6
#: Share of candidate rows clamped onto each face of the grid (outliers widen it otherwise).
_CUBE_TAIL = 5e-4
STATS = np.zeros(8, dtype=np.int64)


@jit()
def _greedy(pts, weight, cand, tie, lo, hi, box_lo, box_hi, first_leaf, leaf_of, x, cover,
            norm, max_picks, cell_of, dims, splits, src, dst, need, cover_splits, low, side,
            by_cell, cell_sorted, STATS):  # fmt: skip
    """Up to ``max_picks`` centers, covering the live rows within ``cover`` of each.

    Each is the live candidate with the most live weight within ``x`` (lowest ``tie`` among
    equals) — or, when ``cell_of`` is not empty, one whose weight reaches the cube bound.
    Then a node reaching the top of the heap is followed down to a leaf by its children's
    bounds and that leaf's best candidate is taken if it reaches the bound (the one held,
    else a fresh one); else the best of the candidates nearest the center of the window
    that gives the fresh bound. When neither reaches it, the best-first search goes on
    (every entry left on the heap is still an upper bound), and those two tries wait a
    number of picks that doubles each time they fail.

    With the grid, the covering also stops as soon as the picks left cannot bring the
    covered weight to ``need``: a pick covers rows within ``cover`` of it, at most the
    largest live weight in ``cover_splits + 1`` consecutive cells per axis."""
    n_nodes = lo.size
    live = np.zeros(n_nodes, dtype=np.int64)
    n_cand = np.zeros(n_nodes, dtype=np.int64)
    low_tie = np.full(n_nodes, np.iinfo(np.int64).max, dtype=np.int64)
    for t in range(first_leaf, n_nodes):
        for i in range(lo[t], hi[t]):
            live[t] += weight[i]
            if cand[i]:
                n_cand[t] += 1
                low_tie[t] = min(low_tie[t], tie[i])
    for t in range(first_leaf - 1, -1, -1):
        live[t] = live[2 * t + 1] + live[2 * t + 2]
        n_cand[t] = n_cand[2 * t + 1] + n_cand[2 * t + 2]
        low_tie[t] = min(low_tie[2 * t + 1], low_tie[2 * t + 2])
    q = np.empty(pts.shape[1])
    centers = []
    # entries (−bound, tie key, node ≥ 0 or −(row + 1), pick the bound is exact for or −1)
    if n_cand[0] == 0:
        return np.zeros(0, dtype=np.intp)
    heap = [(-live[0], low_tie[0], np.int64(0), np.int64(-1))]
    picks = 0
    cube = cell_of.size > 0
    total = live[0]
    enough = np.iinfo(np.int64).max  # the cube bound, as of pick ``enough_at``
    enough_at = -1
    retry_at = 0  # after the cube bound's tries failed, when to try again
    wait = 1
    while heap and picks < max_picks:
        neg, key, ident, exact_at = heapq.heappop(heap)
        if ident >= 0:
            t = ident
            if n_cand[t] == 0:
                continue
            bound = _live_within(pts, weight, live, lo, hi, box_lo, box_hi, first_leaf, t, q,
                                 x, norm)  # fmt: skip
            STATS[3] += 1
            if heap and (-bound, key) > (heap[0][0], heap[0][1]):
                heapq.heappush(heap, (-bound, key, ident, np.int64(-1)))
                continue
            if not (cube and picks >= retry_at):
                if t >= first_leaf:
                    for i in range(lo[t], hi[t]):
                        if cand[i]:
                            heapq.heappush(heap, (-bound, tie[i], np.int64(-(i + 1)),
                                                  np.int64(-1)))  # fmt: skip
                else:
                    for c in (2 * t + 1, 2 * t + 2):
                        if n_cand[c]:
                            heapq.heappush(heap, (-bound, low_tie[c], np.int64(c), np.int64(-1)))
                continue
            while t < first_leaf:  # the dive: the child with the larger bound
                a, b = 2 * t + 1, 2 * t + 2
                bound_a = bound_b = -1
                if n_cand[a]:
                    bound_a = _live_within(pts, weight, live, lo, hi, box_lo, box_hi,
                                           first_leaf, a, q, x, norm)  # fmt: skip
                if n_cand[b]:
                    bound_b = _live_within(pts, weight, live, lo, hi, box_lo, box_hi,
                                           first_leaf, b, q, x, norm)  # fmt: skip
                if (bound_b, -low_tie[b]) > (bound_a, -low_tie[a]):
                    a, b, bound_a, bound_b = b, a, bound_b, bound_a
                if bound_b >= 0:
                    heapq.heappush(heap, (-bound_b, low_tie[b], np.int64(b), np.int64(-1)))
                t = a
            tries = np.zeros(hi[t] - lo[t], dtype=np.intp)
            n_tries = 0
            for i in range(lo[t], hi[t]):
                if cand[i]:
                    tries[n_tries] = i
                    n_tries += 1
            for attempt in range(2):
                best, best_tie, chosen = np.int64(-1), np.iinfo(np.int64).max, -1
                for i in tries[:n_tries]:
                    for j in range(q.size):
                        q[j] = pts[i, j]
                    count = _live_within(pts, weight, live, lo, hi, box_lo, box_hi,
                                         first_leaf, -1, q, x, norm)  # fmt: skip
                    heapq.heappush(heap, (-count, tie[i], np.int64(-(i + 1)), np.int64(picks)))
                    if count > best or (count == best and tie[i] < best_tie):
                        best, best_tie, chosen = count, tie[i], i
                if best < enough and enough_at != picks:
                    enough, anchor = _cube_max(cell_of, weight, cand, dims, splits, src, dst)
                    STATS[0] += 1
                    enough_at = picks
                    if best < enough and attempt == 0:  # the window behind the bound
                        tries = _near_window(anchor, dims, splits, low, side, by_cell,
                                             cell_sorted, pts, cand, 16)  # fmt: skip
                        n_tries = tries.size
                        STATS[1] += 1
                        continue
                break
            if best < enough:
                STATS[2] += 1
                retry_at = picks + wait
                wait *= 2
                continue
            wait = 1
        else:
            chosen = -ident - 1
            if not cand[chosen]:
                continue
            if exact_at != picks:
                for j in range(q.size):
                    q[j] = pts[chosen, j]
                count = _live_within(pts, weight, live, lo, hi, box_lo, box_hi, first_leaf, -1,
                                     q, x, norm)  # fmt: skip
                STATS[4] += 1
                if count < enough and heap and (-count, key) > (heap[0][0], heap[0][1]):
                    heapq.heappush(heap, (-count, key, ident, np.int64(picks)))
                    continue
        for j in range(q.size):
            q[j] = pts[chosen, j]
        centers.append(chosen)
        _cover(pts, weight, live, cand, n_cand, lo, hi, box_lo, box_hi, first_leaf, leaf_of,
               q, cover, norm)  # fmt: skip
        picks += 1
        if cube and picks < max_picks and (picks & (picks - 1) == 0 or picks % 8 == 0):
            STATS[5] += 1
            most, _ = _cube_max(cell_of, weight, cand[:0], dims, cover_splits, src, dst)
            if total - live[0] + (max_picks - picks) * most < need:
                break  # the picks left cannot cover enough
    out = np.empty(len(centers), dtype=np.intp)
    for t in range(len(centers)):
        out[t] = centers[t]
    return out


class LiveTree:
    """A static KD-tree over weighted points for greedy covering by balls.

    Parameters
    ----------
    points : (m, d) array, the dense coordinates of the distinct rows
    weight : (m,) int array, how many records each row stands for
    tie : (m,) int array, the order among equal counts (lowest first): the rows' records
    norm : 1 or 2
    """

    def __init__(self, points: np.ndarray, weight: np.ndarray, tie: np.ndarray, norm: int) -> None:
        m = points.shape[0]
        levels = max(0, int(np.ceil(np.log2(max(m, 1) / LEAF_SIZE))))
        built = _build(np.ascontiguousarray(points, dtype=np.float64), levels)
        self.order, self.pts, self.lo, self.hi, self.box_lo, self.box_hi, self.leaf_of = built
        self.first_leaf = 2**levels - 1
        self.weight = np.asarray(weight, dtype=np.int64)[self.order]
        self.tie = np.asarray(tie, dtype=np.int64)[self.order]
        self.norm = int(norm)

    def greedy_cover(
        self,
        candidate: np.ndarray,
        x: float,
        cover: float,
        max_picks: int,
        enough: str = "exact",
        need: int = 0,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The greedy covering: ``(centers, covered)`` as rows (positions in ``points``).

        Each pick is a candidate row, not yet covered; every uncovered row within ``cover``
        of it is then covered. With ``enough="exact"`` the pick has the largest weight of
        uncovered rows within ``x`` (inclusive; the lowest ``tie`` among equal weights).
        With ``enough="cube"`` it may instead be any candidate whose weight reaches the
        largest uncovered candidate weight in a set of diameter ``≤ x`` (the cube bound of
        the module docstring), where that bound is tight enough to help; else as
        ``"exact"``. Stops after ``max_picks`` picks or when no candidate is left uncovered;
        with the cube bound, also as soon as the picks left provably cannot bring the covered
        weight to ``need`` (the covering then falls short of it, as the full run would).
        """
        if enough not in ("exact", "cube"):
            raise ValueError(f"enough must be 'exact' or 'cube', not {enough!r}")
        weight = self.weight.copy()
        cand = np.asarray(candidate, dtype=bool)[self.order] & (weight > 0)
        power = 1 if self.norm == 1 else 2
        grid = self._cube_grid(cand, x) if enough == "cube" else None
        if grid is None:
            cell_of, dims, splits, low, side = np.zeros(0, np.int64), np.ones(1, np.int64), 0, \
                np.zeros(1), 1.0  # fmt: skip
        else:
            cell_of, dims, splits, low, side = grid
        by_cell = np.argsort(cell_of, kind="stable")
        cover_splits = int(np.ceil(2 * cover / side)) if grid is not None else 0
        size = int(np.prod(dims))
        src, dst = np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int32)
        picked = _greedy(self.pts, weight, cand, self.tie, self.lo, self.hi, self.box_lo,
                         self.box_hi, self.first_leaf, self.leaf_of, float(x) ** power,
                         float(cover) ** power, self.norm, int(max_picks), cell_of, dims,
                         splits, src, dst, int(need), cover_splits, low, float(side), by_cell,
                         cell_of[by_cell], STATS)  # fmt: skip
        covered = np.zeros(self.order.size, dtype=bool)
        covered[self.order] = (weight == 0) & (self.weight > 0)
        return self.order[picked], covered

    def _cube_grid(
        self, cand: np.ndarray, x: float
    ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, float] | None:
        """Each row's cell in a grid of side about ``x / m`` over the candidates, the grid's
        shape, ``m``, its lowest corner and the side; None when no grid within
        :data:`CUBE_CELLS` (and :data:`CUBE_CELLS_PER_ROW`) makes the bound useful.

        Coordinates are clamped to the central ``1 − 2·_CUBE_TAIL`` of the candidates on
        each axis: clamping shrinks no distance's share of an axis, so a set of diameter
        ``≤ x`` still lies in ``m + 1`` consecutive cells per axis.
        """
        d = self.pts.shape[1]
        if not cand.any() or x <= 0 or self.weight.sum() >= 2**31:  # the sums are int32
            return None
        ball = (
            2.0**d / math.factorial(d)
            if self.norm == 1
            else math.pi ** (d / 2) / math.gamma(d / 2 + 1)
        )
        inside = self.pts[cand]
        budget = min(CUBE_CELLS, max(2**16, CUBE_CELLS_PER_ROW * len(self.pts)))
        low = np.quantile(inside, _CUBE_TAIL, axis=0)
        high = np.quantile(inside, 1 - _CUBE_TAIL, axis=0)
        for splits in range(_CUBE_SPLITS, 0, -1):
            if ((splits + 1) / splits) ** d > _CUBE_USEFUL * ball:
                return None  # coarser grids only loosen it
            side = x * (1 + _CUBE_MARGIN) / splits
            dims = np.floor((high - low) / side).astype(np.int64) + 1
            if float(np.prod(dims.astype(float))) <= budget:
                break
        else:
            return None
        cell = np.floor((np.clip(self.pts, low, high) - low) / side).astype(np.int64)
        np.clip(cell, 0, dims - 1, out=cell)
        strides = np.cumprod(np.r_[1, dims[:0:-1]])[::-1]
        return cell @ strides, dims, splits, low, side
