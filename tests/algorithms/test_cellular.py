"""Cellular clustering (Aggarwal et al., Sec. 3): the paper's examples, the primal-dual's
invariants, the LP, the exact optimum, and a certificate grown on restricted candidates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

import incrowd
from incrowd import CellularClustering, MetricSpace, RCellular, RCellularOutliers
from incrowd.algorithms.cellular import _growth, clustering
from incrowd.algorithms.exact import optimum
from incrowd.costs import CellularCost
from incrowd.errors import ParameterError
from incrowd.testing import random_table

# Fig. 1.1 with α = β = 0, δ = γ = 100 (records 1..5 of the paper are 0..4 here)
FIG_1_1 = np.array([[0.0, 0.0], [2.0, 0.0], [100.0, 103.0], [100.0, 100.0], [100.0, 97.0]])
# Fig. 1.3: Hamming distance on four binary attributes
FIG_1_3 = np.array([[1, 1, 1, 1], [0, 1, 1, 1], [1, 0, 1, 1], [1, 1, 0, 1], [1, 1, 1, 0]], float)


def distances(space: MetricSpace) -> np.ndarray:
    n = space.n
    rows = np.arange(n)
    return space.geometry.distance(np.repeat(rows, n), np.tile(rows, n)).reshape(n, n)


# ------------------------------------------------------------------ the paper's examples
@pytest.mark.parametrize(
    ("setup", "cost", "labels"),
    [
        (0, 0.0, [0, 1, 2, 3, 4]),
        (1, 5.0, [0, 1, 2, 3, 4]),
        (5, 23.0, [0, 0, 1, 1, 1]),
        (20, 53.0, [0, 0, 1, 1, 1]),
    ],
)
def test_fig_1_1_primal_dual_with_setup_costs(setup, cost, labels):
    model = CellularClustering(setup_cost=setup).fit(FIG_1_1)
    assert model.labels_.tolist() == labels
    assert model.cost_ == pytest.approx(cost)
    # on this instance the primal-dual is optimal: its cost equals the dual Σα
    assert model.dual_sum_ == pytest.approx(cost)
    assert model.lower_bound_ == pytest.approx(cost)
    assert model.lower_bound_ <= model.cost_ + 1e-9


def test_fig_1_1_r_cellular():
    model = RCellular(k=2).fit(FIG_1_1)
    assert model.labels_.tolist() == [0, 0, 1, 1, 1]
    assert model.cost_ == pytest.approx(13.0)  # 2·2 + 3·3, centers at input records
    assert model.dual_sum_ == pytest.approx(23.0)
    assert model.dual_bound_ == pytest.approx(11.5)
    assert 11.5 - 1e-9 <= model.lower_bound_ <= 13.0 + 1e-9
    # the paper's 11 = 2·1 + 3·3: the same crowds around their free centers (centroids)
    centroids = np.array([FIG_1_1[:2].mean(axis=0), FIG_1_1[2:].mean(axis=0)])
    radii = [
        np.linalg.norm(FIG_1_1[model.labels_ == c] - centroids[c], axis=1).max() for c in (0, 1)
    ]
    assert 2 * radii[0] + 3 * radii[1] == pytest.approx(11.0)


def test_fig_1_2_cost_arithmetic():
    """Three crowds of 50, 20 and 8 records with radii 10, 5 and 3 cost 624."""
    parts, labels = [], []
    for c, (size, radius, at) in enumerate([(50, 10.0, 0.0), (20, 5.0, 1000.0), (8, 3.0, 2000.0)]):
        offsets = np.where(np.arange(size) % 2 == 0, -radius, radius)
        offsets[0] = 0.0  # the center, an input record
        parts.append(at + offsets)
        labels += [c] * size
    X = np.concatenate(parts)[:, None]
    assert CellularCost.on(MetricSpace.from_array(X)).of(np.array(labels)) == pytest.approx(624.0)


def test_fig_1_3_hamming():
    space = MetricSpace.from_array(FIG_1_3, norm=1)
    model = RCellular(k=5).fit(space)
    assert model.labels_.tolist() == [0] * 5
    assert model.center_records_.tolist() == [0]
    assert model.cost_ == pytest.approx(5.0)
    assert model.dual_sum_ == pytest.approx(10.0)  # = 2 OPT: the factor 2 is tight here
    assert model.lower_bound_ == pytest.approx(5.0)
    # the actual distortion is 4 (four records differ from the center in one attribute),
    # against 20 for 5-anonymity by suppression
    assert (FIG_1_3 != FIG_1_3[0]).sum() == 4


# ------------------------------------------------------------------ invariants
def full_dual_violation(space: MetricSpace, alpha: np.ndarray, k: int, setup: float) -> float:
    """Largest ``Σ_i (α_i − d)^+ − f'(v, d)`` over every candidate of the LP, by brute force."""
    D = distances(space)
    worst = -np.inf
    for v in range(space.n):
        for d in np.unique(D[v]):
            members = D[v] <= d
            if members.sum() < k:
                continue
            f = setup + (k * d if k >= 2 else 0.0)
            worst = max(worst, np.maximum(alpha[members] - d, 0.0).sum() - f)
    return float(worst)


