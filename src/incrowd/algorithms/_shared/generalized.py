"""What every method that publishes generalized crowds shares: its cost and its parameters.

A method minimizing the generalization cost (:class:`~incrowd.costs.GeneralizationCost`)
takes ``weights``, ``generalize`` (hierarchy ``"levels"`` or value ``"sets"``) and ``loss``
(``"ncp"``, the default, or the paper's ``"height"``), and prices its crowds with them.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...base import Algorithm
from ...costs import GeneralizationCost
from ...data.columns import sensitive_codes
from ...params import Interval, OneOf, Weights
from ...space.metric_space import MetricSpace

__all__ = [
    "sensitive_value_codes",
    "GeneralizedMethod",
    "GENERALIZED_PARAMETERS",
    "SUPPRESSION_LIMIT",
    "budgeted_bound",
]

#: The constraint on ``suppression_limit``, the largest share of records a method suppresses.
SUPPRESSION_LIMIT = Interval(0.0, 1.0, closed_high=True)


def budgeted_bound(terms: np.ndarray, row_cost: float, budget: int) -> float:
    """A lower bound on the cost of any solution that deletes at most ``budget`` records,
    each at ``row_cost``, from per-record terms ``terms`` (each kept record's charge is at
    least its term): ``Σ t_u`` less the ``budget`` largest excesses ``t_u − row_cost`` (a
    deleted record is charged ``row_cost``). Also the best value of the budgeted linear
    program's dual for dual values ``terms``. Equals ``Σ t_u`` when no term exceeds a row."""
    total = float(np.sum(terms))
    if budget <= 0:
        return total
    excess = np.asarray(terms, dtype=float) - row_cost
    excess = excess[excess > 0]
    if excess.size > budget:
        excess = np.partition(excess, excess.size - budget)[-budget:]
    return total - float(excess.sum())


#: The parameter constraints every generalization method declares.
GENERALIZED_PARAMETERS = {
    "weights": Weights(),
    "generalize": OneOf("levels", "sets"),
    "loss": OneOf("ncp", "height"),
}


class GeneralizedMethod(Algorithm):
    """Base of the methods whose objective is the generalization cost."""

    cost_class: ClassVar[type[GeneralizationCost]] = GeneralizationCost

    def cost(self, space: MetricSpace) -> GeneralizationCost:
        """The generalization cost on ``space`` with this method's weights, published form
        and loss."""
        return GeneralizationCost.on(
            space,
            self.generalize,  # type: ignore[attr-defined]
            self.weights,  # type: ignore[attr-defined]
            self.loss,  # type: ignore[attr-defined]
        )


def sensitive_value_codes(y: object) -> np.ndarray:
    """Each record's sensitive value ``y`` as a code by the one encoding that the verifier,
    risk and the repairs read (:func:`~incrowd.data.columns.sensitive_codes`: NA, None,
    NaN, empty text and ``(missing)`` one value; numbers by their value), so that the
    classes a method counts as l-diverse are those ``verify`` counts."""
    import pandas as pd

    return sensitive_codes(pd.Series(np.asarray(y)))[0]
