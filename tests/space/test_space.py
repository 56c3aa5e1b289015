import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd import (
    Categorical,
    Hierarchical,
    Hierarchy,
    InputError,
    MetricSpace,
    Numeric,
    ParameterError,
    Schema,
    SchemaError,
)


@st.composite
def hierarchy_tables(draw):
    """A random hierarchy (random tree of labels) and a table of values drawn from it."""
    n_values = draw(st.integers(1, 8))
    height = draw(st.integers(1, 4))
    rows = [[f"v{i}"] for i in range(n_values)]
    parents = list(range(n_values))
    for j in range(1, height):
        n_nodes = len(set(parents))
        group = {p: draw(st.integers(0, max(0, n_nodes - 2))) for p in sorted(set(parents))}
        parents = [group[p] for p in parents]
        for row, p in zip(rows, parents, strict=True):
            row.append(f"L{j}_{p}")
    n = draw(st.integers(2, 12))
    data = draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n))
    return Hierarchy.from_rows(rows), [f"v{i}" for i in data]


def generalization_cost(h: Hierarchy, a: str, b: str) -> float:
    """h_ab / l: the lowest level at which a and b meet, over the height (Aggarwal et al.)."""
    ca, cb = h.encode([a])[0], h.encode([b])[0]
    meet = next(j for j in range(h.height + 1) if ca[j] == cb[j])
    return meet / h.height


@given(st.lists(hierarchy_tables(), min_size=1, max_size=3), st.data())
def test_l1_distance_equals_generalization_cost(attrs, data):
    n = min(len(v) for _, v in attrs)
    table = pd.DataFrame({f"a{j}": v[:n] for j, (_, v) in enumerate(attrs)})
    weights = [data.draw(st.sampled_from([1.0, 0.5, 2.0])) for _ in attrs]
    schema = Schema(
        {
            f"a{j}": Hierarchical(h, weight=w)
            for j, ((h, _), w) in enumerate(zip(attrs, weights, strict=True))
        }
    )
    l1 = MetricSpace.from_table(table, schema, norm=1)
    l2 = MetricSpace.from_table(table, schema, norm=2)
    d1, d2 = l1.pairwise(), l2.pairwise()
    for a in range(n):
        for b in range(n):
            cost = sum(
                w * generalization_cost(h, table.iloc[a, j], table.iloc[b, j])
                for j, ((h, _), w) in enumerate(zip(attrs, weights, strict=True))
            )
            sq = sum(
                w**2 * generalization_cost(h, table.iloc[a, j], table.iloc[b, j])
                for j, ((h, _), w) in enumerate(zip(attrs, weights, strict=True))
            )
            assert d1[a, b] == pytest.approx(cost, abs=1e-12)
            assert d2[a, b] ** 2 == pytest.approx(sq, abs=1e-12)


@pytest.mark.parametrize("norm", [1, 2])
def test_categorical_values_are_at_distance_weight(norm):
    table = pd.DataFrame({"c": ["x", "y", "x", "z"], "d": [1, 1, 2, 2]})
    schema = Schema({"c": Categorical(), "d": Categorical(weight=3.0)})
    d = MetricSpace.from_table(table, schema, norm=norm).pairwise()
    assert d[0, 2] == pytest.approx(3.0)
    assert d[0, 1] == pytest.approx(1.0)
    assert d[1, 3] == pytest.approx((1 + 3.0**norm) ** (1 / norm))


def test_numeric_scales():
    table = pd.DataFrame({"x": [0.0, 2.0, 4.0, 10.0]})
    by_range = MetricSpace.from_table(table, Schema({"x": Numeric()})).points[:, 0]
    assert by_range.tolist() == [0.0, 0.2, 0.4, 1.0]
    by_std = MetricSpace.from_table(table, Schema({"x": Numeric(scale="std")})).points[:, 0]
    assert by_std.std() == pytest.approx(1.0)
    fixed = MetricSpace.from_table(table, Schema({"x": Numeric(scale=2.0, weight=3.0)}))
    assert fixed.pairwise()[0, 3] == pytest.approx(15.0)
    const = MetricSpace.from_table(pd.DataFrame({"x": [5, 5]}), Schema({"x": Numeric()}))
    assert const.points.tolist() == [[0.0], [0.0]]
    with pytest.raises(SchemaError):
        Numeric(scale="median")
    with pytest.raises(SchemaError):
        Numeric(weight=-1)


