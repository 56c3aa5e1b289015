"""The specialization of local recoding: seed classes, each split top-down.

Seed classes — with hierarchy labels the classes of ``k`` records of any lattice node, taken
cheapest first (:mod:`._cheapest`); otherwise, or with ``seeds="rounds"``, iterated global
recodings (:mod:`._seed`) — are each split top-down, attribute by attribute, while a split
lowers the cost (:mod:`._topdown`), once per weighing of a split's parts; the cheapest
result is kept.

Guarantee: every crowd holds at least ``k`` records (and ``ell`` distinct sensitive codes
where it can); no bound against the optimum of its own (the estimator's certificate gives
one). Time: the seeds (:mod:`._cheapest`, :mod:`._seed`) and :math:`O(n d b (b + \\log n))`
per split-down (``d``: depth of the splits). Progress: the seedings (records placed by
their rounds) and the split-downs, counted (:func:`~incrowd._runtime.report_progress`).
"""

from __future__ import annotations

import numpy as np

from ..._runtime import progress_part, report_progress
from ...costs import GeneralizationCost
from ._cheapest import cheapest_classes
from ._seed import global_classes, mean_classes
from ._topdown import specialize

__all__ = ["BEAM_WIDTH", "FRAGMENTATION", "WAIT_SHARES", "specialization"]

#: Lattice nodes the beam of the mean rule keeps (hierarchy labels): wider beams gain
#: little more than this one over a greedy walk (Adult, ``benchmarks/adult.py``).
BEAM_WIDTH = 4
#: Value sets use the priced rule (the mean rule lost more there; ``benchmarks/adult.py``):
#: a waiting record's expected cost, as a share of publishing it as ``*``; the cheapest wins.
WAIT_SHARES = (0.5, 0.75)
#: How a split's parts weigh against its gain: the split chosen maximizes
#: ``gain / parts ** f``; one specialization per value, the cheapest wins (measured on
#: Adult, ``benchmarks/adult.py``).
FRAGMENTATION = (0.0, 1.0)


def specialization(
    model: GeneralizationCost,
    k: int,
    seeds: str,
    generalize: str,
    sens: np.ndarray | None,
    ell: int,
) -> tuple[np.ndarray, float, float]:
    """The cheapest specialization over the seeds (``seeds``: ``"cheapest"`` or
    ``"rounds"``) and the weighings of a split's parts (every crowd with ``ell`` distinct
    ``sens`` codes where it can): its labels, cost and weighing."""
    cm = model.kernel_args()
    cheapest = None
    shares = WAIT_SHARES if generalize != "levels" and not ell else (None,)
    total = len(shares) * (1 + len(FRAGMENTATION))  # progress: each seeding, each split-down
    if seeds == "cheapest" and generalize == "levels" and not ell:
        cheapest = cheapest_classes(model.n, k, cm)
    if cheapest is not None:
        starts = [cheapest]
    elif generalize == "levels" or ell:
        with progress_part(0, 1, total):
            starts = [mean_classes(model.n, k, cm, BEAM_WIDTH, sens, ell)]
    else:
        top, starts = float(cm[8].sum()), []
        for i, share in enumerate(WAIT_SHARES):
            with progress_part(i, i + 1, total):
                starts.append(global_classes(model.n, k, share * top, cm))
    best: tuple[np.ndarray, float, float] | None = None
    for i, (perm, bounds, levels) in enumerate(starts):
        for j, frag in enumerate(FRAGMENTATION):
            report_progress(len(starts) + i * len(FRAGMENTATION) + j, total)
            labels = np.empty(model.n, dtype=np.intp)
            labels[perm] = specialize(k, cm, perm, bounds, levels, frag, sens, ell)
            cost = model.of(labels)
            if best is None or cost < best[1]:
                best = (labels, cost, frag)
    report_progress(total, total)
    assert best is not None
    return best
