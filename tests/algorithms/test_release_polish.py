"""The generalized release's polish for methods with another objective (the cellular family):
it lowers the generalization loss, never the method's own objective's guarantee."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import tables

import incrowd
from incrowd import MetricSpace, RCellular
from incrowd.algorithms.release_polish import polish_release
from incrowd.costs import GeneralizationCost
from incrowd.testing import random_table

POLISHED = [
    ("r-cellular", None),
    ("cellular", {"setup_cost": 2.0}),
    ("r-cellular-outliers", {"epsilon": 0.1}),
]


def _release(table, schema, k, method, params, generalize="levels"):
    fitted = {}

    def keep(algorithm, space):
        fitted["cost"] = float(algorithm.cost_)
        fitted["objective"] = algorithm.cost(space)
        fitted["labels"] = algorithm.partition_.labels.copy()
        fitted["centers"] = algorithm.center_records_

    release = incrowd.anonymize(table, schema, k, method=method, params=params, seed=3,
                                generalize=generalize, on_fitted=keep)  # fmt: skip
    return release, fitted


def _check(release, fitted, k, n):
    meta = release.metadata
    labels = release.partition.labels
    release.partition.validate(k)
    assert meta["n_released"] + meta["n_suppressed"] == n
    # never above the method's own cost, and priced again from the published crowds
    assert meta["cost"] <= fitted["cost"] * (1 + 1e-9) + 1e-12
    polish = meta["polish"]
    assert polish is not None
    # a polished partition is priced from its members as centers, another from the method's
    centers = None if polish["kept"] else fitted["centers"]
    assert meta["cost"] == pytest.approx(
        fitted["objective"].priced(labels, centers), rel=1e-9, abs=1e-12
    )
    if meta["lower_bound"]:
        assert meta["certified_ratio"] == pytest.approx(meta["cost"] / meta["lower_bound"])
    # records left out by the method stay out, and no other record is left out
    assert np.array_equal(labels < 0, fitted["labels"] < 0)
    if polish["kept"]:
        assert polish["generalization_loss_after"] < polish["generalization_loss_before"]
        assert polish["objective_after"] == pytest.approx(meta["cost"])
    else:
        assert np.array_equal(labels, fitted["labels"])
    return polish["kept"]


@pytest.mark.parametrize(("method", "params"), POLISHED)
@pytest.mark.parametrize("generalize", ["levels", "sets"])
def test_polish_keeps_the_objective_and_lowers_the_loss(method, params, generalize):
    rng = np.random.default_rng(11)
    kept = 0
    for _ in range(25):
        n = int(rng.integers(30, 90))
        table, schema = random_table(rng, n)
        k = int(rng.integers(2, 5))
        release, fitted = _release(table, schema, k, method, params, generalize)
        kept += _check(release, fitted, k, n)
    assert kept >= 3  # the polish is not idle on these tables


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(min_rows=2, max_rows=40))
def test_polished_releases_are_k_anonymous_and_lose_no_record(case):
    table, schema, k = case
    release, fitted = _release(table, schema, k, "r-cellular", None)
    _check(release, fitted, k, len(table))


def test_no_stage_within_the_budget_keeps_the_crowds():
    rng = np.random.default_rng(5)
    table, schema = random_table(rng, 60, ["numeric"])
    space = MetricSpace.from_table(table, schema)
    model = RCellular(k=3).fit(space)
    objective = model.cost(space)
    free = polish_release(model.labels_, space, 3, "levels", objective, np.inf)
    assert free.labels is not None and free.loss_after < free.loss_before
    # a budget below every stage's price: nothing is kept, the input is untouched
    before = model.labels_.copy()
    tight = polish_release(model.labels_, space, 3, "levels", objective, 0.0)
    assert tight.labels is None and tight.stage_kept is None
    assert np.array_equal(model.labels_, before)
    # a budget between: the stage kept is the least loss of those priced within it
    budget = model.cost_
    within = polish_release(model.labels_, space, 3, "levels", objective, budget)
    if within.labels is not None:
        assert objective.of(within.labels) <= budget * (1 + 1e-12)
        loss = GeneralizationCost.on(space, "levels", None, "ncp").of(within.labels)
        assert loss == pytest.approx(within.loss_after)
        assert within.loss_after <= within.loss_before
