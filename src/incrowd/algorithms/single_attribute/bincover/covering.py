"""What every bin covering algorithm shares: the items checked, the result, the lower bound.

A :class:`Covering` groups values into classes; :func:`lower_bound` is
``max(k, max x, ⌈W / ⌊W/k⌋⌉)``, at most the largest class of any covering (every class
holds ``k``; some class holds the largest item; at most ``⌊W/k⌋`` classes share ``W``
records). Time :math:`O(n)`.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 4.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ....costs import Classes, largest_lower_bound
from ....errors import InfeasibleError, ParameterError

__all__ = ["Covering", "Order", "lower_bound"]

Order = Literal["given", "ascending", "descending", "random"]


@dataclass(frozen=True)
class Covering(Classes):
    """Values grouped into classes: ``labels[i]`` is the class of value ``i``."""

    labels: np.ndarray
    loads: np.ndarray
    lower_bound: int
    algorithm: str


def checked_items(x: Sequence[int] | np.ndarray, k: int) -> np.ndarray:
    items = np.asarray(x)
    if items.ndim != 1 or items.size == 0:
        msg = "the counts must be a non-empty list of numbers"
        raise ParameterError(msg)
    if not np.issubdtype(items.dtype, np.integer):
        if not np.all(np.isfinite(items)) or np.any(items != np.round(items)):
            msg = "the counts must be whole numbers of records"
            raise ParameterError(msg)
    items = items.astype(np.int64)
    if (items <= 0).any():
        bad = int(np.flatnonzero(items <= 0)[0])
        msg = f"every count must be positive, got {int(items[bad])} at position {bad}"
        raise ParameterError(msg)
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k must be a positive integer, got {k!r}"
        raise ParameterError(msg)
    total = int(items.sum())
    if total < k:
        msg = f"the counts add up to {total} records, fewer than k={k}: no class can be formed"
        raise InfeasibleError(msg)
    return items


def lower_bound(x: Sequence[int] | np.ndarray, k: int) -> int:
    """``max(k, max x, ⌈W / ⌊W/k⌋⌉)``: at most the largest class of any covering."""
    return largest_lower_bound(checked_items(x, k), k)


def covering_of(labels: np.ndarray, items: np.ndarray, k: int, name: str) -> Covering:
    _, labels = np.unique(labels, return_inverse=True)
    loads = np.bincount(labels, weights=items).astype(np.int64)
    return Covering(labels.astype(np.intp), loads, lower_bound(items, k), name)


def ordering(items: np.ndarray, order: Order, seed: int | None) -> np.ndarray:
    if order == "given":
        return np.arange(items.size)
    if order == "ascending":
        return np.argsort(items, kind="stable")
    if order == "descending":
        return np.argsort(-items, kind="stable")
    if order == "random":
        return np.random.default_rng(seed).permutation(items.size)
    msg = f"order must be 'given', 'ascending', 'descending' or 'random', got {order!r}"
    raise ParameterError(msg)


def renamed(cover: Covering, name: str) -> Covering:
    return Covering(cover.labels, cover.loads, cover.lower_bound, name)
