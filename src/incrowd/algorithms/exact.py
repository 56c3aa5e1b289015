"""Exact optimum for tiny inputs: the best partition into crowds of size ≥ k, for any cost.

Used by the tests to check every approximation algorithm against the true optimum, and by
reports to show how far a heuristic is from it. The one subset dynamic program for every
:class:`~incrowd.costs.Cost` (each prices a subset with :meth:`~incrowd.costs.Cost.crowd`):

.. math::  f(S) = \\min_{G} \\; c(G) \\oplus f(S \\setminus G)

over :math:`G \\subseteq S` with :math:`\\min S \\in G`, :math:`|G| \\ge k` and
:math:`|S \\setminus G| \\notin [1, k)`,

with :math:`\\oplus = +` for additive costs (SSE, generalization cost) and :math:`\\max` for
bottleneck costs (largest radius). Fixing the lowest record of :math:`S` in :math:`G`
enumerates each partition once. Limits are applied to the subset values: at most
``max_groups`` crowds (one DP layer per number of crowds), up to ``budget`` records left out
(the best subset of at least ``n − budget`` records), or any record left out at a price
(``leave_cost``, for row deletion). Time :math:`O(3^n)`, memory :math:`O(2^n)`: n ≤ 20.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Literal

import numpy as np

from .._runtime import jit
from ..base import Algorithm, Guarantee, Tags
from ..costs import SSE, Cost, MaxRadius
from ..errors import ParameterError
from ..params import CrowdSize, OneOf
from ..partition import Partition
from ..space.metric_space import MetricSpace

__all__ = ["MAX_EXACT_N", "ExactPartition", "optimal_split", "optimum", "solve", "subset_costs"]

#: Largest input the subset DP accepts (3^20 ≈ 3.5e9 steps is already minutes).
MAX_EXACT_N = 20


@jit()
def _popcounts(n: int) -> np.ndarray:
    pc = np.zeros(1 << n, dtype=np.int8)
    for s in range(1, 1 << n):
        pc[s] = pc[s >> 1] + (s & 1)
    return pc


@jit()
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


@jit()
def _decode_labels(choice, target, layer, n, stepped):
    """Crowd of every record from the DP choices for subset ``target``; −1 outside it."""
    labels = np.full(n, -1, dtype=np.intp)
    s, g = target, 0
    while s:
        grp = choice[layer, s]
        for i in range(n):
            if (grp >> i) & 1:
                labels[i] = g
        s ^= grp
        if stepped:
            layer -= 1
        g += 1
    return labels


@jit()
def optimal_split(costs, n, k):
    """The least total cost of a partition of all ``n`` records into crowds ≥ ``k``
    (``costs[mask]``: the crowd of the set bits; ``inf`` forbids it) and one such
    partition's labels (all −1 when every partition is forbidden)."""
    best, choice = _subset_dp(costs, n, k, 0, 0, False)
    full = (1 << n) - 1
    if best[0, full] == np.inf:  # no partition: every one holds an infinite crowd
        return np.inf, np.full(n, -1, dtype=np.intp)
    return best[0, full], _decode_labels(choice, full, 0, n, False)


def _decode(choice: np.ndarray, target: int, layer: int, n: int, stepped: bool) -> Partition:
    """Walk the DP choices back from subset ``target``; records outside it get −1."""
    return Partition(_decode_labels(choice, target, layer, n, stepped))


def _check_n(n: int) -> None:
    if n > MAX_EXACT_N:
        msg = f"the exact solver handles at most {MAX_EXACT_N} records, got {n}"
        raise ParameterError(msg)


def subset_costs(cost: Cost | Callable[[np.ndarray], float], n: int, k: int) -> np.ndarray:
    """The cost of every subset (indexed by bitmask) of at least ``k`` of ``n`` records: a
    :class:`~incrowd.costs.Cost`'s :meth:`~incrowd.costs.Cost.crowd`, or any function of
    the member indices; 0 for smaller subsets."""
    _check_n(n)
    if isinstance(cost, Cost):
        return cost.subset_costs(n, k)
    price = cost
    out = np.zeros(1 << n)
    bits = np.arange(n)
    for s in range(1, 1 << n):
        members = bits[(s >> bits) & 1 == 1]
        if members.size >= k:
            out[s] = price(members)
    return out


