"""Column types: what kind of values a column holds (number, code, category or date), inferred
from its cells with care and always overridable, and its cells in canonical form.

A table read from CSV is text (:func:`incrowd.io.tables.read_table` reads only the missing
tokens, :mod:`incrowd.io.missing`); :func:`infer_column` decides each column's kind from its
distinct stripped texts, in this order (the first rule that applies decides):

1. **missing**: NA, None, NaN, empty or blank cells (:func:`incrowd.data.schema.is_missing`)
   are missing; they never decide a kind. A column with no present value is a category.
2. **code**: every present value is a string of ASCII digits and one has a leading zero
   (``02142``: length > 1), or all have the same width ≥ 4 (:data:`MIN_CODE_WIDTH`) and a
   word of the column's name suggests a code (:data:`CODE_WORDS`: zip, postcode, postal, plz,
   cp, fips, nuts, icd, code, id). Codes stay text and keep their zeros. Digit strings of
   one width ≥ 4 without such a name are numbers (a name suggesting a quantity, e.g.
   ``year``: no warning; else rule 3's integer codes when ≤ 20 distinct, else numbers with
   a warning naming ``code``). Codes with letters (NUTS ``DE300``, ICD ``J45.9``) are
   categories by rule 5. A column of a number type (a pandas or polars table, Parquet) is
   read by these rules as the digits its numbers show (``8.0`` as ``8``); whole numbers of
   several widths up to W ≥ 4 with such a name lost their zeros to the type (a zip read as
   a float): codes of W digits, zero-padded (``2142`` as ``02142``), with a warning naming
   ``numeric`` (``ColumnType.width``).
3. **number**: every present value is a number under one format (thousands separator,
   decimal mark; :mod:`incrowd.data.number_format`): plain ``1234.5`` / ``-3`` / ``1e5``,
   ``1,234.5``, ``1.234,5``, ``1234,5``, ``1'234.5``, ``1 234,5``. When two formats read
   the column differently (every separator could be either: ``1,234``), the thousands
   reading is taken, with a warning naming ``thousands`` and ``decimal``. A given
   ``thousands`` / ``decimal`` is applied strictly: a column that is numbers under another
   format, or that fits the given one except for at most 10 % of its cells, is an error
   naming the first cell that does not fit. Integral floats (``8.0``) are integers. A
   column of integers is a **category** (integer codes), with a warning naming
   ``numeric``, when it has at most 20 distinct values (:data:`MAX_CODED_CATEGORIES`),
   unless a word of its name suggests a measured quantity (:data:`QUANTITY_WORDS`: age,
   year, count, num, size, amount, income, price, weight, …: a number, no warning); a
   column of 0 and 1 only is a category without a warning.
4. **date**: every present value parses under one format of :mod:`incrowd.data.dates`
   (ISO first, detected on the distinct texts, or the given ``date_format``). When day
   first and month first both fit (``03/04/2024``), day first is taken, with a warning
   naming ``date_format``. Digits-only values are never dates (rules 2 and 3 take them).
   When at least 90 % of the cells are shaped like dates with a 4-digit year
   (``2024-02-30``, ``05/03/2024``) but not every cell parses, the first cell that does not
   is an error.
5. **category**: anything else (text; booleans too). A column whose present cells are
   numbers (or dates) except for at most 10 % text cells (:data:`MAX_TEXT_SHARE`) is an
   error naming the first text cell and its row: usually a data-entry slip or a missing
   marker.
6. **marker** (checked first; :mod:`incrowd.data.markers`): numbers, codes or dates but for
   ONE other text (``unknown``, ``9999-99-99``) are an error naming it and ``na_values``; a
   far-off ``999`` or ``-1`` among numbers a warning. :func:`infer_types` (``incrowd
   inspect``, the app) proposes it as missing: kind and counts are the other cells'.

A name's words and how they match the listed ones: :mod:`incrowd.data.column_names`
(``PatientID``: patient, id; ``zipcode`` matches zip and code).

A declared kind is taken as given; values that do not fit it (text in a number) are an
error naming the column, row and value. Each warning is one line saying what was guessed
and the flag that overrides it. :func:`normalize` gives the cells in canonical form.

Complexity: every rule works on the distinct values (one hash pass over the rows; regular
expressions and number parsing in Arrow's C code), so a column of a million cells takes a
fraction of a second with few distinct values, and seconds with a million.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InputError, ParameterError, SchemaError, option
from ..io.plain_values import odd_values, value_type
from . import number_format as nf
from .cells import Distinct, check_finite, distinct_texts, first_row, labels, normalize, show_cell
from .column_names import CODE_WORDS, QUANTITY_WORDS, has_word, propose_hierarchy, propose_role
from .column_type import KINDS, ColumnKind, ColumnType, Inference

__all__ = [
    "MAX_CODED_CATEGORIES",
    "MAX_TEXT_SHARE",
    "MIN_CODE_WIDTH",
    "ColumnKind",
    "ColumnType",
    "Inference",
    "infer_column",
    "infer_types",
    "normalize",
    "propose_hierarchy",
    "propose_role",
]

#: Integers with at most this many distinct values are read as category codes (rule 3).
MAX_CODED_CATEGORIES = 20
#: Digit strings of one width from this many digits may be codes (rule 2).
MIN_CODE_WIDTH = 4
#: Numbers (or dates) with at most this share of text cells are an error, not text (rule 5).
MAX_TEXT_SHARE = 0.1
_EXAMPLES = 5
_SAMPLE = 64
_DIGITS = r"[0-9]+"
#: A text shaped like a date with a 4-digit year (``1.2.3``, a version, is not one).
_DATE_SHAPE = r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})(?:[ T].*)?"
#: The setting that declares each kind (:func:`~incrowd.errors.option`).
_DECLARE = {"number": "numeric", "code": "code", "category": "categorical", "date": "date"}


def infer_column(
    column: pd.Series,
    name: str,
    *,
    declared: ColumnKind | None = None,
    thousands: str | None = None,
    decimal: str | None = None,
    date_format: str | None = None,
    markers: bool = False,
) -> Inference:
    """The column's type by the module's rules (or ``declared``), with its warnings.

    Raises :class:`InputError` for values that do not fit a declared kind or a given number
    format, for numbers or dates with a few text cells (rule 5), for a text marker (rule 6;
    with ``markers``, it is proposed instead: the inference's ``marker``, the column read
    without it), and for lists, structs or bytes and infinite numbers.

    >>> infer_column(pd.Series(["02142", "60615", None]), "zip").type.kind
    'code'
    >>> from incrowd.errors import python_text
    >>> inf = infer_column(pd.Series(["1", "3", "7", "3"]), "relat")
    >>> inf.type.kind, [python_text(w) for w in inf.warnings]
    ('category', ["column 'relat' holds 3 distinct integers (1-7): read as category codes; numeric=['relat'] to treat them as numbers"])
    """  # noqa: E501
    nf.check_number_format(thousands, decimal)
    if declared is not None and declared not in KINDS:
        msg = f"column {name!r}: kind must be one of {', '.join(KINDS)}, got {declared!r}"
        raise ParameterError(msg)
    nested = value_type(column)
    if nested is not None:  # lists, bytes: no value to hash, compare or publish
        raise InputError(odd_values(name, nested))
    d = distinct_texts(column)
    check_finite(d, name)
    n_missing = int((d.codes < 0).sum())
    marker: tuple[str, int] | None = None
    if declared is not None:
        ctype, warnings, reason = _declared(column, name, d, declared, thousands, decimal,
                                            date_format)  # fmt: skip
    else:
        (ctype, warnings, reason), d, marker = _marked(column, name, d, thousands, decimal,
                                                       date_format, markers)  # fmt: skip
    examples = tuple(str(t) for t in d.texts.iloc[:_EXAMPLES])
    words = float(d.texts.str.count(r"\S+").mean()) if d.dtype == "text" and d.texts.size else 0.0
    return Inference(name, ctype, n_missing, _n_distinct(d, ctype), examples, tuple(warnings),
                     reason, words, *(marker or (None, 0)))  # fmt: skip


_Found = tuple[ColumnType, list[str], str]


def _declared(column: pd.Series, name: str, d: Distinct, kind: str, thousands: str | None,
              decimal: str | None, date_format: str | None) -> _Found:  # fmt: skip
    flag = option(_DECLARE[kind], [name])
    if kind == "number":
        if d.dtype == "bool":
            msg = f"column {name!r} holds true/false values, not numbers ({flag})"
            raise InputError(msg)
        reading = _reading(d, thousands, decimal)
        if reading is None:
            fmt, fits = nf.most_fitting(d.texts, d.counts, thousands=thousands, decimal=decimal)
            msg = (f"column {name!r} is declared numeric ({flag}) but "
                   f"{show_cell(column, first_row(d, ~fits))}, not a number "
                   f"({nf.describe(fmt)}; {option('thousands')} and {option('decimal')} set "
                   "the format)")  # fmt: skip
            raise InputError(msg)
        warnings = _format_warning(name, d, reading)
        return ColumnType("number", *reading.fmt), warnings, f"declared numeric ({flag})"
    if kind == "date":
        if d.dtype != "datetime" and d.texts.size:
            from .dates import detect_date_format, parse_dates

            fmt = date_format or detect_date_format(d.texts.tolist())[0]
            parse_dates(column, fmt, name)  # raises for a cell that is not a date
            date_format = fmt
        return ColumnType("date", date_format=date_format), [], f"declared a date ({flag})"
    if kind == "code" and d.dtype == "number" and d.texts.str.fullmatch(_DIGITS).all():
        found = _lost_zeros(name, d, d.texts.str.len())  # the zeros a number type dropped
        if found is not None:
            return ColumnType("code", width=found[0].width), [], f"declared a code ({flag})"
    return ColumnType(kind), [], f"declared {kind} ({flag})"  # type: ignore[arg-type]


def _lost_zeros(name: str, d: Distinct, widths: pd.Series) -> _Found | None:
    """Rule 2 for whole numbers held as numbers (a table made in Python, Parquet): of several
    widths up to W >= MIN_CODE_WIDTH, with a name that suggests a code, they are codes of W
    digits whose leading zeros the number type dropped (a zip read as a float)."""
    top, low = int(widths.max()), int(widths.min())
    if not len(widths) or top < MIN_CODE_WIDTH or low == top:
        return None
    short = str(d.texts[widths < top].iloc[0])
    warning = (f"column {name!r} holds whole numbers of {low} to {top} digits and its name "
               f"suggests a code: read as {top}-digit codes, their leading zeros restored "
               f"({short} as {short.zfill(top)}); {option('numeric', [name])} if they are "
               "numbers")  # fmt: skip
    return ColumnType("code", width=top), [warning], f"whole numbers: {top}-digit codes by the name"


def _reading(d: Distinct, thousands: str | None, decimal: str | None) -> nf.Reading | None:
    if d.numbers is not None:  # numbers already: read as they are
        return nf.Reading((None, "."), d.numbers) if np.isfinite(d.numbers).all() else None
    return nf.detect(d.texts, thousands=thousands, decimal=decimal)


def _infer(column: pd.Series, name: str, d: Distinct, thousands: str | None,
           decimal: str | None, date_format: str | None) -> _Found:  # fmt: skip
    if not d.texts.size:
        return ColumnType("category"), [], "no present values"
    if d.dtype == "bool":
        return ColumnType("category"), [], "true/false values"
    if d.dtype == "datetime":
        return ColumnType("date"), [], "datetime values"
    n = len(d.texts)
    if d.texts.str.fullmatch(_DIGITS).all():
        widths = d.texts.str.len()
        zero = d.texts[widths > 1].str.startswith("0")
        if zero.any():
            example = d.texts[widths > 1][zero].iloc[0]
            return ColumnType("code"), [], f"digit strings with a leading zero ({example!r})"
        width = int(widths.iloc[0])
        if width >= MIN_CODE_WIDTH and (widths == width).all():
            if has_word(name, CODE_WORDS):
                return ColumnType("code"), [], f"{width}-digit strings, a code by its name"
            if not has_word(name, QUANTITY_WORDS) and n > MAX_CODED_CATEGORIES:
                warning = (f"column {name!r} holds {width}-digit integers of equal width: read "
                           f"as numbers; {option('code', [name])} if they are codes")  # fmt: skip
                return ColumnType("number"), [warning], f"{width}-digit integers"
        if d.dtype == "number" and has_word(name, CODE_WORDS):
            found = _lost_zeros(name, d, widths)
            if found is not None:
                return found
    reading = _reading(d, thousands, decimal)
    if reading is not None:
        return _number(name, d, reading)
    if thousands is not None or decimal is not None:  # a given format is applied strictly
        fmt, fits = nf.most_fitting(d.texts, d.counts, thousands=thousands, decimal=decimal)
        if _reading(d, None, None) is not None or _mostly(d, fits):
            msg = (f"column {name!r}: {show_cell(column, first_row(d, ~fits))}, which is not a "
                   f"number with {nf.describe(fmt)} ({option('thousands')}, "
                   f"{option('decimal')})")  # fmt: skip
            raise InputError(msg)
    elif _mostly(d, d.texts.str.contains("[0-9]").to_numpy(dtype=bool)):  # else: text
        fits = nf.most_fitting(d.texts, d.counts)[1]
        if _mostly(d, fits):
            raise _mixed(column, name, d, fits, "numbers")
    found = _date(column, name, d, date_format)
    if found is not None:
        return found
    return ColumnType("category"), [], "text"


def _marked(column: pd.Series, name: str, d: Distinct, thousands: str | None,
            decimal: str | None, date_format: str | None,
            propose: bool) -> tuple[_Found, Distinct, tuple[str, int] | None]:  # fmt: skip
    """Rules 1-5 with rule 6 (:func:`.markers.marked`)."""
    from .markers import marked

    return marked(column, name, d, lambda cells: _infer(column, name, cells, thousands, decimal,
                                                        date_format),
                  lambda cells: _reading(cells, thousands, decimal) is not None,
                  fmt=(thousands, decimal), propose=propose)  # fmt: skip


def _mostly(d: Distinct, fits: np.ndarray) -> bool:
    """Whether the texts that do not fit are at most MAX_TEXT_SHARE of the present cells."""
    return bool(fits.any()) and d.counts[~fits].sum() <= MAX_TEXT_SHARE * d.counts.sum()


def _mixed(column: pd.Series, name: str, d: Distinct, fits: np.ndarray, what: str) -> InputError:
    cell = show_cell(column, first_row(d, ~fits))
    return InputError(
        f"column {name!r} holds {what} except for some text: {cell}; fix those cells, list "
        f"them with {option('na_values')} if they mean missing, or "
        f"{option('categorical', [name])} to treat "
        "every value as a label"
    )


def _number(name: str, d: Distinct, reading: nf.Reading) -> _Found:
    values = reading.values
    if np.array_equal(values, np.round(values)):
        distinct = np.unique(values)
        if set(distinct.tolist()) <= {0.0, 1.0}:
            return ColumnType("category"), [], "0/1 values"
        if distinct.size <= MAX_CODED_CATEGORIES and not has_word(name, QUANTITY_WORDS):
            lo, hi = int(distinct[0]), int(distinct[-1])
            warning = (
                f"column {name!r} holds {distinct.size} distinct integers ({lo}-{hi}): "
                f"read as category codes; {option('numeric', [name])} to treat them as numbers"
            )
            return (
                ColumnType("category"),
                [warning],
                f"{distinct.size} distinct integers (at most {MAX_CODED_CATEGORIES}): codes",
            )
        why = "integers" if distinct.size > MAX_CODED_CATEGORIES else "a quantity by its name"
    else:
        why = "numbers"
    fmt = reading.fmt
    if fmt != (None, "."):
        why += f" ({nf.describe(fmt)})"
    return ColumnType("number", *fmt), _format_warning(name, d, reading), why


def _format_warning(name: str, d: Distinct, reading: nf.Reading) -> list[str]:
    if reading.other is None or reading.other_values is None:
        return []
    i = int(np.flatnonzero(reading.values != reading.other_values)[0])
    one, two = reading.fmt, reading.other

    def flag(fmt: nf.NumberFormat) -> str:
        return option("thousands", fmt[0]) if fmt[0] else option("decimal", fmt[1])

    return [f"column {name!r}: {d.texts.iloc[i]!r} reads as {reading.values[i]:g} "
            f"({flag(one)}) or {reading.other_values[i]:g} ({flag(two)}): read as "
            f"{reading.values[i]:g}; give either to decide"]  # fmt: skip


def _date(column: pd.Series, name: str, d: Distinct, date_format: str | None) -> _Found | None:
    """Rule 4: the column as dates, or None; an error for dates with a few text cells."""
    from .dates import detect_date_format, parse_dates

    shaped = d.texts.str.fullmatch(_DATE_SHAPE).to_numpy(dtype=bool)
    if date_format is not None:
        try:
            parse_dates(d.texts, date_format, name)
        except InputError:
            if _mostly(d, shaped):
                parse_dates(column, date_format, name)  # names the first cell that fails
            return None
        return ColumnType("date", date_format=date_format), [], f"dates ({date_format})"
    # a format under which every text parses parses the first ones: try those first
    sample = detect_date_format(d.texts.iloc[:_SAMPLE].tolist())[0]
    fmt, others = detect_date_format(d.texts.tolist()) if sample else (None, ())
    if fmt is None:
        if _mostly(d, shaped):
            if detect_date_format(d.texts[shaped].tolist())[0] is not None and not shaped.all():
                raise _mixed(column, name, d, shaped, "dates")
            parse_dates(column, None, name)  # names the first cell that is not a date
        return None
    order = _field_order(fmt)
    other = next((f for f in others if _field_order(f) != order), None)
    warnings = [] if other is None else [
        f"column {name!r}: dates like {d.texts.iloc[0]!r} read as {fmt}, could be {other}; "
        f"{option('date_format', other)} if so"]  # fmt: skip
    return ColumnType("date", date_format=fmt), warnings, f"dates ({fmt})"


def _field_order(fmt: str) -> tuple[int, ...]:
    return tuple(sorted(range(3), key=lambda i: fmt.find(("%Y", "%m", "%d")[i])))


def _n_distinct(d: Distinct, ctype: ColumnType) -> int:
    if ctype.kind == "number" and d.dtype == "text":  # "1,234" and "1234" are one number
        values = nf.to_numbers(d.texts, (ctype.thousands, ctype.decimal))
        return int(np.unique(values).size)
    if ctype.kind == "category":
        return int(pd.unique(labels(d, "category")).size)
    return len(d.texts)


def infer_types(
    table: pd.DataFrame,
    columns: Sequence[str],
    *,
    declared: Mapping[str, ColumnKind] | None = None,
    thousands: str | None = None,
    decimal: str | None = None,
    date_format: str | None = None,
) -> dict[str, Inference]:
    """What ``incrowd inspect`` and the app show of each of ``columns``: its
    :func:`infer_column` with a missing-value marker proposed (rule 6), and a column no kind
    reads shown all the same, what is wrong in its ``problem``
    (:func:`~incrowd.data.inspection.unreadable`). ``declared``: a kind per column; the
    number and date formats apply to every column."""
    from .inspection import unreadable

    declared = dict(declared or {})
    unknown = [c for c in list(columns) + list(declared) if c not in table.columns]
    if unknown:
        msg = f"unknown column {unknown[0]!r}; the table has: {', '.join(map(str, table))}"
        raise SchemaError(msg)
    found = {}
    for name in columns:
        try:
            found[name] = infer_column(table[name], name, declared=declared.get(name),
                                       thousands=thousands, decimal=decimal,
                                       date_format=date_format, markers=True)  # fmt: skip
        except InputError as exc:
            found[name] = unreadable(table[name], name, exc)
    return found
