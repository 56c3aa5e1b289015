"""The certified ratio: how far a release's cost can be from the optimum, proven.

With ``bound`` a proven lower bound on the optimal cost, the optimum is at least
``cost / ratio`` and so the release is within ``ratio`` of it. 1 when both are 0 (the
release is optimal); None without a bound, or with a bound of 0 under a positive cost (no
finite ratio is proven). One definition for the estimators, the pipeline and blockwise runs.
"""

from __future__ import annotations

__all__ = ["certified_ratio"]


def certified_ratio(cost: float, bound: float | None) -> float | None:
    """``cost / bound`` as a proven ratio to the optimum (see the module docstring)."""
    if bound is None:
        return None
    if bound <= 0:
        return 1.0 if cost <= 0 else None
    return float(cost / bound)
