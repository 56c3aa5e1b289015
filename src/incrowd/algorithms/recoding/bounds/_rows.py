"""The distinct rows of a generalization model, which the lattice and subset walks share."""

from __future__ import annotations

import numpy as np

from ....costs import GeneralizationCost

__all__ = ["distinct_rows"]


def distinct_rows(model: GeneralizationCost) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, inverse, weight)``: equal records go through a walk together, one row
    each, weighing their number."""
    rows = np.column_stack([model.num, model.codes.astype(np.float64)])
    _, first, inverse, weight = np.unique(
        rows, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return first, inverse.ravel(), weight.astype(np.intp)
