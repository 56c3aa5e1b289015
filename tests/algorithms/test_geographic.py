"""Zip codes as planar regions (Thm 3) and GPS points as rectangles (Thm 4) of Du, Eppstein,
Goodrich, Lueker: the spec's exact values, the proven bounds on random inputs, the exact
optimum on small graphs, and the Delaunay graph of the real zip points."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd import KDRectangles, PlanarRegions
from incrowd.algorithms.exact import solve
from incrowd.algorithms.single_attribute.kd_rectangles import kd_rectangles
from incrowd.algorithms.single_attribute.planar_regions import (
    delaunay_edges,
    planar_regions,
    spanning_tree,
)
from incrowd.costs import largest_lower_bound
from incrowd.errors import InfeasibleError, InputError


# ----------------------------------------------------------------------------- helpers
def connected(nodes: np.ndarray, edges: np.ndarray) -> bool:
    g = nx.Graph()
    g.add_nodes_from(nodes.tolist())
    inside = np.isin(edges, nodes).all(axis=1)
    g.add_edges_from(edges[inside].tolist())
    return nx.is_connected(g)


def check_regions(found, weights, edges, k):
    weights = np.asarray(weights)
    loads = np.bincount(found.labels, weights=weights)
    assert loads.sum() == weights.sum(), "no record lost"
    assert (loads >= k).all(), "every region holds k records"
    for r in range(loads.size):
        assert connected(np.flatnonzero(found.labels == r), edges), "regions are connected"
    kappa = max(k, int(weights.max()))
    assert found.largest <= kappa + found.degree * (k - 1) == found.bound
    assert found.lower_bound <= found.largest
    tree_degree = np.bincount(found.tree.ravel(), minlength=weights.size).max()
    assert found.degree == tree_degree


def check_boxes(found, points, weights, k):
    points, weights = np.asarray(points, float), np.asarray(weights)
    loads = np.bincount(found.labels, weights=weights)
    assert loads.sum() == weights.sum()
    assert (loads >= k).all()
    # the boxes are disjoint: no point lies in another class's box
    for c in range(loads.size):
        inside = np.all((points >= found.lows[c]) & (points <= found.highs[c]), axis=1)
        assert (found.labels[inside] == c).all(), "a class's box holds only its own points"
    distinct, inverse = np.unique(points, axis=0, return_inverse=True)
    m = np.bincount(inverse.reshape(-1), weights=weights).max()
    dims = int((np.ptp(points, axis=0) > 0).sum())
    assert found.largest <= m + 2 * dims * (k - 1)
    assert found.lower_bound <= found.largest


def connected_optimum(weights, edges, k):
    """The least largest region over all partitions into connected regions of >= k."""
    n = len(weights)
    costs = np.full(1 << n, np.inf)
    for s in range(1, 1 << n):
        nodes = np.flatnonzero([(s >> i) & 1 for i in range(n)])
        w = weights[nodes].sum()
        if w >= k and connected(nodes, edges):
            costs[s] = w
    value, _ = solve(costs, n, 1, "max")
    return value


# ----------------------------------------------------------------------------- regions
@pytest.mark.parametrize(("leaves", "expected"), [(2, 19), (3, 25)])
def test_star_is_one_region_of_the_bound(leaves, expected):
    # center weight k = 7, leaves of 6: no edge leaves 7 on both sides
    edges = np.array([[0, i] for i in range(1, leaves + 1)])
    weights = np.array([7] + [6] * leaves)
    found = planar_regions(None, weights, 7, edges=edges)
    assert found.degree == leaves
    assert found.largest == expected == found.bound  # kappa + d(k - 1)
    assert connected_optimum(weights, edges, 7) == expected  # every region holds the center


def test_unit_path_splits_into_k_and_a_last_of_at_most_2k_minus_1():
    k, n = 4, 23
    edges = np.array([[i, i + 1] for i in range(n - 1)])
    found = planar_regions(None, np.ones(n, int), k, edges=edges)
    sizes = np.sort(found.loads)
    assert found.degree == 2
    assert (sizes[:-1] == k).all() and k <= sizes[-1] <= 2 * k - 1


def test_a_part_lighter_than_k_is_a_clear_error():
    edges = np.array([[0, 1], [2, 3]])  # two separate parts
    with pytest.raises(InfeasibleError, match="separate parts"):
        planar_regions(None, np.array([5, 5, 1, 1]), 4, edges=edges)
    with pytest.raises(InfeasibleError, match="fewer than k"):
        planar_regions(np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([1, 1]), 3)


def test_separate_parts_are_solved_each_on_its_own():
    edges = np.array([[0, 1], [1, 2], [3, 4], [4, 5]])
    found = planar_regions(None, np.ones(6, int), 3, edges=edges)
    assert sorted(found.loads.tolist()) == [3, 3]
    assert len(set(found.labels[:3])) == 1 and len(set(found.labels[3:])) == 1


@pytest.mark.parametrize("seed", range(6))
def test_random_planar_graphs_hold_the_bound_and_stay_near_the_optimum(seed):
    rng = np.random.default_rng(seed)
    ratios = []
    for _ in range(25):
        n = int(rng.integers(5, 12))
        points = rng.random((n, 2))
        edges = delaunay_edges(points)
        weights = rng.integers(0, 6, n)
        weights[0] = max(weights[0], 1)
        k = int(rng.integers(2, max(3, weights.sum() // 2)))
        if weights.sum() < k:
            continue
        found = planar_regions(points, weights, k)
        check_regions(found, weights, edges, k)
        opt = connected_optimum(weights, edges, k)
        assert found.lower_bound <= opt <= found.largest
        assert found.largest <= (found.degree + 1) * opt
        ratios.append(found.largest / opt)
    assert np.median(ratios) <= 1.25


@given(st.integers(0, 10_000), st.integers(2, 9), st.integers(12, 120))
def test_regions_on_random_trees_hold_the_bound(seed, k, n):
    rng = np.random.default_rng(seed)
    parents = [int(rng.integers(0, i)) for i in range(1, n)]
    edges = np.array([[p, i] for i, p in enumerate(parents, start=1)])
    weights = rng.integers(0, 5, n)
    if weights.sum() < k:
        weights[0] += k
    found = planar_regions(None, weights, k, edges=edges)
    check_regions(found, weights, edges, k)


def test_delaunay_graph_is_planar_and_connected_with_degenerate_inputs():
    rng = np.random.default_rng(3)
    points = rng.random((300, 2))
    edges = delaunay_edges(points)
    g = nx.Graph(edges.tolist())
    assert nx.check_planarity(g)[0] and nx.is_connected(g) and g.number_of_nodes() == 300
    line = np.column_stack([np.arange(6.0), 2 * np.arange(6.0)])[[3, 0, 5, 1, 4, 2]]
    path = delaunay_edges(line)
    assert nx.is_connected(nx.Graph(path.tolist())) and len(path) == 5  # along the line
    assert len(delaunay_edges(np.array([[0.0, 0.0], [1.0, 1.0]]))) == 1


def test_spanning_tree_spans_and_lowers_the_degree():
    rng = np.random.default_rng(5)
    points = rng.random((2000, 2))
    edges = delaunay_edges(points)
    tree, degree = spanning_tree(2000, edges)
    g = nx.Graph(tree.tolist())
    assert nx.is_tree(g) and g.number_of_nodes() == 2000
    assert {tuple(sorted(e)) for e in tree.tolist()} <= {tuple(e) for e in edges.tolist()}
    assert degree == max(d for _, d in g.degree()) <= 3


def test_zip_points_delaunay_regions(datasets):
    z = pd.read_csv(datasets / "us_zip_population.csv", dtype={"zip": str})
    points = z[["lon", "lat"]].to_numpy()
    weights = z["population"].to_numpy()
    found = planar_regions(points, weights, 20_000)
    assert found.degree <= 4
    assert found.loads.min() >= 20_000 and found.loads.sum() == weights.sum()
    assert found.largest <= found.bound
    assert found.lower_bound == largest_lower_bound(weights[weights > 0], 20_000)


def test_planar_regions_of_zip_codes_publish_sets_of_connected_zips():
    from incrowd import Categorical, Schema, anonymize
    from incrowd.datasets import load_zip_population

    zips = load_zip_population()
    ma = zips[zips["state"] == "MA"]
    rng = np.random.default_rng(0)
    people = pd.DataFrame(
        {
            "zip": rng.choice(ma["zip"], 3000, p=ma["population"] / ma["population"].sum()),
            "x": rng.integers(0, 9, 3000),
        }  # fmt: skip
    )
    schema = Schema({"zip": Categorical()}, sensitive=["x"])
    release = anonymize(people, schema, 40, method="planar-regions", generalize="sets", seed=0)
    published = release.table["zip"]
    assert published.value_counts().min() >= 40
    present = zips[zips["zip"].isin(people["zip"])]  # the places of the table
    where = {z: i for i, z in enumerate(present["zip"])}
    edges = delaunay_edges(present[["lon", "lat"]].to_numpy())
    for cell in published.unique():
        members = cell.strip("{}").split("|")
        assert connected(np.array([where[z] for z in members]), edges)
    with pytest.raises(InputError, match="not a place"):
        anonymize(people.assign(zip="nowhere"), schema, 40, method="planar-regions")


def test_planar_regions_method_needs_two_numbers():
    X = np.array([[0, 0], [1, 0], [2, 0], [10, 0], [11, 0], [12, 0]])
    model = PlanarRegions(k=3).fit(X)
    assert model.cost_ == 3 and model.approximation_ratio_ == 3.0
    with pytest.raises(InputError, match="two coordinates"):
        PlanarRegions(k=2).fit(np.zeros((6, 3)))


# ----------------------------------------------------------------------------- rectangles
@pytest.mark.parametrize(("k", "expected"), [(3, 11), (5, 21), (10, 46)])
def test_north_south_east_west_is_one_box_of_5k_minus_4(k, expected):
    points = np.array([[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0]])
    weights = np.array([k, k - 1, k - 1, k - 1, k - 1])
    found = kd_rectangles(points, weights, k)
    assert found.loads.tolist() == [expected]
    assert found.bound == k + 4 * (k - 1) == expected


def test_copies_stay_together_and_cuts_fall_between_distinct_coordinates():
    points = np.array([[0, 0]] * 5 + [[0, 1]] * 2 + [[3, 3]] * 4)
    found = kd_rectangles(points, None, 3)
    assert len(set(found.labels[:5])) == 1
    check_boxes(found, points, np.ones(len(points), int), 3)


@given(st.integers(0, 10_000), st.integers(2, 8), st.integers(10, 200), st.sampled_from([2, 3]))
def test_boxes_hold_k_are_disjoint_and_within_the_bound(seed, k, n, dims):
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 6, size=(n, dims)).astype(float)  # many copies and ties
    weights = rng.integers(0, 4, n)
    if weights.sum() < k:
        weights[0] += k
    found = kd_rectangles(points, weights, k)
    check_boxes(found, points, weights, k)


def test_bad_points_are_clear_errors():
    with pytest.raises(InputError, match="NaN"):
        kd_rectangles(np.array([[0.0, np.nan], [1.0, 1.0]]), None, 1)
    with pytest.raises(InputError, match="whole numbers"):
        kd_rectangles(np.zeros((2, 2)), np.array([1.5, 2]), 1)
    with pytest.raises(InfeasibleError, match="fewer than k"):
        kd_rectangles(np.zeros((2, 2)), None, 3)


def test_kd_method_on_records():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 2))
    model = KDRectangles(k=7).fit(X)
    sizes = model.partition_.sizes
    assert sizes.min() >= 7 and sizes.sum() == 500
    assert model.cost_ == sizes.max() <= model.bound_ == 1 + 4 * 6
    assert model.lower_bound_ == largest_lower_bound(np.ones(500, int), 7)
