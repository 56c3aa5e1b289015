"""A per-record lower bound on the generalization cost, attribute by attribute.

In any k-anonymization a record ``u`` shares its crowd with at least ``k − 1`` others, and
the crowd publishes, for each attribute ``j``, one cell covering all of their values. So
``u``'s charge (its crowd's cost per record) is at least ``Σ_j w_j b_j(u)``, where
``b_j(u)`` is the cost of the cheapest cell of attribute ``j`` that holds ``u``'s value and
the values of at least ``k`` records of the input:

- a **hierarchy label** holds the records under it; costs never decrease up the hierarchy,
  so ``b_j(u)`` is the cost of the lowest ancestor of ``u``'s value with ``k`` records
  under it;
- a **numeric range** holding ``u``'s value and ``k`` records is at least as wide as the
  narrowest window of ``k`` consecutive sorted values that contains ``u``'s position;
- a **value set** holding ``u``'s value and ``k`` records has at least ``1 + m`` values,
  ``m`` the fewest values whose counts reach the ``k − count(u's value)`` records missing;
  taking the largest counts (``u``'s own value among them) gives a smaller ``m``, so the
  bound stays valid.

Each is a lower bound for its attribute whatever the other attributes do, so their sum is
one for the record, and the sum over records is one for the optimum. Time
:math:`O(n (k + b L))`.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ....costs import GeneralizationCost

__all__ = ["attribute_bound", "attribute_terms"]


def attribute_bound(model: GeneralizationCost, k: int) -> np.ndarray:
    """``Σ_j w_j b_j(u)`` for every record ``u`` (see the module's docstring)."""
    return attribute_terms(model, k).sum(axis=0)


def attribute_terms(model: GeneralizationCost, k: int) -> np.ndarray:
    """``w_j b_j(u)``: one row per attribute (the numeric ones first, as in ``model``)."""
    n = model.n
    out = np.zeros((model.num.shape[1] + model.codes.shape[1], n))
    if k <= 1 or n < k:
        return out
    for j in range(model.num.shape[1]):
        out[j] = model.num_weight[j] * narrowest_windows(model.num[:, j], k)
    a = model.num.shape[1]
    for j in range(model.codes.shape[1]):
        leaves = model.codes[:, j]
        if model.sets[j]:
            out[a + j] = model.cat_weight[j] * value_set_cells(leaves, k, int(model.domain[j]))
        else:
            out[a + j] = model.cat_weight[j] * _label(model, j, leaves, k)
    return out


def narrowest_windows(values: np.ndarray, k: int) -> np.ndarray:
    order = np.argsort(values, kind="stable")
    x = values[order]
    n = x.size
    window = x[k - 1 :] - x[: n - k + 1]  # width of the window starting at each position
    padded = np.concatenate([np.full(k - 1, np.inf), window, np.full(k - 1, np.inf)])
    # position p lies in the windows starting at p − k + 1 .. p
    narrowest = sliding_window_view(padded, k).min(axis=1)[:n]
    out = np.empty(n)
    out[order] = narrowest
    return out


def _label(model: GeneralizationCost, j: int, leaves: np.ndarray, k: int) -> np.ndarray:
    height = int(model.height[j])
    codes, inverse = np.unique(leaves, return_inverse=True)
    cost = np.full(codes.size, np.nan)
    for level in range(height + 1):  # the top holds all n >= k records: every value hits
        nodes = model.ancestors[j, level]
        under = np.bincount(nodes[leaves], minlength=nodes.max() + 1)
        hit = np.isnan(cost) & (under[nodes[codes]] >= k)
        cost[hit] = model.node_cost[j, level, nodes[codes[hit]]]
    return cost[inverse.ravel()]


def value_set_cells(leaves: np.ndarray, k: int, domain: int) -> np.ndarray:
    if domain <= 1:
        return np.zeros(leaves.size)
    codes, inverse, counts = np.unique(leaves, return_inverse=True, return_counts=True)
    reach = np.cumsum(np.sort(counts)[::-1])  # records held by the m + 1 largest values
    missing = np.maximum(k - counts, 0)
    others = np.where(missing > 0, np.searchsorted(reach, missing) + 1, 0)
    return (others / (domain - 1))[inverse.ravel()]
