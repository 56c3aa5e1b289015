"""MDAV: Maximum Distance to Average Vector microaggregation (the baseline heuristic).

Crowds of ``k`` records around the records farthest from the average, minimizing the SSE
with no approximation bound (Domingo-Ferrer & Torra, Data Min. Knowl. Discov. 11(2), 2005);
the kernel of one epoch is :mod:`._kernel`.
"""

from __future__ import annotations

import time
from typing import ClassVar, Literal

import numpy as np

from ..._runtime import report_progress, threads
from ...base import Algorithm, Guarantee, Tags
from ...costs import SSE
from ...params import CrowdSize, OneOf
from ...partition import Partition
from ...space.geometry import Geometry
from ...space.metric_space import MetricSpace
from ._kernel import KERNELS, State

__all__ = ["MDAV", "compile_parallel", "mdav_labels"]

#: Tables of fewer records run on one thread (a compiled parallel loop, and threads that a
#: loaded machine may not run, do not pay for themselves there) ...
PARALLEL_MIN_RECORDS = 50_000
#: ... and so do passes over fewer remaining records than this.
PARALLEL_MIN_ROWS = 10_000
#: Crowds formed per epoch of the driver, between speed measurements.
EPOCH = 64
#: Epochs before the slower variant is timed again (doubling while it keeps losing).
PROBE_EVERY = 8


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

    Distances are Euclidean in the space's L2 geometry; categorical and hierarchical
    attributes are handled as codes (:mod:`._kernel`), so an attribute with 200,000
    values costs no more than one with two. Nearest-neighbour and farthest-point ties go to
    the lower row index, so the result is deterministic and independent of the threads.
    Time :math:`O(n^2 (p + b) / k)` for ``p`` numeric and ``b`` code columns, memory
    :math:`O(n (p + b))`. Large passes run on several threads when that is measured to be
    faster (not on a machine whose other jobs keep the cores busy).

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
        "none: a heuristic without an approximation bound",
        "Domingo-Ferrer & Torra, Data Min. Knowl. Discov. 11(2), 2005",
        ratio=None,
        proven=False,
    )
    tags: ClassVar[Tags] = Tags(certificate=False)
    cost_class: ClassVar[type[SSE]] = SSE
    parameters: ClassVar[dict] = {"k": CrowdSize(), "variant": OneOf("classic", "single")}

    def __init__(self, k: int = 3, *, variant: Literal["classic", "single"] = "classic") -> None:
        self.k = k
        self.variant = variant

    def _fit(self, space: MetricSpace) -> None:
        geometry = space.geometry_in(2)
        labels = mdav_labels(geometry, self.k, self.variant == "single", threads())
        self.partition_ = Partition(labels)
        self.cost_ = self.cost(space).of(self.partition_.labels)


def compile_parallel(geometry: Geometry) -> None:
    """Compile (into the kernel cache) the multi-threaded loop for tables like this one."""
    state = State(geometry.numeric, geometry.codes, geometry.entries, geometry.offsets)
    coded = geometry.codes.shape[1] > 0
    KERNELS[True, coded]["steps"](*state.arrays(), state.m, state.g, 3, False, 1, 2)


def mdav_labels(geometry: Geometry, k: int, single: bool, n_threads: int) -> np.ndarray:
    """MDAV crowds of the records of an L2 geometry (classic: two per round; single: one).

    The loop runs in epochs of :data:`EPOCH` crowds. On large tables
    (:data:`PARALLEL_MIN_RECORDS`), while passes are long enough (:data:`PARALLEL_MIN_ROWS`)
    and there is more than one thread, each epoch runs the variant
    last measured faster per record scanned; the other is timed again after 8, 16, 32, ...
    epochs (back to 8 when it wins), since other jobs on the machine come and go. Progress:
    the records placed after each epoch (:func:`~incrowd._runtime.report_progress`).
    """
    state = State(geometry.numeric, geometry.codes, geometry.entries, geometry.offsets)
    chooser = _Chooser(n_threads if geometry.n >= PARALLEL_MIN_RECORDS else 1)
    coded = geometry.codes.shape[1] > 0
    while True:
        parallel = chooser.next(state.m)
        before, start = state.m, time.perf_counter()
        state.m, state.g = KERNELS[parallel, coded]["steps"](
            *state.arrays(), state.m, state.g, k, single, EPOCH, n_threads if parallel else 1
        )
        if state.m == before:
            break
        report_progress(geometry.n - state.m, geometry.n)  # records placed
        scanned = (before + state.m) / 2 * (before - state.m)
        chooser.record(parallel, (time.perf_counter() - start) / scanned)
    KERNELS[False, coded]["finish"](*state.arrays(), state.m, state.g, k, single)
    report_progress(geometry.n, geometry.n)
    return state.labels


class _Chooser:
    """Serial or parallel for the next epoch, by measured seconds per record scanned.

    The variant in use is timed every epoch; the other only in probes. A probe must be 10 %
    faster to take over (timings are noisy), and a first epoch of either variant (threads
    starting, caches cold) is not counted.
    """

    def __init__(self, n_threads: int) -> None:
        self.n_threads = n_threads
        self.rate: dict[bool, float | None] = {False: None, True: None}
        self.seen = {False: 0, True: 0}
        self.best = True
        self.epoch = 0
        self.interval = PROBE_EVERY
        self.probe_at = 2
        self.probing = False

    def next(self, m: int) -> bool:
        self.epoch += 1
        self.probing = False
        if self.n_threads < 2 or m < PARALLEL_MIN_ROWS:
            return False
        if self.seen[self.best] < 2 or self.epoch < self.probe_at:
            return self.best
        self.probing = True
        return not self.best

    def record(self, parallel: bool, seconds_per_record: float) -> None:
        self.seen[parallel] += 1
        if self.seen[parallel] == 1:
            return  # warming up
        self.rate[parallel] = seconds_per_record
        if not self.probing:
            return
        if self.seen[parallel] < 2:  # the probe was only a warm-up: probe again next epoch
            self.probe_at = self.epoch + 1
            return
        current = self.rate[self.best]
        if current is not None and seconds_per_record < 0.9 * current:
            self.best = parallel
            self.interval = PROBE_EVERY
        else:
            self.interval *= 2
        self.probe_at = self.epoch + self.interval
