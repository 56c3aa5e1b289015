"""Next Fit and what is built on it: Fold (Theorem 7), Spread, and sweeps over many ``k``.

- :func:`fold` — Theorem 7, linear time: items of ``k`` or more alone, Next Fit on the
  rest, a last bin under ``k`` merged into the lightest bin; **largest ≤ max(k − 1 + max x,
  3k − 3)**, under 3·OPT.
- :func:`spread` — the simplified Spread of the paper's experiment (Sec. 5), no bound.
- :func:`sweep` — the loads of either for every ``k`` of a list, in
  :math:`O(n + Σ_k (bins · \\log n + left over))`.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Sections 4 and 5.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from ...._runtime import jit
from ....errors import ParameterError
from .covering import Covering, Order, checked_items, covering_of, ordering

__all__ = ["fold", "next_fit", "spread", "sweep"]


@jit()
def _next_fit_starts(prefix, k):  # pragma: no cover - compiled
    """Next Fit over items with prefix sums ``prefix``: where each bin starts (and the end).

    A bin closes as soon as it holds ``k``; the last may hold less. O(bins · log n).
    """
    n = prefix.size - 1
    starts = np.empty(n + 1, np.int64)
    count, i = 0, 0
    while i < n:
        starts[count] = i
        count += 1
        i = min(np.searchsorted(prefix, prefix[i] + k), n)
    starts[count] = n
    return starts[: count + 1]


@jit()
def _spread_leftover(loads, items):  # pragma: no cover - compiled
    """Spread's placement of a short last bin's ``items`` (largest first) into the full
    bins ``loads`` (updated): each to the lightest bin while that keeps it at most the
    largest, the rest round-robin from the lightest. Returns the bin of each item."""
    top = loads.max()
    out = np.empty(items.size, np.int64)
    waiting = np.empty(items.size, np.int64)
    n_waiting = 0
    for t in range(items.size):
        b = np.argmin(loads)
        if loads[b] + items[t] <= top:
            out[t] = b
            loads[b] += items[t]
        else:
            waiting[n_waiting] = t
            n_waiting += 1
    cycle = np.argsort(loads, kind="mergesort")
    for s in range(n_waiting):
        b = cycle[s % cycle.size]
        out[waiting[s]] = b
        loads[b] += items[waiting[s]]
    return out


def next_fit(items: np.ndarray, sequence: np.ndarray, k: int) -> np.ndarray:
    """Next Fit: a bin closes as soon as it holds ``k``; labels in the order bins open."""
    prefix = np.concatenate(([0], np.cumsum(items[sequence]))).astype(np.int64)
    starts = _next_fit_starts(prefix, int(k))
    labels = np.empty(items.size, dtype=np.intp)
    labels[sequence] = np.repeat(np.arange(starts.size - 1), np.diff(starts))
    return labels


def fold(
    x: Sequence[int] | np.ndarray, k: int, *, order: Order = "given", seed: int | None = None
) -> Covering:
    """Theorem 7: items of ``k`` or more alone, Next Fit on the others in ``order``, and a
    last bin under ``k`` merged into the lightest bin.

    Every Next Fit bin but the last holds at most ``2k − 2``; the last, merged, adds under
    ``k``: **largest ≤ max(k − 1 + max x, 3k − 3)**. Time O(n) (O(n log n) sorted).
    """
    items = checked_items(x, k)
    sequence = ordering(items, order, seed)
    big = sequence[items[sequence] >= k]
    small = sequence[items[sequence] < k]
    labels = np.empty(items.size, dtype=np.intp)
    labels[big] = np.arange(big.size)
    if small.size:
        labels[small] = big.size + next_fit(items, small, k)[small]
    loads = np.bincount(labels, weights=items)
    last = int(labels[small[-1]]) if small.size else -1
    if last >= 0 and loads[last] < k:
        others = np.flatnonzero(np.arange(loads.size) != last)
        target = others[np.argmin(loads[others])]
        labels[labels == last] = target
    return covering_of(labels, items, k, "fold")


def spread(
    x: Sequence[int] | np.ndarray, k: int, *, order: Order = "given", seed: int | None = None
) -> Covering:
    """The simplified Spread of the paper's experiment (Sec. 5); no proven bound.

    Next Fit over all items in ``order``; the items of a last bin under ``k``, largest first,
    each go to the lightest bin while that keeps it at most the current largest, and the
    rest round-robin over the bins from the lightest. (The paper's wording leaves the order
    of the left-over items and of the round robin open; this is the reading of the spec
    notes.)
    """
    items = checked_items(x, k)
    sequence = ordering(items, order, seed)
    labels = next_fit(items, sequence, k)
    loads = np.bincount(labels, weights=items).astype(np.int64)
    last = loads.size - 1
    if loads[last] < k:
        left = np.flatnonzero(labels == last)
        left = left[np.argsort(-items[left], kind="stable")]
        full = loads[:last].copy()
        labels[left] = _spread_leftover(full, items[left])
    return covering_of(labels, items, k, "spread")


@jit()
def _sweep(ordered, ks, spread_mode):  # pragma: no cover - compiled
    """Largest class and number of classes of Fold (no item ≥ k) or Spread, per k."""
    prefix = np.zeros(ordered.size + 1, np.int64)
    prefix[1:] = np.cumsum(ordered)
    top_item = ordered.max()
    tally = np.zeros(top_item + 1, np.int64)
    largest = np.empty(ks.size, np.int64)
    classes = np.empty(ks.size, np.int64)
    for t in range(ks.size):
        k = ks[t]
        starts = _next_fit_starts(prefix, k)
        loads = prefix[starts[1:]] - prefix[starts[:-1]]
        last = loads.size - 1
        if last > 0 and loads[last] < k:
            full = loads[:last].copy()
            if spread_mode:  # the last bin's items, largest first, by counting
                tail = ordered[starts[last] :]
                for v in tail:
                    tally[v] += 1
                left = np.empty(tail.size, np.int64)
                j = 0
                for v in range(top_item, 0, -1):
                    for _ in range(tally[v]):
                        left[j] = v
                        j += 1
                    tally[v] = 0
                _spread_leftover(full, left)
            else:
                full[np.argmin(full)] += loads[last]
            loads = full
        largest[t] = loads.max()
        classes[t] = loads.size
    return largest, classes


def sweep(
    x: Sequence[int] | np.ndarray,
    ks: Sequence[int] | np.ndarray,
    algorithm: Literal["fold", "spread"],
    *,
    order: Order = "given",
    seed: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(largest, classes)`` of :func:`fold` or :func:`spread` for every ``k`` in ``ks``,
    the items in one ``order``: what the paper's experiment (Fig. 7) plots.

    Equal to calling the function once per ``k``, in O(n + Σ_k (bins · log n + left over))
    instead of O(n · |ks|), because only the loads are needed, never the labels.
    """
    ks = np.asarray(ks, dtype=np.int64)
    items = checked_items(x, int(ks.min()) if ks.size else 1)
    ordered = items[ordering(items, order, seed)]
    if algorithm not in ("fold", "spread"):
        msg = f"sweep runs fold or spread, got {algorithm!r}"
        raise ParameterError(msg)
    spread_mode = algorithm == "spread"
    easy = ks > items.max() if not spread_mode else np.ones(ks.size, dtype=bool)
    largest, classes = _sweep(ordered, ks[easy], spread_mode)
    out_largest = np.empty(ks.size, np.int64)
    out_classes = np.empty(ks.size, np.int64)
    out_largest[easy], out_classes[easy] = largest, classes
    for t in np.flatnonzero(~easy):  # Fold puts items of k or more alone: the general path
        found = fold(items, int(ks[t]), order=order, seed=seed)
        out_largest[t], out_classes[t] = found.largest, found.n_classes
    return out_largest, out_classes
