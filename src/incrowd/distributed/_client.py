"""Reaching the Dask workers: a local cluster or a running one (see
:mod:`incrowd.distributed`, "Scheduler")."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator
from typing import Any

from ..errors import IncrowdWarning, InputError, option

__all__ = ["client", "early_client", "reached", "unused_cluster_options", "warn_workers"]


def warn_workers(scheduler: str, workers: int | None) -> None:
    """Warn when ``workers`` has no effect with ``scheduler`` (both checked by
    :class:`~incrowd.pipeline.settings.Settings`)."""
    if workers is not None and scheduler != "local":
        warnings.warn(f"{option('workers')} has no effect with {option('scheduler', scheduler)}: "
                      "it sizes the local cluster only", IncrowdWarning, stacklevel=2)  # fmt: skip


def unused_cluster_options(scheduler: str, workers: int | None) -> str:
    """The options a run in this process leaves unused, as the user gave them ("" when
    none; ``workers`` with another scheduler than local was warned of already)."""
    unused = [option("scheduler")] if scheduler not in ("local", "sync") else []
    if workers is not None and scheduler == "local":
        unused.append(option("workers"))
    return " / ".join(unused)


@contextlib.contextmanager
def client(scheduler: str, workers: int | None) -> Iterator[Any]:
    """A client of a new local cluster (``"local"``) or of the one at ``scheduler``."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        msg = "a Dask scheduler needs dask[distributed]: pip install 'incrowd[dask]'"
        raise InputError(msg) from None
    from .._runtime import available_cpus

    cluster = None
    if scheduler == "local":
        # one thread per worker process, and the compiled kernels told so: n workers use
        # n cores, not n × n
        single = {"INCROWD_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        with warnings.catch_warnings():
            # the scheduler's HTTP server falls back to a free port when 8787 is taken, as it
            # often is on a shared server; no dashboard is offered, so the notice is noise
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            # silent logs: a kill during the work left the workers logging their lost
            # scheduler with tracebacks (3 kills in at most 75); a task's error or a
            # worker's death reaches the client as an exception all the same
            cluster = LocalCluster(n_workers=workers or available_cpus(), threads_per_worker=1,
                                   processes=True, dashboard_address=None, env=single,
                                   silence_logs=logging.CRITICAL)  # fmt: skip
        opened = Client(cluster)
    else:
        try:
            opened = Client(scheduler, timeout=10)
        except OSError as exc:
            msg = f"cannot reach the Dask scheduler at {scheduler}: {exc}"
            raise InputError(msg) from None
    try:
        yield opened
    finally:
        opened.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def early_client(
    scheduler: str, workers: int | None, rows: int, block_size: int | None, blocks: int | None
) -> Iterator[Any]:
    """The workers reached before the blocks are planned, when there will be more than one
    block, and each told to load incrowd meanwhile: the planning then overlaps the workers'
    imports (about a second each) instead of preceding them. None otherwise."""
    warn_workers(scheduler, workers)
    size = block_size if isinstance(block_size, int) else 100_000
    several = blocks > 1 if isinstance(blocks, int) else rows > size
    if scheduler == "sync" or not several:
        yield None
        return
    with client(scheduler, workers) as opened:
        loading = [opened.submit(_loaded, workers=[address], pure=False)
                   for address in opened.scheduler_info().get("workers", {})]  # fmt: skip
        yield opened
        del loading  # held so far: a released task may be forgotten before it runs


def _loaded() -> bool:
    """A task whose unpickling loads incrowd on the worker it runs on (this package imports
    the pipeline and every method)."""
    return True


@contextlib.contextmanager
def reached(opened: Any, scheduler: str, workers: int | None) -> Iterator[Any]:
    """``opened``, or a client reached here when it is None."""
    if opened is not None:
        yield opened
        return
    with client(scheduler, workers) as new:
        yield new
