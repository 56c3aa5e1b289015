"""The suppression limit of the local methods (``local-recoding``, ``forest``): at most
⌊limit · n⌋ records deleted, each only where it lowers the loss, a lower bound that counts
the deletions, checked against the exact optimum with the same budget."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import Categorical, MetricSpace, Schema
from incrowd.algorithms._shared.generalized import budgeted_bound
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.forest import ForestKAnonymity
from incrowd.algorithms.recoding import LocalRecoding
from incrowd.params import outlier_budget
from incrowd.testing import check_algorithm, random_table

METHODS = [ForestKAnonymity, LocalRecoding]


def outlier_table() -> tuple[pd.DataFrame, Schema]:
    """Four identical rows and one that differs in every column: kept, the odd row forces
    every cell of its crowd to ``*``; deleted, the rest publish their values."""
    table = pd.DataFrame([["0"] * 4] * 4 + [["1"] * 4], columns=list("abcd"))
    return table, Schema({c: Categorical() for c in "abcd"})


@pytest.mark.parametrize("cls", METHODS)
def test_deleting_the_outlier_within_the_limit(cls) -> None:
    table, schema = outlier_table()
    space = MetricSpace.from_table(table, schema, norm=1)
    kept = cls(k=2).fit(space)
    assert kept.partition_.n_suppressed == 0 and kept.cost_ == pytest.approx(8.0)
    limited = cls(k=2, suppression_limit=0.2).fit(space)  # ⌊0.2 · 5⌋ = 1 record
    assert limited.partition_.n_suppressed == 1
    assert limited.labels_[4] == -1, "the odd row is the one deleted"
    assert limited.cost_ == pytest.approx(4.0)  # one row of four suppressed cells
    none = cls(k=2, suppression_limit=0.19).fit(space)  # ⌊0.95⌋ = 0: nothing to delete
    assert none.partition_.n_suppressed == 0 and none.cost_ == pytest.approx(8.0)


@pytest.mark.parametrize("cls", METHODS)
def test_the_limit_is_never_exceeded_and_never_costs_more(cls) -> None:
    """Tables with many outliers: deletions stop at the budget, and every one lowered the
    cost (the result is never worse than without a limit)."""
    rng = np.random.default_rng(5)
    rows = [["0"] * 3] * 30 + [[str(v) for v in rng.integers(1, 9, size=3)] for _ in range(12)]
    table = pd.DataFrame(rows, columns=list("abc"))
    schema = Schema({c: Categorical() for c in "abc"})
    space = MetricSpace.from_table(table, schema, norm=1)
    free = cls(k=3).fit(space)
    for limit in (0.02, 0.05, 0.1, 0.3):
        model = cls(k=3, suppression_limit=limit).fit(space)
        assert model.partition_.n_suppressed <= outlier_budget(limit, len(table))
        assert model.cost_ <= free.cost_ + 1e-9
        assert model.partition_.min_size >= 3
        assert model.lower_bound_ <= model.cost_ + 1e-9
    # three groups of four alike rows, each with one row off in one column (too few odd rows
    # to form a crowd of their own): kept, each group is a crowd of five with that column
    # suppressed (5 cells); deleting the odd row costs a row (4 cells), so each deletion
    # within the budget saves 1
    rows = []
    for g in range(3):
        rows += [[str(g)] * 4] * 4 + [[str(g)] * 3 + [f"x{g}"]]
    groups = pd.DataFrame(rows, columns=list("abcd"))
    space = MetricSpace.from_table(groups, Schema({c: Categorical() for c in "abcd"}), norm=1)
    assert cls(k=4).fit(space).cost_ == pytest.approx(15.0)
    for limit, deleted in ((0.05, 0), (0.1, 1), (0.14, 2), (0.2, 3), (0.5, 3)):
        model = cls(k=4, suppression_limit=limit).fit(space)
        assert model.partition_.n_suppressed == deleted
        assert model.cost_ == pytest.approx(15.0 - deleted)
        assert set(np.flatnonzero(model.labels_ < 0)) <= {4, 9, 14}, "only odd rows deleted"


def test_the_forest_takes_one_kind_of_deletion() -> None:
    table, schema = outlier_table()
    space = MetricSpace.from_table(table, schema, norm=1)
    with pytest.raises(incrowd.ParameterError, match="give one of them"):
        ForestKAnonymity(k=2, allow_deletion=True, suppression_limit=0.2).fit(space)


@pytest.mark.parametrize("cls", METHODS)
def test_common_checks_against_the_budgeted_optimum(cls) -> None:
    """The shared checks with a deletion budget: the optimum it is compared with deletes at
    most as many records, each at a full row, so the lower bound and the ratio are checked
    for the budgeted problem."""
    check_algorithm(cls(k=2, suppression_limit=0.25), n_instances=24, seed=3)
    check_algorithm(cls(k=3, suppression_limit=0.25), n_instances=24, seed=4)


def test_budgeted_bound_is_the_least_sum_over_deletion_sets() -> None:
    """Σ terms less the ``budget`` largest excesses over a row equals the least total over
    every choice of at most ``budget`` records charged a row instead of their term."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 8))
        row = float(rng.uniform(0.5, 2.0))
        terms = rng.uniform(0, 3.0, size=n)
        budget = int(rng.integers(0, n + 1))
        brute = min(
            terms.sum() - terms[list(chosen)].sum() + row * len(chosen)
            for size in range(budget + 1)
            for chosen in itertools.combinations(range(n), size)
        )
        assert budgeted_bound(terms, row, budget) == pytest.approx(brute)


def test_ratio_to_the_budgeted_optimum_on_random_tables() -> None:
    """200 random tables with hierarchies and value sets: cost within the forest's ratio of
    the exact optimum that deletes at most the same budget, the bound below it."""
    rng = np.random.default_rng(46)
    for trial in range(200):
        k = int(rng.integers(2, 4))
        n = int(rng.integers(k + 2, 10))
        table, schema = random_table(rng, n)
        space = MetricSpace.from_table(table, schema, norm=1)
        limit = float(rng.choice([0.1, 0.2, 0.34]))
        cls = METHODS[trial % 2]
        est = cls(k=k, suppression_limit=limit, generalize="sets" if trial % 3 else "levels")
        est.fit(space)
        model = est.cost(space)
        budget = outlier_budget(limit, n)
        opt = optimum(model, n, k, leave_cost=model.row_cost, max_left=budget)[0]
        tol = 1e-9 * max(1.0, opt)
        assert est.partition_.n_suppressed <= budget
        assert est.lower_bound_ <= opt + tol, "lower bound above the budgeted optimum"
        assert opt - tol <= est.cost_ <= est.approximation_ratio_ * opt + tol
        assert est.cost_ == pytest.approx(model.of(est.labels_))
