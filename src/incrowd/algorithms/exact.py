"""Exact optimum for tiny inputs: the best partition into crowds of size ≥ k.

Used by the tests to check every approximation algorithm against the true optimum, and by
reports to show how far a heuristic is from it. Subset dynamic programming over bitmasks:

.. math::  f(S) = \\min_{G} \\; c(G) \\oplus f(S \\setminus G)

over :math:`G \\subseteq S` with :math:`\\min S \\in G`, :math:`|G| \\ge k` and
:math:`|S \\setminus G| \\notin [1, k)`,

with :math:`\\oplus = +` for additive costs (SSE, generalization cost) and :math:`\\max` for
bottleneck costs (largest radius). Fixing the lowest record of :math:`S` in :math:`G`
enumerates each partition once. Time :math:`O(3^n)`, memory :math:`O(2^n)`: n ≤ 20.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np
from numba import njit

from ..base import Algorithm, Guarantee, check_k
from ..data.space import MetricSpace
from ..errors import ParameterError
from ..partition import Partition

__all__ = [
    "MAX_EXACT_N",
    "ExactPartition",
    "exact_partition",
    "sse_subset_costs",
    "radius_subset_costs",
    "diameter_subset_costs",
    "exact_with_limits",
    "subset_costs",
]

#: Largest input the subset DP accepts (3^20 ≈ 3.5e9 steps is already minutes).
MAX_EXACT_N = 20


@njit(cache=True)
def _popcounts(n: int) -> np.ndarray:
    pc = np.zeros(1 << n, dtype=np.int8)
    for s in range(1, 1 << n):
        pc[s] = pc[s >> 1] + (s & 1)
    return pc


@njit(cache=True)
def _subset_dp(costs, n, k, max_size, max_groups, use_max):
    """Best value of every subset, per number of groups when ``max_groups`` > 0.

    With ``max_groups == 0`` there is one layer (any number of groups); otherwise layer j
    holds partitions into exactly j groups. ``max_size`` (0: none) caps group sizes.
    """
    size = 1 << n
    pc = _popcounts(n)
    layers = max_groups + 1 if max_groups > 0 else 1
    best = np.full((layers, size), np.inf)
    choice = np.zeros((layers, size), dtype=np.int64)
    best[0, 0] = 0.0
    first = 1 if max_groups > 0 else 0
    for s in range(1, size):
        ps = pc[s]
        if ps < k:
            continue
        low = s & (-s)
        rest = s ^ low
        t = rest
        while True:
            g = t | low
            pg = pc[g]
            pr = ps - pg
            if pg >= k and (pr == 0 or pr >= k) and (max_size == 0 or pg <= max_size):
                r = s ^ g
                for j in range(first, layers):
                    other = best[j - first, r]
                    if other < np.inf:
                        val = max(costs[g], other) if use_max else costs[g] + other
                        if val < best[j, s]:
                            best[j, s] = val
                            choice[j, s] = g
            if t == 0:
                break
            t = (t - 1) & rest
    return best, choice


def _decode(choice: np.ndarray, target: int, layer: int, n: int, stepped: bool) -> Partition:
    """Walk the DP choices back from subset ``target``; records outside it get −1."""
    labels = np.full(n, -1, dtype=np.intp)
    s, g = target, 0
    while s:
        grp = int(choice[layer, s])
        labels[[i for i in range(n) if (grp >> i) & 1]] = g
        s ^= grp
        layer -= 1 if stepped else 0
        g += 1
    return Partition(labels)


@njit(cache=True)
def _diameter_costs(X, k, norm):
    n = X.shape[0]
    out = np.zeros(1 << n)
    for s in range(1, 1 << n):
        m = 0
        worst = 0.0
        for a in range(n):
            if (s >> a) & 1:
                m += 1
                for b in range(a + 1, n):
                    if (s >> b) & 1:
                        worst = max(worst, _dist(X[a], X[b], norm))
        if m >= k:
            out[s] = worst
    return out


@njit(cache=True)
def _sse_costs(X, k):
    n, p = X.shape
    out = np.zeros(1 << n)
    c = np.empty(p)
    for s in range(1, 1 << n):
        m = 0
        c[:] = 0.0
        for i in range(n):
            if (s >> i) & 1:
                m += 1
                c += X[i]
        if m < k:
            continue
        c /= m
        tot = 0.0
        for i in range(n):
            if (s >> i) & 1:
                for j in range(p):
                    d = X[i, j] - c[j]
                    tot += d * d
        out[s] = tot
    return out


@njit(cache=True)
def _dist(a, b, norm):
    tot = 0.0
    for j in range(a.size):
        d = abs(a[j] - b[j])
        tot += d if norm == 1 else d * d
    return tot if norm == 1 else np.sqrt(tot)


@njit(cache=True)
def _radius_costs(X, k, norm, at_point):
    n, p = X.shape
    out = np.zeros(1 << n)
    members = np.empty(n, dtype=np.int64)
    c = np.empty(p)
    for s in range(1, 1 << n):
        m = 0
        for i in range(n):
            if (s >> i) & 1:
                members[m] = i
                m += 1
        if m < k:
            continue
        if at_point:  # the best input point as center, member or not
            best = np.inf
            for a in range(n):
                worst = 0.0
                for b in range(m):
                    worst = max(worst, _dist(X[a], X[members[b]], norm))
                best = min(best, worst)
            out[s] = best
        else:
            c[:] = 0.0
            for a in range(m):
                c += X[members[a]]
            c /= m
            worst = 0.0
            for a in range(m):
                worst = max(worst, _dist(X[members[a]], c, norm))
            out[s] = worst
    return out


def _check_n(n: int) -> None:
    if n > MAX_EXACT_N:
        msg = f"the exact solver handles at most {MAX_EXACT_N} records, got {n}"
        raise ParameterError(msg)


def sse_subset_costs(X: np.ndarray, k: int) -> np.ndarray:
    """SSE of every subset (indexed by bitmask) of size ≥ k; 0 for smaller subsets."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_n(X.shape[0])
    return _sse_costs(X, k)


