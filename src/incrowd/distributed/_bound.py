"""A lower bound on the optimum of the *whole* table from one block (see
:mod:`incrowd.distributed`, "Certificates")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data.schema import Numeric, Schema
from ..data.space import MetricSpace
from ._cut import Cut

__all__ = ["global_bound_part"]


def global_bound_part(
    table: pd.DataFrame, schema: Schema, fitted: dict[str, Any], path: Sequence[Cut]
) -> float | None:
    """The block's share of a lower bound on the whole table's optimum, or None when its
    method's bound is not a sum of neighbour distances.

    Every record beyond the block lies beyond one of the cuts of ``path``; at the cut on
    attribute ``j`` it holds a value at least as far from the record's own as ``across``
    (cuts fall between adjacent values, and hierarchy leaves are in tree order, so the cost
    only grows further on). Its distance to the record is therefore at least the distance to
    the record's copy with ``across`` in place of its value of ``j``, and the smallest such
    distance over the path caps what the block's neighbour distances can overstate.
    """
    method, space = fitted.get("method"), fitted.get("space")
    if method is None or space is None or space.n != len(table):
        return None  # records left out for missing values: the bound's rows do not match
    if method.bound_geometry(space) is None:
        return None
    n = space.n
    if not path:
        return method.capped_lower_bound(np.full(n, np.inf))
    qis = table[list(schema.qi_names)].reset_index(drop=True)
    copies = []
    for cut in path:
        copy = qis.copy()
        numeric = isinstance(schema.quasi_identifiers[cut.column], Numeric)
        copy[cut.column] = np.full(n, cut.across, dtype=np.float64 if numeric else object)
        copies.append(copy)
    extended = pd.concat([qis, *copies], ignore_index=True)
    space_ext = MetricSpace.from_table(extended, Schema(dict(schema.quasi_identifiers)),
                                       norm=space.norm)  # fmt: skip
    geometry = method.bound_geometry(space_ext)
    own = np.tile(np.arange(n, dtype=np.intp), len(path))
    beyond = np.arange(n, n * (len(path) + 1), dtype=np.intp)
    cap = geometry.distance(own, beyond).reshape(len(path), n).min(axis=0)
    return method.capped_lower_bound(cap)
