"""Polish a method's crowds for the generalized release without raising its own objective.

A method that minimizes something other than the generalization loss (the cellular family:
``Σ members · radius``) leaves crowds that generalize loosely: on Adult (k = 5, hierarchy
labels) r-cellular's crowds lose NCP 0.109. The local search of
:class:`~incrowd.algorithms.recoding.LocalRecoding` (moves of single records, re-splits of
neighbouring pairs) lowers that loss, and it usually lowers the cellular cost too, since
tight crowds are small in both. A polished partition is kept only when the method's
objective, priced again from the members, is no higher than the method's own cost: then
every a-priori guarantee of the method (``cost ≤ ρ · OPT``) and its lower bound still hold,
and the certified ratio can only fall.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..costs import GeneralizationCost, GeneralizeForm
from ..costs.base import Cost
from ..space.metric_space import MetricSpace
from ._shared.improve import improve_labels
from .forest import MAX_ROUNDS, MOVE_CANDIDATES
from .recoding import RESPLIT_ROUNDS, polish

__all__ = ["Polished", "improve_labels", "polish_release"]


@dataclass(frozen=True)
class Polished:
    """The outcome: ``labels`` (None when no stage kept the objective within the budget),
    the objective and generalization loss before and after, and the stages run and kept
    (0: the moves; ``r``: the ``r``-th re-splitting round)."""

    labels: np.ndarray | None
    cost_before: float
    cost_after: float
    loss_before: float
    loss_after: float
    stages_run: int
    stage_kept: int | None

    def describe(self) -> dict[str, object]:
        """For the release metadata."""
        return {
            "kept": self.labels is not None,
            "objective_before": self.cost_before,
            "objective_after": self.cost_after,
            "generalization_loss_before": self.loss_before,
            "generalization_loss_after": self.loss_after,
            "stages_run": self.stages_run,
            "stage_kept": self.stage_kept,
        }


def polish_release(
    labels: np.ndarray,
    space: MetricSpace,
    k: int,
    generalize: GeneralizeForm,
    objective: Cost,
    budget: float,
) -> Polished:
    """Lower the generalization loss (NCP in ``generalize`` form) of ``labels`` by the
    moves and re-splits of local recoding, keeping the stage of least loss whose
    ``objective`` is at most ``budget``. Every crowd keeps ``k`` records; records labelled
    −1 stay out. ``labels`` is not changed.

    Time: the neighbour lists (:data:`~.forest.MOVE_CANDIDATES` per record) and the local
    search, :math:`O(n)` per pass in practice; the objective priced after each of the
    ``1 + RESPLIT_ROUNDS`` stages.
    """
    model = GeneralizationCost.on(space, generalize, None, "ncp")
    loss_before = model.of(labels)
    kept_labels, kept_cost, kept_loss, kept_stage = None, budget, loss_before, None
    tolerance = budget * 1e-12
    stages, previous = 0, loss_before
    if space.n > k:
        work = np.array(labels, dtype=np.intp)
        _, idx = space.index(model.geometry).neighbours(
            min(space.n - 1, max(k - 1, MOVE_CANDIDATES))
        )
        improve_labels(work, idx, k, True, 0, model.row_cost, MAX_ROUNDS, model.kernel_args())
        for stage in range(RESPLIT_ROUNDS + 1):
            if stage:
                polish(work, idx, k, model, rounds=1)
            stages += 1
            loss = model.of(work)
            if stage and loss >= previous:
                break  # the round changed nothing: the later ones would not either
            previous = loss
            if loss >= kept_loss:
                continue
            price = objective.of(work)
            if price <= budget + tolerance:
                kept_labels, kept_cost, kept_loss, kept_stage = work.copy(), price, loss, stage
    return Polished(kept_labels, budget, kept_cost, loss_before, kept_loss, stages, kept_stage)
