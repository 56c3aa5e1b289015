"""The crowd bound: each record's cheapest crowd among its nearest records.

:func:`crowd_bound` prices the crowds of each record and ``k − 1`` of its listed nearest
records by a pruned, budgeted search (compiled).

Guarantee: a lower bound on each record's charge in any k-anonymization; exact (the least
cost of a crowd of the record) where the lists hold every other record. Time
:math:`O(n · CROWD\\_BUDGET · k b)` at worst.
"""

from __future__ import annotations

import numpy as np

from ...._runtime import jit
from ....costs import GeneralizationCost
from ....costs.kernels import record_cost
from ._search import CROWD_BUDGET, search_state, searched

__all__ = [
    "CROWD_BOUND_MAX_K",
    "CROWD_BOUND_MAX_ROWS",
    "CROWD_BUDGET",
    "CROWD_NEIGHBOURS",
    "crowd_bound",
]


#: Nearest records among which :func:`crowd_bound` and :func:`excess_bound` look for each
#: record's crowds: more raise both bounds, up to where the gain no longer pays for the
#: time (Adult, ``benchmarks/adult.py``).
CROWD_NEIGHBOURS = 48
#: The two searches run up to this k: above it they cost far more time than they lower
#: the certified ratio (Adult, ``benchmarks/adult.py``).
CROWD_BOUND_MAX_K = 5
#: ... and up to this many records: beyond, their lists of ``CROWD_NEIGHBOURS`` cost more
#: than the release (``python benchmarks/crowd_searches.py``).
CROWD_BOUND_MAX_ROWS = 100_000


def crowd_bound(model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """For every record ``u``: the least per-record cost of a crowd of ``u`` and ``k − 1``
    of its listed nearest records (``idx``, each row sorted by pair cost ``dist``), or its
    pair cost with the last listed record if that is less; 0 for a record whose search
    prices more than ``CROWD_BUDGET`` crowds.

    A crowd's per-record cost never falls when a member joins (ranges, value sets and
    labels only widen). Let ``C ∋ u`` be any crowd of at least ``k`` records. If ``k − 1``
    of its other members are listed, ``C`` costs at least the crowd of ``u`` and those
    ``k − 1``, which the search prices (it skips only crowds holding a record whose pair
    cost with ``u`` reaches the best found, and crowds holding a part that already costs
    that much: neither can be cheaper; the best found starts at the last listed pair cost,
    the term's cap, unless the lists hold every other record); otherwise ``C`` holds an
    unlisted record ``w``, and costs at least ``u`` with ``w`` alone, at least the last
    listed pair cost.
    So ``u``'s charge in any k-anonymization is at least the term, and the sum bounds the
    optimum. Where the lists hold every other record the term is the least cost of a crowd
    of ``u`` exactly. Time :math:`O(n · CROWD\\_BUDGET · k b)` at worst; compiled.
    """
    return searched(_crowd_search, model, k, dist, idx)


@jit()
def _crowd_search(dist, idx, k, cm, scratch, budget, complete, lo, hi):
    """The terms of :func:`crowd_bound` for the records ``lo .. hi − 1``."""
    width = dist.shape[1]
    out = np.zeros(hi - lo)
    stamp, members, pick = search_state(k, scratch)
    tick, step = 1, cm[2].shape[1] + 1
    for u in range(lo, hi):
        members[0] = u
        # the term is at most the last listed pair cost: no dearer crowd need be priced
        best = np.inf if complete else dist[u, width - 1]
        spent = 0
        depth = 0  # members[1 .. depth + 1] are the listed records picks[0 .. depth] name
        pick[0] = -1
        while depth >= 0:
            spent += 1
            if spent > budget:
                best = -1.0
                break
            pick[depth] += 1
            i = pick[depth]
            # the rest of the crowd needs k − 2 − depth records listed after i; a record
            # whose pair cost reaches the best makes no cheaper crowd, nor any after it
            if i > width - (k - 1 - depth) or dist[u, i] >= best:
                depth -= 1
                continue
            members[depth + 1] = idx[u, i]
            g = record_cost(members[: depth + 2], cm, stamp, tick)
            tick += step
            if g >= best:
                continue
            if depth + 2 == k:
                best = g
                continue
            depth += 1
            pick[depth] = i
        if best < 0:
            out[u - lo] = 0.0
        elif complete:
            out[u - lo] = best
        else:
            out[u - lo] = min(best, dist[u, width - 1])
    return out
