"""The threshold method: find the smallest radius at which a feasibility test succeeds.

The tests of Aggarwal et al., *Achieving Anonymity via Clustering* (Sec. 2: r-Gather and
its variants; Sec. 3 reuses the idea) succeed for every radius at or above the optimal
clusters' diameter ``d*`` (Lemma 2.2 and its variants), so a failed test at ``x`` proves
``d* > x``. Small inputs search the sorted pairwise distances themselves (exact: the bound is
the next distance above the last failure); larger inputs bisect real values without listing
pairs, and the bound is the last failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np

from ..._runtime import report_progress
from ...space.metric_space import MetricSpace

__all__ = ["Threshold", "search_threshold", "pairwise_candidates", "diameter_bound", "reach"]

T = TypeVar("T")

#: Up to this many points, the threshold search walks the exact pairwise distances.
EXACT_SEARCH_LIMIT = 2500
#: Guard against rounding between numpy's and the KD-tree's distance arithmetic.
SLACK = 1e-12
#: The bracketing's first step, at least this share of the diameter bound.
FIRST_STEP = 1e-6


@dataclass(frozen=True)
class Threshold(Generic[T]):
    """Outcome of a threshold search: the succeeding value, its result, and the proof.

    ``lower`` is a value proven ``≤ d*``: the next candidate above the last failure in exact
    mode, the last failure (or the condition-(1) bound) otherwise.
    """

    value: float
    result: T
    lower: float
    tests: int


def pairwise_candidates(space: MetricSpace, at_least: float) -> np.ndarray | None:
    """Sorted distinct pairwise distances ``≥ at_least``, for small inputs (else None)."""
    if space.n > EXACT_SEARCH_LIMIT:
        return None
    d = space.pairwise()
    values = np.unique(d[np.triu_indices(space.n, 1)]) if space.n > 1 else np.zeros(1)
    values = values[values >= at_least * (1 - 1e-12)]
    return values if values.size else np.array([at_least])


def search_threshold(
    test: Callable[[float], T | None],
    lo: float,
    hi: float,
    candidates: np.ndarray | None,
    tol: float,
) -> Threshold[T]:
    """Find a small value where ``test`` succeeds, knowing ``d* ≥ lo`` and success at ``hi``.

    ``test`` returns a result object on success and None on failure. Success is guaranteed
    for every value ≥ d* (the callers' lemmas), so any failure is a lower bound. Progress
    (:func:`~incrowd._runtime.report_progress`): the tests run, of at most the binary
    search's over the candidates, or the doubling's and bisection's to ``tol``.
    """
    most = (int(len(candidates)).bit_length() + 1 if candidates is not None
            else 4 + math.ceil(-math.log2(FIRST_STEP) - math.log2(max(tol, 1e-15))))  # fmt: skip
    test = _counting(test, most)
    try:
        tests = 0
        if candidates is not None:
            a, b = 0, len(candidates) - 1
            best = None
            while a <= b:  # smallest index whose test succeeds (binary search)
                mid = (a + b) // 2
                tests += 1
                res = test(float(candidates[mid]))
                if res is not None:
                    best, b = (mid, res), mid - 1
                else:
                    a = mid + 1
            if best is None:  # cannot happen when the largest distance is a candidate
                res = test(hi)
                assert res is not None, "the test must succeed at the diameter"
                return Threshold(hi, res, float(candidates[-1]), tests + 1)
            idx, res = best
            # Every candidate below idx that was tested failed; the bound is candidates[idx]
            # only if idx-1 failed or idx is the first candidate (≥ lo, itself a bound).
            return Threshold(float(candidates[idx]), res, float(candidates[idx]), tests)

        tests += 1
        res = test(lo)
        if res is not None:
            return Threshold(lo, res, lo, tests)
        fail = lo
        step = max(lo, hi * FIRST_STEP)
        success_value, success = hi, None
        while fail + step < hi:  # bracket by doubling the step
            x = fail + step
            tests += 1
            res = test(x)
            if res is not None:
                success_value, success = x, res
                break
            fail, step = x, step * 2
        if success is None:
            tests += 1
            success = test(hi)
            assert success is not None, "the test must succeed at the diameter"
        while success_value - fail > tol * success_value:
            x = 0.5 * (fail + success_value)
            tests += 1
            res = test(x)
            if res is not None:
                success_value, success = x, res
            else:
                fail = x
        return Threshold(success_value, success, fail, tests)
    finally:
        report_progress(most, most)


def _counting(test: Callable[[float], T | None], most: int) -> Callable[[float], T | None]:
    """``test``, reporting how many tests ran, at most ``most - 1`` until the search ends
    (the bound may be loose: the bar is not full before)."""
    calls = [0]

    def counted(x: float) -> T | None:
        result = test(x)
        calls[0] += 1
        report_progress(min(calls[0], most - 1), most)
        return result

    return counted


def diameter_bound(space: MetricSpace) -> float:
    """A value ≥ the largest pairwise distance (twice the farthest distance from record 0)."""
    if space.n < 2:
        return 0.0
    d = space.index().distance(np.zeros(space.n, dtype=np.intp), np.arange(space.n))
    return float(2.0 * d.max()) * (1 + 1e-9) + 1e-300


def reach(radius: float) -> float:
    """A query radius that surely includes points at exactly ``radius``."""
    return float(radius * (1 + SLACK))
