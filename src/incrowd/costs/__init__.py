"""Costs: one object per objective, each pricing a labelling and a single crowd.

- :class:`SSE` — within-crowd sum of squares (microaggregation);
- :class:`MaxRadius` — largest distance to a crowd's center (the r-Gather family);
- :class:`CellularCost` — each record pays its crowd's radius, each crowd a setup cost
  (cellular clustering);
- :class:`LargestCrowd` — the number of records in the largest crowd (single-attribute
  generalization);
- :class:`GeneralizationCost` — the cost of publishing each crowd generalized (numeric
  ranges, hierarchy labels by height or NCP, value sets): k-anonymity.

Algorithms are composed with a cost; the exact solver and the shared checks use the same
objects, so a cost is defined in exactly one place; so is the certified ratio of a cost to
its proven lower bound (:func:`certified_ratio`).
"""

from __future__ import annotations

from .base import Cost
from .cellular import CellularCost, SetupCost
from .generalization import GeneralizationCost, GeneralizeForm, LevelLoss
from .largest import Classes, LargestCrowd, largest_lower_bound, record_counts
from .radius import MaxRadius, best_centers, radii_from
from .ratio import certified_ratio
from .sse import SSE, l_sse

__all__ = [
    "CellularCost",
    "Classes",
    "Cost",
    "GeneralizationCost",
    "GeneralizeForm",
    "LargestCrowd",
    "LevelLoss",
    "MaxRadius",
    "SSE",
    "SetupCost",
    "best_centers",
    "certified_ratio",
    "l_sse",
    "largest_lower_bound",
    "radii_from",
    "record_counts",
]
