"""Re-splitting pairs of neighbouring crowds: a local search that never raises the cost.

For each crowd ``A`` and each of the (at most ``PARTNERS``) crowds its records' nearest
neighbours fall in most often, the union ``A ∪ B`` is split afresh: **exactly** when it has
at most ``EXACT_UNION`` records (the subset dynamic program of
:mod:`incrowd.algorithms.exact`, the least-cost partition into crowds ≥ ``k``), else by the
specialization from the top (:func:`~incrowd.algorithms.recoding._topdown.specialize`).
The new crowds replace ``A`` and ``B`` when they cost less, and ``A`` moves on. Every new
crowd has at least ``k`` records, every record stays in exactly one crowd, and the total
cost strictly falls with each replacement. Time
per round, for ``m`` crowds of about ``s`` records: :math:`O(m P (3^{2s} + 4^s s b))` exact,
:math:`O(m P s d b^2)` by specialization; compiled.
"""

from __future__ import annotations

import numpy as np

from ..._runtime import jit
from ...costs.kernels import record_cost, subset_generalization
from ..exact import optimal_split
from ._topdown import diverse, specialize

__all__ = ["resplit_pairs"]

#: Neighbouring crowds tried per crowd, the most often met first (on Adult 6 lose 0.5–1.5 %
#: less than 2, with value sets).
PARTNERS = 6
#: Neighbours per record that name the neighbouring crowds.
LOOK = 8
#: Unions of at most this many records are split exactly (3^9 ≈ 20,000 DP steps): larger
#: ones take far longer for little gain (Adult, ``benchmarks/adult.py``).
EXACT_UNION = 9


@jit()
def _split(union, k, cm, stamp, tick, frag, exact_union, sens, ell, seen):
    """Crowd of every member of ``union`` in a fresh split, every crowd holding ``ell``
    distinct ``sens`` codes (−1 everywhere when no split does), and the next free
    ``tick``. ``seen``: the marks of
    :func:`~incrowd.algorithms.recoding._topdown.diverse`."""
    u = union.size
    if u <= exact_union:
        costs, tick = subset_generalization(union, k, cm, stamp, tick)
        if ell > 1:
            members = np.empty(u, dtype=np.intp)
            whole = np.zeros(2, dtype=np.intp)
            for s in range(1 << u):
                m = 0
                for i in range(u):
                    if (s >> i) & 1:
                        members[m] = union[i]
                        m += 1
                whole[1] = m
                if m >= k and not diverse(members, whole, 1, sens, ell, seen):
                    costs[s] = np.inf
        return optimal_split(costs, u, k)[1], tick
    top = np.empty((1, cm[5].size), dtype=np.intp)
    top[0] = cm[5]
    bounds = np.array([0, u], dtype=np.intp)
    return specialize(k, cm, union, bounds, top, frag, sens, ell), tick


