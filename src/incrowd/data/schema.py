"""Column roles and attribute metrics.

A :class:`Schema` says what each column of a table is:

- **identifiers** are never written to any output;
- **quasi-identifiers** (QIs) are what an attacker could link on; each has an attribute
  metric that defines the distance between two values;
- **sensitive** columns are published, but only in ways that keep crowds intact;
- **insensitive** columns are passed through unchanged.

Columns the schema does not mention are not published either; the release metadata lists them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..errors import SchemaError
from ..io.tables import as_dataframe, check_plain_values
from .hierarchy import Hierarchy, distinct_values, factorize_keys
from .types import ColumnType

__all__ = ["Numeric", "Categorical", "Hierarchical", "AttributeMetric", "Schema"]


@dataclass(frozen=True)
class Numeric:
    """A numeric attribute: distance ``weight * |x - y| / scale``.

    ``scale="range"`` (default) divides by max − min of the column, ``"std"`` by its
    population standard deviation, a number by that number. A constant column gets scale 1.

    ``domain`` ``(lo, hi)`` pins the attribute's range: costs, scales and NCP are taken
    relative to it instead of the table's own ``[min, max]`` (a block of a larger table is
    scored as part of the whole; see :meth:`Schema.with_domain`). Values must lie in it.
    """

    scale: Literal["range", "std"] | float = "range"
    weight: float = 1.0
    domain: tuple[float, float] | None = None
    #: How the cells are read (:class:`~incrowd.data.types.ColumnType`; None: as numbers).
    cells: ColumnType | None = None

    def __post_init__(self) -> None:
        if isinstance(self.scale, str):
            if self.scale not in ("range", "std"):
                msg = (
                    f"Numeric scale must be 'range', 'std' or a positive number, got {self.scale!r}"
                )
                raise SchemaError(msg)
        elif not float(self.scale) > 0:
            msg = f"Numeric scale must be positive, got {self.scale!r}"
            raise SchemaError(msg)
        _check_weight(self.weight)
        if self.domain is not None:
            lo, hi = (float(v) for v in self.domain)
            if not (np.isfinite(lo) and np.isfinite(hi) and lo <= hi):
                msg = f"Numeric domain must be finite (lo, hi) with lo <= hi, got {self.domain!r}"
                raise SchemaError(msg)
            object.__setattr__(self, "domain", (lo, hi))


@dataclass(frozen=True)
class Categorical:
    """An unordered attribute: distance ``weight`` between two different values.

    ``domain``, the attribute's values, pins what NCP counts as the whole domain (default:
    the values found in the table); values must be among them.
    """

    weight: float = 1.0
    domain: tuple[str, ...] | None = None
    #: How the cells are read (:class:`~incrowd.data.types.ColumnType`; None: as they are).
    cells: ColumnType | None = None

    def __post_init__(self) -> None:
        _check_weight(self.weight)
        _check_domain(self)


@dataclass(frozen=True)
class Hierarchical:
    """An attribute with a generalization hierarchy: distance ``weight * h / l``.

    ``h`` is the lowest level at which the two values meet and ``l`` the hierarchy's height
    (Aggarwal et al., *Approximation Algorithms for k-Anonymity*, Sec. 2).
    """

    hierarchy: Hierarchy
    weight: float = 1.0
    domain: tuple[str, ...] | None = None
    #: How the cells are read (:class:`~incrowd.data.types.ColumnType`; None: as they are).
    cells: ColumnType | None = None
    #: The spelling the hierarchy was built from (``"prefix"``, a file, ...; None: given as
    #: a :class:`Hierarchy`), recorded in the release's metadata.
    spec: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.hierarchy, Hierarchy):
            msg = f"Hierarchical needs a Hierarchy, got {type(self.hierarchy).__name__}"
            raise SchemaError(msg)
        _check_weight(self.weight)
        _check_domain(self)


AttributeMetric = Numeric | Categorical | Hierarchical


def _check_domain(metric: Categorical | Hierarchical) -> None:
    """A label domain is stored as its sorted distinct value keys (one order everywhere)."""
    if metric.domain is None:
        return
    if isinstance(metric.domain, str) or not len(metric.domain):
        msg = f"a domain must be a non-empty sequence of values, got {metric.domain!r}"
        raise SchemaError(msg)
    keys, _ = factorize_keys(list(metric.domain))
    object.__setattr__(metric, "domain", tuple(str(v) for v in keys))


def _check_weight(weight: float) -> None:
    if not (isinstance(weight, int | float) and np.isfinite(weight) and weight > 0):
        msg = f"attribute weight must be a positive number, got {weight!r}"
        raise SchemaError(msg)


@dataclass(frozen=True)
class Schema:
    """Roles of the columns of a table.

    Parameters
    ----------
    quasi_identifiers : mapping of column name to attribute metric
    sensitive, insensitive, identifiers : sequences of column names

    Examples
    --------
    >>> from incrowd import Schema, Numeric, Categorical
    >>> schema = Schema({"age": Numeric(), "sex": Categorical()}, sensitive=["income"])
    >>> schema.qi_names
    ('age', 'sex')
    """

    quasi_identifiers: Mapping[str, AttributeMetric]
    sensitive: Sequence[str] = ()
    insensitive: Sequence[str] = ()
    identifiers: Sequence[str] = ()
    _roles: Mapping[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        qis = dict(self.quasi_identifiers)
        if not qis:
            msg = "the schema needs at least one quasi-identifier"
            raise SchemaError(msg)
        for name, metric in qis.items():
            if not isinstance(metric, Numeric | Categorical | Hierarchical):
                msg = f"quasi-identifier {name!r} needs an attribute metric, got {metric!r}"
                raise SchemaError(msg)
        object.__setattr__(self, "quasi_identifiers", MappingProxyType(qis))
        roles: dict[str, str] = {}
        for role, names in (
            ("quasi-identifier", list(qis)),
            ("sensitive", list(self.sensitive)),
            ("insensitive", list(self.insensitive)),
            ("identifier", list(self.identifiers)),
        ):
            for name in names:
                if not isinstance(name, str) or not name:
                    msg = f"column names must be non-empty strings, got {name!r} as {role}"
                    raise SchemaError(msg)
                if name in roles:
                    again = "twice" if roles[name] == role else f"both {roles[name]} and {role}"
                    msg = f"column {name!r} is listed {again}"
                    raise SchemaError(msg)
                roles[name] = role
        for attr in ("sensitive", "insensitive", "identifiers"):
            object.__setattr__(self, attr, tuple(getattr(self, attr)))
        object.__setattr__(self, "_roles", MappingProxyType(roles))

    @property
    def qi_names(self) -> tuple[str, ...]:
        """Quasi-identifier column names, in schema order."""
        return tuple(self.quasi_identifiers)

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the schema mentions."""
        return tuple(self._roles)

    def role(self, column: str) -> str | None:
        """Role of a column, or None if the schema does not mention it."""
        return self._roles.get(column)

    def check_columns(self, columns: Iterable[object]) -> None:
        """Raise :class:`SchemaError` for a duplicate table column or a schema column not in it."""
        cols = [str(c) for c in columns]
        seen: set[str] = set()
        for c in cols:
            if c in seen:
                msg = f"the table has two columns named {c!r}"
                raise SchemaError(msg)
            seen.add(c)
        for name, role in self._roles.items():
            if name not in seen:
                msg = f"unknown column {name!r} (given as {role}); the table has: {', '.join(cols)}"
                raise SchemaError(msg)

    def with_domain(self, table: pd.DataFrame) -> Schema:
        """This schema with every quasi-identifier's domain pinned to its values in ``table``
        (a numeric range, or the distinct values), so that any part of ``table`` is coded,
        costed and scored as part of the whole. Domains already pinned are kept. Cells are
        read by each metric's type; a missing cell of a label column adds the missing value
        (:data:`~incrowd.data.columns.MISSING_LABEL`) to the domain."""
        from .columns import MISSING_LABEL
        from .types import normalize

        absent = [name for name in self.qi_names if name not in table.columns]
        if absent:
            msg = f"unknown column {absent[0]!r} (given as quasi-identifier)"
            raise SchemaError(msg)
        metrics: dict[str, AttributeMetric] = {}
        for name, metric in self.quasi_identifiers.items():
            column = table[name]
            if metric.cells is not None and metric.domain is None:
                column = normalize(column, metric.cells, name)
            if metric.domain is not None:
                metrics[name] = metric
            elif isinstance(metric, Numeric):
                values = parse_numbers(column)
                domain: Any = (float(np.nanmin(values)), float(np.nanmax(values))) if (
                    len(values) and not np.isnan(values).all()) else None  # fmt: skip
            else:
                values, codes = distinct_values(column)
                present = values[np.unique(codes[codes >= 0])]
                if is_missing(column).any() and MISSING_LABEL not in set(present.tolist()):
                    present = np.append(present, np.array([MISSING_LABEL], dtype=object))
                domain = tuple(factorize_keys(present)[0]) if present.size else None
            metrics[name] = replace(metric, domain=domain)
        return Schema(metrics, sensitive=self.sensitive, insensitive=self.insensitive,
                      identifiers=self.identifiers)  # fmt: skip

    @classmethod
    def infer(
        cls,
        table: Any,
        qi: Sequence[str],
        *,
        sensitive: Sequence[str] = (),
        insensitive: Sequence[str] = (),
        identifiers: Sequence[str] = (),
        hierarchies: Mapping[str, Hierarchy | str] | None = None,
        categorical: Sequence[str] = (),
        numeric: Sequence[str] = (),
        code: Sequence[str] = (),
        date: Sequence[str] = (),
        thousands: str | None = None,
        decimal: str | None = None,
        date_format: str | None = None,
        missing: str = "keep",
        columns: Sequence[str] | None = None,
    ) -> Schema:
        """Schema for ``table`` (a pandas, polars or Arrow table) with a metric chosen per QI
        column from its type (``columns``: the whole table's columns, when ``table`` holds
        only some of them).

        Each QI's type — number, code, category or date — is inferred from its cells
        (:mod:`incrowd.data.types`: the rules and their thresholds; a guess that could be
        wrong is one :class:`~incrowd.IncrowdWarning` line naming the override) or declared
        by naming the column in ``categorical``, ``numeric``, ``code`` or ``date``;
        ``thousands`` / ``decimal`` and ``date_format`` say how numbers and dates are
        written (default: detected). The metric follows from the type
        (:mod:`incrowd.data.metric_choice`): numbers :class:`Numeric`, codes prefix masking,
        dates day → month → quarter → year, categories :class:`Categorical`. A hierarchy
        (a :class:`Hierarchy`, or a spelling of :mod:`incrowd.data.hierarchy_specs` such as
        ``"prefix"`` or ``"intervals:0-17,18-64,65-120"``) makes a column
        :class:`Hierarchical`. ``missing`` is the missing-value policy the schema will be
        used with (``keep``: a hierarchy holds a missing value under its top).
        """
        from .metric_choice import choose_metrics, declared_kinds

        table = as_dataframe(table)  # a polars or Arrow table: read as the CLI reads one
        hierarchies = dict(hierarchies or {})
        for name in hierarchies:
            if name not in qi:
                msg = f"column {name!r} has a hierarchy but is not a quasi-identifier"
                raise SchemaError(msg)
        declared = declared_kinds(qi, categorical=categorical, numeric=numeric, code=code,
                                  date=date)  # fmt: skip
        # before a metric is guessed from values that are not values (lists, bytes)
        check_plain_values(table, dict.fromkeys(insensitive, "insensitive")
                           | dict.fromkeys(sensitive, "sensitive")
                           | dict.fromkeys(qi, "quasi-identifier"))  # fmt: skip
        metrics = choose_metrics(table, qi, hierarchies, declared, thousands=thousands,
                                 decimal=decimal, date_format=date_format,
                                 missing=missing)  # fmt: skip
        schema = cls(metrics, sensitive=sensitive, insensitive=insensitive, identifiers=identifiers)
        schema.check_columns(table.columns if columns is None else columns)
        return schema


