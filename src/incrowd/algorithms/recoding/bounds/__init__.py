"""Lower bounds on the generalization cost of local recoding, one module per bound.

Each gives every record a term that bounds its charge (its crowd's cost per record) in any
k-anonymization, so the sum of the terms bounds the optimum:

- :func:`attribute_bound` (:mod:`.attribute`): attribute by attribute, the cheapest cell
  holding the record's value and ``k`` records of the input;
- :func:`lattice_bound` (:mod:`.lattice`): the attributes coupled, the record's least cost
  over the nodes of the generalization lattice where its class holds ``k`` records (on
  Adult with ARX's hierarchies, 9–14 % above the attribute bound at k = 5–25);
- :func:`subset_bound` (:mod:`.subset`): the same for value sets and ranges, where a crowd
  either shares the record's value on an attribute or holds, within the class of the
  attributes it shares, enough other values for ``k`` records;
- :func:`crowd_bound` (:mod:`.crowd`): the crowds among each record's nearest records
  priced;
- :func:`excess_bound` (:mod:`.excess`): what every crowd of a record costs beyond the mean
  of its members' terms, added to the others' terms.
"""

from __future__ import annotations

from .attribute import attribute_bound, attribute_terms
from .crowd import (
    CROWD_BOUND_MAX_K,
    CROWD_BOUND_MAX_ROWS,
    CROWD_BUDGET,
    CROWD_NEIGHBOURS,
    crowd_bound,
)
from .excess import excess_bound
from .lattice import (
    LATTICE_NODES,
    LATTICE_RECORDS,
    LatticeRows,
    lattice_bound,
    lattice_down,
    lattice_rows,
    lattice_top,
    lattice_walks,
)
from .subset import SUBSET_ATTRIBUTES, subset_bound

__all__ = [
    "CROWD_BOUND_MAX_K",
    "CROWD_BOUND_MAX_ROWS",
    "CROWD_BUDGET",
    "CROWD_NEIGHBOURS",
    "LATTICE_NODES",
    "LATTICE_RECORDS",
    "SUBSET_ATTRIBUTES",
    "LatticeRows",
    "attribute_bound",
    "attribute_terms",
    "crowd_bound",
    "excess_bound",
    "lattice_bound",
    "lattice_down",
    "lattice_rows",
    "lattice_top",
    "lattice_walks",
    "subset_bound",
]
