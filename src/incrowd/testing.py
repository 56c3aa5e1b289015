"""Checks every incrowd algorithm must pass (used by the test suite, public for plug-ins).

:func:`check_algorithm` runs them all on one estimator: the estimator contract (inert
``__init__``, ``fit`` returns self, clone), the partition invariants (every record in at most
one crowd, every crowd at least k, suppression only where allowed), determinism, that the
input is not mutated, and — against the exact optimum on tiny random instances — that
``cost_`` is never below the optimum, that ``lower_bound_`` never exceeds it, and that the
paper's factor holds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import clone

from .algorithms.exact import exact_partition, radius_subset_costs, sse_subset_costs
from .base import Algorithm
from .data.space import MetricSpace

__all__ = ["check_algorithm", "optimum"]

_EXACT: dict[str, Callable[[MetricSpace, int], float]] = {
    "sse": lambda s, k: exact_partition(sse_subset_costs(s.points, k), s.n, k, "sum", 2 * k - 1)[0],
    "max_radius": lambda s, k: exact_partition(
        radius_subset_costs(s.points, k, s.norm), s.n, k, "max"
    )[0],
}


def optimum(space: MetricSpace, k: int, cost_measure: str) -> float:
    """Exact optimal cost of a tiny instance for a method's cost measure."""
    try:
        return _EXACT[cost_measure](space, k)
    except KeyError:
        msg = f"no exact solver registered for cost measure {cost_measure!r}: add it to _EXACT"
        raise NotImplementedError(msg) from None


def check_algorithm(
    estimator: Algorithm,
    *,
    n_instances: int = 25,
    max_n: int = 11,
    allows_suppression: bool = False,
    seed: int = 0,
) -> list[float]:
    """Run all common checks on ``estimator`` (which must have a parameter ``k``).

    Returns the ratios ``cost_ / OPT`` seen on the tiny instances, for reporting.
    Raises AssertionError on the first failed check.
    """
    params = estimator.get_params()
    assert "k" in params, "every algorithm takes the anonymity parameter k"
    twin = clone(estimator)
    assert twin.get_params() == params, "__init__ must store its parameters unchanged"
    k = int(params["k"])
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(n_instances):
        n = int(rng.integers(max(k, 2), max_n + 1))
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
        if not allows_suppression:
            assert part.n_suppressed == 0, "this method must not suppress records"
        again = clone(estimator).fit(X)
        assert again.partition_ == part, "fit must be deterministic for fixed parameters"
        space = MetricSpace.from_array(X)
        opt = optimum(space, k, model.cost_measure)
        tol = 1e-9 * max(1.0, abs(opt))
        assert model.cost_ >= opt - tol, f"cost {model.cost_} is below the optimum {opt}"
        if model.lower_bound_ is not None:
            assert model.lower_bound_ <= opt + tol, "lower_bound_ must not exceed the optimum"
        factor = model.guarantee.factor
        if factor is not None:
            assert model.cost_ <= factor * opt + tol, f"cost exceeds {factor} x OPT"
        ratios.append(model.cost_ / opt if opt > 0 else 1.0)
    return ratios
