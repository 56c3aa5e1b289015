"""The excess bound: what every crowd of a record costs beyond its members' terms.

:func:`excess_bound` adds to per-record terms (those of the other bounds) each record's
least excess of a crowd's cost over the mean of its members' terms, a share that no
per-record term counts.

Guarantee: the terms plus the excesses bound the optimum. Time
:math:`O(n · CROWD\\_BUDGET · k (b + W))` at worst for lists of ``W`` records.
"""

from __future__ import annotations

import numpy as np

from ...._runtime import jit
from ....costs import GeneralizationCost
from ....costs.kernels import record_cost
from ._search import search_state, searched

__all__ = ["excess_bound"]


def excess_bound(
    model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray, terms: np.ndarray
) -> np.ndarray:
    """What may be added to per-record ``terms`` that each bound every crowd of their
    record (as the terms of the other bounds here do): for every record ``u``,
    ``s_u = max(0, min(k e_u, d_W(u) − y_u)) / (2k − 1)``, where ``y`` are the terms,
    ``e_u`` the least ``g(S) − ȳ_S`` over the crowds ``S`` of ``u`` and ``k − 1`` of its
    listed nearest records (``g``: per-record cost, ``ȳ_S``: the mean of ``y`` over ``S``)
    and ``d_W(u)`` its last listed pair cost; 0 for a record whose search prices more than
    ``CROWD_BUDGET`` crowds.

    For any numbers ``y``, a k-anonymization with crowds ``C`` costs
    ``Σ_C |C| g(C) = Σ_u y_u + Σ_u (g(C_u) − ȳ_{C_u})``; some optimal one has crowds of
    fewer than ``2k`` records (a larger crowd splits into two of ``k`` or more, neither
    dearer per record). As every ``y_v`` is at most ``g`` of every crowd of ``v``, each
    share ``g(C) − y_v`` is at least 0. Let ``u`` be in such a crowd ``C``. If ``C`` holds
    only listed records, ``k`` of them with ``u`` form ``S ⊆ C``, and
    ``|C| (g(C) − ȳ_C) ≥ Σ_{v∈S} (g(C) − y_v) ≥ Σ_{v∈S} (g(S) − y_v) ≥ k e_u`` (costs never
    fall when a member joins); otherwise ``C`` holds an unlisted ``w``, and
    ``|C| (g(C) − ȳ_C) ≥ g(C) − y_u ≥ d_W(u) − y_u``. Either way
    ``g(C_u) − ȳ_{C_u} ≥ s_u``, so the optimum is at least ``Σ_u (y_u + s_u)``. Where the
    lists hold every other record, the second case does not arise and ``s_u = k e_u /
    (2k − 1)``.

    The search for ``e_u`` prunes a partial crowd ``P`` when even its cheapest completion
    costs as much as the best found: each member's share is at least ``max(0, g(P) − y_v)``,
    and a member still to come at list position ``t`` also at least its pair cost
    ``dist[u, t] − y_v`` — the ``k − |P|`` least of those are added. Time
    :math:`O(n · CROWD\\_BUDGET · k (b + W))` at worst, on :func:`~incrowd._runtime.threads`
    threads; compiled.
    """
    return searched(_excess_search, model, k, dist, idx, np.asarray(terms, dtype=np.float64))


@jit()
def _excess_search(dist, idx, y, k, cm, scratch, budget, complete, lo, hi):
    """``s_u`` of :func:`excess_bound` for the records ``lo .. hi − 1``."""
    width = dist.shape[1]
    out = np.zeros(hi - lo)
    stamp, members, pick = search_state(k, scratch)
    tick, step = 1, cm[2].shape[1] + 1
    total = np.empty(k)  # total[p]: Σ y over members[0 .. p]
    cost = np.zeros(k)  # cost[p]: g of members[0 .. p]
    shares = np.zeros(k)  # shares[p]: Σ max(0, cost[p] − y_v) over members[0 .. p]
    low = np.empty(k)
    for u in range(lo, hi):
        cap = np.inf if complete else dist[u, width - 1] - y[u]
        if cap <= 0:
            continue
        best = cap / k  # e_u matters only below this
        members[0] = u
        total[0] = y[u]
        spent = 0
        depth = 0  # members[1 .. depth + 1] are the listed records pick[0 .. depth] name
        pick[0] = -1
        gave_up = False
        while depth >= 0:
            spent += 1
            if spent > budget:
                gave_up = True
                break
            pick[depth] += 1
            i = pick[depth]
            if i > width - (k - 1 - depth):
                depth -= 1
                continue
            v = idx[u, i]
            # no crowd with v and what is picked can cost less than these shares
            if shares[depth] + max(0.0, cost[depth] - y[v], dist[u, i] - y[v]) >= k * best:
                continue
            members[depth + 1] = v
            size = depth + 2
            g = record_cost(members[:size], cm, stamp, tick)
            tick += step
            with_i = total[depth] + y[v]
            if size == k:
                best = min(best, g - with_i / k)
                continue
            floor = _completion_floor(g, members, size, idx[u], dist[u], y, i + 1, k - size, low)
            if floor >= k * best:
                continue
            total[depth + 1] = with_i
            cost[depth + 1] = g
            shares[depth + 1] = _shares(g, members, size, y)
            depth += 1
            pick[depth] = i
        if not gave_up and best < np.inf:
            out[u - lo] = max(0.0, min(k * best, cap)) / (2 * k - 1)
    return out


@jit()
def _completion_floor(g, members, size, near, dist, y, start, need, low):
    """Least ``Σ_{v∈S} (g(S) − y_v)`` over the crowds ``S`` that add ``need`` records listed
    from ``start`` on to ``members[:size]`` (of cost ``g``): see :func:`excess_bound`."""
    floor = _shares(g, members, size, y)
    m = 0  # the ``need`` least shares of the records still to come, sorted, in low[:m]
    for t in range(start, near.size):
        share = max(0.0, g - y[near[t]], dist[t] - y[near[t]])
        if m < need:
            q = m
            m += 1
        elif share < low[m - 1]:
            q = m - 1
        else:
            continue
        while q > 0 and low[q - 1] > share:
            low[q] = low[q - 1]
            q -= 1
        low[q] = share
    if m < need:
        return np.inf
    for q in range(need):
        floor += low[q]
    return floor


@jit()
def _shares(g, members, size, y):
    """``Σ max(0, g − y_v)`` over ``members[:size]``."""
    total = 0.0
    for q in range(size):
        total += max(0.0, g - y[members[q]])
    return total
