"""Checks of the parameters that many parts share, each in one place.

Every check raises :class:`~incrowd.ParameterError` (or :class:`~incrowd.InfeasibleError`
when the value is valid but the data cannot meet it) with a message naming the parameter.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping

from .errors import InfeasibleError, ParameterError, option

__all__ = [
    "Constraint",
    "CrowdSize",
    "Flag",
    "Function",
    "Interval",
    "Levels",
    "OneOf",
    "PositiveInt",
    "RISK_THRESHOLD",
    "RISK_THRESHOLD_DEFAULT",
    "Seed",
    "SetupCostValue",
    "Weights",
    "WholeNumber",
    "check_k",
    "check_level_bounds",
    "check_levels",
    "check_seed",
    "check_weights",
    "outlier_budget",
    "parse_levels",
]


def check_k(k: object, n: int, name: str = "k") -> int:
    """Validate a crowd size: an integer ≥ 2 and no larger than ``n``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        msg = f"{name} must be an integer >= 2, got {k!r}"
        raise ParameterError(msg)
    if k < 2:
        msg = f"{name} must be at least 2 (every crowd needs company), got {k}"
        raise ParameterError(msg)
    if n < k:
        msg = f"cannot hide {n} record(s) in crowds of at least {name}={k}: need at least {k}"
        raise InfeasibleError(msg)
    return int(k)


def check_seed(seed: object) -> int:
    """A seed must be a non-negative integer (it fixes the row shuffle and any randomness)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        msg = f"seed must be a non-negative integer, got {seed!r}"
        raise ParameterError(msg)
    return int(seed)


def outlier_budget(epsilon: float, n: int) -> int:
    """How many of ``n`` records a method with outlier budget ``epsilon`` (or suppression
    limit: the same share) may leave out: ``⌊εn⌋`` (with a tolerance for ``εn`` that should
    be whole but is rounded below)."""
    return int(math.floor(float(epsilon) * n + 1e-9))


# ------------------------------------------------------------------ declared constraints
class Constraint:
    """A parameter's allowed values, checked by :meth:`incrowd.Algorithm.fit`."""

    def check(self, name: str, value: object, n: int) -> object:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class CrowdSize(Constraint):
    """A crowd size ``k``: an integer ≥ 2 and at most the number of records; ``fixed``
    when the method only makes crowds of one size."""

    def __init__(self, fixed: int | None = None, *, minimum: int = 2) -> None:
        self.fixed = fixed
        self.minimum = minimum

    def check(self, name: str, value: object, n: int) -> object:
        if self.minimum == 1 and isinstance(value, numbers.Integral) and value == 1:
            if isinstance(value, bool):
                msg = f"{name} must be an integer >= 1, got {value!r}"
                raise ParameterError(msg)
            return 1
        if self.fixed is not None and value != self.fixed:
            msg = (
                f"{name} must be {self.fixed} for this method (it forms crowds around "
                f"{self.fixed} records), got {value!r}; the forest method takes any k"
            )
            raise ParameterError(msg)
        return check_k(value, n, name)

    def describe(self) -> str:
        if self.fixed is not None:
            return f"= {self.fixed}"
        return f"integer >= {self.minimum}"


class SetupCostValue(Constraint):
    """A setup cost: a non-negative number, or a function of (centers, radii)."""

    def check(self, name: str, value: object, n: int) -> object:
        if callable(value):
            return value
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not ok or not 0 <= float(value) < float("inf"):  # type: ignore[arg-type]
            msg = (
                f"{name} must be a non-negative number or a function f(centers, radii), "
                f"got {value!r}"
            )
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "number >= 0 | f(centers, radii)"


class OneOf(Constraint):
    def __init__(self, *values: object) -> None:
        self.values = values

    def check(self, name: str, value: object, n: int) -> object:
        if value not in self.values:
            choices = " or ".join(repr(v) for v in self.values)
            msg = f"{name} must be {choices}, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return " | ".join(map(str, self.values))


