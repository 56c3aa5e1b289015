"""CSV cells that a spreadsheet would run as a formula, neutralized as OWASP recommends.

A cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading
apostrophe, unless it is a plain number such as ``-5``; a cell that already begins with
apostrophes before such a character gets one more, so :func:`unescape_formulas` restores
every cell exactly. ``policy="refuse"`` raises an error naming the column and cell instead.
"""

from __future__ import annotations

import re
from typing import Literal

import pandas as pd

from ..errors import InputError

__all__ = ["FormulaPolicy", "escape_formulas", "unescape_formulas"]

FormulaPolicy = Literal["escape", "refuse"]

_TRIGGER = re.compile(r"^'*[=+\-@\t\r]")
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def escape_formulas(frame: pd.DataFrame, policy: FormulaPolicy = "escape") -> pd.DataFrame:
    """``frame`` with cells (and column names) a spreadsheet would execute neutralized."""
    if policy not in ("escape", "refuse"):
        msg = f"csv_formulas must be 'escape' or 'refuse', got {policy!r}"
        raise InputError(msg)
    names = [_escape_cell(str(c), policy, "a column name") for c in frame.columns]
    out = {}
    for name, col in zip(names, frame.columns, strict=True):
        series = frame[col]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            out[name] = series
            continue
        values = pd.unique(series.astype(str))
        mapping = {v: _escape_cell(v, policy, f"column {str(col)!r}") for v in values}
        changed = {v: e for v, e in mapping.items() if e != v}
        out[name] = series.astype(str).map(changed).fillna(series) if changed else series
    return pd.DataFrame(out, index=frame.index)


def unescape_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`escape_formulas` for a release table read from CSV."""
    names = [_unescape_cell(str(c)) for c in frame.columns]
    out = {}
    for name, col in zip(names, frame.columns, strict=True):
        series = frame[col]
        if series.dtype == object or pd.api.types.is_string_dtype(series):
            text = series.astype(str)
            hit = text.str.match(_ESCAPED.pattern).fillna(False).to_numpy(dtype=bool)
            if hit.any():
                series = series.copy()
                series[hit] = text[hit].str.slice(1)
        out[name] = series
    return pd.DataFrame(out, index=frame.index)


def _escape_cell(cell: str, policy: FormulaPolicy, where: str) -> str:
    if not _TRIGGER.match(cell) or _NUMBER.match(cell):
        return cell
    if policy == "refuse":
        msg = (
            f"{where} holds {cell!r}, which a spreadsheet would run as a formula; recode it, "
            "or let incrowd neutralize such cells (csv_formulas='escape', the default)"
        )
        raise InputError(msg)
    return "'" + cell


def _unescape_cell(cell: str) -> str:
    return cell[1:] if _ESCAPED.match(cell) else cell
