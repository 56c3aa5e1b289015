"""Costs: one object per objective, each pricing a labelling and a single crowd.

- :class:`SSE` — within-crowd sum of squares (microaggregation);
- :class:`MaxRadius` — largest distance to a crowd's center (the r-Gather family);
- :class:`GeneralizationCost` — the cost of publishing each crowd generalized (numeric
  ranges, hierarchy labels by height or NCP, value sets): k-anonymity.

Algorithms are composed with a cost; the exact solver and the shared checks use the same
objects, so a cost is defined in exactly one place.
"""

from __future__ import annotations

from .base import Cost
from .generalization import GeneralizationCost, GeneralizeForm, LevelLoss
from .radius import MaxRadius, best_centers, radii_from
from .sse import SSE, l_sse

__all__ = [
    "Cost",
    "GeneralizationCost",
    "GeneralizeForm",
    "LevelLoss",
    "MaxRadius",
    "SSE",
    "best_centers",
    "l_sse",
    "radii_from",
]
