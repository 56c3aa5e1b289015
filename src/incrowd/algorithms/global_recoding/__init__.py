"""k-Anonymity by global recoding: one level per attribute, a suppression limit, the optimum.

:class:`GlobalRecoding` publishes every record's quasi-identifiers at the same level of
each hierarchy (full-domain generalization: consistent categories, as statistical offices
publish), and suppresses the records of the classes still smaller than ``k``, at most a
share ``suppression_limit`` of them. Of all the nodes of the generalization lattice that
qualify, it finds the one of least loss, exactly (:mod:`._search`).

Guarantee: the least loss over the lattice within the suppression limit (a certified gap
when a time limit stops the search). Reference: Samarati, *Protecting Respondents'
Identities in Microdata Release*, IEEE TKDE 13(6), 2001 (full-domain generalization with
suppression); Kohlmayer et al., *Flash*, PASSAT 2012 (the optimal lattice search).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar, Self

import numpy as np

from ...base import Guarantee, Tags
from ...costs import GeneralizationCost
from ...errors import InfeasibleError, ParameterError
from ...params import (
    CrowdSize,
    Flag,
    Function,
    Interval,
    Levels,
    OneOf,
    PositiveInt,
    Weights,
    outlier_budget,
)
from ...partition import Partition
from ...space.metric_space import MetricSpace
from .._shared.generalized import SUPPRESSION_LIMIT, GeneralizedMethod, sensitive_value_codes
from ._bounds import level_range, nothing_published, nothing_qualifies
from ._classes import key_layout
from ._search import ClassCheck, LatticeResult, LatticeTables, search

__all__ = ["GlobalRecoding"]


class GlobalRecoding(GeneralizedMethod):
    """Optimal full-domain generalization (global recoding) with a suppression limit.

    A node of the lattice gives each quasi-identifier one level of its hierarchy; every
    record is published at those levels; the records of classes with fewer than ``k``
    records (or, with ``l`` ≥ 2, fewer than ``l`` distinct sensitive values) are
    suppressed. A node qualifies when it suppresses at most ``⌊suppression_limit · n⌋``
    records. The search takes nodes best first by a lower bound on the loss of the node and
    of every node above it, and stops when no node left can do better (:mod:`._search`): the
    node returned is the optimum over the lattice for ``loss``.

    A numeric attribute without a hierarchy has two levels: its values, or ``*``. (The
    command line gives a number nested intervals when no hierarchy is named.)

    Parameters
    ----------
    k : int, default 5
    suppression_limit : float in [0, 1], default 0.05
        The largest share of the records that may be suppressed (each costing a full row).
    loss : {"ncp", "height", "discernibility"}, default "ncp"
        What the search minimizes: the NCP of the release (a suppressed record costing 1 per
        attribute; :mod:`incrowd.data.ncp`), the paper's ``h / l`` per attribute (Aggarwal
        et al.), or discernibility (``Σ |C|²`` over the published classes, ``n`` per
        suppressed record).
    weights : mapping of attribute name to weight, optional
        Multiplies each attribute's loss (refused with discernibility, which has none).
    generalize : {"levels"}
        Global recoding publishes hierarchy labels.
    l : int, default 1
        With ``l`` ≥ 2 a class qualifies only with ``l`` distinct sensitive values (``y`` of
        :meth:`fit`); the others are suppressed within the limit.
    time_limit : float, default 300
        Seconds of search; when it stops the search, the best node found is kept and
        :attr:`certificate_` says the gap (``optimal`` False). A qualifying node is found
        first whatever the limit (a greedy dive, then a bisection towards the top once the
        time is up: :mod:`._dive`), so a stopped search has a real candidate.
    star_class : bool, default True
        The suppressed records are published as one class, a row of ``*`` each (``incrowd
        anonymize``'s default ``--suppressed star``): a node then qualifies only when it
        suppresses no record or at least ``k`` of them (meeting ``l`` and ``class_check``
        together), since an attacker who knows the published categories knows that a
        person missing from them is one of those rows. False: they are withheld.
    class_check : callable, optional
        Another privacy model as a constraint on the classes: ``class_check(labels,
        n_classes)`` is given each record's class at a node and returns, per class, whether
        it meets the model (entropy or recursive l-diversity, t-closeness:
        :func:`incrowd.privacy.models.satisfied`, as ``incrowd anonymize`` passes it); the
        classes that do not are suppressed within the limit. The search needs no
        monotonicity of it.
    min_level, max_level : mapping of attribute name to level, optional
        The lowest and highest level each named attribute may be published at (0: its
        values; a number without a hierarchy and a category have levels 0 and 1, ``*``; a
        hierarchy up to its height). The lattice is cut to those ranges and the optimum is
        that of the cut lattice, proven as on the whole one.

    Attributes
    ----------
    partition_, labels_ : the classes of the node (−1: a suppressed record)
    levels_ : tuple of int, the level of each quasi-identifier (in the space's column order)
    cost_ : float, the generalization cost of the release at ``levels_`` with a full row per
        suppressed record (:meth:`~incrowd.costs.GeneralizationCost.at_levels`): with
        ``loss="ncp"`` and unit weights, the NCP times ``n · |Q|``
    loss_ : float, the value of ``loss`` at the node
    lower_bound_ : None (the optimum over the lattice is not a bound on the optimum over all
        partitions, which the other methods' certificates are about)
    certificate_ : dict, the (cut) lattice's size, the nodes evaluated, whether the node is
        proven optimal, and the lower bound on the lattice optimum
    nothing_published_ : str or None, why the node publishes nothing of the
        quasi-identifiers (every attribute ``*``, or every record suppressed) and what to
        relax; :func:`incrowd.anonymize` refuses such a node with an
        :class:`~incrowd.InfeasibleError` of this line. None for a node worth publishing.

    Notes
    -----
    **Guarantee**: ``loss_`` is the least over the nodes that qualify when
    ``certificate_["optimal"]``; otherwise (the time limit stopped the search) that least is
    at least ``certificate_["lattice_lower_bound"]``, and ``loss_`` is within the factor
    ``certificate_["gap"]`` of it (None: no bound above 0 was reached). With ``l`` ≥ 2 on
    values unique per record, a class's values are its records: ``l`` acts as a larger
    ``k``, with no per-class count. Time: :math:`O(m b)`
    per node taken for ``m`` distinct rows, ``b`` attributes (with ``l`` ≥ 2 a sort,
    :math:`O(m \\log m)`; a ``class_check`` is called on the ``n`` records); the nodes
    taken are those whose bound is below the optimum (on Adult's lattice of 6,480 nodes,
    ``benchmarks/global_recoding.py``).

    Examples
    --------
    >>> import pandas as pd
    >>> from incrowd import MetricSpace, Schema
    >>> from incrowd.data.schema import Categorical
    >>> table = pd.DataFrame({"sex": list("ffmmmf"), "city": list("aabbba")})
    >>> space = MetricSpace.from_table(table, Schema({"sex": Categorical(),
    ...                                               "city": Categorical()}))
    >>> model = GlobalRecoding(k=3, suppression_limit=0.0).fit(space)
    >>> model.levels_, model.labels_.tolist()
    ((0, 0), [0, 0, 1, 1, 1, 0])
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        text=(
            "the least loss over the full-domain generalization lattice within the "
            "suppression limit (exact; a certified gap if the time limit stops the search)"
        ),
        reference=(
            "Samarati, IEEE TKDE 13(6), 2001 (full-domain generalization with suppression); "
            "Kohlmayer et al., Flash, PASSAT 2012 (optimal lattice search)"
        ),
        ratio=None,
    )
    tags: ClassVar[Tags] = Tags(norm=1, generalized=True, full_domain=True, certificate=False)
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        "suppression_limit": SUPPRESSION_LIMIT,
        "loss": OneOf("ncp", "height", "discernibility"),
        "weights": Weights(),
        "generalize": OneOf("levels"),
        "l": PositiveInt(),
        "time_limit": Interval(0.0, float("inf"), open_low=True),
        "class_check": Function(),
        "star_class": Flag(),
        "min_level": Levels("min_level"),
        "max_level": Levels("max_level"),
    }

    def __init__(
        self,
        k: int = 5,
        *,
        suppression_limit: float = 0.05,
        loss: str = "ncp",
        weights: Mapping[str, float] | None = None,
        generalize: str = "levels",
        l: int = 1,  # noqa: E741 - the privacy model's name
        time_limit: float = 300.0,
        star_class: bool = True,
        class_check: Callable[[np.ndarray, int], np.ndarray] | None = None,
        min_level: Mapping[str, int] | None = None,
        max_level: Mapping[str, int] | None = None,
    ) -> None:
        self.k = k
        self.suppression_limit = suppression_limit
        self.loss = loss
        self.weights = weights
        self.generalize = generalize
        self.l = l
        self.time_limit = time_limit
        self.class_check = class_check
        self.star_class = star_class
        self.min_level = min_level
        self.max_level = max_level

    def cost(self, space: MetricSpace) -> GeneralizationCost:
        """The generalization cost on ``space`` (NCP-priced labels for discernibility)."""
        level_loss = "height" if self.loss == "height" else "ncp"
        return GeneralizationCost.on(space, "levels", self.weights, level_loss)

    def fit(self, X: object, y: object = None) -> Self:
        """Find the node; ``y``: each record's sensitive value (needed when ``l`` ≥ 2)."""
        self._sensitive = None if y is None else np.asarray(y)
        return super().fit(X)

    def _fit(self, space: MetricSpace) -> None:
        k, n, ell = int(self.k), space.n, int(self.l)
        if self.loss == "discernibility" and self.weights:
            msg = "weights multiply an attribute's loss; discernibility counts classes: drop one"
            raise ParameterError(msg)
        model = self.cost(space)
        if ell >= 2 and (self._sensitive is None or self._sensitive.shape != (n,)):
            msg = f"l = {ell} needs each record's sensitive value: fit(X, y) with {n} values in y"
            raise ParameterError(msg)
        order = _attribute_order(model)
        low, high = level_range(model, order, self.min_level, self.max_level)
        sensitive = sensitive_value_codes(self._sensitive) if ell >= 2 else None
        if sensitive is not None and int(sensitive.max(initial=-1)) + 1 == n:
            # a value per record: a class has as many values as records, so l is a size
            k, ell, sensitive = max(k, ell), 1, None
        codes, tables = _lattice_tables(model, sensitive)
        check = None
        if self.class_check is not None:
            given = self.class_check

            def check(cls: np.ndarray, n_classes: int) -> np.ndarray:
                return given(cls[codes], n_classes)

        budget = outlier_budget(self.suppression_limit, n)
        found = search(tables, k, budget, ell=ell, loss=str(self.loss), check=check,
                       star_class=bool(self.star_class), time_limit=float(self.time_limit),
                       low=low, high=high)  # fmt: skip
        if found is None:
            why = nothing_qualifies(high, tables.height, self.max_level, bool(self.star_class))
            raise InfeasibleError(why)
        asked = (("l", int(self.l) > 1 or check is not None), ("min_level", bool(self.min_level)))
        self.nothing_published_ = nothing_published(
            found, tables.height, n, float(self.time_limit), tuple(a for a, on in asked if on)
        )
        levels = np.asarray(found.levels, dtype=np.intp)
        self.partition_ = Partition(_labels(tables, codes, levels, k, ell, check))
        self.levels_ = tuple(int(found.levels[order[i]]) for i in range(len(order)))
        self.loss_ = float(found.loss)
        self.cost_ = model.at_levels(self.partition_.labels, self.levels_)
        self.certificate_ = _certificate(found)

    @property
    def approximation_ratio_(self) -> float | None:
        return None


def _attribute_order(model: GeneralizationCost) -> list[int]:
    """For each attribute of ``model.names``, its position in the search's tables (the
    numeric attributes first, then the coded ones, as :func:`_lattice_tables` lays them)."""
    numeric = np.flatnonzero(model.numeric)
    coded = np.flatnonzero(~model.numeric)
    position = np.empty(len(model.names), dtype=np.intp)
    position[numeric] = np.arange(numeric.size)
    position[coded] = numeric.size + np.arange(coded.size)
    return position.tolist()


def _lattice_tables(
    model: GeneralizationCost, sensitive: np.ndarray | None
) -> tuple[np.ndarray, LatticeTables]:
    """Each record's distinct row, and the tables of the search: numbers as two levels
    (their values, ``*``), then the hierarchy labels."""
    n = model.n
    numbers = [np.unique(model.num[:, j], return_inverse=True)[1].ravel()
               for j in range(model.num.shape[1])]  # fmt: skip
    codes = np.column_stack([*numbers, model.codes]).astype(np.intp) if n else model.codes
    sens = np.zeros(n, dtype=np.intp) if sensitive is None else sensitive
    rows, inverse, counts = np.unique(np.column_stack([codes, sens]), axis=0,
                                      return_inverse=True, return_counts=True)  # fmt: skip
    codes, m = rows[:, :-1], rows.shape[0]
    a, b = len(numbers), codes.shape[1]
    levels = max(model.ancestors.shape[1], 2)
    width = max(model.ancestors.shape[2], int(codes[:, :a].max(initial=0)) + 1)
    labels = np.zeros((b, levels, m), dtype=np.int64)
    price = np.zeros((b, levels, width))
    height = np.zeros(b, dtype=np.intp)
    radix = np.ones(b, dtype=np.int64)
    star = model.star_price
    for j in range(a):  # a number: its value, or * (its weight; 0 for one value)
        labels[j, 0] = codes[:, j]
        price[j, 1, 0] = star[j]
        height[j] = 1
        radix[j] = int(codes[:, j].max(initial=0)) + 1
    for t in range(b - a):
        j = a + t
        height[j] = model.height[t]
        for level in range(int(height[j]) + 1):
            labels[j, level] = model.ancestors[t, level, codes[:, j]]
        radix[j] = int(model.ancestors[t, : height[j] + 1].max(initial=0)) + 1
        price[j, :, : model.node_cost.shape[2]] = model.cat_weight[t] * model.node_cost[t]
    tables = LatticeTables(
        labels=labels, counts=counts.astype(np.int64), sensitive=rows[:, -1].copy(),
        price=price, height=height, row_cost=float(model.row_cost),
        layout=key_layout(radix, m),
    )  # fmt: skip
    return inverse.ravel(), tables


def _labels(tables: LatticeTables, row_of: np.ndarray, levels: np.ndarray, k: int,
            ell: int, check: ClassCheck | None) -> np.ndarray:  # fmt: skip
    """Each record's class at ``levels`` (−1: suppressed)."""
    cls, bad = tables.suppressed(levels, k, ell, check)
    labels = np.where(bad[cls], -1, cls)
    return labels[row_of]


def _certificate(found: LatticeResult) -> dict[str, object]:
    # no bound above 0 proves no ratio (None), unless the loss is 0 too
    gap = (found.loss / found.lower_bound if found.lower_bound > 0
           else 1.0 if found.loss <= 0 else None)  # fmt: skip
    return {
        "lattice_nodes": found.lattice_nodes,
        "nodes_evaluated": found.evaluated,
        "optimal": found.optimal,
        "lattice_lower_bound": found.lower_bound,
        "gap": gap,
    }