class Interval(Constraint):
    """A number in ``[low, high)`` (``closed_high`` for ``[low, high]``, ``open_low`` for
    ``(low, ...``)."""

    def __init__(self, low: float, high: float, *, open_low: bool = False,
                 closed_high: bool = False) -> None:  # fmt: skip
        self.low, self.high, self.open_low, self.closed_high = low, high, open_low, closed_high

    def check(self, name: str, value: object, n: int) -> object:
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if ok:
            v = float(value)  # type: ignore[arg-type]
            ok = (v > self.low if self.open_low else v >= self.low) and (
                v <= self.high if self.closed_high else v < self.high
            )
        if not ok:
            msg = f"{name} must be in {self.describe()}, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        left = "(" if self.open_low else "["
        right = "]" if self.closed_high else ")"
        return f"{left}{self.low:g}, {self.high:g}{right}"


#: A re-identification probability above which a record is at risk (``assess_risk``'s
#: ``threshold``, ``incrowd report --risk-threshold``, ``incrowd risk --threshold``).
RISK_THRESHOLD = Interval(0.0, 1.0, open_low=True, closed_high=True)
#: Its default: ARX's highest acceptable risk of 20 % (records above it are "at risk").
RISK_THRESHOLD_DEFAULT = 0.2


class WholeNumber(Constraint):
    """An integer of at least ``least`` (0: a whole number; 1: a positive integer)."""

    least = 0
    kind = "a whole number (0, 1, 2, ...)"

    def check(self, name: str, value: object, n: int) -> object:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < self.least:
            msg = f"{name} must be {self.kind}, got {value!r}"
            raise ParameterError(msg)
        return int(value)

    def describe(self) -> str:
        return f"integer >= {self.least}"


class PositiveInt(WholeNumber):
    least = 1
    kind = "a positive integer"


class Function(Constraint):
    """A function the method calls (or None)."""

    def check(self, name: str, value: object, n: int) -> object:
        if value is not None and not callable(value):
            msg = f"{name} must be a function or None, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "a function or None"


class Flag(Constraint):
    def check(self, name: str, value: object, n: int) -> object:
        if not isinstance(value, bool):
            msg = f"{name} must be True or False, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "True | False"


def check_weights(value: object, name: str = "weights") -> object:
    """Attribute weights: a mapping of names to positive, finite numbers.

    The one rule for attribute weights, wherever they are given (a method's ``weights``, the
    job file's ``[weights]``, ``--weights``): a weight is the attribute's distance scale
    (:class:`~incrowd.Numeric` divides its coordinate's spread by it), so 0 is refused;
    to leave an attribute out, leave it out of the quasi-identifiers.

    >>> check_weights({"age": 2, "zip": 0.5})
    {'age': 2, 'zip': 0.5}
    >>> check_weights({"age": 0})
    Traceback (most recent call last):
    ...
    incrowd.errors.ParameterError: weight of 'age' must be a positive number, got 0
    """
    if not isinstance(value, Mapping):
        msg = f"{name} must map attribute names to numbers, got {value!r}"
        raise ParameterError(msg)
    for key, w in value.items():
        ok = isinstance(w, numbers.Real) and not isinstance(w, bool)
        if not ok or not 0 < float(w) < float("inf"):  # type: ignore[arg-type]
            msg = f"weight of {key!r} must be a positive number, got {w!r}"
            raise ParameterError(msg)
    return value


def check_norm(norm: object) -> None:
    """The distance's norm: 1 (L1) or 2 (Euclidean); ``True`` is not 1.

    >>> check_norm(2)
    >>> check_norm(True)
    Traceback (most recent call last):
    ...
    incrowd.errors.ParameterError: norm must be 1 or 2, got True
    """
    if norm not in (1, 2) or isinstance(norm, bool):
        msg = f"norm must be 1 or 2, got {norm!r}"
        raise ParameterError(msg)


class Weights(Constraint):
    """Attribute weights: None, or a mapping checked by :func:`check_weights`."""

    def check(self, name: str, value: object, n: int) -> object:
        return value if value is None else check_weights(value, name)

    def describe(self) -> str:
        return "{name: weight > 0}"


def check_levels(value: object, name: str = "min_level") -> object:
    """Generalization levels per quasi-identifier (``min_level`` / ``max_level``): a
    mapping of names to whole numbers from 0 (0: the values themselves, 1: their parents in
    the hierarchy, ...). Whether a level exists for a column is checked against its
    hierarchy where the data is at hand
    (:func:`~incrowd.algorithms._shared.levels.level_bounds`).

    >>> check_levels({"age": 1})
    {'age': 1}
    >>> check_levels({"age": -1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    incrowd.errors.ParameterError: min_level={'age': -1}: a level is a whole number from 0 ...
    """
    if not isinstance(value, Mapping):
        msg = (f"{option(name)} must map quasi-identifier names to levels (whole numbers "
               f"from 0), got {value!r}")  # fmt: skip
        raise ParameterError(msg)
    for key, level in value.items():
        if isinstance(level, bool) or not isinstance(level, numbers.Integral) or level < 0:
            msg = (f"{option(name, {key: level})}: a level is a whole number from 0 (0: the "
                   "values themselves)")  # fmt: skip
            raise ParameterError(msg)
    return value


def check_level_bounds(min_level: Mapping | None, max_level: Mapping | None) -> None:
    """A minimum level above the maximum of the same column is refused, naming both.

    >>> check_level_bounds({"age": 2}, {"age": 1})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    incrowd.errors.ParameterError: min_level={'age': 2} is above max_level={'age': 1}: ...
    """
    for name, low in (min_level or {}).items():
        high = (max_level or {}).get(name)
        if high is not None and low > high:
            msg = (f"{option('min_level', {name: low})} is above "
                   f"{option('max_level', {name: high})}: "
                   f"no level of {name!r} fits both")  # fmt: skip
            raise ParameterError(msg)


def parse_levels(items: Mapping[str, object]) -> dict[str, object]:
    """Levels from ``{name: number or text}`` (``--min-level age=1``), as integers where
    they read as whole numbers; anything else is kept for :func:`check_levels` to refuse.

    >>> parse_levels({"age": "1", "zip": 2, "sex": "one"})
    {'age': 1, 'zip': 2, 'sex': 'one'}
    """
    out: dict[str, object] = {}
    for name, value in items.items():
        text = value.strip() if isinstance(value, str) else None
        out[str(name)] = int(text) if text is not None and text.isdigit() else value
    return out


class Levels(Constraint):
    """Levels per quasi-identifier (``min_level`` or ``max_level``; None or a mapping),
    checked by :func:`check_levels`."""

    def __init__(self, setting: str) -> None:
        self.setting = setting

    def check(self, name: str, value: object, n: int) -> object:
        return value if value is None else check_levels(value, self.setting)

    def describe(self) -> str:
        return "{name: level >= 0}"


class Seed(Constraint):
    """A seed: checked by :func:`check_seed`."""

    def check(self, name: str, value: object, n: int) -> object:
        return check_seed(value)

    def describe(self) -> str:
        return "integer >= 0"


class Places(Constraint):
    """Where a method looks up the point of each place: the name of a bundled table
    (``"us-zip"``), a CSV path, or a DataFrame."""

    def check(self, name: str, value: object, n: int) -> object:
        import pandas as pd

        if not isinstance(value, str | os.PathLike | pd.DataFrame):
            msg = f"{name} must be 'us-zip', a CSV path or a DataFrame, got {value!r}"
            raise ParameterError(msg)
        return value

    def describe(self) -> str:
        return "us-zip | path | DataFrame"
