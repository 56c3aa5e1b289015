import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Hierarchical, Hierarchy, MetricSpace, Numeric, Partition, Schema
from incrowd.data.columns import encode_qis
from incrowd.metrics import discernibility, l_sse, max_radius, ncp_loss, sse_loss, sst


def test_sse_sst_and_l_sse():
    X = np.array([[0.0], [2.0], [10.0], [12.0]])
    labels = np.array([0, 0, 1, 1])
    assert sse_loss(X, labels) == pytest.approx(4.0)  # 1 + 1 + 1 + 1
    assert sst(X) == pytest.approx(36 + 16 + 16 + 36)  # mean 6
    assert l_sse(X, labels) == pytest.approx(100 * 4.0 / sst(X))
    assert l_sse(np.ones((3, 2)), np.array([0, 0, 0])) == 0.0
    assert sse_loss(X, np.array([0, 0, -1, -1])) == pytest.approx(2.0)  # suppressed ignored


def test_discernibility_and_radius():
    part = Partition(np.array([0, 0, 0, 1, 1, -1]))
    assert discernibility(part) == 9 + 4 + 6 * 1
    space = MetricSpace.from_array(np.array([[0.0], [1.0], [2.0], [10.0], [14.0], [99.0]]))
    assert max_radius(space, part) == pytest.approx(2.0)


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
