"""Min-Max Bin Covering (Du, Eppstein, Goodrich, Lueker, Sec. 4): the spec's exact values,
the proven bounds against the exact optimum, and every covering a valid one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd.algorithms.single_attribute.bincover import (
    exact,
    fold,
    lower_bound,
    ptas,
    spread,
    sweep,
    theorem9,
)
from incrowd.errors import InfeasibleError, ParameterError


def valid(cover, items, k):
    items = np.asarray(items)
    assert cover.labels.shape == items.shape  # every value in exactly one class
    loads = np.bincount(cover.labels, weights=items)
    assert (loads >= k).all(), "every class holds k records"
    assert loads.sum() == items.sum(), "no record lost"
    assert cover.largest == loads.max()
    assert cover.lower_bound <= cover.largest


def test_fold_examples_of_the_spec():
    assert fold([5, 5, 5, 5, 5], 6).largest == 15  # = 3k − 3 = OPT
    assert fold([7, 3, 3, 3, 3, 3], 6).largest == 9  # = OPT
    assert exact([5, 5, 5, 5, 5], 6).largest == 15
    assert exact([7, 3, 3, 3, 3, 3], 6).largest == 9


def test_infeasible_and_bad_counts_are_clear_errors():
    with pytest.raises(InfeasibleError, match="fewer than k"):
        fold([1, 2], 5)
    with pytest.raises(ParameterError, match="positive"):
        theorem9([3, 0, 4], 2)
    with pytest.raises(ParameterError, match="whole numbers"):
        spread([1.5, 3.0], 2)


@pytest.mark.parametrize("seed", range(400))
def test_bounds_against_the_optimum(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 10))
    k = int(rng.integers(2, 20))
    items = rng.integers(1, int(rng.choice([k, 2 * k, 4 * k])) + 1, size=n)
    if items.sum() < k:
        return
    opt = exact(items, k)
    valid(opt, items, k)
    assert lower_bound(items, k) <= opt.largest
    f = fold(items, k, order="random", seed=seed)
    valid(f, items, k)
    assert f.largest <= max(k - 1 + items.max(), 3 * k - 3)
    t = theorem9(items, k)
    valid(t, items, k)
    assert 2 * t.largest <= 5 * opt.largest, (items.tolist(), k, t.largest, opt.largest)
    if n <= 7:
        p = ptas(items, k, epsilon=0.5)
        valid(p, items, k)
        assert p.largest <= 1.5 * (opt.largest + k) + 1e-9, (items.tolist(), k, p.largest)
    s = spread(items, k, order="random", seed=seed)
    valid(s, items, k)
    assert s.largest >= opt.largest


@given(
    st.lists(st.integers(1, 300), min_size=1, max_size=200),
    st.integers(1, 500),
    st.sampled_from(["given", "ascending", "descending", "random"]),
)
def test_every_covering_is_valid(items, k, order):
    if sum(items) < k:
        with pytest.raises(InfeasibleError):
            fold(items, k)
        return
    for cover in (fold(items, k, order=order, seed=1), theorem9(items, k),
                  spread(items, k, order=order, seed=1)):  # fmt: skip
        valid(cover, items, k)
    assert fold(items, k, order=order, seed=1).largest <= max(k - 1 + max(items), 3 * k - 3)


def test_ptas_refuses_an_enumeration_too_large():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="larger epsilon"):
        ptas(rng.integers(1, 30, size=60), 40, epsilon=0.05)


@pytest.mark.parametrize("order", ["given", "ascending", "descending", "random"])
def test_sweep_equals_one_call_per_k(order):
    rng = np.random.default_rng(11)
    for trial in range(40):
        x = rng.integers(1, 30, int(rng.integers(3, 50)))
        ks = np.arange(max(2, int(x.max()) - 3), int(x.sum()) + 1)
        for algorithm, one in (("fold", fold), ("spread", spread)):
            largest, classes = sweep(x, ks, algorithm, order=order, seed=trial)
            for k, big, count in zip(ks, largest, classes, strict=True):
                found = one(x, int(k), order=order, seed=trial)
                assert (found.largest, found.n_classes) == (big, count)


def test_fig7_smoke_spread_beats_fold_and_stays_under_3(datasets):
    table = pd.read_csv(datasets / "names1990" / "dist_female_first.csv", keep_default_na=False)
    x = (table["frequency_percent"] * 1000).round().astype(int).to_numpy()
    x = x[x > 0]
    ks = np.linspace(x.max(), x.sum() // 2, 400).astype(int)
    for order in ("random", "ascending"):
        fold_largest, fold_classes = sweep(x, ks, "fold", order=order, seed=0)
        spread_largest, spread_classes = sweep(x, ks, "spread", order=order, seed=0)
        both = (fold_classes >= 2) & (spread_classes >= 2)
        fold_ratio, spread_ratio = fold_largest[both] / ks[both], spread_largest[both] / ks[both]
        assert spread_ratio.mean() < fold_ratio.mean()
        assert fold_ratio.max() <= 3 and spread_ratio.max() <= 3


def test_bin_covering_method_publishes_value_sets():
    from incrowd import Categorical, Schema, anonymize

    rng = np.random.default_rng(2)
    names = rng.choice([f"n{i}" for i in range(40)], size=800)
    table = pd.DataFrame({"name": names, "x": rng.integers(0, 5, 800)})
    release = anonymize(table, Schema({"name": Categorical()}, sensitive=["x"]), 30,
                        method="bin-covering", generalize="sets", seed=0)  # fmt: skip
    published = release.table["name"]
    assert published.value_counts().min() >= 30
    meta = release.metadata
    assert meta["objective"] == "largest_crowd" and meta["cost"] == published.value_counts().max()
    assert meta["certified_ratio"] <= meta["approximation_ratio"] == 2.5