def lp_value(space: MetricSpace, setup: float) -> float:
    """The LP of Sec. 3 (candidates (v, d), x_ic ≤ y_c, Σ_c x_ic ≥ 1) solved by HiGHS."""
    D = distances(space)
    n = space.n
    cands = [(v, d) for v in range(n) for d in np.unique(D[v])]
    pairs = [(c, i) for c, (v, d) in enumerate(cands) for i in range(n) if D[v, i] <= d]
    ny, nx = len(cands), len(pairs)
    cost = np.concatenate([[setup] * ny, [cands[c][1] for c, _ in pairs]])
    rows, cols, vals, rhs = [], [], [], []
    r = 0
    for e, (c, _) in enumerate(pairs):  # x_ic − y_c ≤ 0
        rows += [r, r]
        cols += [ny + e, c]
        vals += [1.0, -1.0]
        rhs.append(0.0)
        r += 1
    for i in range(n):  # −Σ_c x_ic ≤ −1
        for e, (_, j) in enumerate(pairs):
            if j == i:
                rows.append(r)
                cols.append(ny + e)
                vals.append(-1.0)
        rhs.append(-1.0)
        r += 1
    A = np.zeros((r, ny + nx))
    A[rows, cols] = vals
    res = linprog(cost, A_ub=A, b_ub=rhs, bounds=(0, 1), method="highs")
    assert res.status == 0
    return float(res.fun)


@pytest.mark.parametrize("seed", range(12))
def test_primal_dual_invariants_and_the_lp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    space = MetricSpace.from_array(rng.integers(0, 6, size=(n, 2)).astype(float))
    setup = float(rng.choice([0.5, 2.0, 5.0]))
    model = CellularClustering(setup_cost=setup).fit(space)
    alpha = model.dual_values_
    assert full_dual_violation(space, alpha, 1, setup) <= 1e-9
    crowds = model.partition_.n_clusters
    # Lemma 3.4 summed: service + 3 · setup ≤ 3 Σα
    assert model.cost_ + 2 * setup * crowds <= 3 * alpha.sum() + 1e-9
    assert alpha.sum() <= lp_value(space, setup) + 1e-7
    assert model.partition_.n_suppressed == 0


@pytest.mark.parametrize("seed", range(20))
def test_r_cellular_invariants(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(6, 40))
    k = int(rng.integers(2, 5))
    X = rng.normal(size=(n, 2))
    X[rng.integers(0, n)] = X[0]  # a copy
    space = MetricSpace.from_array(X)
    model = RCellular(k=k).fit(space)
    assert model.partition_.min_size >= k
    assert model.partition_.n_suppressed == 0
    assert full_dual_violation(space, model.dual_values_, k, 0.0) <= 1e-9
    # Step 3 costs at most 6 × the shared solution, which costs at most 3 Σα
    assert model.unrefined_cost_ <= 6 * model.shared_cost_ + 1e-9
    assert model.shared_cost_ <= 3 * model.dual_sum_ + 1e-9
    assert model.cost_ <= model.unrefined_cost_ + 1e-9


def test_restricted_candidates_certificate_holds_for_the_full_lp(monkeypatch):
    """Grown on each center's 6 nearest only, the scaled dual is feasible for every
    candidate (checked here by brute force, independently of the library's check)."""
    monkeypatch.setattr(_growth, "COMPLETE_UP_TO", 0)
    monkeypatch.setattr(_growth, "LIST_MIN", 6)
    monkeypatch.setattr(_growth, "LIST_PER_K", 1)
    monkeypatch.setattr(clustering, "CHECK_ALWAYS", True)
    rng = np.random.default_rng(3)
    for trial in range(6):
        X = rng.normal(size=(120, 3)) * rng.uniform(0.2, 3.0, size=3)
        space = MetricSpace.from_array(X)
        model = RCellular(k=3).fit(space)
        assert not model.complete_candidates_
        assert model.dual_scale_ is not None and 0 < model.dual_scale_ <= 1
        scaled = model.dual_scale_ * model.dual_values_ * (1 - 1e-12)
        assert full_dual_violation(space, scaled, 3, 0.0) <= 1e-9, trial
        D = distances(space)
        assert model.lower_bound_ <= exact_r_cellular_upper(D, model) + 1e-9