@jit()
def _resplit_round(labels, look, k, cm, frag, partners, exact_union, sens, ell):
    n = labels.size
    m0 = labels.max() + 1
    seen = np.zeros(sens.max() + 2, dtype=np.int64)
    cap = m0 + n // k + 1
    step = cm[2].shape[1] + 1
    stamp = np.zeros(max(cm[3].shape[2], 1), dtype=np.int64)
    tick = 1
    # each crowd a slice of ``pool``; a replaced pair writes its parts after the first n
    # (each record at most once a round: the pair's crowds are then touched)
    pool = np.empty(2 * n, dtype=np.intp)
    start = np.zeros(cap, dtype=np.intp)
    size = np.zeros(cap, dtype=np.intp)
    cost = np.zeros(cap)
    touched = np.zeros(cap, dtype=np.bool_)
    for i in range(n):
        if labels[i] >= 0:  # −1: a suppressed record, in no crowd
            size[labels[i]] += 1
    for c in range(1, m0):
        start[c] = start[c - 1] + size[c - 1]
    fill = start.copy()
    for i in range(n):
        if labels[i] >= 0:
            pool[fill[labels[i]]] = i
            fill[labels[i]] += 1
    for c in range(m0):
        cost[c] = size[c] * record_cost(pool[start[c] : start[c] + size[c]], cm, stamp, tick)
        tick += step
    end = n
    n_crowds = m0
    tally = np.zeros(cap, dtype=np.intp)
    met = np.empty(cap, dtype=np.intp)
    replaced = 0
    for a in range(m0):
        if touched[a]:
            continue
        n_met = 0
        for t in range(start[a], start[a] + size[a]):
            for q in range(look.shape[1]):
                c = labels[look[pool[t], q]]
                if c >= 0 and c != a:
                    if tally[c] == 0:
                        met[n_met] = c
                        n_met += 1
                    tally[c] += 1
        rank = np.empty(n_met, dtype=np.int64)  # the most often met first, then by id
        for t in range(n_met):
            rank[t] = -tally[met[t]] * np.int64(cap) + met[t]
            tally[met[t]] = 0
        order = np.argsort(rank)
        for p in range(min(partners, n_met)):
            b = met[order[p]]
            if touched[b]:
                continue
            union = np.concatenate(
                (pool[start[a] : start[a] + size[a]], pool[start[b] : start[b] + size[b]])
            )
            parted, tick = _split(union, k, cm, stamp, tick, frag, exact_union, sens, ell, seen)
            if parted[0] < 0:
                continue
            name = np.full(union.size, -1, dtype=np.intp)  # parts numbered 0 .. n_parts − 1
            n_parts = 0
            for t in range(union.size):
                if name[parted[t]] < 0:
                    name[parted[t]] = n_parts
                    n_parts += 1
                parted[t] = name[parted[t]]
            sort = np.argsort(parted, kind="mergesort")
            cuts = np.zeros(n_parts + 1, dtype=np.intp)
            for t in range(union.size):
                cuts[parted[t] + 1] += 1
            for g in range(n_parts):
                cuts[g + 1] += cuts[g]
            ordered = union[sort]
            new = np.empty(n_parts)
            for g in range(n_parts):
                new[g] = (cuts[g + 1] - cuts[g]) * record_cost(
                    ordered[cuts[g] : cuts[g + 1]], cm, stamp, tick
                )
                tick += step
            old = cost[a] + cost[b]
            if new.sum() >= old - 1e-12 * (1.0 + old):
                continue
            size[a] = 0
            size[b] = 0
            touched[a] = True
            touched[b] = True
            for g in range(n_parts):
                if g == 0:
                    c = a
                elif g == 1:
                    c = b
                else:
                    c = n_crowds
                    n_crowds += 1
                start[c] = end
                size[c] = cuts[g + 1] - cuts[g]
                cost[c] = new[g]
                touched[c] = True
                for t in range(cuts[g], cuts[g + 1]):
                    pool[end] = ordered[t]
                    labels[ordered[t]] = c
                    end += 1
            replaced += 1
            break
    return replaced


def resplit_pairs(
    labels: np.ndarray,
    nbr: np.ndarray,
    k: int,
    cm: tuple,
    frag: float,
    sens: np.ndarray | None = None,
    ell: int = 0,
) -> int:
    """Improve ``labels`` in place by re-splitting pairs of crowds (one round); returns the
    number of pairs replaced. ``frag`` is the specialization's fragmentation exponent; with
    ``ell`` ≥ 2 every new crowd holds ``ell`` distinct ``sens`` codes (distinct
    l-diversity is kept). Records labelled −1 stay out of every crowd."""
    look = np.ascontiguousarray(nbr[:, :LOOK])
    codes = np.zeros(1, dtype=np.intp) if sens is None else np.asarray(sens, dtype=np.intp)
    replaced = _resplit_round(
        labels, look, k, cm, frag, PARTNERS, EXACT_UNION, codes, int(ell) if sens is not None else 0
    )
    kept = labels >= 0
    _, labels[kept] = np.unique(labels[kept], return_inverse=True)  # renumber 0 .. m − 1
    return int(replaced)