def solve(
    costs: np.ndarray,
    n: int,
    k: int,
    combine: Literal["sum", "max"] = "sum",
    *,
    max_size: int | None = None,
    max_groups: int | None = None,
    budget: int = 0,
    leave_cost: float = 0.0,
    max_left: int | None = None,
) -> tuple[float, Partition]:
    """The optimal partition for subset costs (``costs[mask]``: the crowd of the set bits).

    ``combine`` adds crowd costs (``"sum"``) or takes the largest (``"max"``); ``max_size``
    caps crowd sizes; ``max_groups`` caps the number of crowds; ``budget`` records may be
    left out for free, or at ``leave_cost`` each (``leave_cost > 0``, sum only) any number
    of them, or at most ``max_left``.
    Left-out records get label −1. Returns the optimal value and one optimal partition.
    """
    _check_n(n)
    if combine not in ("sum", "max"):
        msg = f"combine must be 'sum' or 'max', got {combine!r}"
        raise ParameterError(msg)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    if costs.shape != (1 << n,):
        msg = f"costs must have 2**n = {1 << n} entries, got shape {costs.shape}"
        raise ParameterError(msg)
    groups = 0
    if max_groups is not None:
        groups = max(1, min(int(max_groups), n // k))
    best, choice = _subset_dp(costs, n, k, int(max_size or 0), groups, combine == "max")
    size = _popcounts(n)
    per_set = best.min(axis=0)
    if leave_cost > 0:
        per_set = per_set + leave_cost * (n - size)
        if max_left is not None:
            per_set = np.where(size >= n - max_left, per_set, np.inf)
        target = int(np.argmin(per_set))
    else:
        per_set = np.where(size >= n - budget, per_set, np.inf)
        target = int(np.argmin(per_set)) if budget else (1 << n) - 1
    value = float(per_set[target])
    if not np.isfinite(value):
        msg = "no feasible partition under these limits"
        raise ParameterError(msg)
    layer = int(np.argmin(best[:, target]))
    return value, _decode(choice, target, layer, n, stepped=groups > 0)


def optimum(
    cost: Cost,
    n: int,
    k: int,
    *,
    max_groups: int | None = None,
    budget: int = 0,
    leave_cost: float = 0.0,
    max_left: int | None = None,
) -> tuple[float, Partition]:
    """The exact optimum of ``cost`` over partitions of ``n`` records into crowds ≥ ``k``,
    with the limits of :func:`solve`."""
    cap = cost.size_cap(k) if max_groups is None and not budget and not leave_cost else None
    return solve(
        subset_costs(cost, n, k), n, k, cost.combine, max_size=cap, max_groups=max_groups,
        budget=budget, leave_cost=leave_cost, max_left=max_left,
    )  # fmt: skip


#: The objectives ExactPartition can optimize, by the cost's own name.
OBJECTIVES: dict[str, type[SSE] | type[MaxRadius]] = {SSE.name: SSE, MaxRadius.name: MaxRadius}


class ExactPartition(Algorithm):
    """The optimal partition into crowds of size ≥ k, for inputs of at most 20 records.

    Parameters
    ----------
    k : int, default 3
    objective : {"sse", "max_radius"}, default "sse"
        Total within-crowd sum of squares (:class:`~incrowd.costs.SSE`), or the largest crowd
        radius with input records as centers (:class:`~incrowd.costs.MaxRadius`, the
        r-Gather objective of Aggarwal et al.).

    Notes
    -----
    Exact (ratio 1): ``lower_bound_`` equals ``cost_``. Time :math:`O(3^n)`.
    """

    guarantee: ClassVar[Guarantee] = Guarantee("exact optimum", "subset dynamic programming", 1.0)
    tags: ClassVar[Tags] = Tags(any_norm=True, max_records=MAX_EXACT_N)
    parameters: ClassVar[dict] = {"k": CrowdSize(), "objective": OneOf(*OBJECTIVES)}
    cost_class: ClassVar[type[Cost]] = SSE

    def __init__(self, k: int = 3, *, objective: Literal["sse", "max_radius"] = "sse") -> None:
        self.k = k
        self.objective = objective

    def cost(self, space: MetricSpace) -> Cost:
        return OBJECTIVES[self.objective].on(space)

    def _fit(self, space: MetricSpace) -> None:
        cost = self.cost(space)
        self.cost_, self.partition_ = optimum(cost, space.n, self.k)
        self.lower_bound_ = self.cost_
        if isinstance(cost, MaxRadius):  # the center of each crowd: any record, member or not
            records = np.arange(space.n)
            d = space.pairwise()
            self.center_records_ = np.array(
                [int(records[np.argmin(d[:, g].max(axis=1))]) for g in self.partition_.groups()],
                dtype=np.intp,
            )
