"""Numbers and numeric ranges as published: the one writer and the one reader of their text.

Every numeric label incrowd publishes or shows is made here — a crowd's range in a local
recoding, an interval or a band of a hierarchy, a bin of the report — in one style:

=================  =====================================================================
``104``            a number, in its shortest form: ``104`` (never ``104.0``), ``1.5``,
                   ``1234.5`` (a ``1.234,50`` read with ``--decimal ,``: ``.`` is the
                   decimal mark and there is no thousands separator in a published number,
                   so that every tool reads it back; trailing zeros are not kept)
``18-39``          the closed range 18 ≤ v ≤ 39 (both ends included); negative bounds keep
                   their sign: ``-10--1``
``65+``            65 and above
``<18``            below 18, 18 itself not
=================  =====================================================================

An interval of decimal numbers is written closed at the data's precision: values with two
decimals binned by 1000 are ``0-999.99``, ``1000-1999.99`` (the values of ``[0, 1000)``
exactly), not the half-open ``[0, 1000)`` of another notation.

:func:`read_range` reads a label back as the closed range ``(lo, hi)`` it names, which is
what NCP, the linkage attack and the report compute with: ``65+`` is ``(65, inf)`` and
``<18`` is ``(-inf, h)`` with ``h`` the float just below 18, so that ``lo ≤ v ≤ hi`` holds
for exactly the values the label covers; :func:`range_label` writes such a pair back as the
label (``range_label(*read_range(s)) == s`` for a label in the one style).
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

__all__ = ["decimals", "format_number", "last_below", "range_label", "read_range"]


def format_number(x: float) -> str:
    """Shortest text that reads back as exactly ``x``; whole numbers without a decimal point.

    >>> format_number(104.0), format_number(1.5), format_number(-0.0)
    ('104', '1.5', '0')
    """
    x = float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def range_label(lo: float, hi: float) -> str:
    """The label of the closed range ``lo ≤ v ≤ hi``: a number when ``lo == hi``, ``lo-hi``,
    ``lo+`` when ``hi`` is infinite, ``<b`` when ``lo`` is (``hi`` the float just below
    ``b``, as :func:`read_range` reads ``<b``).

    >>> range_label(18, 39), range_label(104.0, 104.0), range_label(65, float("inf"))
    ('18-39', '104', '65+')
    """
    lo, hi = float(lo), float(hi)
    if lo == -math.inf:
        return "<" + format_number(np.nextafter(hi, math.inf))
    if hi == math.inf:
        return format_number(lo) + "+"
    if lo == hi:
        return format_number(lo)
    return f"{format_number(lo)}-{format_number(hi)}"


def read_range(label: str) -> tuple[float, float] | None:
    """``(lo, hi)`` of a label that reads as a number, a range ``lo-hi`` (split at the first
    ``-`` after the first character with a number on each side and ``lo ≤ hi``), ``lo+`` or
    ``<b``; None for any other text (bounds must be finite numbers).

    >>> read_range("18-39"), read_range("-10--1"), read_range("65+"), read_range("x")
    ((18.0, 39.0), (-10.0, -1.0), (65.0, inf), None)
    """
    text = label.strip()
    point = _number(text)
    if point is not None:
        return point, point
    if text.startswith("<"):
        bound = _number(text[1:])
        return None if bound is None else (-math.inf, float(np.nextafter(bound, -math.inf)))
    if text.endswith("+"):
        bound = _number(text[:-1])
        return None if bound is None else (bound, math.inf)
    for i in range(1, len(text)):
        if text[i] != "-":
            continue
        lo, hi = _number(text[:i]), _number(text[i + 1 :])
        if lo is not None and hi is not None and lo <= hi:
            return lo, hi
    return None


def _number(text: str) -> float | None:
    """A finite number written as ``text`` (no sign after a ``<`` or before a ``+``)."""
    if not text or text[-1] == "+" or text[0] == "<":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def decimals(x: float) -> int:
    """Decimal places of ``x`` in its shortest form: 0 for ``104.0``, 2 for ``999.99``, 5 for
    ``1e-05``."""
    exponent = Decimal(repr(float(x))).normalize().as_tuple().exponent
    return max(0, -int(exponent))


def last_below(bound: Decimal, step: Decimal) -> float:
    """The closed top of ``[start, bound)`` for values on a grid of ``step``: ``bound − step``
    (``999.99`` below 1000 for cents), or the float just below ``bound`` when the data's
    precision is finer than a float tells apart there, so that the range never reaches
    ``bound`` itself.

    >>> last_below(Decimal(1000), Decimal("0.01")), last_below(Decimal(1), Decimal("1e-17"))
    (999.99, 0.9999999999999999)
    """
    top = float(bound - step)
    return min(top, float(np.nextafter(float(bound), -math.inf)))
