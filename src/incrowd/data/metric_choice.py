"""Each quasi-identifier's attribute metric, chosen from its column type
(:mod:`incrowd.data.types`): what :meth:`Schema.infer <incrowd.data.schema.Schema.infer>`
does per column.

=========  ===================================================================================
type       metric (without a hierarchy given)
=========  ===================================================================================
number     :class:`~incrowd.data.schema.Numeric`; with missing cells that the policy keeps,
           :class:`~incrowd.data.schema.Hierarchical` through nested intervals
           (:func:`~incrowd.data.hierarchy_specs.default_widths`) with a missing leaf under
           ``*``, and a warning naming ``hierarchies`` and ``missing='drop'``
code       :class:`~incrowd.data.schema.Hierarchical` through prefix masking (``02142 → 0214*
           → … → *****``); codes of several widths: :class:`~incrowd.data.schema.Categorical`,
           with a warning
date       :class:`~incrowd.data.schema.Hierarchical` through ``dates`` (day → month →
           quarter → year → ``*``), priced by the span of days
category   :class:`~incrowd.data.schema.Categorical`
=========  ===================================================================================

A hierarchy given (a :class:`~incrowd.data.hierarchy.Hierarchy`, or a spelling of
:mod:`~incrowd.data.hierarchy_specs`) makes any type :class:`Hierarchical`; a spelling is
built from the column's cells in canonical form (dates as ISO text, numbers as numbers).
Every metric keeps its type (``cells``), so each later reading of the table reads it the
same way (:func:`incrowd.data.columns.read_cells`).

A column of a numeric dtype (a DataFrame made in Python, a Parquet file) is read by the
same rules as text (:mod:`incrowd.data.types`): an integer code 1-9 is a category, a zip
read as a float a code with its leading zeros restored, each guess one warning naming the
keyword that overrides it. Warnings are :class:`~incrowd.IncrowdWarning`, one line each.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import HierarchyError, IncrowdWarning, SchemaError, option
from .hierarchy import Hierarchy
from .schema import AttributeMetric, Categorical, Hierarchical, Numeric, is_missing
from .types import ColumnKind, ColumnType, infer_column, normalize

__all__ = ["choose_metrics", "declared_kinds"]


def declared_kinds(qi: Sequence[str], **lists: Sequence[str]) -> dict[str, ColumnKind]:
    """The kind each column is declared as: ``categorical=``, ``numeric=``, ``code=``,
    ``date=`` lists of names; a name in two lists, or not a quasi-identifier, is an error."""
    kinds = {"categorical": "category", "numeric": "number", "code": "code", "date": "date"}
    out: dict[str, ColumnKind] = {}
    for given, names in lists.items():
        for name in names:
            if name not in qi:
                msg = f"column {name!r} is declared {given} but is not a quasi-identifier"
                raise SchemaError(msg)
            kind = kinds[given]
            if name in out and out[name] != kind:
                first = next(o for o, k in kinds.items() if k == out[name])
                msg = f"column {name!r} is declared both {first} and {given}"
                raise SchemaError(msg)
            out[name] = kind  # type: ignore[assignment]
    return out


def choose_metrics(
    table: pd.DataFrame,
    qi: Sequence[str],
    hierarchies: Mapping[str, Hierarchy | str],
    declared: Mapping[str, ColumnKind],
    *,
    thousands: str | None = None,
    decimal: str | None = None,
    date_format: str | None = None,
    missing: str = "keep",
) -> dict[str, AttributeMetric]:
    """The metric of each quasi-identifier of ``table`` (see the module docstring); an
    unknown column gets a placeholder that the schema's column check reports."""
    from .hierarchy_specs import build_hierarchy, default_widths

    metrics: dict[str, AttributeMetric] = {}
    for name in qi:
        if name in metrics:
            msg = f"column {name!r} is listed twice"
            raise SchemaError(msg)
        if name not in table.columns:
            if name in hierarchies:
                msg = f"unknown column {name!r} (given a hierarchy)"
                raise SchemaError(msg)
            metrics[name] = Numeric()
            continue
        column = table[name]
        kind = declared.get(name)
        spec = hierarchies.get(name)
        if kind is None and spec == "prefix":  # masking a prefix reads the cells as codes
            kind = "code"
        found = infer_column(column, name, declared=kind, thousands=thousands,
                             decimal=decimal, date_format=date_format)  # fmt: skip
        for line in found.warnings:
            _warn(line)
        cells = found.type
        canonical = normalize(column, cells, name)
        has_missing = bool(is_missing(canonical).any())
        keep = has_missing and missing not in ("drop", "error")
        if isinstance(spec, Hierarchy):
            metrics[name] = Hierarchical(spec, cells=cells)
        elif spec is not None:
            built = build_hierarchy(spec, canonical, name, missing_leaf=keep)
            metrics[name] = Hierarchical(built, cells=cells, spec=spec)
        elif cells.kind == "number" and keep:
            values = canonical.to_numpy(dtype=np.float64)
            widths = default_widths(values[~np.isnan(values)])
            bands = "intervals:" + ",".join(f"{w:g}" for w in widths)
            _warn(f"column {name!r} has {int(is_missing(canonical).sum())} missing value(s), "
                  f"kept as a value of their own: the column is generalized through "
                  f"{bands} ({option('hierarchies', {name: ...})} to choose the bands; "
                  f"{option('missing', 'drop')} to "
                  "leave those records out)")  # fmt: skip
            built = build_hierarchy(bands, canonical, name)
            metrics[name] = Hierarchical(built, cells=cells, spec=bands)
        elif cells.kind == "number":
            metrics[name] = Numeric(cells=cells)
        elif cells.kind == "code":
            metrics[name] = _code(canonical, name, cells, keep)
        elif cells.kind == "date":
            built = build_hierarchy("dates", canonical, name, missing_leaf=keep)
            metrics[name] = Hierarchical(built, cells=cells, spec="dates")
        else:
            metrics[name] = Categorical(cells=cells)
    return metrics


def _code(canonical: pd.Series, name: str, cells: ColumnType, keep: bool) -> AttributeMetric:
    from .hierarchy_specs import build_hierarchy

    try:
        return Hierarchical(build_hierarchy("prefix", canonical, name, missing_leaf=keep),
                            cells=cells, spec="prefix")  # fmt: skip
    except HierarchyError as error:  # a code holding the mask character *: no masking
        _warn(f"{error} ({option('hierarchies', {name: ...})}); until then column {name!r} "
              "is generalized as categories")  # fmt: skip
        return Categorical(cells=cells)


def _warn(line: str) -> None:
    warnings.warn(line, IncrowdWarning, stacklevel=4)
