"""The large-neighbourhood search of local recoding: its program against the exact optimum,
the freed crowds as one of its solutions, and every release k-anonymous and whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import Hierarchical, Hierarchy, LocalRecoding, MetricSpace, ParameterError, Schema
from incrowd.algorithms.exact import optimum
from incrowd.algorithms.recoding._search import (
    best_split,
    lattice_nodes,
    neighbourhood_classes,
    node_keys,
    placed,
    search,
)
from incrowd.costs import GeneralizationCost
from incrowd.partition import Partition
from incrowd.testing import random_table

LABELS = ("hierarchical", "categorical")  # every attribute a hierarchy label


def _labels_model(seed: int, n: int) -> GeneralizationCost:
    rng = np.random.default_rng(seed)
    table, schema = random_table(rng, n, LABELS)
    loss = "height" if seed % 3 == 0 else "ncp"
    return GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1), loss=loss)


def _random_crowds(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Records in random order, cut into crowds of ``k`` (the last takes the rest)."""
    labels = np.minimum(np.arange(n) // k, n // k - 1)
    return labels[rng.permutation(n)].astype(np.intp)


def _split_all(model: GeneralizationCost, k: int) -> float:
    """The cost of the program's best split of every record at once."""
    rows, inverse, weight = np.unique(model.codes, axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    prices, members = neighbourhood_classes(model, lattice_nodes(model), rows, weight, k)
    counts = best_split(prices, members, weight, k, 30.0)
    assert counts is not None
    labels = placed(members, counts, inverse.ravel())
    assert np.bincount(labels).min() >= k
    program = sum(p * c.sum() for p, c in zip(prices, counts, strict=True))
    assert model.of(labels) <= program + 1e-9 * max(1.0, program)  # a crowd's labels may be lower
    return model.of(labels)


def test_the_lattice_nodes_are_in_ravel_order() -> None:
    model = _labels_model(4, 12)
    nodes = lattice_nodes(model)
    shape = tuple(model.height + 1)
    assert nodes.shape == (int(np.prod(shape)), model.codes.shape[1])
    assert np.ravel_multi_index(nodes.T, shape).tolist() == list(range(nodes.shape[0]))


def test_a_crowds_agreed_levels_price_it() -> None:
    model = _labels_model(8, 30)
    labels = _random_crowds(np.random.default_rng(1), 30, 4)
    levels, anchor = model.agreed_levels(labels)
    sizes = np.bincount(labels)
    per_record = np.zeros(sizes.size)
    for j in range(model.codes.shape[1]):
        node = model.ancestors[j, levels[:, j], anchor[:, j]]
        per_record += model.cat_weight[j] * model.node_cost[j, levels[:, j], node]
    assert float(sizes @ per_record) == pytest.approx(model.of(labels))
    for c in range(sizes.size):  # the anchor is a member's codes
        assert (model.codes[labels == c] == anchor[c]).all(axis=1).any()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_every_crowd_is_a_class_of_the_program_at_its_own_price(seed, k) -> None:
    """The foundation of "never raises the cost": each crowd's records lie in one class of
    the program that prices them at what the crowd costs (random weights), also when the
    program keeps only the classes where some member pays no more than it does now."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2 * k, 24))
    model = _labels_model(seed, n)
    labels = _random_crowds(rng, n, k)
    rows, inverse, weight = np.unique(model.codes, axis=0, return_inverse=True,
                                      return_counts=True)  # fmt: skip
    inverse = inverse.ravel()
    paid = np.array([model.crowd(np.flatnonzero(labels == c)) / np.sum(labels == c)
                     for c in labels])  # fmt: skip
    most = np.zeros(rows.shape[0])
    np.maximum.at(most, inverse, paid)
    nodes = lattice_nodes(model)
    prices, members = neighbourhood_classes(model, nodes, rows, weight, k)
    kept_prices, kept = neighbourhood_classes(model, nodes, rows, weight, k, most)
    wanted = [(p, m) for p, m in zip(prices, members, strict=True) if p <= most[m].max() + 1e-9]
    assert [(p, m.tolist()) for p, m in wanted] == [
        (p, m.tolist()) for p, m in zip(kept_prices, kept, strict=True)
    ]
    for c in range(labels.max() + 1):
        mine = np.unique(inverse[labels == c])
        per_record = paid[labels == c][0]
        for some_prices, some_members in ((prices, members), (kept_prices, kept)):
            holding = [p for p, m in zip(some_prices, some_members, strict=True)
                       if np.isin(mine, m).all()]  # fmt: skip
            assert min(holding) == pytest.approx(per_record)


def test_the_best_split_of_every_record_is_the_optimum_on_80_random_tables() -> None:
    rng = np.random.default_rng(23)
    for trial in range(80):
        k = int(rng.integers(2, 5))
        n = int(rng.integers(k + 1, 10))
        model = _labels_model(trial, n)
        opt = optimum(model, n, k)[0]
        # HiGHS stops within a relative gap of 1e-4
        assert _split_all(model, k) == pytest.approx(opt, rel=2e-4, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(12, 60), st.sampled_from([1, 2]))
def test_the_search_keeps_every_record_in_a_crowd_of_k_and_never_costs_more(
    seed, k, n, workers
) -> None:
    rng = np.random.default_rng(seed)
    n = max(n, 2 * k)
    model = _labels_model(seed, n)
    labels = _random_crowds(rng, n, k)
    found, tried, improved = search(labels, model, k, 60.0, rng, neighbourhoods=6,
                                    records=3 * k, workers=workers)  # fmt: skip
    assert found.shape == (n,)
    assert found.min() >= 0 and np.bincount(found).min() >= k
    assert model.of(found) <= model.of(labels) + 1e-9 * max(1.0, model.of(labels))
    assert tried == 6 and 0 <= improved <= tried
    if improved == 0:  # the same crowds, whatever their numbers
        assert np.array_equal(Partition(found).labels, Partition(labels).labels)


def test_three_crossed_crowds_are_resplit_three_ways() -> None:
    """Three crowds of three, each one record of each letter (A, B, C under ``*``), cost
    ``*`` everywhere; pairs of them can only trade records two by two, and the search,
    freeing all three, sorts them by letter: every record then publishes its letter."""
    rows = [[v, "*"] for v in "ABC"]
    schema = Schema({"q": Hierarchical(Hierarchy.from_rows(rows))})
    table = pd.DataFrame({"q": list("ABC" * 3)})
    model = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))
    labels = np.repeat(np.arange(3), 3)  # A B C | A B C | A B C
    found, _, improved = search(labels, model, 3, 60.0, np.random.default_rng(0), 1, records=9)
    assert improved == 1 and model.of(found) == 0.0
    assert model.of(labels) == pytest.approx(9.0)


def test_the_search_frees_a_crowd_with_its_nearest_whatever_the_labels_numbering() -> None:
    """Four families (a label under ``*``) of three crossed crowds each, numbered so that a
    family's crowds are neither consecutive nor first-seen in order: freeing a crowd with its
    two nearest frees its family, which the search sorts; crowds of three families, freed
    together, could gain nothing."""
    families, letters = "FGHI", "ABC"
    schema = Schema(
        {
            "family": Hierarchical(Hierarchy.from_rows([[f, "*"] for f in families])),
            "q": Hierarchical(Hierarchy.from_rows([[v, "*"] for v in letters])),
        }
    )
    table = pd.DataFrame({"family": np.repeat(list(families), 9), "q": list(letters * 12)})
    model = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))
    natural = np.repeat(np.arange(12), 3)  # crowd c of family c // 3, records in order
    labels = (natural % 3) * 4 + natural // 3
    found, tried, improved = search(labels, model, 3, 60.0, np.random.default_rng(0), 40,
                                    records=9)  # fmt: skip
    assert model.of(labels) == pytest.approx(36.0)  # every letter published as "*"
    assert tried == 40 and improved == 4 and model.of(found) == 0.0
    assert np.bincount(found).tolist() == [3] * 12


def test_two_workers_solve_disjoint_neighbourhoods_at_once(monkeypatch) -> None:
    """The first two programs must both be running before either goes on (a barrier that
    breaks after 20 s otherwise), on records no other program holds; the search then ends
    as one worker's would: whole, k-anonymous, no dearer."""
    import threading

    from incrowd.algorithms.recoding import _search as _recoding_search

    barrier, held = threading.Barrier(2, timeout=20.0), []
    real = _recoding_search._resplit

    def resplit(model, nodes, records, paid, k, deadline):
        held.append(records.copy())
        if len(held) <= 2:
            barrier.wait()
        return real(model, nodes, records, paid, k, deadline)

    monkeypatch.setattr(_recoding_search, "_resplit", resplit)
    rng = np.random.default_rng(5)
    model = _labels_model(5, 60)
    labels = _random_crowds(rng, 60, 3)
    found, tried, _ = search(labels, model, 3, 60.0, rng, neighbourhoods=8, records=9,
                             workers=2)  # fmt: skip
    assert tried == 8 and len(held) == 8
    assert not np.intersect1d(held[0], held[1]).size
    assert np.bincount(found).min() >= 3 and found.size == 60
    assert model.of(found) <= model.of(labels) + 1e-9


def test_no_more_programs_run_at_once_than_memory_holds(monkeypatch) -> None:
    from incrowd.algorithms.recoding import _search as _recoding_search

    monkeypatch.setattr(_recoding_search, "threads", lambda: 8)
    entries = 6_480 * 300
    program = _recoding_search.ENTRY_BYTES * entries
    for room, expected in ((100 * program, 8), (3 * program + 1, 3), (program // 2, 1)):
        monkeypatch.setattr(_recoding_search, "available_memory", lambda room=room: room)
        assert _recoding_search._workers(None, entries) == expected
    assert _recoding_search._workers(2, entries) == 2  # as asked


def test_one_worker_searches_alike_for_the_same_seed() -> None:
    model = _labels_model(8, 48)
    labels = _random_crowds(np.random.default_rng(8), 48, 3)
    runs = [search(labels.copy(), model, 3, 60.0, np.random.default_rng(1), 10, records=9,
                   workers=1) for _ in range(2)]  # fmt: skip
    assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1:] == runs[1][1:]


def test_local_recoding_searches_on_request_and_refuses_what_it_cannot_search() -> None:
    rng = np.random.default_rng(3)
    table, schema = random_table(rng, 60, LABELS)
    space = MetricSpace.from_table(table, schema, norm=1)
    plain = LocalRecoding(k=4).fit(space)
    searched = LocalRecoding(k=4, search_seconds=2.0, random_state=1).fit(space)
    assert searched.search_neighbourhoods_ >= 1 and plain.search_neighbourhoods_ == 0
    assert searched.partition_.min_size >= 4 and searched.labels_.size == 60
    assert searched.cost_ == pytest.approx(searched.cost(space).of(searched.labels_))
    assert searched.cost_ <= plain.cost_ + 1e-9
    assert searched.lower_bound_ == pytest.approx(plain.lower_bound_)
    with pytest.raises(ParameterError, match="search_seconds must be in"):
        LocalRecoding(k=4, search_seconds=-1.0).fit(space)
    with pytest.raises(ParameterError, match="search_seconds needs every quasi-identifier"):
        LocalRecoding(k=4, search_seconds=1.0, generalize="sets").fit(space)
    numeric, numeric_schema = random_table(rng, 30, ["numeric"])
    with pytest.raises(ParameterError, match="search_seconds needs every quasi-identifier"):
        LocalRecoding(k=3, search_seconds=1.0).fit(
            MetricSpace.from_table(numeric, numeric_schema, norm=1)
        )


def test_class_keys_never_wrap_on_wide_hierarchies() -> None:
    """Five attributes of 65,535 leaves each: the keys' radix is 2^16, so without renumbering
    on the way the first attribute's digits would be shifted out of 64 bits; the classes
    are those of equal labels at every node."""
    leaves, width = 65_535, 5
    hierarchy = Hierarchy.from_rows([[f"v{i}", f"g{i % 7}", "*"] for i in range(leaves)])
    rng = np.random.default_rng(0)
    table = pd.DataFrame({f"q{j}": [f"v{v}" for v in rng.integers(0, 3, 40)]
                          for j in range(width)})  # fmt: skip
    schema = Schema({f"q{j}": Hierarchical(hierarchy) for j in range(width)})
    model = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))
    assert model.ancestors.shape[2] + 1 == 2**16
    nodes = lattice_nodes(model)
    key, _ = node_keys(model, model.codes, nodes)
    for p, node in enumerate(nodes):
        labels = np.stack([model.ancestors[j, node[j], model.codes[:, j]]
                           for j in range(width)], axis=1)  # fmt: skip
        same_labels = (labels[:, None, :] == labels[None, :, :]).all(axis=2)
        assert np.array_equal(key[p][:, None] == key[p][None, :], same_labels)