def test_neighbour_queries_match_brute_force():
    rng = np.random.default_rng(3)
    space = MetricSpace.from_array(rng.normal(size=(300, 4)))
    full = space.pairwise()
    dist, idx = space.knn(5)
    np.testing.assert_allclose(dist, np.sort(full, axis=1)[:, :5])
    assert (idx[:, 0] == np.arange(300)).all()
    r = float(np.median(full))
    np.testing.assert_array_equal(space.radius_count(r), (full <= r).sum(axis=1))
    l1 = MetricSpace.from_array(space.points, norm=1)
    np.testing.assert_allclose(l1.knn(3)[0], np.sort(l1.pairwise(), axis=1)[:, :3])


def test_refuses_large_pairwise_and_bad_input():
    space = MetricSpace.from_array(np.zeros((5000, 1)))
    with pytest.raises(ParameterError, match="distance matrix"):
        space.pairwise()
    with pytest.raises(InputError):
        MetricSpace.from_array([[1.0, np.nan]])
    with pytest.raises(InputError):
        MetricSpace.from_array([["a", "b"]])
    with pytest.raises(ParameterError):
        MetricSpace.from_array([[1.0]], norm=3)


@pytest.mark.parametrize("norm", [1, 2])
def test_neighbour_lists_and_counts_of_mixed_tables_match_brute_force(norm):
    # the compiled scan over distinct rows stops early on a proven floor; it must still
    # find the exact distances (ties may pick either neighbour, the distances may not differ)
    from incrowd.testing import random_hierarchy

    rng = np.random.default_rng(norm)
    for _ in range(25):
        n = int(rng.integers(12, 160))
        size = int(rng.integers(2, 9))
        table = pd.DataFrame(
            {
                "x": rng.integers(0, 4, n).astype(float),
                "c": [f"c{v}" for v in rng.integers(0, int(rng.integers(1, 5)), n)],
                "h": [f"v{v}" for v in rng.integers(0, size, n)],
            }
        )
        schema = Schema(
            {
                "x": Numeric(weight=float(rng.uniform(0.1, 2))),
                "c": Categorical(weight=float(rng.uniform(0.1, 2))),
                "h": Hierarchical(random_hierarchy(rng, size, int(rng.integers(1, 4)))),
            }
        )
        space = MetricSpace.from_table(table, schema, norm=norm)
        q = int(rng.integers(1, min(8, n - 1) + 1))
        dist, idx = space.knn(q)
        full = space.pairwise()
        np.testing.assert_allclose(dist, np.sort(full, axis=1)[:, :q], atol=1e-12)
        # each listed record at its listed distance (the scan reads the rows in an order
        # of its own and maps them back)
        np.testing.assert_allclose(full[np.arange(n)[:, None], idx], dist, atol=1e-12)
        # ball counts, balls and nearest centers scan the distinct rows too
        r = float(np.quantile(full, rng.uniform(0.05, 0.6))) * (1 + 1e-9)
        np.testing.assert_array_equal(space.radius_count(r), (full <= r).sum(axis=1))
        index = space.index()
        assert index.scans
        p = int(rng.integers(n))
        np.testing.assert_array_equal(np.sort(index.ball(p, r)), np.flatnonzero(full[p] <= r))
        some = rng.choice(n, size=n // 2, replace=False)
        np.testing.assert_array_equal(
            np.sort(index.subset(some).ball(p, r)), np.sort(some[full[p, some] <= r])
        )
        centers = rng.choice(n, size=int(rng.integers(1, 6)), replace=False)
        at, d = index.nearest_among(centers, np.arange(n))
        np.testing.assert_allclose(d, full[:, centers].min(axis=1), atol=1e-12)
        np.testing.assert_allclose(full[np.arange(n), centers[at]], d, atol=1e-12)
        near, whole = index.nearest(centers, q + 1, r + 1e-9)[0]
        within = np.flatnonzero(full[centers[0]] < r + 1e-9)
        assert near[0] == centers[0] and set(near) <= set(within)
        assert len(near) == min(q + 1, within.size) and whole == (within.size <= q + 1)
        assert np.sort(full[centers[0], near])[-1] <= np.sort(full[centers[0], within])[
            len(near) - 1] + 1e-12  # fmt: skip
        # the largest distance to a q-th nearest other record, searched without the lists
        fresh = MetricSpace.from_table(table, schema, norm=norm).index()
        largest = np.sort(full, axis=1)[:, q].max()  # column 0: the record itself
        assert fresh.max_kth_distance(q) == pytest.approx(largest, abs=1e-12)
        assert fresh._lists is None


@pytest.mark.parametrize("wide", [False, True])
def test_neighbour_lists_beyond_the_scan_limit_are_exact(monkeypatch, wide):
    """Above :data:`SCAN_LISTS_MAX_DISTINCT` distinct rows the lists come from the split
    search when a level is wide, and from the scan (at any size) when none is: both exact."""
    from incrowd.space.neighbours import index
    from incrowd.testing import random_hierarchy

    monkeypatch.setattr(index, "SCAN_LISTS_MAX_DISTINCT", 0)
    monkeypatch.setattr(index, "WIDE_CODES", 5 if wide else 100)
    used = []

    def spy(name):  # noqa: ANN001, ANN202
        method = getattr(index.NeighbourIndex, name)
        return lambda self, *args: used.append(name) or method(self, *args)

    for name in ("_scan_lists", "_split_lists"):
        monkeypatch.setattr(index.NeighbourIndex, name, spy(name))
    rng = np.random.default_rng(7)
    for norm in (1, 2):
        n, size = 150, 12
        table = pd.DataFrame({"x": rng.normal(size=n).round(1),
                              "c": [f"c{v}" for v in rng.integers(0, 3, n)],
                              "h": [f"v{v}" for v in rng.integers(0, size, n)]})  # fmt: skip
        schema = Schema({"x": Numeric(), "c": Categorical(),
                         "h": Hierarchical(random_hierarchy(rng, size, 2))})  # fmt: skip
        space = MetricSpace.from_table(table, schema, norm=norm)
        dist, _ = space.knn(6)
        np.testing.assert_allclose(dist, np.sort(space.pairwise(), axis=1)[:, :6], atol=1e-12)
    assert set(used) == {"_split_lists" if wide else "_scan_lists"}


def test_what_is_derived_from_a_space_is_built_once_and_shared_by_pinned_columns():
    """A cost asked for twice on one space is one object; two spaces coded with one pinned
    domain share their columns' NCP penalties (blockwise runs code many blocks with it), and
    spaces without a pinned domain each derive their own, from their own values."""
    from incrowd.costs import GeneralizationCost
    from incrowd.data.ncp import domain_size, label_penalties

    h = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"],
                             ["d", "cd", "*"]])  # fmt: skip
    table = pd.DataFrame({"x": ["a", "b", "c", "d"], "y": [1.0, 2.0, 3.0, 4.0]})
    schema = Schema({"x": Hierarchical(h), "y": Numeric()})
    space = MetricSpace.from_table(table, schema)
    assert GeneralizationCost.on(space) is GeneralizationCost.on(space)
    assert GeneralizationCost.on(space, "sets") is not GeneralizationCost.on(space)
    assert GeneralizationCost.on(space, weights={"x": 2.0}) is not GeneralizationCost.on(space)
    pinned = schema.with_domain(table)
    one = MetricSpace.from_table(table.iloc[:2], pinned).columns[0]
    two = MetricSpace.from_table(table.iloc[2:], pinned).columns[0]
    assert label_penalties(one)[1] is label_penalties(two)[1]
    assert domain_size(one) == domain_size(two) == 4
    free = [MetricSpace.from_table(part, schema).columns[0] for part in (table.iloc[:2], table)]
    assert domain_size(free[0]) == 2 and domain_size(free[1]) == 4
