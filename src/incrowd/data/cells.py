"""A column's cells as text: its distinct stripped values (what type inference looks at), and
the cells in canonical form for the engine (:func:`normalize`).

Every step works on the distinct values and maps them back to the rows by their codes, so
a column of a million cells costs one hash pass plus work per distinct value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import InputError
from . import number_format as nf
from .hierarchy import value_key

if TYPE_CHECKING:
    from .types import ColumnType

__all__ = ["Distinct", "check_finite", "distinct_texts", "first_row", "labels", "normalize",
           "show_cell"]  # fmt: skip

#: The dtype of :attr:`Distinct.texts`.
TEXT = "string[pyarrow]"
_INTEGRAL = r"([+-]?[0-9]+)(?:\.0+)?"


@dataclass(frozen=True)
class Distinct:
    """A column's distinct present texts (stripped; in order of first appearance, except for
    a pandas categorical: its categories' order), the rows per text, each row's text (-1:
    missing), the column's dtype family: ``"text"``, ``"number"``, ``"bool"`` or
    ``"datetime"``, and for ``"number"`` each text's value."""

    texts: pd.Series
    counts: np.ndarray
    codes: np.ndarray
    dtype: str
    numbers: np.ndarray | None = None


def distinct_texts(column: pd.Series) -> Distinct:
    """The :class:`Distinct` texts of a column. Missing cells are those of
    :func:`incrowd.data.schema.is_missing`; numbers show as :func:`value_key` does (``8.0``
    as ``8``); ``" a"`` and ``"a"`` are one text.

    >>> d = distinct_texts(pd.Series([" b", "a", None, "b", " "]))
    >>> d.texts.tolist(), d.counts.tolist(), d.codes.tolist()
    (['b', 'a'], [2, 1], [0, 1, -1, 0, -1])
    """
    from .schema import is_missing  # schema may come to import this module: imported late

    dtype = column.dtype
    kind = ("bool" if pd.api.types.is_bool_dtype(dtype)
            else "datetime" if pd.api.types.is_datetime64_any_dtype(dtype)
            else "number" if pd.api.types.is_numeric_dtype(dtype) else "text")  # fmt: skip
    numbers = None
    if isinstance(dtype, pd.CategoricalDtype):
        uniques = pd.Series(np.asarray(column.cat.categories, dtype=object), dtype=object)
        codes = column.cat.codes.to_numpy().astype(np.intp)
    else:
        raw_codes, raw = pd.factorize(column)
        codes = raw_codes.astype(np.intp)
        if kind == "number":  # a categorical never is
            numbers = np.asarray(raw, dtype=np.float64)
            uniques = _number_texts(np.asarray(raw), numbers)
        else:
            uniques = pd.Series(np.asarray(raw, dtype=object), dtype=object)
    if kind != "number" and pd.api.types.infer_dtype(uniques, skipna=True) not in (
        "string", "empty"):  # fmt: skip
        uniques = uniques.map(str)
    # Arrow strings: the rules' regular expressions run in C, not once per text in Python
    shown = uniques.astype(TEXT).str.strip()
    merged, texts = pd.factorize(shown.where(~is_missing(shown)))  # " a" and "a": one text
    codes = np.append(merged, -1).astype(np.intp)[codes]  # code -1 picks the last: missing
    counts = np.bincount(codes[codes >= 0], minlength=len(texts))
    if numbers is not None:
        numbers = np.bincount(merged, numbers, minlength=len(texts)) / np.bincount(
            merged, minlength=len(texts))  # fmt: skip
    return Distinct(pd.Series(texts, dtype=TEXT), counts, codes, kind, numbers)


