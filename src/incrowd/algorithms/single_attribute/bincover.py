"""Min-Max Bin Covering: labels into classes of at least ``k`` records, the largest as small
as possible.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 4.

An unordered attribute (a first name, a diagnosis code) is generalized by grouping its
values: item ``i`` is a value with ``x_i`` records, a *bin* is a class of values published as
one label, and every class must hold at least ``k`` records. The objective is the largest
class. The problem is NP-hard in the strong sense (Thm 5) and not approximable below 2 for
binary input (Thm 6).

- :func:`fold` — Theorem 7, linear time: items of ``k`` or more alone, Next Fit on the
  rest, a last bin under ``k`` merged into the lightest bin; **largest ≤ max(k − 1 + max x,
  3k − 3)**, under 3·OPT.
- :func:`theorem9` — Theorem 9, a **5/2-approximation**: Next Fit on the items sorted
  decreasing, then the paper's fix-ups of a last bin under ``k`` (and the cases of at most
  three bins it omits); the better of that and :func:`fold`.
- :func:`ptas` — Theorem 10, **largest ≤ (1 + ε)(OPT + k)** (so under 2(1 + ε)·OPT): the
  paper's rounding of the large items, enumeration of their packings, greedy completion and
  merging; for small inputs and large ε only (it refuses an enumeration that is too large).
- :func:`spread` — the simplified Spread of the paper's experiment (Sec. 5), no bound.
- :func:`exact` — the optimum by the subset dynamic program (at most 20 values).
- :class:`BinCovering` — the method: a table's values (distinct quasi-identifier rows) as
  the items, each record in its value's class.

Every result carries a proven lower bound on the optimum, ``max(k, max x, ⌈W / ⌊W/k⌋⌉)``
(every class holds ``k``; some class holds the largest item; at most ``⌊W/k⌋`` classes share
``W`` records), so ``largest / lower_bound`` certifies how close it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from ..._runtime import jit
from ...base import Algorithm, Guarantee, Tags
from ...costs import Classes, LargestCrowd, largest_lower_bound
from ...errors import InfeasibleError, ParameterError
from ...params import CrowdSize, Interval, OneOf
from ...partition import Partition
from ...space.metric_space import MetricSpace
from ..exact import MAX_EXACT_N, solve

__all__ = [
    "ALGORITHMS",
    "BinCovering",
    "Covering",
    "cover",
    "exact",
    "fold",
    "lower_bound",
    "ptas",
    "spread",
    "sweep",
    "theorem9",
]

Order = Literal["given", "ascending", "descending", "random"]


@dataclass(frozen=True)
class Covering(Classes):
    """Values grouped into classes: ``labels[i]`` is the class of value ``i``."""

    labels: np.ndarray
    loads: np.ndarray
    lower_bound: int
    algorithm: str


def _items(x: Sequence[int] | np.ndarray, k: int) -> np.ndarray:
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
    return largest_lower_bound(_items(x, k), k)


def _result(labels: np.ndarray, items: np.ndarray, k: int, name: str) -> Covering:
    _, labels = np.unique(labels, return_inverse=True)
    loads = np.bincount(labels, weights=items).astype(np.int64)
    return Covering(labels.astype(np.intp), loads, lower_bound(items, k), name)


def _order(items: np.ndarray, order: Order, seed: int | None) -> np.ndarray:
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


def _next_fit(items: np.ndarray, sequence: np.ndarray, k: int) -> np.ndarray:
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
    items = _items(x, k)
    sequence = _order(items, order, seed)
    big = sequence[items[sequence] >= k]
    small = sequence[items[sequence] < k]
    labels = np.empty(items.size, dtype=np.intp)
    labels[big] = np.arange(big.size)
    if small.size:
        labels[small] = big.size + _next_fit(items, small, k)[small]
    loads = np.bincount(labels, weights=items)
    last = int(labels[small[-1]]) if small.size else -1
    if last >= 0 and loads[last] < k:
        others = np.flatnonzero(np.arange(loads.size) != last)
        target = others[np.argmin(loads[others])]
        labels[labels == last] = target
    return _result(labels, items, k, "fold")


def _split_three(values: np.ndarray) -> list[np.ndarray]:
    """Lemma 8: LPT over three parts in decreasing order (positions into ``values``)."""
    parts: list[list[int]] = [[], [], []]
    load = [0, 0, 0]
    for i in np.argsort(-values, kind="stable"):
        j = int(np.argmin(load))
        parts[j].append(int(i))
        load[j] += int(values[i])
    return [np.asarray(p, dtype=np.intp) for p in parts]


def theorem9(x: Sequence[int] | np.ndarray, k: int) -> Covering:
    """Theorem 9: the 5/2-approximation.

    Next Fit on the items sorted decreasing (each bin under ``2k`` unless one item of ``k``
    or more); a last bin ``L`` under ``k`` is then fixed (``f`` its largest item, ``r`` the
    rest):

    - 2 bins: ``L`` joins the other (≤ 2·OPT); 3 bins: the lighter closed one (≤ 2.5·OPT);
      these are the cases the paper omits, completed as in the project's spec notes;
    - ``f ≤ k/2``: ``L`` splits into three parts of at most ``k/2`` (Lemma 8), one to each
      of the three lightest bins (each stays under ``5k/2``, or an item ``x ≥ k`` gains at
      most ``x/2``);
    - ``f > k/2`` (the large items, in ``(k/2, k)``, pair up, so ``f`` is the last): if the
      first large item ``x₁`` is in ``L`` there is an item of ``k`` or more, whose bin takes
      ``L`` (≤ 2·OPT); if ``x₁ + r ≥ k``, ``x₁`` and ``f`` swap bins; otherwise OPT ≥ 3k/2
      and Theorem 7 is within 2·OPT.

    The paper's proof assumes ``OPT ≥ 6/5`` where it means ``OPT ≤ 6/5`` (above, Theorem 7's
    ``< 3k`` is already within 5/2); the better of this and :func:`fold` is returned, which
    needs no OPT. **largest ≤ 5/2 · OPT.** Time O(n log n).
    """
    items = _items(x, k)
    fallback = fold(items, k)
    sequence = np.argsort(-items, kind="stable")
    labels = _next_fit(items, sequence, k)
    loads = np.bincount(labels, weights=items)
    m = loads.size
    last = m - 1
    if loads[last] < k:
        in_last = np.flatnonzero(labels == last)
        closed = np.arange(m - 1)
        if m == 2 or m == 3:
            labels[in_last] = closed[np.argmin(loads[closed])]
        else:
            f = in_last[np.argmax(items[in_last])]
            if 2 * items[f] <= k:
                lightest = closed[np.argsort(loads[closed], kind="stable")[:3]]
                for part, target in zip(_split_three(items[in_last]), lightest, strict=True):
                    labels[in_last[part]] = target
            else:
                large = sequence[(2 * items[sequence] > k) & (items[sequence] < k)]
                x1 = int(large[0])
                rest = int(items[in_last].sum() - items[f])
                if labels[x1] == last:
                    oversize = closed[[items[labels == b].max() >= k for b in closed]]
                    labels[in_last] = oversize[np.argmin(loads[oversize])]
                elif items[x1] + rest >= k:
                    labels[x1], labels[f] = last, labels[x1]
                else:
                    return fallback
    result = _result(labels, items, k, "theorem9")
    return result if result.largest <= fallback.largest else fallback


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
    items = _items(x, k)
    sequence = _order(items, order, seed)
    labels = _next_fit(items, sequence, k)
    loads = np.bincount(labels, weights=items).astype(np.int64)
    last = loads.size - 1
    if loads[last] < k:
        left = np.flatnonzero(labels == last)
        left = left[np.argsort(-items[left], kind="stable")]
        full = loads[:last].copy()
        labels[left] = _spread_leftover(full, items[left])
    return _result(labels, items, k, "spread")


def exact(x: Sequence[int] | np.ndarray, k: int) -> Covering:
    """The optimum, by the subset dynamic program of :mod:`incrowd.algorithms.exact` (a class
    costs its records if it holds ``k``, else it is not allowed; classes combine by max).
    Time O(3^n), at most 20 values."""
    items = _items(x, k)
    n = items.size
    if n > MAX_EXACT_N:
        msg = f"the exact solver handles at most {MAX_EXACT_N} values, got {n}"
        raise ParameterError(msg)
    sums = np.zeros(1, dtype=np.float64)
    for value in items:  # bitmask order: bit i is value i
        sums = np.concatenate([sums, sums + value])
    costs = np.where(sums >= k, sums, np.inf)
    _, partition = solve(costs, n, 1, "max")
    return _result(partition.labels, items, k, "exact")


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
    items = _items(x, k)
    if not isinstance(epsilon, int | float) or not 0 < epsilon <= 1:
        msg = f"epsilon must be in (0, 1], got {epsilon!r}"
        raise ParameterError(msg)
    small_total = int(items[items < k].sum())
    over = np.flatnonzero(items >= k)
    if small_total >= k:
        if items.max() >= 3 * k:
            return _renamed(fold(items, k), "ptas")
        work = items
    else:
        t0, t1 = int(items[over].min()), int(items[over].max())
        if t1 - t0 >= k:
            labels = np.empty(items.size, dtype=np.intp)
            labels[over] = np.arange(over.size)
            labels[items < k] = int(np.argmin(items[over]))
            return _result(labels, items, k, "ptas")
        work = items.copy()
        work[over] -= t0 - k  # every class keeps exactly one of them: added back after
    return _result(_ptas_core(work, k, float(epsilon)), items, k, "ptas")


def _renamed(cover: Covering, name: str) -> Covering:
    return Covering(cover.labels, cover.loads, cover.lower_bound, name)


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
    items = _items(x, int(ks.min()) if ks.size else 1)
    ordered = items[_order(items, order, seed)]
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


#: The covering algorithms by name, as the method and the hierarchy builder offer them.
ALGORITHMS = ("fold", "spread", "theorem9", "ptas", "exact")


def cover(
    x: Sequence[int] | np.ndarray,
    k: int,
    algorithm: str = "theorem9",
    *,
    order: Order = "given",
    seed: int | None = None,
    epsilon: float = 0.5,
) -> Covering:
    """The covering of ``x`` by the algorithm named (one of :data:`ALGORITHMS`)."""
    if algorithm == "fold":
        return fold(x, k, order=order, seed=seed)
    if algorithm == "spread":
        return spread(x, k, order=order, seed=seed)
    if algorithm == "theorem9":
        return theorem9(x, k)
    if algorithm == "ptas":
        return ptas(x, k, epsilon)
    if algorithm == "exact":
        return exact(x, k)
    msg = f"unknown covering algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}"
    raise ParameterError(msg)


#: The ratio each algorithm proves against the optimum (None: no bound).
RATIOS: dict[str, float | None] = {"fold": 3.0, "spread": None, "theorem9": 2.5, "exact": 1.0}


class BinCovering(Algorithm):
    """Crowds as classes of whole values (labels), the largest as small as possible.

    Parameters
    ----------
    k : int, default 5
    algorithm : {"theorem9", "fold", "spread", "ptas", "exact"}, default "theorem9"
        See the module docstring: Theorem 9's 5/2-approximation, Fold (Thm 7, under 3·OPT),
        the experiment's Spread (no bound), Theorem 10's scheme (``(1 + ε)(OPT + k)``,
        under ``2(1 + ε)·OPT``), the optimum (at most 20 values).
    order : {"given", "ascending", "descending"}, default "given"
        The order Fold and Spread take the values in (given: sorted by value).
    ptas_epsilon : float, default 0.5
        Theorem 10's ε.

    Attributes
    ----------
    partition_, labels_, cost_ (the largest crowd), lower_bound_

    Notes
    -----
    Du, Eppstein, Goodrich, Lueker (WADS 2009), Section 4. A *value* is a distinct
    combination of the quasi-identifiers (one label for the single-attribute problem),
    with its number of records; a crowd is a set of whole values, published (with
    ``generalize="sets"``) as the set of labels it holds. The guarantee is that of the
    algorithm chosen; ``approximation_ratio_`` gives it.

    Examples
    --------
    >>> import pandas as pd
    >>> from incrowd import Categorical, MetricSpace, Schema
    >>> names = pd.DataFrame({"name": ["ann"] * 5 + ["bob"] * 3 + ["cy"] * 3 + ["di"] * 2})
    >>> space = MetricSpace.from_table(names, Schema({"name": Categorical()}))
    >>> model = BinCovering(k=5).fit(space)
    >>> model.cost_, model.lower_bound_, model.partition_.sizes.tolist()
    (7.0, 7, [7, 6])
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        text="largest crowd ≤ 5/2·OPT (theorem9), 3·OPT (fold), (1+ε)(OPT+k) (ptas), OPT (exact)",
        reference="Du, Eppstein, Goodrich & Lueker, WADS 2009, Thms 7, 9, 10",
    )
    tags: ClassVar[Tags] = Tags()
    cost_class: ClassVar[type[LargestCrowd]] = LargestCrowd
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        "algorithm": OneOf(*ALGORITHMS),
        "order": OneOf("given", "ascending", "descending"),
        "ptas_epsilon": Interval(0, float("inf"), open_low=True),
    }

    def __init__(
        self,
        k: int = 5,
        *,
        algorithm: str = "theorem9",
        order: Order = "given",
        ptas_epsilon: float = 0.5,
    ) -> None:
        self.k = k
        self.algorithm = algorithm
        self.order = order
        self.ptas_epsilon = ptas_epsilon

    def _fit(self, space: MetricSpace) -> None:
        _, inverse, counts, _ = space.index().distinct_rows
        found = cover(
            counts, int(self.k), self.algorithm, order=self.order, epsilon=self.ptas_epsilon
        )
        self.partition_ = Partition(found.labels[inverse])
        self.cost_ = float(found.largest)
        self.lower_bound_ = found.lower_bound

    @property
    def approximation_ratio_(self) -> float | None:
        if self.algorithm == "ptas":
            return 2.0 * (1.0 + float(self.ptas_epsilon))
        return RATIOS.get(self.algorithm)
