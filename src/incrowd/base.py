"""The estimator contract every incrowd algorithm follows.

As scikit-learn's estimators: ``__init__`` only stores its keyword parameters; ``fit``
validates them against the class's declared :attr:`Algorithm.parameters`, does the work and
returns ``self``; results carry a trailing underscore (``partition_``, ``labels_``,
``cost_``, ``lower_bound_``). ``fit`` takes a :class:`~incrowd.MetricSpace` or a plain
numeric matrix, used as it is. ``get_params`` / ``set_params`` and ``clone`` work as in
scikit-learn (and ``sklearn.base.clone`` accepts our estimators), without importing it.

What a method is and promises is declared, never guessed from its name: its
:class:`Guarantee`, its :class:`Tags` (a fixed k, an outlier budget, a cluster cap, row
deletion, a certificate) and the :class:`~incrowd.costs.Cost` its guarantee is about
(:meth:`Algorithm.cost`). The shared checks (:func:`incrowd.testing.check_algorithm`) read
only these.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np

from .costs import Cost, certified_ratio
from .params import Constraint
from .partition import Partition
from .space.geometry import Geometry
from .space.metric_space import MetricSpace

__all__ = ["Algorithm", "Guarantee", "Tags", "as_space", "clone"]


@dataclass(frozen=True)
class Guarantee:
    """What a method promises about its cost relative to the optimum.

    ``ratio`` is the proven approximation ratio when one number holds for every input;
    None either when the method proves none (``proven=False``: a heuristic) or when the
    ratio depends on the input or parameters (then the fitted estimator's
    ``approximation_ratio_`` gives it). ``text`` says it in words; ``reference`` names the
    paper and theorem.
    """

    text: str
    reference: str
    ratio: float | None = None
    proven: bool = True


@dataclass(frozen=True)
class Tags:
    """What the shared checks, the command line and the release need to know of a method.

    - ``fixed_k``: the only crowd size it makes (the factor methods), or None;
    - ``outlier_budget``: it takes ``epsilon`` and may leave ``⌊εn⌋`` records out;
    - ``cluster_cap``: it takes ``max_clusters``;
    - ``deletion``: it may delete records (``allow_deletion``), each costing a full row;
    - ``certificate``: ``lower_bound_`` is a proven lower bound on the optimum;
    - ``norm``: the norm its guarantee is stated in; ``any_norm``: it works in the space's
      norm, 1 or 2 as the user chooses (the radius methods);
    - ``generalized``: it optimizes the generalized release (takes ``generalize``);
    - ``polished``: its objective is a sum over crowds other than the generalization loss,
      and its generalized release is polished for that loss where its own objective does
      not rise (:mod:`incrowd.algorithms.release_polish`);
    - ``seeded``: it takes ``random_state``;
    - ``max_records``: the largest input it accepts (the exact solver), or None;
    - ``coordinates``: the number of numeric quasi-identifiers it needs (a place as
      longitude and latitude: 2), or None for any table;
    - ``full_domain``: it publishes one level of each hierarchy for the whole table
      (``levels_``; global recoding), so its ``cost_`` prices every crowd at those levels
      (:meth:`~incrowd.costs.GeneralizationCost.at_levels`), and it takes
      ``suppression_limit``: records in classes under ``k``, each costing a full row.
    """

    fixed_k: int | None = None
    outlier_budget: bool = False
    cluster_cap: bool = False
    deletion: bool = False
    certificate: bool = True
    norm: int = 2
    any_norm: bool = False
    generalized: bool = False
    polished: bool = False
    seeded: bool = False
    max_records: int | None = None
    coordinates: int | None = None
    full_domain: bool = False

    @property
    def may_suppress(self) -> bool:
        """Whether some records may be left out of the release (label −1)."""
        return self.outlier_budget or self.deletion or self.full_domain


def as_space(X: object) -> MetricSpace:
    """A metric space as given, or a Euclidean space on a plain matrix's values."""
    return X if isinstance(X, MetricSpace) else MetricSpace.from_array(X)


