"""What every method that publishes generalized crowds shares: its cost and its parameters.

A method minimizing the generalization cost (:class:`~incrowd.costs.GeneralizationCost`)
takes ``weights``, ``generalize`` (hierarchy ``"levels"`` or value ``"sets"``) and ``loss``
(``"ncp"``, the default, or the paper's ``"height"``), and prices its crowds with them.
"""

from __future__ import annotations

from typing import ClassVar

from ...base import Algorithm
from ...costs import GeneralizationCost
from ...params import OneOf, Weights
from ...space.metric_space import MetricSpace

__all__ = ["GeneralizedMethod", "GENERALIZED_PARAMETERS"]

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
