"""The lower bound of local recoding's certificate: per-record terms and the lattice's dual.

Each record's term is the largest of the bounds that apply (:mod:`.bounds`); the excess of
its crowds over their members' terms is added where the crowds near it were priced; with
every attribute a hierarchy label, the dual ascent (:mod:`._ascent`) prices the classes
jointly and the larger sum is the bound. With a suppression budget, a deleted record is
charged a full row (:func:`~incrowd.algorithms._shared.generalized.budgeted_bound`).
"""

from __future__ import annotations

import numpy as np

from ...costs import GeneralizationCost
from .._shared.generalized import budgeted_bound
from ._ascent import ascent_bound
from .bounds import (
    attribute_bound,
    crowd_bound,
    excess_bound,
    lattice_bound,
    lattice_rows,
    lattice_walks,
    subset_bound,
)

__all__ = ["certificate_bound"]


def certificate_bound(
    model: GeneralizationCost,
    k: int,
    *,
    levels: bool,
    exact: bool,
    pairs: np.ndarray | None,
    near: tuple[np.ndarray, np.ndarray] | None,
    rounds: int,
    budget: int,
) -> float:
    """A lower bound on the least cost of any k-anonymization deleting at most ``budget``
    records. ``pairs``: each record's cost with its (k−1)-th nearest record (None when the
    lattice bound is exact); ``near``: the nearest records' distances and indices for the
    crowd and excess bounds (None: not priced); ``rounds`` of dual ascent."""
    walk = lattice_rows(model, k) if levels and lattice_walks(model) else None
    cells = lattice_bound(model, k, walk) if levels else subset_bound(model, k)
    if cells is None:  # too large to walk
        cells = attribute_bound(model, k)
    terms = cells if pairs is None else np.maximum(pairs, cells)
    if near is not None:
        terms = np.maximum(terms, crowd_bound(model, k, *near))
        terms = terms + excess_bound(model, k, *near, terms)
    charged = budgeted_bound(terms, model.row_cost, budget)
    if walk is None:
        return charged
    # the lattice's dual: a bound of its own, not per record
    dual = ascent_bound(model, k, cells, rounds, walk=walk, reach=charged)
    return max(charged, budgeted_bound(dual, model.row_cost, budget))
