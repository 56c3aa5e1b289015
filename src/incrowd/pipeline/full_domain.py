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

__all__ = ["diversity_check", "suppressed_form", "with_hierarchies"]


def with_hierarchies(table: pd.DataFrame, schema: Schema, method: str) -> Schema:
    """``schema`` with each numeric quasi-identifier given nested intervals (a warning
    line each: the method and the override)."""
    from ..data.columns import read_cells
    from ..data.hierarchy_specs import build_hierarchy, default_widths

    given = dict(schema.quasi_identifiers)
    numbers = [name for name, metric in given.items() if isinstance(metric, Numeric)]
    if not numbers:
        return schema
    cells = read_cells(table, schema)
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

    def check(labels: np.ndarray, n_classes: int) -> np.ndarray:
        ok = np.ones(n_classes, dtype=np.bool_)
        for (codes, numeric), whole in zip(sensitive, wholes, strict=True):
            table = class_counts(labels, codes, n_classes, whole.size)
            ok &= satisfied(table, spec, numeric, whole)
        return ok

    return check