def radius_subset_costs(
    X: np.ndarray, k: int, norm: int = 2, center: Literal["point", "centroid"] = "point"
) -> np.ndarray:
    """Radius of every subset of size ≥ k, from the best input point as center (``"point"``,
    member or not, as in the clustering paper's metric model) or from its centroid."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_n(X.shape[0])
    return _radius_costs(X, k, norm, center == "point")


def diameter_subset_costs(X: np.ndarray, k: int, norm: int = 2) -> np.ndarray:
    """Diameter (largest pairwise distance) of every subset of size ≥ k.

    Half the optimal largest diameter bounds the optimal radius with *any* centers from
    below, which is the optimum the r-Gather guarantees are stated against.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    _check_n(X.shape[0])
    return _diameter_costs(X, k, norm)


def exact_with_limits(
    costs: np.ndarray,
    n: int,
    k: int,
    objective: Literal["sum", "max"] = "max",
    max_groups: int | None = None,
    budget: int = 0,
) -> tuple[float, Partition]:
    """Optimum with at most ``max_groups`` groups and up to ``budget`` records left out.

    Records left out get label −1. For the (k, r)-Center and (r, ε)-Gather objectives.
    """
    _check_n(n)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    groups = max_groups if max_groups is not None else max(1, n // k)
    groups = max(1, min(groups, n // k))
    best, choice = _subset_dp(costs, n, k, 0, groups, objective == "max")
    pc = np.array([bin(s).count("1") for s in range(1 << n)])
    per_set = best.min(axis=0)
    per_set[pc < n - budget] = np.inf
    target = int(np.argmin(per_set))
    value = float(per_set[target])
    if not np.isfinite(value):
        msg = "no feasible partition under these limits"
        raise ParameterError(msg)
    layer = int(np.argmin(best[:, target]))
    return value, _decode(choice, target, layer, n, stepped=True)


def subset_costs(n: int, k: int, cost: Callable[[np.ndarray], float]) -> np.ndarray:
    """Any group cost, evaluated in Python on the member indices of every subset of size ≥ k."""
    _check_n(n)
    out = np.zeros(1 << n)
    bits = np.arange(n)
    for s in range(1, 1 << n):
        members = bits[(s >> bits) & 1 == 1]
        if members.size >= k:
            out[s] = cost(members)
    return out


def exact_partition(
    costs: np.ndarray,
    n: int,
    k: int,
    objective: Literal["sum", "max"] = "sum",
    max_size: int | None = None,
) -> tuple[float, Partition]:
    """Optimal partition of ``n`` records into groups of size ≥ ``k`` for subset costs.

    ``costs[mask]`` is the cost of the group whose members are the set bits of ``mask``.
    ``objective="sum"`` minimizes the total, ``"max"`` the largest group cost. ``max_size``
    optionally caps group sizes (for SSE, groups of ``2k`` or more never help).
    Returns the optimal value and one optimal partition.
    """
    _check_n(n)
    if objective not in ("sum", "max"):
        msg = f"objective must be 'sum' or 'max', got {objective!r}"
        raise ParameterError(msg)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    if costs.shape != (1 << n,):
        msg = f"costs must have 2**n = {1 << n} entries, got shape {costs.shape}"
        raise ParameterError(msg)
    k = check_k(k, n)
    best, choice = _subset_dp(costs, n, k, int(max_size or 0), 0, objective == "max")
    full = (1 << n) - 1
    return float(best[0, full]), _decode(choice, full, 0, n, stepped=False)


class ExactPartition(Algorithm):
    """The optimal partition into crowds of size ≥ k, for inputs of at most 20 records.

    Parameters
    ----------
    k : int, default 3
    objective : {"sse", "max_radius"}, default "sse"
        Total within-crowd sum of squares, or the largest crowd radius measured from the
        best input point as center (the r-Gather objective of Aggarwal et al.).

    Notes
    -----
    Exact (ratio 1): ``lower_bound_`` equals ``cost_``. Time :math:`O(3^n)`.
    """

    guarantee: ClassVar[Guarantee] = Guarantee(1.0, "exact optimum", "subset dynamic programming")

    def __init__(self, k: int = 3, *, objective: Literal["sse", "max_radius"] = "sse") -> None:
        self.k = k
        self.objective = objective

    @property
    def cost_measure(self) -> str:  # type: ignore[override]
        return str(self.objective)

    def _fit(self, space: MetricSpace) -> None:
        k = check_k(self.k, space.n)
        if self.objective == "sse":
            costs, how, cap = sse_subset_costs(space.points, k), "sum", 2 * k - 1
        elif self.objective == "max_radius":
            costs, how, cap = radius_subset_costs(space.points, k, space.norm), "max", None
        else:
            msg = f"objective must be 'sse' or 'max_radius', got {self.objective!r}"
            raise ParameterError(msg)
        self.cost_, self.partition_ = exact_partition(costs, space.n, k, how, cap)
        self.lower_bound_ = self.cost_
