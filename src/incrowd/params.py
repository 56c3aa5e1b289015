"""Checks of the parameters that many parts share, each in one place.

Every check raises :class:`~incrowd.ParameterError` (or :class:`~incrowd.InfeasibleError`
when the value is valid but the data cannot meet it) with a message naming the parameter.
"""

from __future__ import annotations

import numbers

from .errors import InfeasibleError, ParameterError

__all__ = ["check_k", "check_seed"]


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
