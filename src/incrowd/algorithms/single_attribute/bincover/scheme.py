"""The approximation scheme of min-max bin covering (Theorem 10).

:func:`ptas`: **largest ≤ (1 + ε)(OPT + k)** (so under 2(1 + ε)·OPT): the paper's rounding
of the large items, enumeration of their packings, greedy completion and merging; for small
inputs and large ε only (it refuses an enumeration larger than :data:`MAX_TYPES` types or
:data:`MAX_STEPS` steps). Time exponential in ``1/ε``.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 4, Theorem 10.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....errors import ParameterError
from .covering import Covering, checked_items, covering_of, renamed
from .next_fit import fold

__all__ = ["MAX_STEPS", "MAX_TYPES", "ptas"]

#: The largest number of packings of the rounded large items :func:`ptas` enumerates.
MAX_TYPES = 20_000
#: ... and the configurations its search of them may try.
MAX_STEPS = 300_000


def ptas(x: Sequence[int] | np.ndarray, k: int, epsilon: float = 0.5) -> Covering:
    """Theorem 10: **largest ≤ (1 + ε)(OPT + k)**, as the paper gives it.

    1. *OPT ≤ 3k.* With ``k`` or more records in items under ``k``: if an item is ``3k``
       or more, :func:`fold` is optimal (its largest class is that item); otherwise fold's
       ``< 3k`` bounds OPT. With fewer, every class holds exactly one item of ``k`` or
       more: if the largest exceeds the smallest by ``k``, all small items join the
       smallest (optimal); otherwise ``t₀ − k`` comes off every such item (``t₀`` the
       smallest of them) and is added back to the result.
    2. Items of at least ``εk`` are *large*, rounded down to ``εk(1 + ε)^ℓ``; every packing
       of the rounded large items into at most ``⌊W/k⌋`` bins of level ≤ ``3k`` (a *type*)
       is enumerated, with each number of empty bins.
    3. Per type: the real large items take their rounded places, each small item goes to
       the lightest bin, and the two lightest bins merge while one is under ``k``.

    The type of an optimal covering gives at most ``(1 + ε) OPT`` before completion, the
    completion adds under ``εk``, the merging at most ``k``. Raises ParameterError when more
    than :data:`MAX_TYPES` types would be enumerated (take a larger ε).
    """
    items = checked_items(x, k)
    if not isinstance(epsilon, int | float) or not 0 < epsilon <= 1:
        msg = f"epsilon must be in (0, 1], got {epsilon!r}"
        raise ParameterError(msg)
    small_total = int(items[items < k].sum())
    over = np.flatnonzero(items >= k)
    if small_total >= k:
        if items.max() >= 3 * k:
            return renamed(fold(items, k), "ptas")
        work = items
    else:
        t0, t1 = int(items[over].min()), int(items[over].max())
        if t1 - t0 >= k:
            labels = np.empty(items.size, dtype=np.intp)
            labels[over] = np.arange(over.size)
            labels[items < k] = int(np.argmin(items[over]))
            return covering_of(labels, items, k, "ptas")
        work = items.copy()
        work[over] -= t0 - k  # every class keeps exactly one of them: added back after
    return covering_of(_ptas_core(work, k, float(epsilon)), items, k, "ptas")


def _ptas_core(items: np.ndarray, k: int, epsilon: float) -> np.ndarray:
    """Steps 2–3 on items whose optimum is at most ``3k``: the best type's labels."""
    unit = epsilon * k
    n_sizes = 0
    while unit * (1 + epsilon) ** (n_sizes + 1) < 3 * k:
        n_sizes += 1
    sizes = unit * (1 + epsilon) ** np.arange(n_sizes + 1)
    large = np.flatnonzero(items >= unit)
    small = np.flatnonzero(items < unit)
    # rounded class of each large item: the largest size at most the item
    cls = np.searchsorted(sizes, items[large], side="right") - 1
    cls = np.minimum(cls, n_sizes)
    counts = np.bincount(cls, minlength=n_sizes + 1)
    max_bins = int(items.sum()) // k
    configs = _configurations(sizes, counts, 3 * k)
    members = [large[cls == c] for c in range(n_sizes + 1)]
    packings, n_types = [], 0
    for packing in _packings(counts, configs, max_bins):  # all first: refuse before work
        packings.append(packing)
        n_types += max_bins - len(packing) + 1
        if n_types > MAX_TYPES:
            msg = (
                f"epsilon={epsilon} needs more than {MAX_TYPES} packings of the large "
                "values; take a larger epsilon or another algorithm"
            )
            raise ParameterError(msg)
    best_labels, best_max = None, np.inf
    for packing in packings:
        for empty in range(max_bins - len(packing) + 1):
            labels = _complete(items, packing, members, small, empty, k)
            if labels is None:
                continue
            top = np.bincount(labels, weights=items).max()
            if top < best_max:
                best_labels, best_max = labels, top
    assert best_labels is not None
    return best_labels


