"""What the crowd and excess searches share: the ranges of records on threads, scratch."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...._runtime import chunked, chunks, jit, threads
from ....costs import GeneralizationCost

__all__ = ["CROWD_BUDGET", "search_state", "searched"]

#: Crowds each search prices per record before it gives that record up (its term then 0):
#: fewer give up often enough to lose much of the searches' gain (Adult, ``benchmarks/adult.py``).
CROWD_BUDGET = 3_000


def searched(
    search: Any, model: GeneralizationCost, k: int, dist: np.ndarray, idx: np.ndarray, *data: Any
) -> np.ndarray:
    """``search(dist, idx, *data, k, cm, scratch, budget, complete, lo, hi)``, one compiled
    search per record, over ranges of records on :func:`~incrowd._runtime.threads` threads
    (the kernels release the GIL): its terms for every record."""
    n, width = dist.shape
    if k <= 1 or n < k or width < k - 1:
        return np.zeros(n)
    cm = model.kernel_args()
    scratch = max(model.ancestors.shape[2], 1)
    dist, idx = np.ascontiguousarray(dist), np.ascontiguousarray(idx)
    data = tuple(np.ascontiguousarray(d) for d in data)
    complete = width >= n - 1
    parts = chunked(
        lambda lo, hi: search(dist, idx, *data, k, cm, scratch, CROWD_BUDGET, complete, lo, hi),
        chunks(n, 4 * threads(), minimum=256),
    )
    return np.concatenate(parts)


@jit()
def search_state(k, scratch):
    """A search's scratch: the stamps of :func:`~incrowd.costs.kernels.record_cost`, the
    crowd's members and the list positions picked."""
    return np.zeros(scratch, dtype=np.int64), np.empty(k, dtype=np.intp), np.empty(k, dtype=np.intp)
