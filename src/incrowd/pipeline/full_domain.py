"""What a run of a full-domain method (global recoding) needs beyond the others.

A full-domain method publishes one level of each attribute's hierarchy for the whole table
(:attr:`~incrowd.base.Tags.full_domain`), so:

- a numeric quasi-identifier without a hierarchy is given nested intervals
  (:func:`~incrowd.data.hierarchy_specs.default_widths`, the builder ``inspect`` proposes),
  with a warning line naming them; otherwise its only levels would be the exact value and
  ``*`` (:func:`with_hierarchies`);
- l-diversity and t-closeness are constraints of its search: classes that break them are
  suppressed within the limit (:func:`diversity_check`);
- the release publishes every crowd at the method's levels, and its metadata lists them
  with the consistent categories and their counts (:func:`incrowd.release.release_generalized`);
- a node that publishes nothing (every attribute ``*``, or every record suppressed) is
  refused, not published (:func:`refuse_nothing_published`);
- it does not run blockwise: each block would choose its own levels.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..data.schema import Hierarchical, Numeric, Schema
from ..errors import IncrowdWarning, InfeasibleError, option
from ..privacy.models import Diversity

if TYPE_CHECKING:
    from ..base import Algorithm
    from .settings import Settings

__all__ = ["diversity_check", "refuse_nothing_published", "suppressed_form", "with_hierarchies"]


def with_hierarchies(table: pd.DataFrame, schema: Schema, method: str) -> Schema:
    """``schema`` with each numeric quasi-identifier given nested intervals (a warning
    line each: the method and the override)."""
    from ..data.columns import read_cells
    from ..data.hierarchy_specs import build_hierarchy, default_widths

    given = dict(schema.quasi_identifiers)
    numbers = [name for name, metric in given.items() if isinstance(metric, Numeric)]
    if not numbers:
        return schema
    cells = read_cells(table[numbers], schema)  # the others may hold the missing label
    for name in numbers:
        column = pd.to_numeric(cells[name], errors="coerce")
        values = column.to_numpy(dtype=np.float64)
        bands = "intervals:" + ",".join(f"{w:g}" for w in default_widths(values[~np.isnan(values)]))
        metric = given[name]
        assert isinstance(metric, Numeric)
        built = build_hierarchy(bands, column, name)
        given[name] = Hierarchical(built, weight=metric.weight, cells=metric.cells, spec=bands)
        warnings.warn(
            f"{method} publishes one level of a hierarchy per attribute: number column "
            f"{name!r} is generalized through {bands} "
            f"({option('hierarchies', {name: ...})} to choose the bands)",
            IncrowdWarning,
            stacklevel=3,
        )
    return dataclasses.replace(schema, quasi_identifiers=given)


def refuse_nothing_published(algorithm: Algorithm) -> None:
    """An :class:`~incrowd.errors.InfeasibleError` when the node a full-domain method found
    publishes nothing of the quasi-identifiers (every attribute ``*``, or every record
    suppressed: its ``nothing_published_`` says why and what to relax)."""
    why = getattr(algorithm, "nothing_published_", None)
    if why:
        raise InfeasibleError(why)


def suppressed_form(
    settings: Settings, cls: type[Algorithm], n_suppressed: int = 0, k: int = 2
) -> str:
    """How a run publishes its suppressed records: as asked, else as rows of ``*`` for a
    full-domain method (whose search keeps them none or a class of at least k) and withheld
    for the others. Rows of ``*`` fewer than ``k`` are refused: a person missing from the
    published values is one of them."""
    form = settings.suppressed or ("star" if cls.tags.full_domain else "drop")
    if form == "star" and 0 < n_suppressed < k:
        msg = (f"{n_suppressed} record(s) were suppressed, fewer than k={k}: as rows of * "
               f"they would be a class smaller than k ({option('suppressed', 'drop')} "
               "withholds them)")  # fmt: skip
        raise InfeasibleError(msg)
    return form


def diversity_check(
    sensitive: Sequence[tuple[np.ndarray, bool]], spec: Diversity
) -> Callable[[np.ndarray, int], np.ndarray]:
    """A full-domain method's ``class_check``: per class, whether it meets ``spec`` on every
    sensitive column (``(codes, numeric)`` each, :func:`~incrowd.privacy.models.
    sensitive_codes`), t-closeness measured against the whole input's distribution."""
    from ..privacy.models import class_counts, satisfied

    wholes = [np.bincount(codes) for codes, _ in sensitive]
    distinct_only = spec.t is None and spec.l_kind == "distinct"

    def check(labels: np.ndarray, n_classes: int) -> np.ndarray:
        ok = np.ones(n_classes, dtype=np.bool_)
        for (codes, numeric), whole in zip(sensitive, wholes, strict=True):
            if distinct_only:  # a count per class (the search asks at every node)
                ok &= _distinct_values(labels, codes, n_classes, whole) >= float(spec.l or 1)
            elif spec.t is None:  # l alone: what each class holds, not which values
                ok &= satisfied(_held_counts(labels, codes, n_classes, whole.size), spec, numeric)
            else:
                table = class_counts(labels, codes, n_classes, whole.size)
                ok &= satisfied(table, spec, numeric, whole)
        return ok

    return check


def _distinct_values(
    labels: np.ndarray, codes: np.ndarray, n_classes: int, whole: np.ndarray
) -> np.ndarray:
    """Per class, its distinct values of ``codes`` (``whole``: each value's records in the
    input): its size where every value is unique to a record (an id-like column), else the
    classes × values table's nonzero cells or, where that table would be large, the distinct
    (class, value) pairs. Time :math:`O(n)`, or :math:`O(n \\log n)` for the pairs."""
    kept = labels >= 0
    if whole.max(initial=0) <= 1:
        return np.bincount(labels[kept], minlength=n_classes)
    if n_classes * whole.size <= 4 * labels.size:
        from ..privacy.models import class_counts

        return (class_counts(labels, codes, n_classes, whole.size) > 0).sum(axis=1)
    pairs = np.unique(labels[kept].astype(np.int64) * whole.size + codes[kept])
    return np.bincount(pairs // whole.size, minlength=n_classes)


def _held_counts(
    labels: np.ndarray, codes: np.ndarray, n_classes: int, n_values: int
) -> np.ndarray:
    """Per class, the counts of the values it holds, in columns of their own (any order): a
    classes × (most values in a class) table, which is all l-diversity reads. The classes ×
    values table of :func:`~incrowd.privacy.models.class_counts` would hold a column per
    value: 9 million cells a node for a column unique on 3,000 records. Time
    :math:`O(n \\log n)`."""
    kept = labels >= 0
    pairs, counts = np.unique(labels[kept].astype(np.int64) * n_values + codes[kept],
                              return_counts=True)  # fmt: skip
    owner = pairs // n_values  # sorted: each class's values are consecutive
    first = np.searchsorted(owner, owner)
    rank = np.arange(owner.size) - first
    table = np.zeros((n_classes, int(rank.max(initial=0)) + 1))
    table[owner, rank] = counts
    return table
