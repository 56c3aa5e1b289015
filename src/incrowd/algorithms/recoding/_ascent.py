"""A lower bound on the cost of local recoding that couples the records: dual ascent.

The lattice bound (:func:`~incrowd.algorithms.recoding.bounds.lattice_bound`) lets every
record take its cheapest class of ``k`` records, as if the other members of that class had
no cheaper place to be. This bound prices the classes jointly.

**The dual.** A crowd ``S`` of at least ``k`` records shares a class ``C`` of the lattice
node ``N`` of its labels, and each member ``r`` pays at least ``row_r(N)``, its cost at
``N`` (exactly, with hierarchy labels; see :func:`lattice_bound` for ranges and value
sets). So if numbers ``u_r`` satisfy, for every class ``C`` of every node holding ``k``
records,

    ``Σ_{r ∈ S} (u_r − row_r(N)) ≤ 0`` for every ``S ⊆ C`` with ``|S| ≥ k``,    (*)

every crowd costs at least ``Σ_{r ∈ S} u_r``, and since the crowds partition the records,
``Σ_r u_r`` is at most the cost of every k-anonymization. (``u`` is a solution of the dual
of the linear relaxation of set partitioning into crowds, so ``Σ_r u_r`` is also at most
that relaxation's optimum.) The terms are not charges: a record's ``u_r`` may exceed what
it pays in some crowd, as only sums over crowds are bounded; so they are never mixed with
per-record bounds, only their sum compared. With
``v_r = u_r − row_r(N)``, (*) holds for ``C`` exactly when its ``k`` largest ``v`` (copies
of a row counted apart) sum to at most 0: the ``k``-th largest, ``θ_C``, is then at most 0,
and every further member adds ``v ≤ θ_C ≤ 0``.

**The ascent** (in the manner of Erlenkotter's dual ascent for facility location,
*Operations Research* 26(6), 1978). ``u = λ`` (the lattice bound) satisfies (*): each
``λ_r`` is at most its cost in every class of ``k`` records. A round raises every ``u_r``
at once by

    ``δ_r = min over the classes C ∋ r of  s_C + max(θ_C − v_r, 0)``,
    ``s_C = −(Σ of the k largest v over C) / k ≥ 0``.

(*) still holds after it: in each class a member among the ``k`` largest gains at most
``s_C``; any other ends at most at ``θ_C + s_C``, no more than any of the ``k`` largest
before plus ``s_C``; so any ``k`` members sum to at most the old ``k`` largest plus
``k · s_C = 0``. Each round is one walk of the lattice (each node once, as the lattice
bound's); raises are taken a hair short (``SAFETY``) so that rounding in the sums cannot
break (*). Any smaller raise keeps (*) too: each round's raise is capped (``FIRST_CAP``,
``GROWTH``), which lets the walk pass over more classes. On Adult with ARX's eight
hierarchies (k = 25) the bound goes from the lattice bound's 0.0669 NCP to 0.0814 after one
round, 0.0901 after two, 0.0947 after three (uncapped: 0.0843, 0.0919, 0.0959, in two to
three times the time) and 0.1024 after fifteen; the best crowds incrowd finds there
lose 0.1148.

Time per round :math:`O(N m)` for ``N`` nodes and ``m`` distinct rows at worst; classes
that cannot lower any member's raise, nor can any class below them, are passed over.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...costs import GeneralizationCost
from ._lattice import next_lowered
from .bounds import (
    LatticeRows,
    lattice_down,
    lattice_rows,
    lattice_top,
    lattice_walks,
)

__all__ = ["ascent_bound"]

#: Each raise is taken this much short (relative), and each class's room this much short
#: (absolute, per unit of the largest row cost), so float rounding cannot break (*).
SAFETY = 1e-9
#: A round raises a record by at most this share of its cost at the top of the lattice in
#: the first round, and by at most ``GROWTH`` times its last raise plus ``NEXT_CAP`` of that
#: cost in the next; any smaller raise keeps (*), and the caps let the walk pass over the
#: classes that could not lower a raise further: nearly the uncapped bound in a third of
#: its time (Adult, ``benchmarks/adult.py``).
FIRST_CAP = 1 / 16
GROWTH = 2.0
NEXT_CAP = 1 / 1000
#: A round of ascent gains at most this share of the round before it: above every share
#: measured on Adult and census records (``benchmarks/adult.py``).
GAIN_DECAY = 0.7


def ascent_bound(
    model: GeneralizationCost,
    k: int,
    start: np.ndarray,
    rounds: int,
    first_cap: float = FIRST_CAP,
    growth: float = GROWTH,
    walk: LatticeRows | None = None,
    reach: float = -np.inf,
) -> np.ndarray:
    """Per-record terms ``u`` whose sum is at most the cost of every k-anonymization of
    ``model`` (with hierarchy labels, ranges or value sets as two-level attributes; the
    lattice must walk, :func:`lattice_walks`): ``rounds`` rounds of dual ascent from
    ``start``, which must satisfy (*) — the lattice bound does; each raise capped as
    ``FIRST_CAP`` and ``GROWTH`` say (``first_cap = inf``: no cap). Equal records get equal
    terms. ``rounds = 0`` returns ``start``. ``walk``: :func:`lattice_rows`, when at hand.

    ``reach``: a bound the caller has already (such as a sum of per-record charges); no
    round starts when ``GAIN_DECAY`` times the last one's gain would leave the sum below
    it, since then the terms would most likely not be the bound used. Stopping early keeps
    (*), so the sum is a bound either way."""
    if rounds <= 0 or k <= 1 or model.n < k or not lattice_walks(model):
        return np.asarray(start, dtype=np.float64)
    walk = walk or lattice_rows(model, k)
    m = walk.weight.size
    u = np.full(m, np.inf)  # equal records start equal (their lattice bound): take the least
    np.minimum.at(u, walk.inverse, np.asarray(start, dtype=np.float64))
    top = walk.costs[walk.offset[1:] - 1].sum(axis=0)  # each row's cost at the top
    tol = SAFETY * float(top.max(initial=0.0) + 1.0)
    cap = first_cap * top
    raise_ = np.empty(m)
    for _ in range(rounds):
        raise_[:] = cap
        _ascent_round(walk.offset, walk.ranks, walk.costs, walk.fan, walk.levels, k, walk.top,
                      walk.weight, walk.floor, u, tol, raise_)  # fmt: skip
        raise_[~np.isfinite(raise_)] = 0.0  # a row no class of k holds: the start stands
        if not (raise_ > 0).any():
            break
        u += raise_ * (1.0 - SAFETY)
        cap = growth * raise_ + NEXT_CAP * top
        if float(walk.weight @ u) + GAIN_DECAY * float(walk.weight @ raise_) < reach:
            break
    return u[walk.inverse]


@jit()
def _top_k(vals, wts, m, k):
    """The sum of the ``k`` largest of ``vals[:m]`` (``wts[i]`` copies of ``vals[i]``; at
    least ``k`` in all) and the ``k``-th largest, by a three-way quickselect that reorders
    both in place: expected time O(m)."""
    lo, hi = 0, m
    need = k
    total = 0.0
    while True:
        pivot = vals[lo + (hi - lo) // 2]
        # [lo, gt): above the pivot, [gt, i): equal, [lt, hi): below
        gt, i, lt = lo, lo, hi
        while i < lt:
            v = vals[i]
            if v > pivot:
                vals[i], vals[gt] = vals[gt], v
                wts[i], wts[gt] = wts[gt], wts[i]
                gt += 1
                i += 1
            elif v < pivot:
                lt -= 1
                vals[i], vals[lt] = vals[lt], v
                wts[i], wts[lt] = wts[lt], wts[i]
            else:
                i += 1
        above = 0
        for t in range(lo, gt):
            above += wts[t]
        if above >= need:  # the k-th largest lies above the pivot
            hi = gt
            continue
        for t in range(lo, gt):
            total += wts[t] * vals[t]
        need -= above
        equal = 0
        for t in range(gt, lt):
            equal += wts[t]
        if equal >= need:
            return total + need * pivot, pivot
        total += equal * pivot
        need -= equal
        lo = lt


@jit()
def _ascent_round(offset, ranks, costs, fan, levels, k, cls0, weight, floor, u, tol, out):
    """``out[r]``: the raise ``δ_r`` of row ``r``, at most its value on entry (a cap), by
    one walk of the lattice; a class none of whose members' raises it can lower,
    at its node or below (where each member costs at least its ``floor`` on the attributes
    still to be lowered), is not followed."""
    n = ranks.shape[1]
    walk = lattice_top(offset, costs, levels, cls0)
    rec, cls, row, cnt, n_cls, lv, nxt, _, _ = walk
    size = np.zeros(n + 2, dtype=np.intp)
    follow = np.zeros(n + 2, dtype=np.bool_)
    start = np.zeros(n + 2, dtype=np.intp)
    order = np.empty(n, dtype=np.intp)
    vals = np.empty(n)
    wts = np.empty(n, dtype=np.intp)
    d = 0
    low = 0
    while True:
        _price_classes(rec[d], cls[d], row[d], cnt, d, n_cls[d], k, weight, u, lv[d], low,
                       costs, offset, floor, tol, out, size, follow, start, order, vals,
                       wts)  # fmt: skip
        j = -1
        while d >= 0:
            j = next_lowered(nxt, lv, cnt, d)
            if j >= 0:
                break
            d -= 1
        if d < 0:
            break
        lattice_down(walk, d, j, offset, ranks, costs, fan)
        low = j
        d += 1


@jit()
def _price_classes(rec, cls, row, cnt, d, nc, k, weight, u, lv, low, costs, offset, floor, tol,
                   out, size, follow, start, order, vals, wts):  # fmt: skip
    """Lower ``out`` of the members of each class of ``k`` records at one node by that
    class's raise; keep (in ``rec``/``cls``/``row``, ``cnt[d]``) the members of the classes
    worth following below."""
    m = cnt[d]
    b = lv.size
    for c in range(nc + 2):
        size[c] = 0
        start[c] = 0
    for t in range(m):
        size[cls[t]] += weight[rec[t]]
        start[cls[t] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    for t in range(m):
        order[start[cls[t]]] = t
        start[cls[t]] += 1
    for c in range(nc, 0, -1):
        start[c] = start[c - 1]
    start[0] = 0
    for c in range(nc):
        follow[c] = False
        if size[c] < k:
            continue
        lo, hi = start[c], start[c + 1]
        top_v = -np.inf
        most = 0.0  # the largest raise a member still has
        below = np.inf  # the least room of a member at any node below
        for i in range(lo, hi):
            t = order[i]
            x = rec[t]
            v = u[x] - row[t]
            top_v = max(top_v, v)
            most = max(most, out[x])
            slack = 0.0
            for j in range(low, b):
                slack += costs[offset[j] + lv[j], x] - floor[j, x]
            below = min(below, row[t] - slack - u[x])
        # each class's raise is at least -(its largest v): here at least -top_v, below at
        # least `below`
        follow[c] = below < most
        if -top_v >= most:
            continue
        for i in range(lo, hi):
            x = rec[order[i]]
            vals[i - lo] = u[x] - row[order[i]]
            wts[i - lo] = weight[x]
        total, theta = _top_k(vals, wts, hi - lo, k)
        room = max(-total / k - tol, 0.0)
        for i in range(lo, hi):
            t = order[i]
            x = rec[t]
            a = room + max(theta - (u[x] - row[t]), 0.0)
            if a < out[x]:
                out[x] = a
    kept = 0
    for t in range(m):
        if size[cls[t]] >= k and follow[cls[t]]:
            rec[kept] = rec[t]
            cls[kept] = cls[t]
            row[kept] = row[t]
            kept += 1
    cnt[d] = kept
