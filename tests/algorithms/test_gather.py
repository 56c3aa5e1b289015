"""The r-Gather family against the paper's example and the exact optimum."""

import json

import numpy as np
import pandas as pd
import pytest

from incrowd import (
    Categorical,
    Hierarchical,
    Hierarchy,
    InfeasibleError,
    KRCenter,
    KRCenterOutliers,
    MetricSpace,
    Numeric,
    ParameterError,
    RGather,
    RGatherOutliers,
    Schema,
    anonymize,
    release_centers,
)
from incrowd.algorithms.exact import solve, subset_costs
from incrowd.costs import MaxRadius

ALPHA, BETA, GAMMA, DELTA = 20.0, 7.0, 40.0, 70.0


def figure_1_1():
    """Fig. 1.1(a): ages and places already scaled, as the figure assumes."""
    table = pd.DataFrame(
        {
            "age": [ALPHA, ALPHA + 2, DELTA, DELTA, DELTA],
            "place": [BETA, BETA, GAMMA + 3, GAMMA, GAMMA - 3],
            "disease": ["Flu", "Flu", "Hypertension", "Flu", "Cold"],
        }
    )
    schema = Schema({"age": Numeric(scale=1.0), "place": Numeric(scale=1.0)}, sensitive=["disease"])
    return table, schema


def test_figure_1_1_two_gather_has_maximum_radius_3():
    table, schema = figure_1_1()
    space = MetricSpace.from_table(table, schema)
    model = RGather(k=2).fit(space)
    assert model.labels_.tolist() == [0, 0, 1, 1, 1]
    assert model.radius_ == pytest.approx(3.0)
    assert model.lower_bound_ <= 3.0 and model.certified_ratio_ <= 2.0
    # The cluster-center release of Fig. 1.1(c)/(d): centers (α+1, β) and (δ, γ), counts 2
    # and 3, radii 1 and 3, the diseases as multisets.
    out = release_centers(table, model.partition_, schema, space=space, seed=0).table
    out = out.sort_values("age").reset_index(drop=True)
    assert out[["age", "place"]].to_numpy().tolist() == [[ALPHA + 1, BETA], [DELTA, GAMMA]]
    assert out["count"].tolist() == [2, 3]
    assert out["radius"].tolist() == pytest.approx([1.0, 3.0])
    assert json.loads(out["disease"][1]) == {"Cold": 1, "Flu": 1, "Hypertension": 1}


# ----------------------------------------------------------------- random instances
LETTERS = Hierarchy.from_rows(
    [[c, "ab" if c in "ab" else "cd" if c in "cd" else "ef", "*"] for c in "abcdef"]
)


def euclidean(rng, n):
    return MetricSpace.from_array(rng.normal(size=(n, 2)))


def hierarchical_l1(rng, n):
    table = pd.DataFrame({f"h{j}": rng.choice(list("abcdef"), size=n) for j in range(3)})
    schema = Schema({c: Hierarchical(LETTERS) for c in table.columns})
    return MetricSpace.from_table(table, schema, norm=1)


def hamming(rng, n):
    table = pd.DataFrame({f"c{j}": rng.integers(0, 3, size=n) for j in range(4)})
    schema = Schema({c: Categorical() for c in table.columns})
    return MetricSpace.from_table(table, schema, norm=1)  # L1 of one-hot/2 = Hamming


METRICS = {"euclidean": euclidean, "hierarchical-l1": hierarchical_l1, "hamming": hamming}


def optima(space, r, max_groups=None, budget=0):
    """(OPT with input-point centers, optimal largest diameter) under the limits."""
    n = space.n
    limits = {"max_groups": max_groups, "budget": budget}
    point = solve(subset_costs(MaxRadius.on(space), n, r), n, r, "max", **limits)[0]
    d = space.pairwise()
    diameters = subset_costs(lambda m: float(d[np.ix_(m, m)].max()), n, r)
    return point, solve(diameters, n, r, "max", **limits)[0]


@pytest.mark.parametrize("metric", sorted(METRICS))
def test_against_the_exact_optimum(metric):
    rng = np.random.default_rng(sorted(METRICS).index(metric))
    tol = 1e-9
    RATIOS: dict[str, list[float]] = {}
    for _ in range(100):  # 3 metrics x 100 instances
        n = int(rng.integers(5, 12))
        r = int(rng.integers(2, 4))
        k_max = int(rng.integers(1, 4))
        eps = float(rng.choice([0.1, 0.2]))
        budget = int(np.floor(eps * n + 1e-9))
        space = METRICS[metric](rng, n)

        opt_p, d_star = optima(space, r)
        g = RGather(k=r).fit(space)
        assert d_star / 2 - tol <= g.radius_ <= d_star + tol  # radius <= 2 * (d*/2) <= 2 OPT
        assert g.lower_bound_ <= d_star / 2 + tol and g.radius_ <= 2 * opt_p + tol
        RATIOS.setdefault("r-gather", []).append(g.radius_ / opt_p if opt_p else 1.0)

        opt_p, d_star = optima(space, r, max_groups=k_max)
        kc = KRCenter(max_clusters=k_max, k=r).fit(space)
        assert kc.partition_.n_clusters <= k_max
        assert kc.radius_ <= d_star + tol and kc.lower_bound_ <= d_star / 2 + tol
        RATIOS.setdefault("kr-center", []).append(kc.radius_ / opt_p if opt_p else 1.0)

        if n - budget < r:
            continue
        opt_p, d_star = optima(space, r, budget=budget)
        go = RGatherOutliers(k=r, epsilon=eps).fit(space)
        assert go.partition_.n_suppressed <= budget and go.partition_.min_size >= r
        assert go.radius_ <= 2 * d_star + tol and go.lower_bound_ <= d_star / 2 + tol
        RATIOS.setdefault("r-gather-outliers", []).append(go.radius_ / opt_p if opt_p else 1.0)

        gp = RGatherOutliers(k=r, epsilon=eps, centers="points").fit(space)
        assert gp.partition_.n_suppressed <= budget and gp.partition_.min_size >= r
        assert gp.radius_ <= 3 * opt_p + tol and gp.lower_bound_ <= opt_p + tol
        RATIOS.setdefault("r-gather-outliers (points)", []).append(
            gp.radius_ / opt_p if opt_p else 1.0
        )

        opt_p, d_star = optima(space, r, max_groups=k_max, budget=budget)
        ko = KRCenterOutliers(max_clusters=k_max, k=r, epsilon=eps).fit(space)
        part = ko.partition_
        assert part.n_suppressed <= budget and part.min_size >= r and part.n_clusters <= k_max
        assert ko.radius_ <= 2 * d_star + tol and ko.lower_bound_ <= d_star / 2 + tol
        RATIOS.setdefault("kr-center-outliers", []).append(ko.radius_ / opt_p if opt_p else 1.0)
    for name, values in sorted(RATIOS.items()):
        v = np.array(values)
        print(f"{metric} {name}: n={v.size} median {np.median(v):.3f} max {v.max():.3f}")


