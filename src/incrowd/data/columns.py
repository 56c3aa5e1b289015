"""Typed, validated views of the quasi-identifier columns of a table.

Both the metric space and the releases read quasi-identifiers through these views, so that a
value is parsed, checked and coded in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from ..errors import InputError, SchemaError, option
from ..io.tables import check_plain_values
from .hierarchy import Hierarchy, factorize_keys, value_key
from .schema import Categorical, Hierarchical, Numeric, Schema, is_missing, parse_numbers

__all__ = [
    "MISSING_LABEL",
    "sensitive_codes",
    "MissingPolicy",
    "NumericColumn",
    "CategoricalColumn",
    "HierarchicalColumn",
    "QIColumn",
    "encode_qis",
    "handle_missing",
    "sensitive_cells",
    "shows_missing",
]

#: The value a missing cell of a category, code, date or hierarchy takes under
#: ``missing="keep"``: a value of its own, under the hierarchy's top ``*``.
MISSING_LABEL = "(missing)"
#: ``category`` is the former name of ``keep``.
MissingPolicy = Literal["keep", "drop", "error", "category"]
MISSING_POLICIES: tuple[str, ...] = ("keep", "drop", "error", "category")


def shows_missing(column: pd.Series) -> np.ndarray:
    """Cells that hold no value: missing as read (:func:`~incrowd.data.schema.is_missing`:
    NA, None, NaN, empty or blank) or as published (:data:`MISSING_LABEL`).

    >>> shows_missing(pd.Series(["a", None, "", "(missing)", float("nan")])).tolist()
    [False, True, True, True, True]
    """
    gaps = is_missing(column)
    if not pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        gaps |= column.eq(MISSING_LABEL).to_numpy(dtype=bool, na_value=False)
    return gaps


def sensitive_cells(column: pd.Series) -> pd.Series:
    """A sensitive column as published: each missing cell (:func:`shows_missing`) spelled
    :data:`MISSING_LABEL`, as a quasi-identifier's is. A missing sensitive value is one more
    value of the column (as in ARX): l-diversity, t-closeness, the homogeneity warning and
    risk count it like any other (:func:`incrowd.privacy.models.sensitive_codes`).

    A column without missing cells is returned as it is; one with them, as text (numbers as
    :func:`~incrowd.data.hierarchy.value_key` prints them), so that a Parquet column holds
    one type. One pass over the column.

    >>> sensitive_cells(pd.Series([3.0, None, 1.5])).tolist()
    ['3', '(missing)', '1.5']
    """
    gaps = shows_missing(column)
    if not gaps.any():
        return column
    codes, uniques = pd.factorize(column)  # value_key once per distinct value, not per row
    shown = np.array([value_key(v) for v in uniques] + [MISSING_LABEL], dtype=object)
    out = pd.Series(shown[codes], index=column.index, name=column.name, dtype=object)
    out[gaps] = MISSING_LABEL
    return out


def sensitive_codes(values: pd.Series) -> tuple[np.ndarray, bool]:
    """Codes of a sensitive column in the order of its values (numbers numerically), and
    whether it is numeric: the one encoding of sensitive values that the constraints, the
    repairs, the verifier, the homogeneity warning and risk all read.

    A missing cell (:func:`~incrowd.data.columns.shows_missing`: NA, None, NaN, empty or
    blank, or the published ``(missing)``) is one more value, as in ARX, coded after every
    other (so the ordered distance of t-closeness puts it last, as ARX's data types sort a
    missing value); a column of numbers with missing cells stays numeric.

    >>> sensitive_codes(pd.Series([3, None, 1, 3]))
    (array([1, 2, 0, 1]), True)
    """
    gaps = shows_missing(values)
    present = values[~gaps]
    numbers = parse_numbers(present)
    numeric = bool(present.size) and not np.isnan(numbers).any()
    keys = numbers if numeric else present.map(value_key).to_numpy(dtype=str)
    uniques, inverse = np.unique(keys, return_inverse=True)
    codes = np.full(len(values), uniques.size, dtype=np.intp)
    codes[~gaps] = inverse.reshape(-1)
    return codes, numeric


@dataclass(frozen=True, eq=False)
class NumericColumn:
    name: str
    metric: Numeric
    values: np.ndarray  # float64, finite

    @property
    def integral(self) -> bool:
        return bool(np.all(self.values == np.round(self.values)))

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lo, hi)`` the attribute's costs are relative to: its pinned domain, or the
        values' own range."""
        if self.metric.domain is not None:
            return self.metric.domain
        if not self.values.size:
            return 0.0, 0.0
        return float(self.values.min()), float(self.values.max())


