import itertools

import numpy as np
import pytest

from incrowd import MDAV, ExactPartition, MetricSpace, ParameterError
from incrowd.algorithms.exact import solve, subset_costs
from incrowd.costs import SSE, MaxRadius


def set_partitions(items):
    """Every partition of a list into blocks (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]


def brute_force(n, k, cost, combine):
    best = np.inf
    for part in set_partitions(list(range(n))):
        if all(len(b) >= k for b in part):
            best = min(best, combine(cost(np.array(b)) for b in part))
    return best


def sse(X, members):
    pts = X[members]
    return float(((pts - pts.mean(axis=0)) ** 2).sum())


def radius_at_point(X, members):
    """Radius from the best input point as center (member or not), the paper's model."""
    pts = X[members]
    d = np.sqrt(((X[:, None] - pts[None]) ** 2).sum(axis=2))
    return float(d.max(axis=1).min())


@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force_for_up_to_nine_records(seed):
    """The subset DP and the compiled subset costs agree with brute force over all
    set partitions."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 10))
    k = int(rng.integers(2, max(3, n // 2 + 1)))
    if k > n:
        k = n
    X = rng.integers(0, 4, size=(n, 2)).astype(float)  # ties on purpose
    space = MetricSpace.from_array(X)
    opt, part = solve(subset_costs(SSE.on(space), n, k), n, k, "sum")
    assert opt == pytest.approx(brute_force(n, k, lambda m: sse(X, m), sum), abs=1e-9)
    assert part.min_size >= k
    assert sum(sse(X, g) for g in part.groups()) == pytest.approx(opt, abs=1e-9)
    opt_r, part_r = solve(subset_costs(MaxRadius.on(space), n, k), n, k, "max")
    assert opt_r == pytest.approx(brute_force(n, k, lambda m: radius_at_point(X, m), max))
    assert max(radius_at_point(X, g) for g in part_r.groups()) == pytest.approx(opt_r)


def test_custom_cost_and_size_cap():
    n, k = 7, 2
    weights = np.arange(1, n + 1, dtype=float)
    cost = subset_costs(lambda m: float(weights[m].max() * len(m)), n, k)
    opt, _ = solve(cost, n, k, "sum")
    assert opt == brute_force(n, k, lambda m: float(weights[m].max() * len(m)), sum)
    capped, part = solve(cost, n, k, "sum", max_size=2 * k - 1)
    assert part.sizes.max() <= 3 and capped >= opt


def test_subset_costs_match_each_cost_crowd():
    """The compiled every-subset kernels price a subset as the cost's own crowd() does."""
    from incrowd.testing import random_table

    rng = np.random.default_rng(3)
    for _ in range(10):
        table, schema = random_table(rng, 7)
        space = MetricSpace.from_table(table, schema)
        from incrowd.costs import GeneralizationCost

        for cost in (SSE.on(space), MaxRadius.on(space), GeneralizationCost.on(space)):
            fast = cost.subset_costs(7, 2)
            for mask in rng.integers(1, 1 << 7, size=20):
                members = np.flatnonzero([(mask >> i) & 1 for i in range(7)])
                if members.size >= 2:
                    assert fast[mask] == pytest.approx(cost.crowd(members), abs=1e-12)


def test_limits_budget_and_leave_cost():
    X = np.array([[0.0], [1.0], [2.0], [50.0], [100.0]])
    costs = subset_costs(SSE.on(MetricSpace.from_array(X)), 5, 2)
    full, _ = solve(costs, 5, 2, "sum")
    left, part = solve(costs, 5, 2, "sum", budget=1)
    assert left < full and part.n_suppressed == 1
    priced, part2 = solve(costs, 5, 2, "sum", leave_cost=1.0)
    assert part2.n_suppressed == 3 and priced == pytest.approx(0.5 + 3.0)  # keep {0, 1}
    two, part3 = solve(costs, 5, 2, "sum", max_groups=1)
    assert part3.n_clusters == 1 and two >= full


def test_estimator_and_limits():
    X = np.array([[0.0], [1.0], [10.0], [11.0], [12.0]])
    model = ExactPartition(k=2).fit(X)
    assert model.labels_.tolist() == [0, 0, 1, 1, 1]
    assert model.cost_ == pytest.approx(0.5 + 2.0) and model.certified_ratio_ == 1.0
    assert ExactPartition(k=2, objective="max_radius").fit(X).cost_ == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="at most 20"):
        ExactPartition(k=2).fit(np.zeros((21, 1)))
    with pytest.raises(ParameterError):
        ExactPartition(k=2, objective="median").fit(X)
    with pytest.raises(ParameterError, match="2\\*\\*n"):
        solve(np.zeros(3), 2, 2)


def test_mdav_is_never_below_the_optimum_and_usually_close():
    rng = np.random.default_rng(7)
    ratios = []
    for _ in range(150):
        n = int(rng.integers(8, 15))
        k = int(rng.choice([2, 3]))
        X = rng.normal(size=(n, 2))
        opt = ExactPartition(k=k).fit(X).cost_
        ratios.append(MDAV(k=k).fit(X).cost_ / opt)
    ratios = np.array(ratios)
    assert ratios.min() >= 1 - 1e-9  # the exact solver really is a lower bound
    # MDAV has no guarantee; on Gaussian data it is typically within a few percent.
    assert np.median(ratios) < 1.2


def test_set_partitions_enumerates_bell_numbers():
    assert [sum(1 for _ in set_partitions(list(range(n)))) for n in range(6)] == [
        1,
        1,
        2,
        5,
        15,
        52,
    ]
    assert list(itertools.islice(set_partitions([0, 1]), 5)) == [[[0], [1]], [[0, 1]]]
