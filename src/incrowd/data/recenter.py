"""Re-centering: move each cluster's center to the member that minimizes its radius.

The threshold methods choose centers to prove a bound, not to be the best center of the
cluster they end up with. Any member whose farthest fellow member is nearer than the chosen
center's gives a smaller radius, and keeping the better of the two never loses the guarantee.
Candidates are every member of small clusters and, in large ones, the members nearest the
centroid (the 1-center of a cluster lies near it), so the cost is O(candidates × size).
"""

from __future__ import annotations

import numpy as np
from numba import njit

CANDIDATES = 32


@njit(cache=True)
def _dist(points, a, c, norm):
    s = 0.0
    for j in range(points.shape[1]):
        t = abs(points[a, j] - c[j])
        s += t if norm == 1 else t * t
    return s if norm == 1 else np.sqrt(s)


@njit(cache=True)
def _radius(points, members, c, norm):
    worst = 0.0
    for a in members:
        d = _dist(points, a, c, norm)
        if d > worst:
            worst = d
    return worst


@njit(cache=True)
def recenter(points, order, starts, centers, norm, n_candidates):
    """Best center (record index) and radius of each cluster ``order[starts[c]:starts[c+1]]``.

    ``centers[c]`` is the current center; it is kept unless a member does strictly better.
    """
    m = starts.size - 1
    best = centers.copy()
    radius = np.empty(m)
    p = points.shape[1]
    for c in range(m):
        members = order[starts[c] : starts[c + 1]]
        s = members.size
        r_best = _radius(points, members, points[centers[c]], norm)
        if s <= n_candidates:
            cand = members
        else:
            centroid = np.zeros(p)
            for a in members:
                centroid += points[a]
            centroid /= s
            d = np.empty(s)
            for i in range(s):
                d[i] = _dist(points, members[i], centroid, norm)
            cand = members[np.argsort(d)[:n_candidates]]
        for a in cand:
            rad = _radius(points, members, points[a], norm)
            if rad < r_best:
                r_best, best[c] = rad, a
        radius[c] = r_best
    return best, radius