@dataclass(frozen=True, eq=False)
class CategoricalColumn:
    name: str
    metric: Categorical
    codes: np.ndarray  # intp, index into categories
    categories: tuple[str, ...]  # sorted distinct values present in the data (or the domain)


@dataclass(frozen=True, eq=False)
class HierarchicalColumn:
    name: str
    metric: Hierarchical
    codes: np.ndarray  # intp, shape (n, height + 1): node of each value at each level

    @property
    def hierarchy(self) -> Hierarchy:
        return self.metric.hierarchy


QIColumn = NumericColumn | CategoricalColumn | HierarchicalColumn


def read_cells(table: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """``table`` with each quasi-identifier whose metric says how its cells are read
    (``cells``, a :class:`~incrowd.data.types.ColumnType`) in canonical form: numbers as
    floats, dates as ISO text, codes and categories as stripped text (missing cells stay
    missing). Other columns are untouched; ``table`` itself is not changed."""
    from .types import normalize

    out: pd.DataFrame | None = None
    for name, metric in schema.quasi_identifiers.items():
        cells = getattr(metric, "cells", None)
        if cells is None or name not in table.columns:
            continue
        if out is None:
            out = table.copy(deep=False)
        out[name] = normalize(table[name], cells, name)
    return table if out is None else out


def handle_missing(
    table: pd.DataFrame, schema: Schema, missing: MissingPolicy = "keep"
) -> tuple[pd.DataFrame, int]:
    """Read the quasi-identifiers' cells (:func:`read_cells`) and apply the missing-value
    policy to them.

    Returns the table to anonymize and the number of records left out. ``"keep"`` (the
    default; ``"category"`` is its former name) turns a missing cell of a category, code,
    date or hierarchy into the value ``"(missing)"``, which shares a crowd only with other
    missing cells of its column or is published as ``*`` (a hierarchy must hold it under its
    top: :func:`~incrowd.data.schema.Schema.infer` adds it); ``"drop"`` leaves the records
    out (the caller counts them apart from suppression); ``"error"`` raises
    :class:`InputError` naming the column, the count and the first row.
    """
    if missing not in MISSING_POLICIES:
        msg = f"missing must be 'keep', 'drop' or 'error', got {missing!r}"
        raise SchemaError(msg)
    # the first look at the values of the table to anonymize (a block of one too)
    check_plain_values(table, {name: role for name in schema.columns
                               if (role := schema.role(name) or "") != "identifier"})  # fmt: skip
    table = read_cells(table, schema)
    masks = {name: is_missing(table[name]) for name in schema.qi_names}
    if not any(m.any() for m in masks.values()):
        return table, 0
    if missing == "drop":
        drop = np.logical_or.reduce(list(masks.values()))
        return table.loc[~drop].reset_index(drop=True), int(drop.sum())
    name, mask = next((n, m) for n, m in masks.items() if m.any())
    where = f"{int(mask.sum())} missing value(s) (first in row {int(np.argmax(mask)) + 1})"
    if missing == "error":
        msg = (
            f"column {name!r} has {where}; keep them as a value of their own "
            f"({option('missing', 'keep')}) or leave those records out "
            f"({option('missing', 'drop')})"
        )
        raise InputError(msg)
    out = table.copy()
    for name, mask in masks.items():
        if not mask.any():
            continue
        metric = schema.quasi_identifiers[name]
        where = f"{int(mask.sum())} missing value(s) (first in row {int(np.argmax(mask)) + 1})"
        if isinstance(metric, Numeric):
            msg = (
                f"numeric column {name!r} has {where}: a missing number is kept through a "
                "hierarchy that holds it (Schema.infer gives the column bands; or "
                f"{option('hierarchies', {name: 'intervals:...'})}), or left out with "
                f"{option('missing', 'drop')}"
            )
            raise InputError(msg)
        if isinstance(metric, Hierarchical) and MISSING_LABEL not in metric.hierarchy:
            msg = (
                f"column {name!r} has {where}, but its hierarchy has no {MISSING_LABEL!r} "
                "value under its top to keep them: build it with the missing values in the "
                "column (Schema.infer, incrowd.data.hierarchy_specs.build_hierarchy), or "
                f"leave those records out ({option('missing', 'drop')})"
            )
            raise InputError(msg)
        col = out[name].astype(object)
        col[mask] = MISSING_LABEL
        out[name] = col
    return out, 0


def encode_qis(table: pd.DataFrame, schema: Schema) -> list[QIColumn]:
    """Parse and code every quasi-identifier; raise on missing values or unparsable cells."""
    schema.check_columns(table.columns)
    check_plain_values(table, dict.fromkeys(schema.qi_names, "quasi-identifier"))
    columns: list[QIColumn] = []
    for name, metric in schema.quasi_identifiers.items():
        series = table[name]
        missing = is_missing(series)
        if missing.any():
            msg = (
                f"column {name!r} has {int(missing.sum())} missing value(s) "
                f"(first in row {int(np.argmax(missing)) + 1}); choose a missing-value policy"
            )
            raise InputError(msg)
        if isinstance(metric, Numeric):
            values = _parse_numeric(series, name)
            if metric.domain is not None and values.size:
                lo, hi = metric.domain
                outside = (values < lo) | (values > hi)
                if outside.any():
                    row = int(np.argmax(outside))
                    msg = (f"column {name!r} holds {values[row]:g} (row {row + 1}), outside "
                           f"its declared domain [{lo:g}, {hi:g}]")  # fmt: skip
                    raise InputError(msg)
            columns.append(NumericColumn(name, metric, values))
        elif isinstance(metric, Categorical):
            categories, codes = factorize_keys(series.to_numpy())
            if metric.domain is not None:
                codes = _domain_codes(metric.domain, categories, name)[codes]
                categories = metric.domain
            columns.append(CategoricalColumn(name, metric, codes, tuple(categories)))
        else:
            columns.append(
                HierarchicalColumn(name, metric, metric.hierarchy.encode(series.to_numpy(), name))
            )
    return columns


def _domain_codes(domain: tuple[str, ...], keys: np.ndarray, name: str) -> np.ndarray:
    """Position in ``domain`` (sorted keys) of each of ``keys``; an error names a stray one."""
    where = np.searchsorted(np.asarray(domain, dtype=object), keys)
    where = np.minimum(where, len(domain) - 1)
    stray = [str(k) for k, w in zip(keys, where, strict=True) if domain[w] != k]
    if stray:
        msg = f"column {name!r} holds {stray[0]!r}, which is not in its declared domain"
        raise InputError(msg)
    return where.astype(np.intp)


#: The largest magnitude of a numeric quasi-identifier's value. Loss figures square spans
#: and sum them over every record (SSE): with values up to 1e100 they stay finite for any
#: table (1e308 gave NaN figures), and no measured quantity comes near it.
MAX_MAGNITUDE = 1e100


def _parse_numeric(series: pd.Series, name: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(series):
        msg = f"column {name!r} is boolean; declare it categorical"
        raise InputError(msg)
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=float)
    else:
        values = parse_numbers(series)
        bad = np.isnan(values)
        if bad.any():
            i = int(np.argmax(bad))
            msg = (
                f"column {name!r} is numeric but row {i + 1} holds the text "
                f"{series.iloc[i]!r}; fix the value, or declare the column categorical"
            )
            raise InputError(msg)
    if not np.all(np.isfinite(values)):
        i = int(np.argmax(~np.isfinite(values)))
        msg = (
            f"column {name!r} has the non-finite value {str(series.iloc[i]).strip()!r} in "
            f"row {i + 1}; numeric quasi-identifiers must be finite numbers"
        )
        raise InputError(msg)
    huge = np.abs(values) > MAX_MAGNITUDE
    if huge.any():
        i = int(np.argmax(huge))
        msg = (
            f"column {name!r} holds {str(series.iloc[i]).strip()!r} in row {i + 1}, beyond "
            f"±{MAX_MAGNITUDE:g}: its loss figures would overflow; rescale the column (a "
            "unit of 1e6, say) or declare it categorical"
        )
        raise InputError(msg)
    return np.ascontiguousarray(values, dtype=np.float64)
