"""MDAV: Maximum Distance to Average Vector microaggregation (the baseline heuristic)."""

from __future__ import annotations

from typing import ClassVar, Literal

import numba
import numpy as np

from ..base import Algorithm, Guarantee, check_k
from ..data.space import MetricSpace
from ..errors import ParameterError
from ..metrics import sse_loss
from ..partition import Partition
from ._mdav_kernel import mdav_labels

__all__ = ["MDAV"]


class MDAV(Algorithm):
    """Fixed-size microaggregation by Maximum Distance to Average Vector.

    Parameters
    ----------
    k : int, default 3
        Minimum crowd size (every crowd has between ``k`` and ``2k - 1`` records).
    variant : {"classic", "single"}, default "classic"
        ``"classic"`` (Domingo-Ferrer & Torra 2005): find ``r``, the record farthest from the
        centroid of the remaining records, and ``s``, the record farthest from ``r``; form a
        crowd of ``r`` and its ``k - 1`` nearest remaining records, then one around ``s``;
        repeat while at least ``3k`` records remain. Then, if at least ``2k`` remain, form one
        more crowd around the record farthest from the centroid; the rest form the last crowd.
        ``"single"``: form only the crowd around ``r`` and recompute the centroid, while at
        least ``2k`` remain (the variant that reproduces the published Tarragona k = 2 SSE).

    Attributes
    ----------
    partition_ : Partition
    labels_ : ndarray of int
    cost_ : float
        Sum of squared Euclidean distances of the records to their crowd's centroid (SSE).
    lower_bound_ : None
        MDAV proves no bound on the optimum.

    Notes
    -----
    **No approximation guarantee**: MDAV is a heuristic; its SSE is not bounded by any
    multiple of the optimum. It is here as the baseline that statistical offices use
    (sdcMicro's ``mdav``) and that the certified methods are compared with.

    Distances are Euclidean on the space's points; nearest-neighbour and farthest-point ties
    go to the lower row index, so the result is deterministic. Time :math:`O(n^2 p / k)`,
    memory :math:`O(n p)`; each pass over the remaining records runs on all cores.

    References
    ----------
    .. [1] J. Domingo-Ferrer, V. Torra. Ordinal, continuous and heterogeneous k-anonymity
       through microaggregation. Data Mining and Knowledge Discovery 11(2):195-212, 2005.
       doi:10.1007/s10618-005-0007-5

    Examples
    --------
    >>> import numpy as np, incrowd
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    >>> incrowd.MDAV(k=3).fit(X).labels_.tolist()
    [0, 0, 0, 1, 1, 1]
    """

    guarantee: ClassVar[Guarantee] = Guarantee(
        None,
        "none: a heuristic without an approximation bound",
        "Domingo-Ferrer & Torra, Data Min. Knowl. Discov. 11(2), 2005",
    )
    cost_measure: ClassVar[str] = "sse"

    def __init__(self, k: int = 3, *, variant: Literal["classic", "single"] = "classic") -> None:
        self.k = k
        self.variant = variant

    def _fit(self, space: MetricSpace) -> None:
        k = check_k(self.k, space.n)
        if self.variant not in ("classic", "single"):
            msg = f"variant must be 'classic' or 'single', got {self.variant!r}"
            raise ParameterError(msg)
        labels = mdav_labels(space.points, k, self.variant == "single", numba.get_num_threads())
        self.partition_ = Partition(np.asarray(labels))
        self.cost_ = sse_loss(space.points, self.partition_.labels)
