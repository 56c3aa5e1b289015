"""Number formats: the thousands separator and decimal mark a column of text is written with.

A *format* is a pair ``(thousands, decimal)``: ``thousands`` one of ``,`` ``.`` ``'`` `` ``
(a space; a no-break or narrow no-break space is read as one) or None, ``decimal`` ``.`` or
``,``. A text fits a format when it is an optional sign, digits (grouped by three with the
thousands separator, the first group 1–3 digits not starting with 0, or not grouped at all),
an optional decimal part and an optional exponent: ``1234.5``, ``-3``, ``1e5``, ``1,234``,
``1.234,5``, ``1'234.5``, ``1 234,5``. ``nan``, ``inf`` and numbers too large for a float do
not fit: the engine needs finite numbers.

Detection (:func:`detect`) tries :data:`FORMATS` in order on the distinct texts and keeps
those under which every text fits. When they read some text as different numbers (``1,234``:
1234 with thousands ``,`` or 1.234 with decimal ``,``), the reading with a thousands
separator that occurs in the texts is chosen and the other one is returned, so that the
caller can warn.

Complexity: one regular-expression pass per format whose separators occur in the texts,
over the distinct texts only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from ..errors import ParameterError

__all__ = ["FORMATS", "NumberFormat", "Reading", "check_number_format", "detect", "describe",
           "most_fitting", "to_numbers"]  # fmt: skip

NumberFormat = tuple[str | None, str]
#: Separators a format may use.
THOUSANDS = (",", ".", "'", " ")
DECIMALS = (".", ",")
#: The formats detection tries, in this order: plain first, thousands readings before the
#: decimal-comma reading of the same text.
FORMATS: tuple[NumberFormat, ...] = (
    (None, "."),
    (",", "."),
    (".", ","),
    (None, ","),
    ("'", "."),
    (" ", ","),
    (" ", "."),
)
_SPACES = " \u00a0\u202f"


def check_number_format(thousands: str | None, decimal: str | None) -> None:
    """Raise :class:`ParameterError` for an unknown separator or ``thousands == decimal``."""
    if thousands is not None and thousands not in THOUSANDS:
        msg = f"thousands separator must be one of , . ' or a space, got {thousands!r}"
        raise ParameterError(msg)
    if decimal is not None and decimal not in DECIMALS:
        msg = f"decimal mark must be '.' or ',', got {decimal!r}"
        raise ParameterError(msg)
    if thousands is not None and thousands == decimal:
        msg = f"the thousands separator and the decimal mark cannot both be {decimal!r}"
        raise ParameterError(msg)


def describe(fmt: NumberFormat) -> str:
    """``"thousands ',' and decimal '.'"`` or ``"decimal '.'"``: a format in a message."""
    thousands, decimal = fmt
    return (f"thousands {thousands!r} and " if thousands else "") + f"decimal {decimal!r}"


@cache
def _pattern(fmt: NumberFormat) -> str:
    thousands, decimal = fmt
    dec = re.escape(decimal)
    grouped = ""
    if thousands is not None:
        sep = f"[{_SPACES}]" if thousands == " " else re.escape(thousands)
        grouped = rf"[1-9]\d{{0,2}}(?:{sep}\d{{3}})+|"
    return rf"[+-]?(?:(?:{grouped}\d+)(?:{dec}\d*)?|{dec}\d+)(?:[eE][+-]?\d+)?"


def to_numbers(texts: pd.Series, fmt: NumberFormat) -> np.ndarray:
    """Each stripped text as a float under ``fmt``; NaN where it does not fit."""
    thousands, decimal = fmt
    fits = texts.str.fullmatch(_pattern(fmt)).fillna(False).to_numpy(dtype=bool)
    plain = texts[fits]
    if thousands == " ":
        plain = plain.str.replace(f"[{_SPACES}]", "", regex=True)
    elif thousands is not None:
        plain = plain.str.replace(thousands, "", regex=False)
    if decimal == ",":
        plain = plain.str.replace(",", ".", regex=False)
    values = np.full(len(texts), np.nan)
    if plain.size:
        values[fits] = _floats(plain)
    values[~np.isfinite(values)] = np.nan
    return values


def _floats(plain: pd.Series) -> np.ndarray:
    """Texts of plain numbers as floats: Arrow's cast (a tenth of pandas' time on a million
    texts), or pandas' parser if Arrow refuses one (a number out of a float's range)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(pa.array(plain), pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError):
        numbers = pd.to_numeric(plain, errors="coerce")
        return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def candidates(thousands: str | None, decimal: str | None) -> tuple[NumberFormat, ...]:
    """The formats consistent with a given thousands separator and / or decimal mark."""
    check_number_format(thousands, decimal)
    if thousands is not None and decimal is not None:
        return ((thousands, decimal),)
    found = tuple(f for f in FORMATS if thousands in (None, f[0]) and decimal in (None, f[1]))
    return found or ((thousands, decimal or "."),)