class Algorithm(ABC):
    """Base class: subclasses declare ``guarantee``, ``tags`` and ``parameters`` and
    implement :meth:`cost` and :meth:`_fit`.

    Attributes set by ``fit``
    -------------------------
    partition_ : Partition
    labels_ : ndarray of int (``-1`` for a record left out)
    cost_ : float, the method's objective (:meth:`cost`) on this instance
    lower_bound_ : float or None, a proven lower bound on the optimal cost (a certificate)
    """

    #: Paper, theorem and ratio.
    guarantee: ClassVar[Guarantee]
    #: The objective (:meth:`cost` builds it on a space, with this method's parameters).
    cost_class: ClassVar[type[Cost]]
    #: What the method is (see :class:`Tags`).
    tags: ClassVar[Tags] = Tags()
    #: The allowed values of each ``__init__`` parameter, checked by ``fit``.
    parameters: ClassVar[dict[str, Constraint]] = {}

    partition_: Partition
    cost_: float
    lower_bound_: float | None

    # ------------------------------------------------------------ the contract
    def fit(self, X: object, y: object = None) -> Self:
        """Partition the records of ``X`` (a MetricSpace or an array) into crowds."""
        space = as_space(X)
        for name, constraint in self.parameters.items():
            constraint.check(name, getattr(self, name), space.n)
        self.lower_bound_ = None
        self._fit(space)
        self.labels_ = self.partition_.labels
        return self

    def fit_predict(self, X: object, y: object = None) -> np.ndarray:
        """``fit(X).labels_``."""
        return self.fit(X).labels_

    def cost(self, space: MetricSpace) -> Cost:
        """The objective this method minimizes (and its guarantee is about) on ``space``."""
        return self.cost_class.on(space)  # type: ignore[attr-defined]

    @abstractmethod
    def _fit(self, space: MetricSpace) -> None:
        """Set ``partition_``, ``cost_`` and, where the method proves one, ``lower_bound_``."""

    def capped_lower_bound(self, cap: np.ndarray) -> float | None:
        """The lower bound again, with each record's neighbour distances capped at
        ``cap[u]``; None unless ``lower_bound_`` is a sum over records of distances to their
        nearest neighbours (in :meth:`bound_geometry`), as the forest's is.

        A part of a larger table uses it for a bound on the *whole* table's optimum: a
        record's neighbour in the whole table is either in the part, or at least ``cap[u]``
        away (the distance to the part's boundary), so each distance of the whole table is
        at least the part's one capped at ``cap[u]``.
        """
        return None

    def capped_bound_terms(self, cap: np.ndarray) -> np.ndarray | None:
        """For a method that may leave records out (``tags.outlier_budget``): each record's
        term of the capped bound, such that a larger table's optimum, leaving out at most
        :func:`~incrowd.params.outlier_budget` of its ``N`` records, is at least the sum of
        all its records' terms less the largest that many. None otherwise (then
        :meth:`capped_lower_bound` is the part's whole share)."""
        return None

    def bound_geometry(self, space: MetricSpace) -> Geometry | None:
        """The geometry of the distances :meth:`capped_lower_bound` sums (None if none)."""
        return None

    @property
    def approximation_ratio_(self) -> float | None:
        """The approximation ratio this fitted configuration promises (a variant may promise
        more than its class); None for a heuristic."""
        return self.guarantee.ratio

    @property
    def certified_ratio_(self) -> float | None:
        """``cost_ / lower_bound_``: the optimum is at least ``cost_`` divided by this.

        1 when both are 0 (the release is optimal); None without a positive bound.
        """
        return certified_ratio(self.cost_, getattr(self, "lower_bound_", None))

    # ------------------------------------------------------------ parameters
    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [
            p.name
            for p in signature.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The ``__init__`` parameters and their current values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Self:
        """Set ``__init__`` parameters; unknown names are an error."""
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                msg = f"{type(self).__name__} has no parameter {name!r}"
                raise ValueError(msg)
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        shown = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not (name in defaults and _same(defaults[name], value))
        ]
        return f"{type(self).__name__}({', '.join(shown)})"


def _same(a: object, b: object) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays and odd objects: treat as changed
        return False


def clone(estimator: Algorithm) -> Algorithm:
    """A new, unfitted estimator with the same parameters."""
    return type(estimator)(**estimator.get_params())
