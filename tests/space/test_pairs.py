"""Every pair within a radius of its own (space/neighbours/pairs.py), against brute force."""

from __future__ import annotations

import numpy as np
import pytest

from incrowd import MetricSpace
from incrowd.space.neighbours.pairs import pairs_within
from incrowd.testing import random_table


def _spaces(rng: np.random.Generator) -> list[MetricSpace]:
    numbers = MetricSpace.from_array(rng.integers(0, 6, size=(90, 2)).astype(float))
    table, schema = random_table(rng, 80)
    return [numbers, MetricSpace.from_table(table, schema)]


@pytest.mark.parametrize("seed", range(4))
def test_pairs_within_their_radius_are_all_found_once(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for space in _spaces(rng):
        g = space.geometry
        n = g.numeric.shape[0]
        radius = rng.uniform(0.0, 2.0, size=n) * rng.integers(0, 2, size=n)
        rows = np.sort(rng.choice(n, size=n // 2, replace=False)).astype(np.intp)
        found = pairs_within(g.numeric, g.codes, g.entry_table(), g.norm, radius, rows, 10**9)
        assert found is not None
        v, i, d = found
        everyone = np.arange(n)
        expected = set()
        for r in rows:
            dist = g.distance(np.full(n, r), everyone)
            expected |= {(int(x), int(r)) for x in np.flatnonzero(dist < radius[r])}
        assert sorted(zip(v.tolist(), i.tolist(), strict=True)) == sorted(expected)
        assert np.allclose(d, g.distance(i, v))
        # more pairs than the budget: no answer rather than a part of one
        if len(expected) > 1:
            budget = len(expected) - 1
            assert pairs_within(g.numeric, g.codes, g.entry_table(), g.norm, radius, rows,
                                budget) is None  # fmt: skip