def test_large_inputs_use_the_bisection_and_stay_certified():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(6000, 3))
    # (model, guarantee factor, how far from the tested threshold a member may be)
    cases = [
        (RGather(k=5), 2.0, 1.0),
        (KRCenter(max_clusters=40, k=5), 2.0, 1.0),
        (RGatherOutliers(k=5, epsilon=0.02), 4.0, 2.0),
        (RGatherOutliers(k=5, epsilon=0.02, centers="points"), 3.0, 3.0),
        (KRCenterOutliers(max_clusters=40, k=5, epsilon=0.02), 4.0, 2.0),
    ]
    for model, factor, reach in cases:
        model.fit(X)
        part = model.partition_
        assert part.min_size >= 5 and part.n_suppressed <= 120
        assert model.radius_ <= reach * model.threshold_ * (1 + 1e-9)
        assert 0 < model.lower_bound_ <= model.radius_
        assert model.certified_ratio_ <= factor * (1 + model.tol) + 1e-9


def test_duplicates_give_radius_zero_and_ratio_one():
    X = np.repeat(np.arange(4.0).reshape(-1, 1), 3, axis=0)
    model = RGather(k=3).fit(X)
    assert model.radius_ == 0.0 and model.certified_ratio_ == 1.0
    assert model.partition_.n_clusters == 4


@pytest.mark.parametrize(
    ("model", "error", "pattern"),
    [
        (RGather(k=1), ParameterError, "at least 2"),
        (RGather(k=9), InfeasibleError, "cannot hide"),
        (RGather(k=2, tol=2.0), ParameterError, "tol"),
        (KRCenter(max_clusters=0, k=2), ParameterError, "max_clusters"),
        (RGatherOutliers(k=2, epsilon=1.5), ParameterError, "epsilon"),
        (RGatherOutliers(k=4, epsilon=0.5), InfeasibleError, "fewer than k=4"),
        (RGatherOutliers(k=2, centers="medoid"), ParameterError, "centers"),
        (KRCenterOutliers(max_clusters=2, k=2, epsilon=-0.1), ParameterError, "epsilon"),
    ],
)
def test_bad_parameters(model, error, pattern):
    with pytest.raises(error, match=pattern):
        model.fit(np.arange(6.0).reshape(-1, 1))


@pytest.mark.parametrize("method", ["r-gather", "r-gather-outliers", "kr-center",
                                    "kr-center-outliers"])  # fmt: skip
@pytest.mark.parametrize("form", ["generalized", "microaggregated", "centers"])
def test_every_method_publishes_every_form(method, form):
    table, schema = figure_1_1()
    table = pd.concat([table] * 4, ignore_index=True)
    table["age"] += np.arange(len(table)) * 0.1
    params = {"epsilon": 0.1} if "outliers" in method else {}
    if method.startswith("kr"):
        params["max_clusters"] = 3
    rel = anonymize(table, schema, 2, method=method, release=form, params=params, seed=1)
    meta = rel.metadata
    assert meta["n_released"] + meta["n_suppressed"] == len(table)
    assert meta["lower_bound"] > 0 and meta["certified_ratio"] >= 1.0 - 1e-9
    assert meta["approximation_ratio"] in (2.0, 4.0)
    assert meta["cost"] == meta["loss"]["max_radius"]


def test_point_center_variant_reports_its_own_factor():
    table, schema = figure_1_1()
    table = pd.concat([table] * 3, ignore_index=True)
    params = {"epsilon": 0.1, "centers": "points"}
    rel = anonymize(table, schema, 2, method="r-gather-outliers", params=params, seed=1)
    assert rel.metadata["approximation_ratio"] == 3.0


def test_bisection_path_is_certified():
    # Groups of four near-identical points: the first test fails for r = 3 and the search
    # bisects real values (more than 2,500 points), certifying with the last failure.
    rng = np.random.default_rng(2)
    X = np.repeat(np.arange(1250.0), 4)[:, None] + rng.normal(scale=1e-3, size=(5000, 1))
    model = RGather(k=3).fit(X)
    assert model.n_tests_ > 1
    assert model.partition_.min_size >= 3
    assert 0 < model.lower_bound_ <= model.radius_ <= model.threshold_
    assert model.certified_ratio_ <= 2 * (1 + model.tol)
    assert model.radius_ < 0.01  # the groups themselves, not neighbouring groups
