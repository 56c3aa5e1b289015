"""Polishing local recoding's crowds: re-split pairs of neighbouring crowds, then moves.

Each round re-splits pairs of neighbouring crowds afresh (:mod:`._resplit`) and moves
single records between neighbouring crowds (:func:`~incrowd.algorithms._shared.improve.\
improve_labels`); rounds stop when one gains too little.

Guarantee: never raises the cost; every crowd keeps ``k`` records and, with ``ell`` ≥ 2,
``ell`` distinct sensitive codes. Time: ``rounds`` times a re-split and the moves. Progress:
the rounds (:func:`~incrowd._runtime.report_progress`).
"""

from __future__ import annotations

import numpy as np

from ..._runtime import report_progress
from ...costs import GeneralizationCost
from .._shared.improve import improve_labels
from ..forest import MAX_ROUNDS
from ._resplit import resplit_pairs
from ._specialize import FRAGMENTATION

__all__ = ["MIN_ROUND_GAIN", "RESPLIT_ROUNDS", "crowds_lacking", "polish"]

#: Rounds of re-splitting pairs of neighbouring crowds, each followed by moves: later rounds
#: gain little (Adult, ``benchmarks/adult.py``).
RESPLIT_ROUNDS = 3
#: Rounds stop after one that lowers the cost by less than this share: such a round was
#: followed by far smaller gains (Adult, ``benchmarks/adult.py``).
MIN_ROUND_GAIN = 0.002


def crowds_lacking(labels: np.ndarray, sens: np.ndarray | None, ell: int) -> int:
    """How many crowds of ``labels`` hold fewer than ``ell`` distinct ``sens`` codes."""
    kept = labels >= 0
    if sens is None or not kept.any():
        return 0
    pairs = np.unique(np.stack([labels[kept], sens[kept]]), axis=1)  # (crowd, code) present
    distinct = np.bincount(pairs[0])
    return int(((distinct > 0) & (distinct < ell)).sum())


def polish(
    labels: np.ndarray,
    neighbours: np.ndarray,
    k: int,
    model: GeneralizationCost,
    frag: float = FRAGMENTATION[-1],
    sens: np.ndarray | None = None,
    ell: int = 0,
    rounds: int = RESPLIT_ROUNDS,
) -> None:
    """Lower the cost of ``labels`` in place by ``rounds`` of re-splitting pairs of
    neighbouring crowds (:func:`~incrowd.algorithms.recoding._resplit.resplit_pairs`), each
    followed by moves of single records; never raises it. Every crowd keeps ``k`` records
    and, with ``ell`` ≥ 2, ``ell`` distinct ``sens`` codes; stops after a round that lowers
    the cost by less than ``MIN_ROUND_GAIN``. ``neighbours``: each record's nearest
    records."""
    cm = model.kernel_args()
    cost = model.of(labels)
    for done in range(rounds):
        report_progress(done, rounds)
        if not resplit_pairs(labels, neighbours, k, cm, frag, sens, ell):
            break
        improve_labels(labels, neighbours, k, True, 0, model.row_cost, MAX_ROUNDS, cm,
                       sens, ell)  # fmt: skip
        cost, before = model.of(labels), cost
        if cost > (1.0 - MIN_ROUND_GAIN) * before:
            break
    report_progress(rounds, rounds)  # the rounds not run were not worth it
