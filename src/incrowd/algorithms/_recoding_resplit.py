"""Re-splitting pairs of neighbouring crowds: a local search that never raises the cost.

For each crowd ``A`` and each of the (at most ``PARTNERS``) crowds its records' nearest
neighbours fall in most often, the union ``A ∪ B`` is specialized afresh from the top
(:func:`~incrowd.algorithms._recoding_topdown.specialize`); the new crowds replace ``A``
and ``B`` when they cost less, and ``A`` moves on. Every new crowd has at least ``k``
records (the specialization never makes a smaller one), every record stays in exactly one
crowd, and the total cost strictly falls with each replacement. Time per round: one
specialization of two crowds per pair tried, :math:`O(m \\cdot P \\cdot s\\, d\\, b^2)` for
``m`` crowds of about ``s`` records.
"""

from __future__ import annotations

import numpy as np

from ..costs.kernels import record_cost
from ._recoding_topdown import specialize

__all__ = ["resplit_pairs"]

#: Neighbouring crowds tried per crowd, the most often met first.
PARTNERS = 2
#: Neighbours per record that name the neighbouring crowds.
LOOK = 8


def resplit_pairs(labels: np.ndarray, nbr: np.ndarray, k: int, cm: tuple, frag: float) -> int:
    """Improve ``labels`` in place by re-splitting pairs of crowds (one round); returns the
    number of pairs replaced. ``frag`` is the specialization's fragmentation exponent."""
    stamp = np.zeros(max(cm[3].shape[2], 1), dtype=np.int64)
    step = cm[2].shape[1] + 1
    ticks = iter(range(1, 2**62, step))  # each count of distinct values marks anew

    def crowd_cost(m: np.ndarray) -> float:
        return m.size * record_cost(m, cm, stamp, next(ticks))

    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.r_[True, np.diff(labels[order]) != 0, True])
    members = {int(labels[order[a]]): order[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)}
    cost = {c: crowd_cost(m) for c, m in members.items()}
    top = cm[5].astype(np.intp)[None, :]
    fresh = max(members) + 1
    touched: set[int] = set()
    replaced = 0
    look = nbr[:, :LOOK]
    for a in list(members):
        if a in touched:
            continue
        met = labels[look[members[a]]].ravel()
        met = met[(met != a)]
        if met.size == 0:
            continue
        partners, counts = np.unique(met, return_counts=True)
        for b in partners[np.argsort(-counts, kind="stable")][:PARTNERS].tolist():
            if b in touched:
                continue
            union = np.concatenate([members[a], members[b]])
            split = specialize(k, cm, union, np.array([0, union.size], dtype=np.intp), top, frag)
            parts = [union[split == g] for g in np.unique(split)]
            new = [crowd_cost(p) for p in parts]
            old = cost[a] + cost[b]
            if sum(new) < old - 1e-12 * (1.0 + old):
                for c in (a, b):
                    del members[c], cost[c]
                    touched.add(c)
                for part, value in zip(parts, new, strict=True):
                    members[fresh], cost[fresh] = part, value
                    labels[part] = fresh
                    touched.add(fresh)
                    fresh += 1
                replaced += 1
                break
    # renumber 0 .. m − 1
    _, labels[:] = np.unique(labels, return_inverse=True)
    return replaced
