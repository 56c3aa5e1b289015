"""The estimator contract every incrowd algorithm follows.

Like scikit-learn's estimators: ``__init__`` only stores its keyword parameters, ``fit``
validates them, does the work and returns ``self``; results carry a trailing underscore
(``partition_``, ``labels_``, ``cost_``, ``lower_bound_``). ``fit`` takes a
:class:`~incrowd.MetricSpace` or a plain numeric matrix, which is used as it is.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Self

from sklearn.base import BaseEstimator, ClusterMixin

from .data.space import MetricSpace
from .params import check_k
from .partition import Partition

__all__ = ["Algorithm", "Guarantee", "as_space", "check_k"]


@dataclass(frozen=True)
class Guarantee:
    """What a method promises about its cost relative to the optimum.

    ``factor`` is the proven approximation ratio (None when the method has none); ``text``
    says it in words; ``reference`` names the paper and theorem.
    """

    factor: float | None
    text: str
    reference: str


def as_space(X: object) -> MetricSpace:
    """A metric space as given, or a Euclidean space on a plain matrix's values."""
    return X if isinstance(X, MetricSpace) else MetricSpace.from_array(X)


class Algorithm(ClusterMixin, BaseEstimator):
    """Base class: subclasses implement :meth:`_fit` and set ``guarantee`` and ``cost_measure``.

    Attributes set by ``fit``
    -------------------------
    partition_ : Partition
    labels_ : ndarray of int (``-1`` for a suppressed record)
    cost_ : float, the method's objective on this instance
    lower_bound_ : float or None, a proven lower bound on the optimal cost (a certificate)
    """

    #: Paper, theorem and factor; ``factor`` None when the method has no guarantee.
    guarantee: ClassVar[Guarantee]
    #: What ``cost_`` measures, e.g. ``"sse"`` or ``"max_radius"``.
    cost_measure: ClassVar[str]
    #: The norm of the metric space the method's guarantee is stated in.
    norm: ClassVar[int] = 2
    #: Name of the minimum-crowd-size parameter (``k``, or ``r`` in the clustering paper).
    size_param: ClassVar[str] = "k"
    #: Whether the method may leave records out (label -1) under a budget.
    allows_suppression: ClassVar[bool] = False

    partition_: Partition
    cost_: float
    lower_bound_: float | None

    def fit(self, X: object, y: object = None) -> Self:
        """Partition the points of ``X`` (a MetricSpace or an array) into crowds."""
        space = as_space(X)
        self.lower_bound_ = None
        self._fit(space)
        self.labels_ = self.partition_.labels
        return self

    @abstractmethod
    def _fit(self, space: MetricSpace) -> None:
        """Set ``partition_``, ``cost_`` and, where the method proves one, ``lower_bound_``."""

    @property
    def factor_(self) -> float | None:
        """The approximation factor this fitted configuration promises (a variant may
        promise more than its class, e.g. point centers); None without a guarantee."""
        return self.guarantee.factor

    @property
    def certified_ratio_(self) -> float | None:
        """``cost_ / lower_bound_``: the optimum is at least ``cost_`` divided by this.

        1 when both are 0 (the release is optimal); None without a positive bound.
        """
        lb = getattr(self, "lower_bound_", None)
        if lb is None:
            return None
        if lb <= 0:
            return 1.0 if self.cost_ <= 0 else None
        return float(self.cost_ / lb)
