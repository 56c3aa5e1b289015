"""What every cost (objective) offers: the price of a labelling, and of one crowd.

A cost is an object built on a :class:`~incrowd.MetricSpace`. Algorithms are composed with
the cost they minimize; the exact solver (:mod:`incrowd.algorithms.exact`) and the shared
checks (:mod:`incrowd.testing`) price subsets with :meth:`Cost.crowd` and combine crowds
with :attr:`Cost.combine`; the release metadata names the cost by :attr:`Cost.name`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Literal

import numpy as np

__all__ = ["Cost"]


class Cost(ABC):
    """An objective over partitions into crowds."""

    #: The name of the figure in the release metadata (``"sse"``, ``"max_radius"``, ...).
    name: ClassVar[str]
    #: How crowd costs add up: ``"sum"`` (SSE, generalization) or ``"max"`` (radius).
    combine: ClassVar[Literal["sum", "max"]]
    #: Whether a crowd's cost depends on a chosen center record: then :meth:`priced`
    #: starts from the centers a method chose (its ``center_records_``).
    centered: ClassVar[bool] = False

    @abstractmethod
    def of(self, labels: np.ndarray) -> float:
        """The cost of a labelling (crowd per record; −1 for a record left out)."""

    def priced(self, labels: np.ndarray, centers: np.ndarray | None = None) -> float:
        """The cost of a labelling, from the method's centers where the cost has centers."""
        if self.centered and centers is not None:
            return self.of(labels, centers)  # type: ignore[call-arg]
        return self.of(labels)

    @abstractmethod
    def crowd(self, members: np.ndarray) -> float:
        """The cost of one crowd made of the records ``members``."""

    def merge_price(self, members: np.ndarray) -> float:
        """A quick price of one crowd, for choosing among many merges (l-diversity): the
        crowd's cost where that is cheap to compute, else an upper bound on it (a center
        among the members instead of among all records)."""
        return self.crowd(members)

    def subset_costs(self, n: int, k: int) -> np.ndarray:
        """The cost of every subset of the ``n`` records (indexed by bitmask) with at least
        ``k`` members; 0 for smaller ones. For the exact solver on tiny inputs; costs with
        a compiled version override this loop."""
        out = np.zeros(1 << n)
        bits = np.arange(n)
        for s in range(1, 1 << n):
            members = bits[(s >> bits) & 1 == 1]
            if members.size >= k:
                out[s] = self.crowd(members)
        return out

    def size_cap(self, k: int) -> int | None:
        """A crowd size above which some optimum never goes (the exact solver may skip
        larger crowds), or None."""
        return None
