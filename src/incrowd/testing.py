"""Checks every incrowd algorithm must pass (used by the test suite, public for plug-ins).

:func:`check_algorithm` runs them all on one estimator, reading only what the estimator
declares (its :class:`~incrowd.base.Tags`, its :meth:`~incrowd.Algorithm.cost` and its
guarantee): the estimator contract (inert ``__init__``, ``fit`` returns self, clone),
the partition invariants (every record in at most one crowd, every crowd at least k,
records left out only where the method may), determinism, that the input is not mutated,
and — against the exact optimum of the estimator's own cost on tiny random tables of
numeric, categorical and hierarchical attributes — that ``cost_`` is never below the
optimum, that ``lower_bound_`` never exceeds it, and that the proven ratio holds.

:func:`dask_cluster` starts a Dask cluster of separate processes on this machine, for the
blockwise tests and benchmarks.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .algorithms.exact import optimum
from .base import Algorithm, clone
from .costs import GeneralizationCost
from .data.hierarchy import Hierarchy
from .data.schema import Categorical, Hierarchical, Numeric, Schema
from .params import outlier_budget
from .space.metric_space import MetricSpace

__all__ = [
    "check_algorithm",
    "configured",
    "dask_cluster",
    "limits",
    "random_hierarchy",
    "random_table",
    "KINDS",
]

Kind = Literal["numeric", "categorical", "hierarchical", "mixed"]
#: The kinds of random table every algorithm is checked on.
KINDS: tuple[Kind, ...] = ("numeric", "categorical", "hierarchical", "mixed")


def configured(cls: type[Algorithm], k: int, *, epsilon: float = 0.15,
               max_clusters: int = 3, allow_deletion: bool = False) -> Algorithm:  # fmt: skip
    """The method with crowd size ``k`` (its fixed one, if it has one) and, where its tags
    say it takes them, an outlier budget, a cluster cap and row deletion: what a small test
    needs, chosen from what the method declares, never from its name."""
    params: dict[str, object] = {"k": cls.tags.fixed_k or k}
    if cls.tags.outlier_budget:
        params["epsilon"] = epsilon
    if cls.tags.cluster_cap:
        params["max_clusters"] = max_clusters
    if cls.tags.deletion and allow_deletion:
        # the paper's deletion where the method has it, else a budget that binds on a
        # test's few records
        if "allow_deletion" in cls.parameters:
            params["allow_deletion"] = True
        else:
            params["suppression_limit"] = 0.25
    return cls(**params)


def limits(estimator: Algorithm, n: int, cost: object) -> dict[str, float | int | None]:
    """The limits an estimator's declared tags put on the optimum it is compared with:
    a cluster cap, an outlier budget, or deletion at the price of a full row (any number,
    or at most what its ``suppression_limit`` allows)."""
    tags, params = estimator.tags, estimator.get_params()
    out: dict[str, float | int | None] = {
        "max_groups": None, "budget": 0, "leave_cost": 0.0, "max_left": None,
    }  # fmt: skip
    if tags.cluster_cap:
        out["max_groups"] = int(params["max_clusters"])
    if tags.outlier_budget:
        out["budget"] = outlier_budget(params["epsilon"], n)
    limited = outlier_budget(params.get("suppression_limit") or 0.0, n)
    if (tags.deletion and (params.get("allow_deletion") or limited)) or tags.full_domain:
        assert isinstance(cost, GeneralizationCost)
        out["leave_cost"] = cost.row_cost  # a deleted or suppressed record: a full row
        if not params.get("allow_deletion"):
            out["max_left"] = limited
    return out


def check_algorithm(
    estimator: Algorithm,
    *,
    n_instances: int = 24,
    max_n: int = 10,
    seed: int = 0,
    kinds: Sequence[Kind] = KINDS,
) -> list[float]:
    """Run all common checks on ``estimator``; return the ratios ``cost_ / OPT`` seen.

    Raises AssertionError on the first failed check.
    """
    params = estimator.get_params()
    twin = clone(estimator)
    assert twin.get_params() == params, "__init__ must store its parameters unchanged"
    assert "k" in params, "every algorithm takes its minimum crowd size as k"
    tags = estimator.tags
    k = int(params["k"])
    rng = np.random.default_rng(seed)
    ratios = []
    if tags.coordinates is not None:  # a method on places: plain points only
        kinds = ("numeric",)
    for i in range(n_instances):
        kind = kinds[i % len(kinds)]
        n = int(rng.integers(k + 2, max_n + 1))
        space, data = _instance(rng, kind, n, tags.norm)
        before = data.copy()
        model = clone(estimator)
        assert model.fit(space) is model, "fit must return self"
        _assert_unchanged(data, before)
        labels = model.labels_
        assert labels.shape == (n,), "one label per record"
        part = model.partition_
        assert part.min_size >= k or part.n_clusters == 0, "every crowd must have >= k records"
        cost = model.cost(space)
        limit = limits(estimator, n, cost)
        if not tags.may_suppress:
            assert part.n_suppressed == 0, "this method must not leave records out"
        if not limit["leave_cost"]:
            assert part.n_suppressed <= limit["budget"], "more records left out than allowed"
        if limit["max_left"] is not None:
            assert part.n_suppressed <= limit["max_left"], "more records suppressed than the limit"
        if limit["max_groups"] is not None:
            assert part.n_clusters <= limit["max_groups"], "more crowds than allowed"
        again = clone(estimator).fit(space)
        assert again.partition_ == part, "fit must be deterministic for fixed parameters"
        opt, _ = optimum(cost, n, k, **limit)  # type: ignore[arg-type]
        tol = 1e-9 * max(1.0, abs(opt))
        if tags.full_domain:  # every crowd at the method's levels, not where it agrees
            assert isinstance(cost, GeneralizationCost)
            priced = cost.at_levels(labels, model.levels_)
            assert abs(model.cost_ - priced) <= tol, f"cost_ {model.cost_} is not its cost {priced}"
        elif cost.combine == "sum":
            priced = cost.priced(labels, getattr(model, "center_records_", None))
            assert abs(model.cost_ - priced) <= tol, f"cost_ {model.cost_} is not its cost {priced}"
        assert model.cost_ >= opt - tol, f"cost {model.cost_} is below the optimum {opt}"
        if tags.certificate:
            assert model.lower_bound_ is not None, "a certified method sets lower_bound_"
        if model.lower_bound_ is not None:
            assert model.lower_bound_ <= opt + tol, "lower_bound_ must not exceed the optimum"
        ratio = model.approximation_ratio_
        if ratio is not None:
            assert model.cost_ <= ratio * opt + tol, f"cost exceeds {ratio} x OPT on {kind}"
        ratios.append(model.cost_ / opt if opt > 0 else 1.0)
    return ratios


def _instance(
    rng: np.random.Generator, kind: Kind, n: int, norm: int
) -> tuple[MetricSpace, np.ndarray | pd.DataFrame]:
    """A random space of ``n`` records of one kind (with a duplicate record: ties happen)."""
    if kind == "numeric":
        X = rng.normal(size=(n, 2))
        X[rng.integers(0, n)] = X[0]
        return MetricSpace.from_array(X, norm=norm), X  # type: ignore[arg-type]
    table, schema = random_table(rng, n, kinds=(kind,) if kind != "mixed" else None)
    table.iloc[int(rng.integers(0, n))] = table.iloc[0]
    return MetricSpace.from_table(table, schema, norm=norm), table  # type: ignore[arg-type]


def _assert_unchanged(data: np.ndarray | pd.DataFrame, before: np.ndarray | pd.DataFrame) -> None:
    if isinstance(data, pd.DataFrame):
        pd.testing.assert_frame_equal(data, before, obj="fit must not modify its input")
    else:
        np.testing.assert_array_equal(data, before, err_msg="fit must not modify its input")


def random_hierarchy(rng: np.random.Generator, size: int, height: int) -> Hierarchy:
    """A random hierarchy over ``v0 .. v{size-1}``: ``height`` levels, each merging groups
    of the one below at random, topped by ``*``."""
    level = [f"v{i}" for i in range(size)]
    rows = [[v] for v in level]
    labels = list(range(size))
    for h in range(1, height):
        groups = max(1, len(set(labels)) - int(rng.integers(1, 3)))
        mapping = {g: int(rng.integers(0, groups)) for g in sorted(set(labels))}
        labels = [mapping[g] for g in labels]
        for row, g in zip(rows, labels, strict=True):
            row.append(f"L{h}g{g}")
    for row in rows:
        row.append("*")
    return Hierarchy.from_rows(rows)


def random_table(
    rng: np.random.Generator, n: int, kinds: Sequence[str] | None = None
) -> tuple[pd.DataFrame, Schema]:
    """A random table of ``n`` records with 2–4 quasi-identifiers, each of a kind drawn from
    ``kinds`` (default: numeric, categorical or hierarchical with a random hierarchy), with
    random weights."""
    choices = list(kinds or ("numeric", "categorical", "hierarchical"))
    columns, metrics = {}, {}
    for j in range(int(rng.integers(2, 5))):
        name = f"q{j}"
        kind = choices[int(rng.integers(0, len(choices)))]
        weight = float(rng.choice([1.0, 1.0, 0.5, 2.0]))
        if kind == "numeric":
            columns[name] = rng.integers(0, 30, size=n)
            metrics[name] = Numeric(weight=weight)
        elif kind == "categorical":
            columns[name] = [f"c{v}" for v in rng.integers(0, 3, size=n)]
            metrics[name] = Categorical(weight=weight)
        else:
            size = int(rng.integers(2, 7))
            hierarchy = random_hierarchy(rng, size, int(rng.integers(1, 4)))
            columns[name] = [f"v{v}" for v in rng.integers(0, size, size=n)]
            metrics[name] = Hierarchical(hierarchy, weight=weight)
    return pd.DataFrame(columns), Schema(metrics)


@contextlib.contextmanager
def dask_cluster(workers: int = 2, *, timeout: float = 120.0) -> Iterator[str]:
    """A ``dask scheduler`` and ``dask worker --nworkers N --nthreads 1`` (each worker under
    its nanny, which restarts it if it dies), started as separate processes on localhost;
    yields the scheduler's ``tcp://`` address and stops them all on exit. Needs the
    ``dask`` command beside this Python (``incrowd[dask]``)."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        msg = f"no dask command beside {sys.executable}: pip install 'incrowd[dask]'"
        raise RuntimeError(msg)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, INCROWD_THREADS="1", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    quiet = {"env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    procs = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                               str(port), "--no-dashboard"], **quiet)]  # fmt: skip
    try:
        time.sleep(1.0)
        procs.append(subprocess.Popen([str(dask), "worker", address, "--nworkers",
                                       str(workers), "--nthreads", "1", "--no-dashboard"],
                                      **quiet))  # fmt: skip
        from distributed import Client

        with Client(address, timeout=timeout) as client:
            client.wait_for_workers(workers, timeout=timeout)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
