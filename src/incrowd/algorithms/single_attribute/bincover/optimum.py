"""The optimal bin covering, by the subset dynamic program (at most 20 values).

:func:`exact`: a class costs its records if it holds ``k``, else it is not allowed;
classes combine by max. Time :math:`O(3^n)`.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 4 (the problem);
the solver is :mod:`incrowd.algorithms.exact`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....errors import ParameterError
from ...exact import MAX_EXACT_N, solve
from .covering import Covering, checked_items, covering_of

__all__ = ["exact"]


def exact(x: Sequence[int] | np.ndarray, k: int) -> Covering:
    """The optimum, by the subset dynamic program of :mod:`incrowd.algorithms.exact` (a class
    costs its records if it holds ``k``, else it is not allowed; classes combine by max).
    Time O(3^n), at most 20 values."""
    items = checked_items(x, k)
    n = items.size
    if n > MAX_EXACT_N:
        msg = f"the exact solver handles at most {MAX_EXACT_N} values, got {n}"
        raise ParameterError(msg)
    sums = np.zeros(1, dtype=np.float64)
    for value in items:  # bitmask order: bit i is value i
        sums = np.concatenate([sums, sums + value])
    costs = np.where(sums >= k, sums, np.inf)
    _, partition = solve(costs, n, 1, "max")
    return covering_of(partition.labels, items, k, "exact")