def exact_r_cellular_upper(D: np.ndarray, model: RCellular) -> float:
    """The cost of the model's crowds with the best center of all records: an upper
    bound on the optimum that the lower bound must respect."""
    total = 0.0
    for c in range(model.partition_.n_clusters):
        members = model.labels_ == c
        total += (members.sum() * D[:, members].max(axis=1)).min()
    return total


def test_unrestricted_growth_is_feasible_without_scaling():
    rng = np.random.default_rng(5)
    model = RCellular(k=3).fit(rng.normal(size=(60, 2)))
    assert model.complete_candidates_ and model.dual_scale_ == pytest.approx(1.0)


# ------------------------------------------------------------------ against the optimum
@pytest.mark.parametrize("kind", ["numeric", "categorical", "hierarchical"])
def test_against_the_exact_optimum(kind):
    rng = np.random.default_rng({"numeric": 1, "categorical": 2, "hierarchical": 3}[kind])
    ratios = []
    for _ in range(30):
        n = int(rng.integers(5, 10))
        k = int(rng.integers(2, 4))
        if kind == "numeric":
            space = MetricSpace.from_array(rng.integers(0, 9, size=(n, 2)).astype(float))
        else:
            table, schema = random_table(rng, n, kinds=(kind,))
            space = MetricSpace.from_table(table, schema)
        for model, ratio in [(RCellular(k=k), 36.0), (CellularClustering(setup_cost=1.5), 3.0)]:
            model.fit(space)
            kk = int(model.k)
            opt, _ = optimum(model.cost(space), n, kk)
            assert model.lower_bound_ <= opt + 1e-9
            assert opt - 1e-9 <= model.cost_ <= ratio * opt + 1e-9
            ratios.append(model.cost_ / opt if opt > 0 else 1.0)
    assert np.median(ratios) < 1.5


def _capped_model(kind: str, k: int, setup: float) -> CellularClustering:
    if kind == "r-cellular":
        return RCellular(k=k)
    if kind == "cellular":
        return CellularClustering(setup_cost=setup)
    return CellularClustering(setup_cost=lambda c, r: setup + r)


@pytest.mark.parametrize("kind", ["r-cellular", "cellular", "cellular, f(R)"])
def test_parts_capped_bounds_sum_below_the_whole_optimum(kind):
    """A table cut in two: each part's radius bound (crowds of k) or share bound (k = 1,
    radius plus share of the setup cost), with every record's distances capped at its
    distance to the other part, bounds its share of the *whole* table's optimum (the
    global certificate of blockwise runs, :mod:`incrowd.distributed`)."""
    rng = np.random.default_rng({"r-cellular": 12, "cellular": 13, "cellular, f(R)": 14}[kind])
    tight = 0
    for _ in range(40):
        n = int(rng.integers(8, 12 if kind == "r-cellular" else 11))
        k = int(rng.integers(2, 4)) if kind == "r-cellular" else 1
        setup = float(rng.choice([0.5, 2.0, 6.0]))
        points = rng.integers(0, 9, size=(n, 2)).astype(float)
        whole = MetricSpace.from_array(points)
        D = distances(whole)
        left = points[:, 0] <= np.median(points[:, 0])
        if min(left.sum(), (~left).sum()) < k:
            continue
        bound = 0.0
        for part in (left, ~left):
            model = _capped_model(kind, k, setup).fit(MetricSpace.from_array(points[part]))
            cap = D[np.ix_(part, ~part)].min(axis=1)
            capped = model.capped_lower_bound(cap)
            assert capped <= max(model.radius_bound_, model.share_bound_) + 1e-9
            assert np.isinf(cap).any() or model.capped_lower_bound(
                np.full(cap.size, np.inf)
            ) == pytest.approx(max(model.radius_bound_, model.share_bound_))
            bound += capped
        opt, _ = optimum(_capped_model(kind, k, setup).cost(whole), n, k)
        assert bound <= opt + 1e-9
        tight += bound >= 0.5 * opt
    assert tight >= 10  # and not vacuous
    assert RCellularOutliers(k=2, epsilon=0.2).fit(FIG_1_1).capped_lower_bound(np.ones(5)) is None


