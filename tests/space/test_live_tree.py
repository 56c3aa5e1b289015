"""The tree of live counts: the greedy covering it runs is the plain greedy's, pick for pick;
with the cube bound, every pick holds what the proof of Lemma 2.7 needs."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import KRCenterOutliers, MetricSpace
from incrowd.algorithms.gather._greedy import Neighbours, greedy_k_centers
from incrowd.space.neighbours import live_tree
from incrowd.space.neighbours.live_tree import LiveTree


def distances(points, norm):
    diff = np.abs(points[:, None, :] - points[None, :, :])
    return diff.sum(axis=2) if norm == 1 else np.sqrt((diff**2).sum(axis=2))


@st.composite
def coverings(draw, most: int, dims: int, x_low: float, x_high: float, max_picks: int):
    """A covering to run: points (on a small grid, with copies, or Gaussian), weights, tie
    keys, candidates, norm, radius and number of picks."""
    n, d = draw(st.integers(1, most)), draw(st.integers(1, dims))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    grid = draw(st.booleans())
    points = rng.integers(0, 4, (n, d)).astype(float) if grid else rng.standard_normal((n, d))
    weight, tie, candidate = rng.integers(1, 4, n), rng.permutation(n), rng.random(n) < 0.7
    norm = draw(st.sampled_from([1, 2]))
    return (
        points,
        weight,
        tie,
        candidate,
        norm,
        draw(st.floats(x_low, x_high)),
        draw(st.integers(1, max_picks)),
    )


def brute_cover(points, weight, tie, candidate, x, cover, max_picks, norm):
    """The greedy covering by full distance matrices (small inputs only)."""
    dist = distances(points, norm)
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
@given(coverings(120, 4, 0.05, 3.0, 9))
def test_greedy_cover_equals_the_brute_force_greedy(covering):
    points, weight, tie, candidate, norm, x, picks = covering
    tree = LiveTree(points, weight, tie, norm)
    got_centers, got_covered = tree.greedy_cover(candidate, x, 2 * x, picks, "exact")
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
                need = max(1, (4 * n) // 5)
                out = greedy_k_centers(space, knn, x, r, k_max, need, enough="exact")
                answers.append(None if out is None else (out[0].tolist(), out[1].tolist()))
        half = len(answers) // 2
        assert answers[:half] == answers[half:]


def test_the_tree_serves_a_whole_fit():
    X = np.random.default_rng(3).standard_normal((3000, 3))
    model = KRCenterOutliers(k=5, max_clusters=20, epsilon=0.02).fit(X)
    assert model.partition_.min_size >= 5 and model.partition_.n_suppressed <= 60
    assert model.certified_ratio_ <= 4 * (1 + model.tol) + 1e-9


def heaviest_set_of_diameter(dist, weight, rows, x):
    """The largest weight of a set of ``rows`` with every pair within ``x``: a maximum
    weight clique (exact, small inputs only)."""
    graph = nx.Graph()
    graph.add_nodes_from((int(i), {"w": int(weight[i])}) for i in rows)
    graph.add_edges_from((int(a), int(b)) for a in rows for b in rows if a < b and dist[a, b] <= x)
    return nx.max_weight_clique(graph, weight="w")[1] if len(rows) else 0


@settings(max_examples=120, deadline=None)
@given(coverings(36, 3, 0.1, 2.5, 6))
def test_every_cube_pick_outweighs_any_set_of_diameter_x(covering):
    """Lemma 2.7 needs each pick's count to reach the uncovered candidates of every
    optimal cluster, a set of diameter <= x: replayed here against the heaviest such set."""
    points, weight, tie, candidate, norm, x, picks = covering
    n = len(points)
    tree = LiveTree(points, weight, tie, norm)
    centers, covered = tree.greedy_cover(candidate, x, 2 * x, picks, "cube")
    dist = distances(points, norm)
    live = np.ones(n, dtype=bool)
    for c in centers:
        assert candidate[c] and live[c]
        count = weight[(dist[c] <= x) & live].sum()
        assert count >= heaviest_set_of_diameter(dist, weight, np.flatnonzero(candidate & live), x)
        live &= dist[c] > 2 * x
    assert covered.tolist() == (~live).tolist()
    if len(centers) < picks:  # it stops only when no candidate is left
        assert not (candidate & live).any()


def test_the_cube_bound_is_used_and_changes_picks():
    """In R^2 the bound is tight enough to take picks the argmax would not (else the test
    above would check nothing beyond the exact greedy)."""
    rng = np.random.default_rng(4)
    differ = 0
    for _ in range(30):
        points = rng.standard_normal((300, 2))
        tree = LiveTree(points, np.ones(300, dtype=np.int64), np.arange(300), 2)
        assert tree._cube_grid(np.ones(300, dtype=bool), 0.5) is not None
        cube = tree.greedy_cover(np.ones(300, dtype=bool), 0.5, 1.0, 8, "cube")[0]
        exact = tree.greedy_cover(np.ones(300, dtype=bool), 0.5, 1.0, 8, "exact")[0]
        differ += cube.tolist() != exact.tolist()
    assert differ >= 10


@settings(max_examples=80, deadline=None)
@given(n=st.integers(20, 400), d=st.integers(1, 3), picks=st.integers(1, 8),
       share=st.floats(0.9, 1.3), seed=st.integers(0, 2**31))  # fmt: skip
def test_stopping_early_only_when_the_full_run_falls_short(n, d, picks, share, seed):
    rng = np.random.default_rng(seed)
    points = rng.standard_normal((n, d))
    weight = rng.integers(1, 3, n)
    candidate = rng.random(n) < 0.9
    x = float(rng.uniform(0.1, 1.0))
    tree = LiveTree(points, weight, rng.permutation(n), 2)
    full = tree.greedy_cover(candidate, x, 2 * x, picks, "cube")
    need = int(share * weight[full[1]].sum()) + 1  # near what the picks can cover
    early = tree.greedy_cover(candidate, x, 2 * x, picks, "cube", need)
    reached = weight[early[1]].sum() >= need
    assert reached == (weight[full[1]].sum() >= need)
    assert early[0].tolist() == full[0][: early[0].size].tolist()
    if reached:
        assert early[0].size == full[0].size


@settings(max_examples=150, deadline=None)
@given(
    groups=st.integers(1, 6),
    d=st.integers(1, 3),
    norm=st.sampled_from([1, 2]),
    x=st.floats(0.2, 2.0),
    seed=st.integers(0, 2**31),
)
def test_the_cube_bound_holds_every_set_of_diameter_x(groups, d, norm, x, seed):
    """Tight groups in pairs just under ``x`` apart: the heaviest set of diameter ``x`` is
    a pair, which a window one cell too narrow would often cut."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(-3, 3, (groups, d))
    step = rng.standard_normal((groups, d))
    step /= np.linalg.norm(step, ord=norm, axis=1, keepdims=True) + 1e-300
    ends = np.concatenate([base, base + 0.97 * x * step])
    points = np.repeat(ends, 4, axis=0) + rng.uniform(-1e-3, 1e-3, (8 * groups, d)) * x
    points = np.concatenate([points, rng.uniform(-4, 4, (10, d))])
    n = len(points)
    weight = rng.integers(1, 4, n)
    candidate = rng.random(n) < 0.8
    tree = LiveTree(points, weight, np.arange(n), norm)
    cand = candidate[tree.order]
    grid = tree._cube_grid(cand, x)
    if grid is None:
        return
    cells, dims, splits, _, _ = grid
    size = int(np.prod(dims))
    src, dst = np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int32)
    bound, _ = live_tree._cube_max(cells, tree.weight, cand, dims, splits, src, dst)
    dist = distances(points, norm)
    assert bound >= heaviest_set_of_diameter(dist, weight, np.flatnonzero(candidate), x)


def test_an_unknown_pick_rule_is_refused():
    tree = LiveTree(np.zeros((3, 1)), np.ones(3, dtype=np.int64), np.arange(3), 2)
    with pytest.raises(ValueError, match="enough"):
        tree.greedy_cover(np.ones(3, dtype=bool), 1.0, 2.0, 1, "best")
