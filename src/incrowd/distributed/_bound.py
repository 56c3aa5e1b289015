"""A lower bound on the optimum of the *whole* table from one block (see
:mod:`incrowd.distributed`, "Certificates")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.schema import Numeric, Schema
from ..params import outlier_budget
from ..space.metric_space import MetricSpace
from ._cut import Cut

__all__ = ["LeftOutTerms", "global_bound_part", "whole_bound"]


@dataclass(frozen=True)
class LeftOutTerms:
    """A block's share of the global bound for a method that may leave records out: each
    record's term (:meth:`~incrowd.base.Algorithm.capped_bound_terms`) and the method's
    ``epsilon``; the terms of all blocks are needed to know which are the largest."""

    terms: np.ndarray
    epsilon: float


def whole_bound(parts: Sequence[float | LeftOutTerms | None], n: int) -> float | None:
    """The lower bound on the whole table's optimum (``n`` records) from its blocks' shares:
    their sum, less (with outliers) the largest ``outlier_budget(ε, n)`` terms of all
    blocks, which the whole table's optimum may leave out; None if a block has none."""
    if not parts or any(p is None for p in parts):
        return None
    if not isinstance(parts[0], LeftOutTerms):
        return float(sum(parts))  # type: ignore[arg-type]
    terms = np.concatenate([p.terms for p in parts])  # type: ignore[union-attr]
    budget = min(outlier_budget(parts[0].epsilon, n), terms.size)
    left = np.partition(terms, terms.size - budget)[terms.size - budget :] if budget else terms[:0]
    return max(0.0, float(terms.sum() - left.sum()))


def global_bound_part(
    table: pd.DataFrame, schema: Schema, fitted: dict[str, Any], path: Sequence[Cut]
) -> float | LeftOutTerms | None:
    """The block's share of a lower bound on the whole table's optimum (per record for a
    method that may leave records out), or None when its method's bound is not a sum of
    neighbour distances.

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
        return _share(method, np.full(n, np.inf))
    qis = table[list(schema.qi_names)].reset_index(drop=True)
    # a record and its copy differ in the cut's attribute only, so their distance depends on
    # the record's value there alone: one small table holds, per cut, each value of the
    # block once and the value across, and the caps are read from it
    template = qis.iloc[np.zeros(1, dtype=np.intp)]
    pieces, lookups = [], []
    for cut in path:
        numeric = isinstance(schema.quasi_identifiers[cut.column], Numeric)
        codes, values = pd.factorize(qis[cut.column], sort=False)
        column = np.array([*np.asarray(values), cut.across],
                          dtype=np.float64 if numeric else object)  # fmt: skip
        piece = template.iloc[np.zeros(column.size, dtype=np.intp)].reset_index(drop=True)
        piece[cut.column] = column
        pieces.append(piece)
        lookups.append((codes, len(values)))
    small = pd.concat(pieces, ignore_index=True)
    pinned = Schema(dict(schema.quasi_identifiers))
    if any(m.domain is None for m in pinned.quasi_identifiers.values()):
        # coded as the block and its copies together would be (a pinned domain is kept)
        pinned = pinned.with_domain(pd.concat([qis, small], ignore_index=True))
    geometry = method.bound_geometry(MetricSpace.from_table(small, pinned, norm=space.norm))
    cap = np.full(n, np.inf)
    start = 0
    for codes, distinct in lookups:
        rows = np.arange(start, start + distinct, dtype=np.intp)
        across = np.full(distinct, start + distinct, dtype=np.intp)
        cap = np.minimum(cap, geometry.distance(rows, across)[codes])
        start += distinct + 1
    return _share(method, cap)


def _share(method: Any, cap: np.ndarray) -> float | LeftOutTerms | None:
    terms = method.capped_bound_terms(cap)
    if terms is not None:
        return LeftOutTerms(terms, float(method.epsilon))
    return method.capped_lower_bound(cap)
