"""Which cells of a table read from a file are missing: one rule for every reader (the command
line, the browser app, :func:`incrowd.read_table`, a blockwise run's chunks).

- Empty and blank cells are always missing.
- By default the tokens R and pandas read as missing are missing too: :data:`NA_TOKENS`
  (``NA``, ``N/A``, ``NaN``, ``null``, ``NULL``, ``None``, ``?``, ``-``).
- ``na_values`` (``--na-values``, the job file's ``na_values``) adds tokens (``unknown``);
  the empty token ``""`` in it turns the default tokens off, so only empty cells and the
  other listed tokens are missing (``--na-values ''``, ``na_values = [""]``).
- A token matches a cell's whole text, blanks around it ignored, case and all (``nan`` and
  ``n/a`` are not defaults): ``-12`` and ``N/A-3`` are not missing.
- It applies to the text cells of every file read: CSV, and Parquet text columns. A table
  given in memory (pandas, polars, Arrow) is taken as it is: the reader that made it has
  already decided what is missing.

A default token can be a real value in a column of text (``None`` as a category, ``-`` in a
note, ``NA`` for Namibia): when default tokens are read as missing in a column whose other
cells are mostly text (a letter in at least half of them), one warning line names the
columns, the tokens and their cells, and how to keep them (:func:`read_missing`). In a
column of numbers, dates or codes a token is a missing value and nothing is said.

Complexity: one hash pass over each text column (its distinct texts are then looked at),
none over a compact (categorical) column's cells.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import IncrowdWarning, option

__all__ = ["AS_WRITTEN", "NA_TOKENS", "NO_DEFAULT_TOKENS", "NO_DEFAULT_TOKENS_TEXT",
           "missing_tokens", "na_values_text", "parse_na_values", "read_missing"]  # fmt: skip

#: The cell texts read as missing by default, besides empty cells (R's and pandas' commonest).
NA_TOKENS: tuple[str, ...] = ("NA", "N/A", "NaN", "null", "NULL", "None", "?", "-")
#: In ``na_values``: the default tokens are off (only empty cells and the listed ones).
NO_DEFAULT_TOKENS = ""
#: :data:`NO_DEFAULT_TOKENS` as a text field spells it (the app's; the shell's ``''``): an
#: empty field gives no tokens at all, so the default tokens stay on.
NO_DEFAULT_TOKENS_TEXT = "''"
#: The ``na_values`` that read a file as it was written, only its empty cells missing (a
#: release incrowd wrote: a published ``-`` or ``None`` stays a value).
AS_WRITTEN: tuple[str, ...] = (NO_DEFAULT_TOKENS,)
#: A column is text, where a default token could be a real value, when at least this share
#: of its other present cells holds a letter.
_TEXT_SHARE = 0.5
_LETTER = r"[^\W\d_]"
_SHOWN_COLUMNS = 3


def missing_tokens(na_values: Iterable[str] = ()) -> tuple[frozenset[str], frozenset[str]]:
    """``(defaults, given)``: the default tokens in force (none when ``na_values`` holds
    ``""``) and the tokens ``na_values`` adds (stripped).

    >>> missing_tokens(["unknown"])[0] == frozenset(NA_TOKENS)
    True
    >>> missing_tokens(["", " unknown "])
    (frozenset(), frozenset({'unknown'}))
    """
    given = {str(v).strip() for v in na_values}
    defaults = frozenset() if NO_DEFAULT_TOKENS in given else frozenset(NA_TOKENS)
    return defaults, frozenset(given - {NO_DEFAULT_TOKENS})


def parse_na_values(values: Iterable[str] | str | None) -> tuple[str, ...]:
    """``na_values`` as texts give them (``--na-values``, repeated or comma-separated; the
    app's field) as tokens: a value given empty (``--na-values ''``) or a part spelled
    ``''`` is :data:`NO_DEFAULT_TOKENS`, first; other parts stripped, empty ones dropped.

    >>> parse_na_values(["", "unknown"]), parse_na_values("'', n/a"), parse_na_values(None)
    (('', 'unknown'), ('', 'n/a'), ())
    """
    values = [values] if isinstance(values, str) else list(values or ())
    parts = [p.strip() for v in values for p in v.split(",")]
    off = any(not v.strip() for v in values) or NO_DEFAULT_TOKENS_TEXT in parts
    tokens = [p for p in parts if p and p != NO_DEFAULT_TOKENS_TEXT]
    return (NO_DEFAULT_TOKENS,) * off + tuple(dict.fromkeys(tokens))


def na_values_text(tokens: Iterable[str]) -> str:
    """``na_values`` as a text field shows it, read back by :func:`parse_na_values`:
    comma-separated, :data:`NO_DEFAULT_TOKENS` spelled ``''``.

    >>> na_values_text(["", "unknown"])
    "'',unknown"
    """
    return ",".join(NO_DEFAULT_TOKENS_TEXT if t == NO_DEFAULT_TOKENS else t for t in tokens)


def read_missing(
    frame: pd.DataFrame, na_values: Sequence[str] = (), *, warn: bool = True
) -> pd.DataFrame:
    """``frame`` with every token cell of its text columns missing (NaN; a categorical
    column loses the token's category), by the module's rule; ``warn``: one
    :class:`~incrowd.IncrowdWarning` line for default tokens read as missing in text
    columns. Other columns (numbers, dates, Arrow types) are returned as they are."""
    defaults, given = missing_tokens(na_values)
    tokens = defaults | given
    if not tokens:
        return frame
    changed: dict[str, pd.Series] = {}
    told: list[tuple[str, dict[str, int]]] = []
    for name in frame.columns:
        column = frame[name]
        found = _token_cells(column, tokens)
        if found is None:
            continue
        texts, counts, hit = found
        if isinstance(column.dtype, pd.CategoricalDtype):
            changed[name] = column.cat.remove_categories(column.cat.categories[hit])
        else:
            changed[name] = column.where(~column.isin(texts[hit]))
        by_default = hit & np.isin(texts.str.strip(), list(defaults))
        if warn and by_default.any() and _is_text(texts, counts, hit):
            told.append((str(name), _counts(texts[by_default].str.strip(), counts[by_default])))
    if told:
        warnings.warn(_told(told), IncrowdWarning, stacklevel=3)
    if not changed:
        return frame
    out = frame.copy(deep=False)
    for name, column in changed.items():
        out[name] = column
    return out


def _token_cells(
    column: pd.Series, tokens: frozenset[str]
) -> tuple[pd.Series, np.ndarray, np.ndarray] | None:
    """A text column's distinct texts (as written), the cells of each and which are tokens;
    None for a column that is not text or holds no token."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        if not len(categories) or pd.api.types.infer_dtype(categories) != "string":
            return None
        texts = pd.Series(np.asarray(categories, dtype=object), dtype=object)
        hit = texts.str.strip().isin(tokens).to_numpy(dtype=bool)
        if not hit.any():
            return None
        codes = column.cat.codes.to_numpy()
        counts = np.bincount(codes[codes >= 0], minlength=len(categories))
        return texts, counts, hit
    if not (column.dtype == object or pd.api.types.is_string_dtype(column.dtype)):
        return None
    if isinstance(column.dtype, pd.ArrowDtype) and not pd.api.types.is_string_dtype(column):
        return None
    if column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) not in (
            "string", "empty"):  # fmt: skip
        return None  # lists, bytes, mixed Python objects: not cells of text
    tally = column.value_counts(dropna=True, sort=False)
    texts = pd.Series(np.asarray(tally.index, dtype=object), dtype=object)
    hit = texts.str.strip().isin(tokens).to_numpy(dtype=bool)
    if not hit.any():
        return None
    return texts, tally.to_numpy(), hit


def _is_text(texts: pd.Series, counts: np.ndarray, hit: np.ndarray) -> bool:
    """Whether most of the column's other present cells hold a letter."""
    rest = ~hit & texts.str.strip().ne("").to_numpy(dtype=bool)
    lettered = rest & texts.str.contains(_LETTER, regex=True).to_numpy(dtype=bool)
    total = counts[rest].sum()
    return bool(total) and counts[lettered].sum() >= _TEXT_SHARE * total


def _counts(texts: pd.Series, counts: np.ndarray) -> dict[str, int]:
    out: dict[str, int] = {}
    for text, n in zip(texts, counts, strict=True):
        out[text] = out.get(text, 0) + int(n)
    return out


def _told(columns: list[tuple[str, dict[str, int]]]) -> str:
    shown = [f"{name!r} (" + ", ".join(f"{n} × {token!r}" for token, n in found.items()) + ")"
             for name, found in columns[:_SHOWN_COLUMNS]]  # fmt: skip
    more = len(columns) - _SHOWN_COLUMNS
    if more > 0:
        shown.append(f"and {more} more column{'s' if more > 1 else ''}")
    return (f"default missing tokens read as missing in text columns: {', '.join(shown)}; "
            f"if one is a real value, {option('na_values', [NO_DEFAULT_TOKENS])} keeps "
            "every such token as text")  # fmt: skip
