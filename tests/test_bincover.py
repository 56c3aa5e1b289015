"""Min-Max Bin Covering (Du, Eppstein, Goodrich, Lueker, Sec. 4): the spec's exact values,
the proven bounds against the exact optimum, and every covering a valid one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd.algorithms.bincover import exact, fold, lower_bound, ptas, spread, theorem9
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