def parse_numbers(column: pd.Series) -> np.ndarray:
    """Each cell as a float (NaN where it is not a number); a categorical column's labels
    are parsed once each, not once per row."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        labels = parse_numbers(pd.Series(column.cat.categories))
        codes = column.cat.codes.to_numpy()
        return np.where(codes >= 0, labels[np.maximum(codes, 0)], np.nan) if labels.size else (
            np.full(codes.size, np.nan))  # fmt: skip
    if pd.api.types.is_bool_dtype(column):
        return np.full(len(column), np.nan)
    if pd.api.types.is_numeric_dtype(column):
        return column.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.to_numeric(column.astype(str).str.strip(), errors="coerce").to_numpy(np.float64)


def is_missing(column: pd.Series) -> np.ndarray:
    """Missing cells: NA/None/NaN, or empty / blank text."""
    missing = np.array(column.isna().to_numpy(), dtype=bool)
    if isinstance(column.dtype, pd.CategoricalDtype):
        blank = pd.Series(column.cat.categories).astype(str).str.strip().eq("").to_numpy()
        if blank.any():
            codes = column.cat.codes.to_numpy()
            missing |= (codes >= 0) & blank[np.maximum(codes, 0)]
        return missing
    if column.dtype == object or pd.api.types.is_string_dtype(column):
        text = column.astype(str).str.strip()
        missing |= (text == "").to_numpy()
    return missing
