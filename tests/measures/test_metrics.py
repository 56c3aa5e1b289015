import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Hierarchical, Hierarchy, MetricSpace, Numeric, Partition, Schema
from incrowd.costs import SSE, MaxRadius, best_centers, l_sse, radii_from
from incrowd.data.columns import encode_qis
from incrowd.measures.loss import (
    discernibility,
    discernibility_of_sizes,
    ncp_loss,
    published_discernibility,
)


def sse_of(X, labels):
    return SSE.on(MetricSpace.from_array(X)).of(labels)


def test_sse_sst_and_l_sse():
    X = np.array([[0.0], [2.0], [10.0], [12.0]])
    labels = np.array([0, 0, 1, 1])
    cost = SSE.on(MetricSpace.from_array(X))
    assert cost.of(labels) == pytest.approx(4.0)  # 1 + 1 + 1 + 1
    assert cost.total() == pytest.approx(36 + 16 + 16 + 36)  # mean 6
    assert l_sse(cost, labels) == pytest.approx(100 * 4.0 / cost.total())
    assert l_sse(SSE.on(MetricSpace.from_array(np.ones((3, 2)))), np.array([0, 0, 0])) == 0.0
    assert cost.of(np.array([0, 0, -1, -1])) == pytest.approx(2.0)  # left out: ignored


def test_sse_on_codes_equals_sse_of_the_dense_one_hot_matrix():
    rng = np.random.default_rng(1)
    hier = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    table = pd.DataFrame(
        {
            "x": rng.random(30),
            "c": rng.choice(["u", "v", "w"], 30),
            "h": rng.choice(list("abc"), 30),
        }
    )
    space = MetricSpace.from_table(table, Schema({"x": Numeric(), "c": Categorical(weight=2.0),
                                                  "h": Hierarchical(hier)}))  # fmt: skip
    labels = rng.integers(-1, 4, 30)
    dense = space.points
    want = sum(
        ((dense[labels == c] - dense[labels == c].mean(axis=0)) ** 2).sum() for c in range(4)
    )
    assert SSE.on(space).of(labels) == pytest.approx(want, abs=1e-12)


def test_discernibility_and_radius():
    part = Partition(np.array([0, 0, 0, 1, 1, -1]))
    assert discernibility(part) == 9 + 4 + 6 * 1
    space = MetricSpace.from_array(np.array([[0.0], [1.0], [2.0], [10.0], [14.0], [99.0]]))
    radius = MaxRadius.on(space)  # centers at input records: 1 (around 1) and 4 (10 or 14)
    assert radius.of(part.labels) == pytest.approx(4.0)
    _, radii = best_centers(space.geometry, part.labels, np.array([0, 3]), search=False)
    assert radii.tolist() == pytest.approx([2.0, 4.0])
    _, radii = best_centers(space.geometry, part.labels, np.array([0, 3]))
    assert radii.tolist() == pytest.approx([1.0, 4.0])
    centers = radii_from(space.geometry, part.labels, np.array([[1.0], [12.0]]),
                         np.zeros((2, 0), dtype=np.intp))  # fmt: skip
    assert centers.tolist() == pytest.approx([1.0, 2.0])


def test_discernibility_is_one_definition_for_partitions_tables_and_sizes():
    part = Partition(np.array([0, 0, 0, 1, 1, -1]))
    assert discernibility_of_sizes([3, 2], 6, 1) == discernibility(part) == 19.0
    published = pd.DataFrame({"x": ["1-2", "1-2", "1-2", "5", "5"]})
    schema = Schema({"x": Numeric()})
    assert published_discernibility(published, schema, "generalized") == 13.0
    assert published_discernibility(published, schema, "generalized", 6, 1) == 19.0
    centers = pd.DataFrame({"x": [1.5, 5.0], "count": [3, 2]})
    assert published_discernibility(centers, schema, "centers", 6, 1) == 19.0
    assert published_discernibility(published.iloc[:0], schema, "generalized", 6, 6) == 36.0


def test_ncp_per_cell_rules():
    hier = Hierarchy.from_rows([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    table = pd.DataFrame(
        {"x": [0, 10, 0, 10], "c": ["u", "u", "u", "v"], "h": ["a", "b", "c", "c"]}
    )
    schema = Schema({"x": Numeric(), "c": Categorical(), "h": Hierarchical(hier)})
    columns = encode_qis(table, schema)
    part = Partition(np.array([0, 0, 1, 1]))
    # crowd 0: x range 10/10 = 1, c agrees 0, h -> "ab" covers 2 of 3: (2-1)/(3-1) = 0.5
    # crowd 1: x range 1, c disagrees 1, h agrees 0
    expected = (2 * (1 + 0 + 0.5) + 2 * (1 + 1 + 0)) / (4 * 3)
    assert ncp_loss(columns, part) == pytest.approx(expected)
    suppressed = Partition(np.array([0, 0, -1, -1]))
    assert ncp_loss(columns, suppressed) == pytest.approx((2 * 1.5 + 2 * 3) / 12)
    assert ncp_loss(columns, part, extra_suppressed=2) == pytest.approx(
        (2 * 1.5 + 2 * 2 + 2 * 3) / 18
    )


def test_the_certified_ratio_is_one_definition_with_its_edge_cases():
    from incrowd.costs import certified_ratio

    assert certified_ratio(6.0, 4.0) == 1.5
    assert certified_ratio(0.0, 0.0) == 1.0  # nothing to lose: optimal
    assert certified_ratio(1.0, 0.0) is None  # no finite ratio is proven
    assert certified_ratio(1.0, None) is None
    assert type(certified_ratio(np.float64(3), np.float64(2))) is float  # plain JSON