@dataclass(frozen=True)
class Reading:
    """A column's texts read as numbers: ``fmt`` and ``values`` (aligned with the texts);
    ``other`` / ``other_values``: a second format under which every text fits too but some
    reads differently (None: the reading is not ambiguous)."""

    fmt: NumberFormat
    values: np.ndarray
    other: NumberFormat | None = None
    other_values: np.ndarray | None = None


def detect(
    texts: pd.Series, *, thousands: str | None = None, decimal: str | None = None
) -> Reading | None:
    """The reading of distinct stripped ``texts`` under the first format (of those
    consistent with ``thousands`` / ``decimal``) under which every text fits; None if none.

    >>> r = detect(pd.Series(["1,234", "12"]))
    >>> r.fmt, r.values.tolist(), r.other, r.other_values.tolist()
    ((',', '.'), [1234.0, 12.0], (None, ','), [1.234, 12.0])
    >>> detect(pd.Series(["1.234,5", "7"])).fmt
    ('.', ',')
    >>> detect(pd.Series(["1.5", "n/a"])) is None
    True
    """
    used = _used_separators(texts)
    fitting: list[tuple[NumberFormat, np.ndarray]] = []
    tried: set[tuple[str | None, str | None]] = set()
    for fmt in candidates(thousands, decimal):
        # a separator that occurs in no text changes nothing: that reading was tried already
        key = (fmt[0] if fmt[0] in used else None, fmt[1] if fmt[1] in used else None)
        if key in tried:
            continue
        tried.add(key)
        values = to_numbers(texts, fmt)
        if not np.isnan(values).any():
            fitting.append((_shown(fmt, used), values))
    if not fitting:
        return None
    first_fmt, first_values = fitting[0]
    others = [(f, v) for f, v in fitting[1:] if not np.array_equal(v, first_values)]
    if not others:
        return Reading(first_fmt, first_values)
    grouped = [(f, v) for f, v in fitting if f[0] is not None]
    fmt, values = grouped[0] if grouped else fitting[0]
    other = next((f, v) for f, v in fitting if not np.array_equal(v, values))
    return Reading(fmt, values, *other)


def most_fitting(
    texts: pd.Series, counts: np.ndarray, *, thousands: str | None = None,
    decimal: str | None = None,
) -> tuple[NumberFormat, np.ndarray]:  # fmt: skip
    """``(fmt, fits)``: the format under which the most rows (``counts`` per text) fit, and
    which texts fit under it."""
    best: tuple[NumberFormat, np.ndarray] | None = None
    for fmt in candidates(thousands, decimal):
        fits = ~np.isnan(to_numbers(texts, fmt))
        if best is None or counts[fits].sum() > counts[best[1]].sum():
            best = (fmt, fits)
    assert best is not None  # candidates() is never empty
    return best


def _used_separators(texts: pd.Series) -> set[str]:
    used = {c for c in (",", ".", "'") if texts.str.contains(c, regex=False).any()}
    return used | ({" "} if texts.str.contains(f"[{_SPACES}]").any() else set())


def _shown(fmt: NumberFormat, used: set[str]) -> NumberFormat:
    """The format as reported: a separator no text uses is left out (decimal '.' by default)."""
    thousands, decimal = fmt
    thousands = thousands if thousands in used else None
    if decimal not in used and thousands != ".":
        decimal = "."
    return thousands, decimal
