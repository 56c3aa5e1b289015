"""Checks every incrowd algorithm must pass (used by the test suite, public for plug-ins).

:func:`check_algorithm` runs them all on one estimator: the estimator contract (inert
``__init__``, ``fit`` returns self, clone), the partition invariants (every record in at most
one crowd, every crowd at least k, suppression only where allowed), determinism, that the
input is not mutated, and — against the exact optimum on tiny random instances — that
``cost_`` is never below the optimum, that ``lower_bound_`` never exceeds it, and that the
paper's factor holds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone

from .algorithms.exact import (
    exact_partition,
    exact_with_limits,
    radius_subset_costs,
    sse_subset_costs,
    subset_costs,
)
from .base import Algorithm
from .data.generalization import GeneralizationCost, crowd_cost
from .data.hierarchy import Hierarchy
from .data.schema import Categorical, Hierarchical, Numeric, Schema
from .data.space import MetricSpace

__all__ = [
    "check_algorithm",
    "limits_of",
    "optimum",
    "optimal_generalization",
    "random_hierarchy",
    "random_table",
]


def optimal_generalization(
    model: GeneralizationCost, k: int, allow_deletion: bool = False
) -> float:
    """Exact optimal generalization cost of a tiny instance (subset DP, ``O(3^n)``).

    With ``allow_deletion`` a record may instead be deleted at the cost of suppressing all
    of its attributes (``model.row_cost``).
    """
    n = model.n
    costs = subset_costs(n, k, lambda members: crowd_cost(model, members))
    if not allow_deletion:
        return exact_partition(costs, n, k, "sum")[0]
    best = np.full(1 << n, np.inf)
    best[0] = 0.0
    popcount = np.array([bin(s).count("1") for s in range(1 << n)])
    for mask in range(1, 1 << n):
        low = mask & -mask
        value = best[mask ^ low] + model.row_cost
        rest = mask ^ low
        sub = rest
        while True:  # every group holding the lowest record
            group = sub | low
            if popcount[group] >= k:
                value = min(value, costs[group] + best[mask ^ group])
            if sub == 0:
                break
            sub = (sub - 1) & rest
        best[mask] = value
    return float(best[-1])


def optimum(
    space: MetricSpace,
    k: int,
    cost_measure: str,
    max_groups: int | None = None,
    budget: int = 0,
    model: GeneralizationCost | None = None,
) -> float:
    """Exact optimal cost of a tiny instance for a method's cost measure and limits.

    ``"sse"``: total within-crowd sum of squares. ``"max_radius"``: the largest radius with
    centers at input points, with at most ``max_groups`` crowds and ``budget`` records left out.
    ``"generalization"``: the cost ``model`` (default: every column numeric, ranges).
    """
    if cost_measure == "generalization" and max_groups is None and budget == 0:
        return optimal_generalization(model or GeneralizationCost.from_array(space.points), k)
    if cost_measure == "sse" and max_groups is None and budget == 0:
        costs = sse_subset_costs(space.points, k)
        return exact_partition(costs, space.n, k, "sum", 2 * k - 1)[0]
    if cost_measure == "max_radius":
        costs = radius_subset_costs(space.points, k, space.norm)
        return exact_with_limits(costs, space.n, k, "max", max_groups, budget)[0]
    msg = f"no exact solver registered for cost measure {cost_measure!r}"
    raise NotImplementedError(msg)


def limits_of(estimator: Algorithm, n: int) -> tuple[int | None, int]:
    """The (max_groups, budget) an estimator's parameters impose on an n-record instance."""
    params = estimator.get_params()
    k_max = params.get("k_max")
    eps = params.get("epsilon")
    budget = int(np.floor(eps * n + 1e-9)) if eps is not None else 0
    return (int(k_max) if k_max is not None else None), budget


def check_algorithm(
    estimator: Algorithm,
    *,
    n_instances: int = 25,
    max_n: int = 11,
    seed: int = 0,
) -> list[float]:
    """Run all common checks on ``estimator`` (its size parameter is ``estimator.size_param``).

    Returns the ratios ``cost_ / OPT`` seen on the tiny instances, for reporting.
    Raises AssertionError on the first failed check.
    """
    params = estimator.get_params()
    size = estimator.size_param
    assert size in params, f"every algorithm takes its minimum crowd size {size!r}"
    twin = clone(estimator)
    assert twin.get_params() == params, "__init__ must store its parameters unchanged"
    k = int(params[size])
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(n_instances):
        n = int(rng.integers(k + 2, max_n + 1))
        X = rng.normal(size=(n, 2))
        X[rng.integers(0, n)] = X[0]  # a duplicate point: ties happen in real data
        before = X.copy()
        model = clone(estimator)
        assert model.fit(X) is model, "fit must return self"
        np.testing.assert_array_equal(X, before, err_msg="fit must not modify its input")
        labels = model.labels_
        assert labels.shape == (n,), "one label per record"
        part = model.partition_
        assert part.min_size >= k or part.n_clusters == 0, "every crowd must have >= k records"
        max_groups, budget = limits_of(estimator, n)
        if not estimator.allows_suppression:
            assert part.n_suppressed == 0, "this method must not suppress records"
        if not getattr(model, "allow_deletion", False):
            assert part.n_suppressed <= budget, "more records left out than the budget allows"
        if max_groups is not None:
            assert part.n_clusters <= max_groups, "more crowds than allowed"
        again = clone(estimator).fit(X)
        assert again.partition_ == part, "fit must be deterministic for fixed parameters"
        space = MetricSpace.from_array(X)
        cost_model = model.cost_model(space) if hasattr(model, "cost_model") else None
        if getattr(model, "allow_deletion", False):
            assert cost_model is not None
            opt = optimal_generalization(cost_model, k, allow_deletion=True)
        else:
            opt = optimum(space, k, model.cost_measure, max_groups, budget, cost_model)
        tol = 1e-9 * max(1.0, abs(opt))
        assert model.cost_ >= opt - tol, f"cost {model.cost_} is below the optimum {opt}"
        if model.lower_bound_ is not None:
            assert model.lower_bound_ <= opt + tol, "lower_bound_ must not exceed the optimum"
        factor = model.factor_
        if factor is not None:
            assert model.cost_ <= factor * opt + tol, f"cost exceeds {factor} x OPT"
        ratios.append(model.cost_ / opt if opt > 0 else 1.0)
    return ratios


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


def random_table(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, Schema]:
    """A random table of ``n`` records with 2–4 quasi-identifiers, each numeric,
    categorical or hierarchical (random hierarchy), with random weights."""
    columns, metrics = {}, {}
    for j in range(int(rng.integers(2, 5))):
        name = f"q{j}"
        kind = rng.integers(0, 3)
        weight = float(rng.choice([1.0, 1.0, 0.5, 2.0]))
        if kind == 0:
            columns[name] = rng.integers(0, 30, size=n)
            metrics[name] = Numeric(weight=weight)
        elif kind == 1:
            columns[name] = [f"c{v}" for v in rng.integers(0, 3, size=n)]
            metrics[name] = Categorical(weight=weight)
        else:
            size = int(rng.integers(2, 7))
            hierarchy = random_hierarchy(rng, size, int(rng.integers(1, 4)))
            columns[name] = [f"v{v}" for v in rng.integers(0, size, size=n)]
            metrics[name] = Hierarchical(hierarchy, weight=weight)
    return pd.DataFrame(columns), Schema(metrics)