def test_parts_terms_less_the_largest_bound_the_whole_budgeted_optimum():
    """With outliers: the parts' capped per-record radius floors, less the largest
    ``⌊εn⌋`` of all of them, bound the whole table's optimum that leaves out ``⌊εn⌋``
    records (:func:`incrowd.distributed._bound.whole_bound`)."""
    from incrowd.distributed._bound import LeftOutTerms, whole_bound
    from incrowd.params import outlier_budget

    rng = np.random.default_rng(15)
    tight = 0
    for _ in range(40):
        n = int(rng.integers(9, 12))
        k = int(rng.integers(2, 4))
        epsilon = float(rng.choice([0.1, 0.2]))
        points = rng.integers(0, 9, size=(n, 2)).astype(float)
        points[rng.integers(0, n)] += 40.0  # a far record, worth leaving out
        whole = MetricSpace.from_array(points)
        D = distances(whole)
        left = points[:, 0] <= np.median(points[:, 0])
        budget = outlier_budget(epsilon, n)
        if min(left.sum(), (~left).sum()) < k or n - budget < k:
            continue
        parts = []
        for part in (left, ~left):
            model = RCellularOutliers(k=k, epsilon=epsilon)
            model.fit(MetricSpace.from_array(points[part]))
            cap = D[np.ix_(part, ~part)].min(axis=1)
            assert model.capped_lower_bound(cap) is None
            terms = model.capped_bound_terms(cap)
            assert terms.shape == (part.sum(),)
            assert (terms <= model.capped_bound_terms(np.full(cap.size, np.inf)) + 1e-12).all()
            parts.append(LeftOutTerms(terms, epsilon))
        bound = whole_bound(parts, n)
        opt, _ = optimum(RCellularOutliers(k=k, epsilon=epsilon).cost(whole), n, k,
                         budget=budget)  # fmt: skip
        assert bound <= opt + 1e-9
        tight += bound >= 0.5 * opt
    assert tight >= 10  # and not vacuous
    assert RCellular(k=2).fit(FIG_1_1).capped_bound_terms(np.ones(5)) is None


def test_the_share_bound_charges_each_record_its_radius_and_share_of_the_setup():
    """Two records 10 apart with setup 5: each pays 5 alone, or 10 + 5/2 together; the
    bound is 5 each, the optimum. With setup 30 together is cheaper (20 + 30 = 50), and each
    record's least is 10 + 30/2: the bound is 50 again. Fig. 1.1 with setup 20 costs 53,
    the dual's 53; the share bound stays below."""
    two = np.array([[0.0], [10.0]])
    for setup, opt in ((5.0, 10.0), (30.0, 50.0)):
        model = CellularClustering(setup_cost=setup).fit(two)
        assert model.share_bound_ == pytest.approx(opt) == model.cost_
        assert model.lower_bound_ == pytest.approx(opt)
    fig = CellularClustering(setup_cost=20).fit(FIG_1_1)
    assert fig.share_bound_ <= fig.lower_bound_ == pytest.approx(53.0)
    assert fig.certificate_["share_bound"] == fig.share_bound_


def test_outliers_leave_at_most_epsilon_n_and_bound_the_budgeted_optimum():
    rng = np.random.default_rng(9)
    for _ in range(15):
        n = int(rng.integers(7, 11))
        X = rng.normal(size=(n, 2))
        X[0] += 20  # an outlier
        space = MetricSpace.from_array(X)
        model = RCellularOutliers(k=2, epsilon=0.2).fit(space)
        budget = int(np.floor(0.2 * n + 1e-9))
        assert model.partition_.n_suppressed <= budget
        assert model.partition_.min_size >= 2
        opt, _ = optimum(model.cost(space), n, 2, budget=budget)
        assert 0 <= model.lower_bound_ <= opt + 1e-9
        assert model.cost_ >= opt - 1e-9


def test_identical_records_form_free_crowds():
    X = np.repeat(np.array([[0.0], [5.0]]), 4, axis=0)
    model = RCellular(k=3).fit(X)
    assert model.partition_.n_clusters == 2 and model.cost_ == 0.0


def test_setup_cost_as_a_function_and_bad_setup_costs():
    def setup(centers, radii):
        return 1.0 + 0.5 * radii

    model = CellularClustering(setup_cost=setup).fit(FIG_1_1)
    assert model.approximation_ratio_ is None
    assert model.lower_bound_ <= model.cost_
    with pytest.raises(ParameterError, match="setup_cost"):
        CellularClustering(setup_cost=-1).fit(FIG_1_1)
    with pytest.raises(ParameterError, match="decrease"):
        CellularClustering(setup_cost=lambda c, r: 1000.0 - r).fit(FIG_1_1)


def test_registered_for_the_command_line():
    assert incrowd.METHODS["cellular"] is CellularClustering
    assert incrowd.METHODS["r-cellular"] is RCellular
    assert incrowd.METHODS["r-cellular-outliers"] is RCellularOutliers
    assert not RCellularOutliers.guarantee.proven and RCellularOutliers.guarantee.ratio is None
