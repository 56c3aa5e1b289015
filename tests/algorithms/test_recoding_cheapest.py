"""Seeds of local recoding taken cheapest class first (``recoding._cheapest``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from incrowd import LocalRecoding
from incrowd.algorithms.recoding import _specialize
from incrowd.algorithms.recoding._cheapest import CHEAP_SHARE, cheapest_classes
from incrowd.costs import GeneralizationCost
from incrowd.space.metric_space import MetricSpace
from incrowd.testing import random_table


def _labels_model(seed: int, k: int) -> tuple[MetricSpace, GeneralizationCost]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k, 40))
    table, schema = random_table(rng, n, ("hierarchical", "categorical"))
    space = MetricSpace.from_table(table, schema, norm=1)
    return space, GeneralizationCost.on(space, "levels")


def _greedy_by_enumeration(
    model: GeneralizationCost, k: int, share: float
) -> tuple[np.ndarray, int]:
    """Every class of k records of every lattice node, cheapest first, taken when k of its
    records are unplaced; ties go to the class with more records unplaced at the start of
    its phase (the classes costing at most ``share`` of a row's whole cost, then the
    others). What each record pays, and how many are left."""
    n, b = model.codes.shape
    candidates = []
    for node in itertools.product(*(range(int(h) + 1) for h in model.height)):
        keys = np.stack([model.ancestors[j, node[j], model.codes[:, j]] for j in range(b)], 1)
        _, cls, size = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
        cls = cls.ravel()
        for c in np.flatnonzero(size >= k):
            u = int(np.flatnonzero(cls == c)[0])
            cost = sum(model.cat_weight[j] * model.node_cost[j, node[j], keys[u, j]]
                       for j in range(b))  # fmt: skip
            candidates.append((cost, np.flatnonzero(cls == c)))
    tau = share * float(model.cat_weight.sum())
    paid = np.full(n, np.inf)
    for phase in (True, False):
        listed = [(c, m, -int(np.isinf(paid[m]).sum())) for c, m in candidates
                  if (c <= tau) == phase]  # fmt: skip
        for cost, members, _ in sorted(listed, key=lambda c: (c[0], c[2])):
            free = members[np.isinf(paid[members])]
            if free.size >= k:
                paid[free] = cost
    return paid, int(np.isinf(paid).sum())


def _paid(model: GeneralizationCost, perm, bounds, levels) -> np.ndarray:
    """What each record pays at its class's levels (its class's labels there)."""
    paid = np.empty(model.n)
    for c in range(bounds.size - 1):
        members = perm[bounds[c] : bounds[c + 1]]
        cost = 0.0
        for j in range(model.codes.shape[1]):
            nodes = model.ancestors[j, levels[c, j], model.codes[members, j]]
            assert np.unique(nodes).size == 1  # the members share the class's label
            cost += model.cat_weight[j] * model.node_cost[j, levels[c, j], nodes[0]]
        paid[members] = cost
    return paid


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 100_000), st.integers(2, 5), st.sampled_from([0.0, CHEAP_SHARE, 0.6, 1.0]))
def test_the_seeds_are_the_greedy_over_every_class_of_the_lattice(seed, k, share) -> None:
    """Each record pays what the greedy by enumeration makes it pay, whichever share of the
    classes the first phase lists; every class holds k records that share its labels; no
    record is lost or placed twice."""
    _, model = _labels_model(seed, k)
    seeds = cheapest_classes(model.n, k, model.kernel_args(), share=share)
    assert seeds is not None
    perm, bounds, levels = seeds
    assert np.sort(perm).tolist() == list(range(model.n))
    assert (np.diff(bounds) >= k).all()
    expected, left = _greedy_by_enumeration(model, k, share)
    paid = _paid(model, perm, bounds, levels)
    outside = np.ones(model.n, dtype=bool)
    if left:  # fewer than k records left over join one class, published from its top
        assert left < k
        joined = [c for c in range(bounds.size - 1)
                  if np.isinf(expected[perm[bounds[c] : bounds[c + 1]]]).any()]  # fmt: skip
        assert len(joined) == 1
        assert (levels[joined[0]] == model.height).all()
        outside[perm[bounds[joined[0]] : bounds[joined[0] + 1]]] = False
    assert paid[outside] == pytest.approx(expected[outside])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 100_000), st.integers(2, 4))
def test_local_recoding_from_the_cheapest_seeds_keeps_its_guarantee(seed, k) -> None:
    """k-anonymous crowds of every record, within the proven ratio of the certificate, and
    no dearer than the seeds themselves."""
    space, model = _labels_model(seed, k)
    fitted = LocalRecoding(k=k, seeds="cheapest").fit(space)
    labels = fitted.labels_
    assert (labels >= 0).all()
    assert np.bincount(labels)[np.unique(labels)].min() >= k
    assert fitted.cost_ == pytest.approx(model.of(labels))
    assert fitted.cost_ >= fitted.lower_bound_ - 1e-9
    assert fitted.cost_ <= fitted.approximation_ratio_ * fitted.lower_bound_ + 1e-9
    perm, bounds, _ = cheapest_classes(model.n, k, model.kernel_args())
    start = np.empty(model.n, dtype=np.intp)
    start[perm] = np.repeat(np.arange(bounds.size - 1), np.diff(bounds))
    if fitted.construction_ == "specialization":
        assert fitted.cost_ <= model.of(start) + 1e-9


def test_the_seeds_give_way_to_the_rounds_beyond_their_table(monkeypatch) -> None:
    space, model = _labels_model(3, 3)
    assert cheapest_classes(model.n, 3, model.kernel_args(), cells=0) is None
    rounds = LocalRecoding(k=3, seeds="rounds").fit(space)
    monkeypatch.setattr(_specialize, "cheapest_classes", lambda n, k, cm: None)
    capped = LocalRecoding(k=3, seeds="cheapest").fit(space)
    assert capped.labels_.tolist() == rounds.labels_.tolist()


def test_rows_past_two_bytes_are_listed_in_four(monkeypatch) -> None:
    """Tables of more than 65,536 distinct rows list them in four-byte numbers: the same
    seeds."""
    import incrowd.algorithms.recoding._class_lists as lists

    _, model = _labels_model(7, 3)
    short = cheapest_classes(model.n, 3, model.kernel_args())
    monkeypatch.setattr(lists, "_ROWS_SHORT", 0)
    assert lists._members(4, 2).dtype == np.int32
    wide = cheapest_classes(model.n, 3, model.kernel_args())
    assert short is not None and wide is not None
    for a, b in zip(short, wide, strict=True):
        assert a.tolist() == b.tolist()
