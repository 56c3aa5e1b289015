"""Min-Max Bin Covering: labels into classes of at least ``k`` records, the largest as small
as possible.

Du, Eppstein, Goodrich, Lueker. *On the Approximability of Geometric and Geographic
Generalization and the Min-Max Bin Covering Problem*. WADS 2009, Section 4.

An unordered attribute (a first name, a diagnosis code) is generalized by grouping its
values: item ``i`` is a value with ``x_i`` records, a *bin* is a class of values published as
one label, and every class must hold at least ``k`` records. The objective is the largest
class. The problem is NP-hard in the strong sense (Thm 5) and not approximable below 2 for
binary input (Thm 6).

- :func:`fold` — Theorem 7, linear time: items of ``k`` or more alone, Next Fit on the
  rest, a last bin under ``k`` merged into the lightest bin; **largest ≤ max(k − 1 + max x,
  3k − 3)**, under 3·OPT.
- :func:`theorem9` — Theorem 9, a **5/2-approximation**: Next Fit on the items sorted
  decreasing, then the paper's fix-ups of a last bin under ``k`` (and the cases of at most
  three bins it omits); the better of that and :func:`fold`.
- :func:`ptas` — Theorem 10, **largest ≤ (1 + ε)(OPT + k)** (so under 2(1 + ε)·OPT): the
  paper's rounding of the large items, enumeration of their packings, greedy completion and
  merging; for small inputs and large ε only (it refuses an enumeration that is too large).
- :func:`spread` — the simplified Spread of the paper's experiment (Sec. 5), no bound.
- :func:`exact` — the optimum by the subset dynamic program (at most 20 values).
- :class:`BinCovering` — the method: a table's values (distinct quasi-identifier rows) as
  the items, each record in its value's class.

Every result carries a proven lower bound on the optimum, ``max(k, max x, ⌈W / ⌊W/k⌋⌉)``
(every class holds ``k``; some class holds the largest item; at most ``⌊W/k⌋`` classes share
``W`` records), so ``largest / lower_bound`` certifies how close it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from ....base import Algorithm, Guarantee, Tags
from ....costs import LargestCrowd
from ....errors import ParameterError
from ....params import CrowdSize, Interval, OneOf
from ....partition import Partition
from ....space.metric_space import MetricSpace
from .covering import Covering, Order, lower_bound
from .five_halves import theorem9
from .next_fit import fold, spread, sweep
from .optimum import exact
from .scheme import MAX_STEPS, MAX_TYPES, ptas

__all__ = [
    "ALGORITHMS",
    "MAX_STEPS",
    "MAX_TYPES",
    "RATIOS",
    "BinCovering",
    "Covering",
    "Order",
    "cover",
    "exact",
    "fold",
    "lower_bound",
    "ptas",
    "spread",
    "sweep",
    "theorem9",
]


#: The covering algorithms by name, as the method and the hierarchy builder offer them.
ALGORITHMS = ("fold", "spread", "theorem9", "ptas", "exact")


def cover(
    x: Sequence[int] | np.ndarray,
    k: int,
    algorithm: str = "theorem9",
    *,
    order: Order = "given",
    seed: int | None = None,
    epsilon: float = 0.5,
) -> Covering:
    """The covering of ``x`` by the algorithm named (one of :data:`ALGORITHMS`)."""
    if algorithm == "fold":
        return fold(x, k, order=order, seed=seed)
    if algorithm == "spread":
        return spread(x, k, order=order, seed=seed)
    if algorithm == "theorem9":
        return theorem9(x, k)
    if algorithm == "ptas":
        return ptas(x, k, epsilon)
    if algorithm == "exact":
        return exact(x, k)
    msg = f"unknown covering algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}"
    raise ParameterError(msg)


#: The ratio each algorithm proves against the optimum (None: no bound).
RATIOS: dict[str, float | None] = {"fold": 3.0, "spread": None, "theorem9": 2.5, "exact": 1.0}


class BinCovering(Algorithm):
    """Crowds as classes of whole values (labels), the largest as small as possible.

    Parameters
    ----------
    k : int, default 5
    algorithm : {"theorem9", "fold", "spread", "ptas", "exact"}, default "theorem9"
        See the module docstring: Theorem 9's 5/2-approximation, Fold (Thm 7, under 3·OPT),
        the experiment's Spread (no bound), Theorem 10's scheme (``(1 + ε)(OPT + k)``,
        under ``2(1 + ε)·OPT``), the optimum (at most 20 values).
    order : {"given", "ascending", "descending"}, default "given"
        The order Fold and Spread take the values in (given: sorted by value).
    ptas_epsilon : float, default 0.5
        Theorem 10's ε.

    Attributes
    ----------
    partition_, labels_, cost_ (the largest crowd), lower_bound_

    Notes
    -----
    Du, Eppstein, Goodrich, Lueker (WADS 2009), Section 4. A *value* is a distinct
    combination of the quasi-identifiers (one label for the single-attribute problem),
    with its number of records; a crowd is a set of whole values, published (with
    ``generalize="sets"``) as the set of labels it holds. The guarantee is that of the
    algorithm chosen; ``approximation_ratio_`` gives it.

    Examples
    --------
    >>> import pandas as pd
    >>> from incrowd import Categorical, MetricSpace, Schema
    >>> names = pd.DataFrame({"name": ["ann"] * 5 + ["bob"] * 3 + ["cy"] * 3 + ["di"] * 2})
    >>> space = MetricSpace.from_table(names, Schema({"name": Categorical()}))
    >>> model = BinCovering(k=5).fit(space)
    >>> model.cost_, model.lower_bound_, model.partition_.sizes.tolist()
    (7.0, 7, [7, 6])
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        text="largest crowd ≤ 5/2·OPT (theorem9), 3·OPT (fold), (1+ε)(OPT+k) (ptas), OPT (exact)",
        reference="Du, Eppstein, Goodrich & Lueker, WADS 2009, Thms 7, 9, 10",
    )
    tags: ClassVar[Tags] = Tags()
    cost_class: ClassVar[type[LargestCrowd]] = LargestCrowd
    parameters: ClassVar[dict] = {
        "k": CrowdSize(),
        "algorithm": OneOf(*ALGORITHMS),
        "order": OneOf("given", "ascending", "descending"),
        "ptas_epsilon": Interval(0, float("inf"), open_low=True),
    }

    def __init__(
        self,
        k: int = 5,
        *,
        algorithm: str = "theorem9",
        order: Order = "given",
        ptas_epsilon: float = 0.5,
    ) -> None:
        self.k = k
        self.algorithm = algorithm
        self.order = order
        self.ptas_epsilon = ptas_epsilon

    def _fit(self, space: MetricSpace) -> None:
        _, inverse, counts, _ = space.index().distinct_rows
        found = cover(
            counts, int(self.k), self.algorithm, order=self.order, epsilon=self.ptas_epsilon
        )
        self.partition_ = Partition(found.labels[inverse])
        self.cost_ = float(found.largest)
        self.lower_bound_ = found.lower_bound

    @property
    def approximation_ratio_(self) -> float | None:
        if self.algorithm == "ptas":
            return 2.0 * (1.0 + float(self.ptas_epsilon))
        return RATIOS.get(self.algorithm)