def _configurations(sizes: np.ndarray, counts: np.ndarray, cap: float) -> list[tuple[int, ...]]:
    """Every non-empty bin content (a count per size) of level at most ``cap``."""
    out: list[tuple[int, ...]] = []

    def extend(prefix: list[int], level: float) -> None:
        if len(out) > MAX_TYPES:
            msg = (
                f"more than {MAX_TYPES} bin contents of the large values; take a larger "
                "epsilon or another algorithm"
            )
            raise ParameterError(msg)
        j = len(prefix)
        if j == sizes.size:
            if any(prefix):
                out.append(tuple(prefix))
            return
        c = 0
        while c <= counts[j] and level + c * sizes[j] <= cap + 1e-9:
            extend([*prefix, c], level + c * sizes[j])
            c += 1

    extend([], 0.0)
    return out


def _packings(counts: np.ndarray, configs: list[tuple[int, ...]], max_bins: int):
    """Every multiset of at most ``max_bins`` configurations using exactly ``counts``."""
    need = tuple(int(c) for c in counts)
    steps = [0]

    def walk(left: tuple[int, ...], start: int, chosen: list[int]):
        steps[0] += len(configs) - start
        if steps[0] > MAX_STEPS:
            msg = (
                f"enumerating the packings of the large values takes more than {MAX_STEPS} "
                "steps; take a larger epsilon or another algorithm"
            )
            raise ParameterError(msg)
        if not any(left):
            yield [configs[c] for c in chosen]
            return
        if len(chosen) == max_bins:
            return
        for c in range(start, len(configs)):
            conf = configs[c]
            if all(a <= b for a, b in zip(conf, left, strict=True)):
                rest = tuple(b - a for a, b in zip(conf, left, strict=True))
                chosen.append(c)
                yield from walk(rest, c, chosen)
                chosen.pop()

    yield from walk(need, 0, [])


def _complete(
    items: np.ndarray,
    packing: list[tuple[int, ...]],
    members: list[np.ndarray],
    small: np.ndarray,
    empty: int,
    k: int,
) -> np.ndarray | None:
    """Real large items into the packing's bins, small items to the lightest bin, then the
    two lightest bins merged while one is under ``k``."""
    labels = np.full(items.size, -1, dtype=np.intp)
    taken = [0] * len(members)
    for b, conf in enumerate(packing):
        for c, count in enumerate(conf):
            labels[members[c][taken[c] : taken[c] + count]] = b
            taken[c] += count
    n_bins = len(packing) + empty
    if n_bins == 0:
        return None
    loads = np.zeros(n_bins)
    for b in range(len(packing)):
        loads[b] = items[labels == b].sum()
    for i in small:
        b = int(np.argmin(loads))
        labels[i] = b
        loads[b] += items[i]
    alive = list(range(n_bins))
    while len(alive) > 1 and min(loads[b] for b in alive) < k:
        alive.sort(key=lambda b: loads[b])
        a, b = alive[0], alive[1]
        labels[labels == a] = b
        loads[b] += loads[a]
        alive.pop(0)
    if loads[alive[0]] < k:
        return None
    return labels
