"""Columns whose cells are not one value each: lists, structs, maps and raw bytes, as Parquet
and Arrow tables hold. None can be compared as a value (a quasi-identifier) nor written to
CSV as it was read (a published column): :func:`check_plain_values` refuses them where a
role asks for either, naming the column and its type (:func:`odd_values`), and
``incrowd inspect`` shows such a column as withheld with the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["check_plain_values", "odd_values", "value_type"]


def value_type(column: pd.Series) -> str | None:
    """The type of a column's values when they are not one number or text each: lists,
    structs, maps or raw bytes, as Parquet and Arrow tables hold (``"list<string>"``,
    ``"binary"``); None for any other column."""
    import pyarrow as pa

    if isinstance(column.dtype, pd.ArrowDtype):
        kind = column.dtype.pyarrow_dtype
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        odd = (pa.types.is_nested, pa.types.is_binary, pa.types.is_large_binary,
               pa.types.is_fixed_size_binary)  # fmt: skip
        return _type_name(kind) if any(test(kind) for test in odd) else None
    values = column.cat.categories if isinstance(column.dtype, pd.CategoricalDtype) else column
    # only a column of Python objects can hold them; text columns are answered at once
    if values.dtype != object or pd.api.types.infer_dtype(values, skipna=True) not in (
            "bytes", "mixed", "mixed-integer", "unknown-array"):  # fmt: skip
        return None
    for value in values:
        if isinstance(value, bytes | bytearray | memoryview):
            return "binary"
        if isinstance(value, list | tuple | dict | set | np.ndarray):
            try:
                return _type_name(pa.array([value]).type)
            except (pa.ArrowException, TypeError, ValueError):  # a map comes back as pairs
                return "struct" if isinstance(value, dict) else "list"
    return None


def _type_name(kind: Any) -> str:
    return str(kind).replace("item: ", "")  # list<string>, not list<item: string>


def check_plain_values(table: pd.DataFrame, roles: Mapping[str, str]) -> None:
    """Raise :class:`InputError` for the first of the columns ``roles`` names (column →
    ``"quasi-identifier"``, ``"sensitive"`` or ``"insensitive"``) that holds lists, structs,
    maps or bytes (:func:`value_type`): none can be compared as a value, nor written to CSV
    as it was read. Columns not in ``table`` are left to the schema's checks."""
    for name, role in roles.items():
        kind = value_type(table[name]) if name in table.columns else None
        if kind is None:
            continue
        raise InputError(odd_values(name, kind, role))


def odd_values(name: str, kind: str, role: str | None = None) -> str:
    """The one line naming a column of ``kind`` values (:func:`value_type`) and what it
    cannot be: a quasi-identifier, or published (``role``); ``role`` None: a column given no
    role yet (what ``incrowd inspect`` says: it is withheld)."""
    if role == "quasi-identifier":
        return (f"column {name!r} holds {kind} values, which cannot be a quasi-identifier; "
                "turn each value into one text or number first")  # fmt: skip
    if role is None:
        return (f"column {name!r} holds {kind} values, which can be neither a quasi-"
                "identifier nor published: withheld (turn each value into one text first to "
                "use it)")  # fmt: skip
    return (f"column {name!r} ({role}) holds {kind} values, which cannot be published; "
            "turn each into one text first, or give the column no role (it is then "
            "not published)")  # fmt: skip
