"""A column's missing-value marker: the one text a column of numbers, codes or dates holds for
"unknown" (``unknown``, ``n/a``, ``9999-99-99``), or the number written for it (``999``,
``99999``, ``-1``). ``incrowd inspect`` (and the browser app) propose it as missing (the job
file's ``na_values``); :func:`~incrowd.data.types.infer_column` otherwise names it in an error
(a text) or a warning (a number): a guess, so never applied unasked.

The rules (:func:`text_marker`, :func:`number_marker`), on the column's distinct texts:

1. **text**: every present text but ONE is a number (under one format), a date (under one
   format) or a code, and that one holds no digit (``unknown``, ``k.A.``) or is written in at
   least :data:`MIN_MARKER_CELLS` cells (``9999-99-99``): a one-off text with digits
   (``12a``) is a slip, which the type's error names. The rest holds at least two distinct
   values.
2. **number**: a number column holding, in at least :data:`MIN_MARKER_CELLS` cells, a run of
   nines (``999``, ``99999``: three digits or more) above :data:`FAR` times every other
   value's magnitude, or ``-1`` / ``-9`` / ``-99``… in a column otherwise never below zero.
   Exactly one such value (``99`` in ages up to 90 is an age, not a marker).

The common tokens (``NA``, ``-``…) are missing already when a file is read
(:mod:`incrowd.io.missing`); a marker is the column's own.

Complexity: a few vectorized passes over the distinct texts; a column of text (two texts
without a digit) is answered after the first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, option
from . import number_format as nf
from .cells import Distinct, first_row, show_cell

__all__ = ["FAR", "MIN_MARKER_CELLS", "marked", "number_marker", "text_marker", "without"]

#: What a rule of :mod:`.types` finds: the type, the warnings, the reason.
Found = tuple[Any, list[str], str]

#: A marker with digits (a text, or a number) is written in at least this many cells.
MIN_MARKER_CELLS = 2
#: A run of nines is a marker when above this many times every other value's magnitude.
FAR = 2.0
_DIGIT = "[0-9]"


def marked(
    column: pd.Series, name: str, d: Distinct, infer: Callable[[Distinct], Found],
    numbers: Callable[[Distinct], bool], *, fmt: nf.NumberFormat | tuple[None, None],
    propose: bool,
) -> tuple[Found, Distinct, tuple[str, int] | None]:  # fmt: skip
    """The column's inference by ``infer`` (rules 1-5 of :mod:`.types`) with its marker:
    ``(found, cells, (marker, its cells))``, the inference and cells those other than the
    marker's, when ``propose``; else an :class:`~incrowd.InputError` naming a text marker
    and a warning naming a number marker (``(found, d, None)``). ``numbers``: whether cells
    are numbers (a category of integer codes is numbers, one of words is text)."""
    i = text_marker(d, *fmt)
    if i is not None:
        rest = without(d, i)
        found = _values(rest, infer, numbers)
        text, cells = str(d.texts.iloc[i]), int(d.counts[i])
        if found is not None and propose:
            return found, rest, (text, cells)
        if found is not None:
            what = {"date": "dates", "code": "codes"}.get(found[0].kind, "numbers")
            first = show_cell(column, first_row(d, np.arange(len(d.texts)) == i))
            raise InputError(
                f"column {name!r} holds {what} except for {cells} cell{'s' if cells > 1 else ''} "
                f"{text!r} ({first}): list it with {option('na_values', [text])} if it means "
                f"missing, or {option('categorical', [name])} to treat every value as a label"
            )
    found = infer(d)
    if found[0].kind != "number":
        return found, d, None
    values = d.numbers if d.numbers is not None else nf.to_numbers(
        d.texts, (found[0].thousands, found[0].decimal))  # fmt: skip
    j = number_marker(values, d.counts)
    if j is None:
        return found, d, None
    text, cells = str(d.texts.iloc[j]), int(d.counts[j])
    if propose:
        rest = without(d, j)
        return infer(rest), rest, (text, cells)
    others = np.delete(values, j)
    where = "above" if values[j] > 0 else "below"
    found[1].append(f"column {name!r}: {cells} cells hold {text}, far {where} its other values "
                    f"({others.min():g} to {others.max():g}): "
                    f"{option('na_values', [text])} if it means missing")  # fmt: skip
    return found, d, None


def _values(d: Distinct, infer: Callable[[Distinct], Found],
            numbers: Callable[[Distinct], bool]) -> Found | None:  # fmt: skip
    """The inference of cells that are numbers, codes or dates (two distinct at least), else
    None (text, or cells no rule reads)."""
    if len(d.texts) < 2:
        return None
    try:
        found = infer(d)
    except InputError:
        return None
    if found[0].kind == "category" and not numbers(d):
        return None  # text: the marker is one more label
    return found


def text_marker(d: Distinct, thousands: str | None, decimal: str | None) -> int | None:
    """The index (in ``d.texts``) of the text that rule 1 may make a marker, or None; the
    caller checks that the rest is numbers, codes or dates."""
    texts = d.texts
    if d.dtype != "text" or len(texts) < 3:
        return None
    words = ~texts.str.contains(_DIGIT).to_numpy(dtype=bool)
    if words.sum() > 1:
        return None  # two texts without a digit: a column of text
    if words.sum() == 1:
        return int(np.flatnonzero(words)[0])
    odd = ~nf.most_fitting(texts, d.counts, thousands=thousands, decimal=decimal)[1]
    if odd.sum() > 1:
        from .dates import date_fits

        odd &= ~date_fits(texts)
    if odd.sum() != 1:
        return None
    i = int(np.flatnonzero(odd)[0])
    return i if d.counts[i] >= MIN_MARKER_CELLS else None


def number_marker(values: np.ndarray, counts: np.ndarray) -> int | None:
    """The index of the value rule 2 makes a marker among a number column's distinct
    ``values`` (rows per value: ``counts``), or None."""
    if values.size < 3:
        return None
    integral = np.isfinite(values) & (values == np.round(values)) & (np.abs(values) < 1e15)
    digits = pd.Series(np.abs(np.where(integral, values, 0)).astype(np.int64).astype(str))
    nines = integral & digits.str.fullmatch("9{3,}").to_numpy(dtype=bool) & (values > 0)
    negative = integral & (values < 0) & ((values == -1) | digits.str.fullmatch("9+").to_numpy(
        dtype=bool))  # fmt: skip
    found = []
    for i in np.flatnonzero((nines | negative) & (counts >= MIN_MARKER_CELLS)):
        others = np.delete(values, i)
        if (nines[i] and values[i] > FAR * np.abs(others).max()) or (
                negative[i] and others.min() >= 0):  # fmt: skip
            found.append(int(i))
    return found[0] if len(found) == 1 else None


def without(d: Distinct, i: int) -> Distinct:
    """``d`` with its text ``i`` made missing (its rows' code -1)."""
    keep = np.ones(len(d.texts), dtype=bool)
    keep[i] = False
    remap = np.append(np.cumsum(keep) - 1, -1)
    remap[i] = -1
    codes = remap[d.codes]  # code -1 picks the last entry: missing stays missing
    texts = d.texts[keep].reset_index(drop=True)
    numbers = None if d.numbers is None else d.numbers[keep]
    return dataclasses.replace(d, texts=texts, counts=d.counts[keep], codes=codes,
                               numbers=numbers)  # fmt: skip
