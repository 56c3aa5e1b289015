"""The tree of live counts: the greedy covering it runs is the plain greedy's, pick for pick."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import KRCenterOutliers, MetricSpace
from incrowd.algorithms._gather_greedy import Neighbours, greedy_k_centers
from incrowd.data.live_tree import LiveTree


def brute_cover(points, weight, tie, candidate, x, cover, max_picks, norm):
    """The greedy covering by full distance matrices (small inputs only)."""
    diff = np.abs(points[:, None, :] - points[None, :, :])
    dist = diff.sum(axis=2) if norm == 1 else np.sqrt((diff**2).sum(axis=2))
    live = np.ones(len(points), dtype=bool)
    centers = []
    while len(centers) < max_picks:
        options = np.flatnonzero(candidate & live)
        if not options.size:
            break
        counts = np.array([weight[(dist[v] <= x) & live].sum() for v in options])
        best = options[np.lexsort((tie[options], -counts))[0]]
        centers.append(best)
        live &= dist[best] > cover
    return np.array(centers, dtype=np.intp), ~live


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 120),
    d=st.integers(1, 4),
    grid=st.booleans(),
    norm=st.sampled_from([1, 2]),
    x=st.floats(0.05, 3.0),
    picks=st.integers(1, 9),
    seed=st.integers(0, 2**31),
)
def test_greedy_cover_equals_the_brute_force_greedy(n, d, grid, norm, x, picks, seed):
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 4, (n, d)).astype(float) if grid else rng.standard_normal((n, d))
    weight = rng.integers(1, 4, n)
    tie = rng.permutation(n)
    candidate = rng.random(n) < 0.7
    tree = LiveTree(points, weight, tie, norm)
    got_centers, got_covered = tree.greedy_cover(candidate, x, 2 * x, picks)
    want_centers, want_covered = brute_cover(points, weight, tie, candidate, x, 2 * x, picks,
                                             norm)  # fmt: skip
    assert got_centers.tolist() == want_centers.tolist()
    assert got_covered.tolist() == want_covered.tolist()


@pytest.mark.parametrize("norm", [1, 2])
def test_kr_center_outliers_is_the_same_with_or_without_the_tree(norm):
    rng = np.random.default_rng(11)
    for trial in range(40):
        n = int(rng.integers(20, 600))
        d = int(rng.integers(1, 5))
        if trial % 2:  # many copies: the tree works on weighted distinct rows
            X = rng.integers(0, 5, (n, d)).astype(float)
        else:
            X = rng.standard_normal((n, d))
        r, k_max = int(rng.integers(2, 5)), int(rng.integers(1, 9))
        answers = []
        for use_tree in (True, False):
            space = MetricSpace.from_array(X, norm=norm)
            if not use_tree:
                space.index().__dict__["live_tree"] = None  # the plain lazy heap
            else:
                assert space.index().live_tree is not None
            knn = Neighbours(space, r)
            for x in (0.2, 0.6, 1.2, 2.5):
                out = greedy_k_centers(space, knn, x, r, k_max, max(1, (4 * n) // 5))
                answers.append(None if out is None else (out[0].tolist(), out[1].tolist()))
        half = len(answers) // 2
        assert answers[:half] == answers[half:]


def test_the_tree_serves_a_whole_fit():
    X = np.random.default_rng(3).standard_normal((3000, 3))
    model = KRCenterOutliers(k=5, max_clusters=20, epsilon=0.02).fit(X)
    assert model.partition_.min_size >= 5 and model.partition_.n_suppressed <= 60
    assert model.certified_ratio_ <= 4 * (1 + model.tol) + 1e-9