def _number_texts(raw: np.ndarray, values: np.ndarray) -> pd.Series:
    """Each number as :func:`value_key` shows it, vectorized: ``8.0`` as ``8``; a fraction in
    the shortest text that reads back the same (Arrow's, ``0.00001`` for ``1e-05``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if raw.dtype.kind in "iu":
        return pd.Series(raw.astype(str), dtype=object)
    texts = np.empty(len(values), dtype=object)
    integral = np.isfinite(values) & (values == np.round(values))
    exact = integral & (np.abs(values) < 2.0**53)
    texts[exact] = values[exact].astype(np.int64).astype(str)
    texts[integral & ~exact] = [value_key(v) for v in values[integral & ~exact]]
    if (~integral).any():
        shown = pc.cast(pa.array(values[~integral]), pa.string())
        texts[~integral] = shown.to_numpy(zero_copy_only=False)
    return pd.Series(texts, dtype=object)


def check_finite(d: Distinct, name: str) -> None:
    """An :class:`InputError` naming the first infinite number of a column of numbers (the
    engine measures ranges; Parquet and Arrow hold ``inf``): ``column 'age' row 1 holds inf:
    not a finite number``."""
    if d.numbers is not None and not np.isfinite(d.numbers).all():
        bad = ~np.isfinite(d.numbers)
        text = d.texts.iloc[int(np.flatnonzero(bad)[0])]
        msg = f"column {name!r} row {first_row(d, bad) + 1} holds {text}: not a finite number"
        raise InputError(msg)


def first_row(d: Distinct, bad: np.ndarray) -> int:
    """The first row (0-based) whose text is one of the ``bad`` ones (a mask over texts)."""
    return int(np.flatnonzero(np.isin(d.codes, np.flatnonzero(bad)))[0])


def show_cell(column: pd.Series, row: int) -> str:
    """``"row 5 holds 'abc'"``: a cell in a message (row 1-based; a number as Python shows
    it, ``inf``, never numpy's ``np.float64(inf)``)."""
    value = column.iloc[row]
    return f"row {row + 1} holds {value.item() if isinstance(value, np.generic) else value!r}"


def labels(d: Distinct, kind: str, width: int | None = None) -> np.ndarray:
    """The distinct texts as published labels: a category whose values are all integers
    (``8.0``, ``8``) loses the ``.0``; codes and other texts are kept as they are, except
    that digits of a code with a ``width`` get back their leading zeros."""
    texts = d.texts
    if kind == "category" and texts.size and texts.str.fullmatch(_INTEGRAL).all():
        texts = texts.str.extract(_INTEGRAL, expand=False)
    if kind == "code" and width is not None and texts.size:
        digits = texts.str.fullmatch("[0-9]+").to_numpy(dtype=bool)
        texts = texts.where(~digits, texts.str.pad(width, side="left", fillchar="0"))
    return np.asarray(texts, dtype=object)


def normalize(column: pd.Series, ctype: ColumnType, name: str) -> pd.Series:
    """The cells in canonical form, with the column's index, length and name; a missing cell
    stays missing.

    - number: float64, NaN where missing (integers exact up to 2**53);
    - code, category: stripped text (object dtype), None where missing; a category whose
      values are all integers (``8.0``, ``8``) reads ``8``; codes keep their text as it is;
    - date: ISO text (:func:`incrowd.data.dates.parse_dates`), None where missing.

    A cell that does not fit raises :class:`InputError` naming the column, its row
    (1-based) and its value.

    >>> from incrowd.data.types import ColumnType
    >>> normalize(pd.Series(["1,234", "", "8"]), ColumnType("number", ","), "n").tolist()
    [1234.0, nan, 8.0]
    >>> normalize(pd.Series([" 8.0", None, "2"]), ColumnType("category"), "c").tolist()
    ['8', None, '2']
    """
    if ctype.kind == "date":
        from .dates import parse_dates

        return parse_dates(column, ctype.date_format, name).rename(column.name)
    dtype = column.dtype
    if ctype.kind == "number" and pd.api.types.is_numeric_dtype(dtype) and not (
        pd.api.types.is_bool_dtype(dtype)):  # fmt: skip
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        return pd.Series(values, index=column.index, name=column.name)
    d = distinct_texts(column)
    present = d.codes >= 0
    if ctype.kind != "number":
        out = np.full(len(column), None, dtype=object)
        out[present] = labels(d, ctype.kind, ctype.width)[d.codes[present]]
        return pd.Series(out, index=column.index, name=column.name, dtype=object)
    fmt = (ctype.thousands, ctype.decimal)
    if d.dtype == "bool":
        msg = f"column {name!r} holds true/false values, not numbers"
        raise InputError(msg)
    numbers = nf.to_numbers(d.texts, fmt)
    bad = np.isnan(numbers)
    if bad.any():
        msg = (f"column {name!r}: {show_cell(column, first_row(d, bad))}, which is not a "
               f"number with {nf.describe(fmt)}")  # fmt: skip
        raise InputError(msg)
    picked = numbers[np.maximum(d.codes, 0)] if numbers.size else np.zeros(len(column))
    return pd.Series(np.where(present, picked, np.nan), index=column.index, name=column.name)
