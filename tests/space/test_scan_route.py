"""Which exact search lists the neighbours of labels: the scan, unless a wide attribute
leads it with values most rows do not share (then it cannot stop early: the split search)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, MetricSpace, Numeric, Schema
from incrowd.costs import GeneralizationCost
from incrowd.space.neighbours.index import NeighbourIndex


def _index(unique_names: bool) -> NeighbourIndex:
    rng = np.random.default_rng(4)
    n = 3_000
    frame = pd.DataFrame({
        "county": [f"c{c:03d}" for c in rng.integers(0, 300, n)],
        "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
    })  # fmt: skip
    columns = {"county": Categorical(), "age": Numeric(), "sex": Categorical()}
    if unique_names:
        frame["name"] = [f"n{i:05d}" for i in rng.permutation(n)]
        columns["name"] = Categorical()
    space = MetricSpace.from_table(frame, Schema(columns))
    return NeighbourIndex(GeneralizationCost.on(space).geometry)


@pytest.mark.parametrize("unique_names", [False, True])
def test_the_route_and_its_lists_equal_the_other_route(unique_names):
    index = _index(unique_names)
    rows = index._rows()
    assert index._scans_lists(rows) is (not unique_names)
    d, _ = index.neighbours(6)
    q = 6 + 1
    other = index._split_lists(rows, q) if not unique_names else index._scan_lists(rows, q)
    chosen = index._scan_lists(rows, q) if not unique_names else index._split_lists(rows, q)
    assert np.allclose(np.sort(other[0], axis=1), np.sort(chosen[0], axis=1))
    assert d.shape[1] == 6
