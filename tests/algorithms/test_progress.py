"""Counted progress while crowds form (``_runtime/progress.py``), from the methods that
report it: global recoding's lattice search, local recoding's steps, MDAV's records placed,
the forest's steps, r-gather's threshold tests. Each count rises and ends at its total: the
counts as the method reports them, before the reporter throttles them and holds them from
going backwards (which would hide a method counting back)."""

from __future__ import annotations

import numpy as np
import pytest

from incrowd import MetricSpace
from incrowd._runtime import reporting
from incrowd.algorithms import MDAV, ForestKAnonymity, GlobalRecoding, LocalRecoding, RGather
from incrowd.algorithms.recoding import PHASES
from incrowd.testing import random_table


def _space(n: int = 300, seed: int = 3) -> MetricSpace:
    table, schema = random_table(np.random.default_rng(seed), n, ("hierarchical", "numeric"))
    return MetricSpace.from_table(table, schema)


def _counts(method, space: MetricSpace, raw_progress) -> list[tuple[int, int]]:
    """Every ``(done, total)`` the method reports (mapped through its parts), raw."""
    with reporting(lambda _done, _total: None, interval=0):
        method.fit(space)
    return raw_progress


def _rises_to_the_total(seen: list[tuple[int, int]]) -> None:
    assert seen, "no progress reported"
    totals = {total for _, total in seen}
    assert len(totals) == 1, totals
    done = [d for d, _ in seen]
    assert all(a <= b for a, b in zip(done, done[1:], strict=False)), done
    assert done[-1] == seen[-1][1]


def test_global_recoding_counts_the_lattice_nodes_it_takes(raw_progress):
    table, schema = random_table(np.random.default_rng(5), 400, ("hierarchical",))
    method = GlobalRecoding(k=4)
    seen = _counts(method, MetricSpace.from_table(table, schema), raw_progress)
    _rises_to_the_total(seen)
    assert seen[-1][1] == method.certificate_["lattice_nodes"]
    assert len({done for done, _ in seen}) >= 2


@pytest.mark.parametrize("generalize", ["levels", "sets"])
def test_local_recoding_counts_its_steps(generalize, raw_progress):
    seen = _counts(LocalRecoding(k=4, generalize=generalize), _space(), raw_progress)
    _rises_to_the_total(seen)
    assert seen[-1] == (PHASES, PHASES)
    assert len({done for done, _ in seen}) >= 3


@pytest.mark.parametrize("method", [MDAV(k=4), ForestKAnonymity(k=4), RGather(k=4)],
                         ids=["mdav", "forest", "r-gather"])  # fmt: skip
def test_other_methods_count_to_their_total(method, raw_progress):
    _rises_to_the_total(_counts(method, _space(), raw_progress))


def test_without_a_reporter_the_crowds_are_the_same():
    space = _space(seed=8)
    plain = LocalRecoding(k=3).fit(space).labels_
    seen: list[tuple[int, int]] = []
    with reporting(lambda done, total: seen.append((done, total)), interval=0):
        watched = LocalRecoding(k=3).fit(space).labels_
    assert seen
    assert np.array_equal(plain, watched)
