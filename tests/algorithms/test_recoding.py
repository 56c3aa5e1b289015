"""LocalRecoding: the specialization, its seeds, the attribute bound and the guarantee."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import incrowd
from incrowd import (
    Categorical,
    Hierarchical,
    Hierarchy,
    InfeasibleError,
    LocalRecoding,
    MetricSpace,
    Numeric,
    ParameterError,
    Schema,
)
from incrowd.algorithms.exact import optimum, solve
from incrowd.algorithms.forest._core import size_limit
from incrowd.algorithms.recoding import FOREST_SETS_UP_TO_K
from incrowd.algorithms.recoding._lattice import child_ranks
from incrowd.algorithms.recoding._pairs import pair_crowds
from incrowd.algorithms.recoding._resplit import EXACT_UNION, resplit_pairs
from incrowd.algorithms.recoding._seed import (
    _label_key,
    _mean_walk,
    global_classes,
    mean_classes,
)
from incrowd.algorithms.recoding._topdown import specialize
from incrowd.algorithms.recoding.bounds import (
    attribute_bound,
    crowd_bound,
    excess_bound,
    lattice_bound,
    subset_bound,
)
from incrowd.costs import GeneralizationCost
from incrowd.costs.kernels import record_cost
from incrowd.privacy.models import Diversity
from incrowd.testing import random_table


def _quality() -> Hierarchy:
    """Fig. 1 of Aggarwal et al.: A+, A, A− | B+, B, B−, two levels of generalization."""
    rows = [[v, "A" if v.startswith("A") else "B", "*"] for v in ("A+", "A", "A-", "B+", "B", "B-")]
    return Hierarchy.from_rows(rows)


def _random_model(seed: int, n: int) -> tuple[np.random.Generator, MetricSpace, GeneralizationCost]:
    """A random table of ``n`` records: the generator drawn from ``seed``, its space and its
    generalization cost (value sets for odd seeds, hierarchy labels for even)."""
    rng = np.random.default_rng(seed)
    table, schema = random_table(rng, n)
    space = MetricSpace.from_table(table, schema, norm=1)
    return rng, space, GeneralizationCost.on(space, "sets" if seed % 2 else "levels")


def test_specialization_splits_by_the_hierarchy_and_the_median() -> None:
    table = pd.DataFrame({
        "q": ["A+", "A", "A-", "B+", "B", "B-", "A+", "B+"],
        "x": [1.0, 2.0, 3.0, 50.0, 51.0, 52.0, 2.0, 51.0],
    })  # fmt: skip
    schema = Schema({"q": Hierarchical(_quality()), "x": Numeric()})
    space = MetricSpace.from_table(table, schema, norm=1)
    est = LocalRecoding(k=4).fit(space)
    crowds = {tuple(np.flatnonzero(est.labels_ == c)) for c in np.unique(est.labels_)}
    assert crowds == {(0, 1, 2, 6), (3, 4, 5, 7)}
    model = est.cost(space)
    # each crowd publishes its letter (2 of 6 values under it... 3 present: (3 − 1)/(6 − 1))
    # and its range: 2/51 and 2/51 of the spread of x
    letter = (3 - 1) / (6 - 1)
    assert est.cost_ == pytest.approx(8 * letter + 4 * 2 / 51 + 4 * 2 / 51)
    assert est.cost_ == pytest.approx(model.of(est.labels_))


def test_seeds_are_classes_of_equal_labels_at_their_levels() -> None:
    rng = np.random.default_rng(3)
    table, schema = random_table(rng, 60, ["hierarchical", "categorical"])
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.on(space)
    cm = model.kernel_args()
    seeds = [global_classes(space.n, 3, wait, cm) for wait in (0.0, 0.5, 5.0)]
    seeds += [mean_classes(space.n, 3, cm, width) for width in (1, 4)]
    for perm, bounds, levels in seeds:
        assert sorted(perm.tolist()) == list(range(space.n))  # no record lost or repeated
        for c in range(bounds.size - 1):
            members = perm[bounds[c] : bounds[c + 1]]
            assert members.size >= 3
            for j in range(model.codes.shape[1]):
                nodes = model.ancestors[j, levels[c, j], model.codes[members, j]]
                assert np.all(nodes == nodes[0])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(10, 60))
def test_specialization_keeps_every_record_in_a_crowd_of_k(seed, k, n) -> None:
    rng, space, model = _random_model(seed, n)
    cm = model.kernel_args()
    if seed % 3:
        perm, bounds, levels = global_classes(n, k, 0.5 * float(cm[8].sum()), cm)
    else:
        perm, bounds, levels = mean_classes(n, k, cm)
    labels = np.empty(n, dtype=np.intp)
    labels[perm] = specialize(k, cm, perm, bounds, levels)
    assert np.all(labels >= 0)
    assert np.bincount(labels).min() >= k
    # splitting never raises the cost: no worse than the seeds' classes
    seeds = np.empty(n, dtype=np.intp)
    for c in range(bounds.size - 1):
        seeds[perm[bounds[c] : bounds[c + 1]]] = c
    assert model.of(labels) <= model.of(seeds) + 1e-9


def _kept(inverse: np.ndarray, k: int, sens: np.ndarray, ell: int) -> np.ndarray:
    kept = np.bincount(inverse)[inverse] >= k
    if ell >= 2:
        distinct = [np.unique(sens[inverse == c]).size for c in range(inverse.max() + 1)]
        kept &= np.array(distinct)[inverse] >= ell
    return kept


def _lattice_best(cm: tuple, k: int, sens: np.ndarray, ell: int = 0) -> float:
    """The least mean cost per kept record (kept: in a class of ``k`` with ``ell`` distinct
    ``sens``) over every node of the lattice where no fewer than ``k`` records wait, by
    enumeration."""
    records = np.arange(cm[2].shape[0])
    best = np.inf
    for levels in itertools.product(*(range(h + 1) for h in cm[5])):
        inverse, cost = _label_key(records, np.array(levels), cm)
        kept = _kept(inverse, k, sens, ell)
        waiting = records.size - int(kept.sum())
        if kept.any() and (waiting == 0 or waiting >= k):
            best = min(best, float(cost[kept].mean()))
    return best


def _walk_mean(cm: tuple, k: int, width: int, sens: np.ndarray, ell: int = 0) -> float:
    records = np.arange(cm[2].shape[0])
    rank, fan = child_ranks(cm)
    top, _ = _label_key(records, cm[5], cm)
    levels = _mean_walk(records, k, cm, rank, fan, top, int(top.max()) + 1, width, sens, ell)
    inverse, cost = _label_key(records, levels, cm)
    kept = _kept(inverse, k, sens, ell)
    waiting = records.size - int(kept.sum())
    if not kept.any():  # no valid node below the top: the walk stays there
        assert np.array_equal(levels, cm[5])
        return np.inf
    assert waiting == 0 or waiting >= k
    return float(cost[kept].mean())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(8, 40), st.sampled_from([0, 2, 3]))
def test_a_beam_as_wide_as_the_lattice_finds_its_least_mean_node(seed, k, n, ell) -> None:
    rng = np.random.default_rng(seed)
    table, schema = random_table(rng, n, ["hierarchical", "categorical"])
    space = MetricSpace.from_table(table, schema, norm=1)
    cm = GeneralizationCost.on(space).kernel_args()
    # 2 or 3 sensitive values, or all distinct (their pairs then counted by sorting)
    sens = rng.integers(0, 3, size=n) if seed % 3 else rng.permutation(n)
    exact = _lattice_best(cm, k, sens, ell)
    assert _walk_mean(cm, k, 10_000, sens, ell) == pytest.approx(exact)
    for width in (1, 4):  # narrower beams find a valid node, never better than the best
        assert _walk_mean(cm, k, width, sens, ell) >= exact - 1e-12


def test_the_beam_counts_wide_keys_by_sorting() -> None:
    # two flat attributes of 20 values, each twice: after one is lowered there are 20 classes
    # and the other's 20 children give 400 keys, more than the dense count covers (8 per
    # record); the node of least mean is still found
    rng = np.random.default_rng(5)
    n = 40
    table = pd.DataFrame({
        "a": [f"a{i // 2}" for i in range(n)],
        "b": [f"b{v // 2}" for v in rng.permutation(n)],
    })  # fmt: skip
    schema = Schema({"a": Categorical(), "b": Categorical()})
    cm = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1)).kernel_args()
    none = np.zeros(n, dtype=np.intp)
    assert _walk_mean(cm, 2, 10_000, none) == pytest.approx(_lattice_best(cm, 2, none))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(20, 80))
def test_specialization_splits_only_into_l_diverse_crowds(seed, k, n) -> None:
    rng, _, model = _random_model(seed, n)
    cm = model.kernel_args()
    sens = rng.integers(0, 3, size=n)
    sens[:3] = [0, 1, 2]
    ell = int(rng.integers(2, 4))
    top = cm[5].astype(np.intp)[None, :]
    labels = specialize(k, cm, np.arange(n), np.array([0, n]), top, 1.0, sens, ell)
    assert np.bincount(labels).min() >= k
    for c in np.unique(labels):
        assert np.unique(sens[labels == c]).size >= ell


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(20, 80))
@example(310, 2, 39)  # the forest's crowds, cheaper but not diverse, were kept
def test_l_diverse_local_recoding_keeps_k_and_gains_diversity(seed, k, n) -> None:
    rng = np.random.default_rng(seed)
    table, schema = random_table(rng, n)
    space = MetricSpace.from_table(table, schema, norm=1)
    sens = np.array(["a", "b"])[rng.integers(0, 2, size=n)]
    sens[:2] = ["a", "b"]
    plain = LocalRecoding(k=k).fit(space)
    diverse = LocalRecoding(k=k, l=2).fit(space, sens)
    assert diverse.partition_.min_size >= k
    assert diverse.cost_ == pytest.approx(diverse.cost(space).of(diverse.labels_))

    def broken(labels: np.ndarray) -> int:
        return sum(np.unique(sens[labels == c]).size < 2 for c in np.unique(labels))

    if broken(diverse.labels_):  # only the classes of the last, k-anonymous rounds
        assert broken(diverse.labels_) <= broken(plain.labels_) + 1
    # every crowd of the release is then l-diverse after the repair
    release = incrowd.anonymize(
        table.assign(s=sens), Schema(schema.quasi_identifiers, sensitive=["s"]), k,
        release="generalized", diversity=Diversity(l=2), seed=1,
    )  # fmt: skip
    groups = release.table.groupby(list(schema.qi_names), dropna=False)["s"].nunique()
    assert groups.min() >= 2


def test_l_diverse_local_recoding_needs_the_sensitive_values() -> None:
    table = pd.DataFrame({"x": np.arange(10.0)})
    space = MetricSpace.from_table(table, Schema({"x": Numeric()}), norm=1)
    with pytest.raises(ParameterError, match="sensitive value"):
        LocalRecoding(k=2, l=2).fit(space)
    with pytest.raises(InfeasibleError, match="cannot be met"):
        LocalRecoding(k=2, l=3).fit(space, ["a", "b"] * 5)


def test_ratio_and_bound_against_the_exact_optimum_on_300_random_tables() -> None:
    rng = np.random.default_rng(11)
    ratios = []
    for trial in range(300):
        k = int(rng.integers(2, 5))
        n = int(rng.integers(k + 1, 10))
        table, schema = random_table(rng, n)
        space = MetricSpace.from_table(table, schema, norm=1)
        form = "sets" if trial % 3 == 0 else "levels"
        loss = "height" if trial % 4 == 0 else "ncp"
        est = LocalRecoding(k=k, generalize=form, loss=loss).fit(space)
        model = est.cost(space)
        opt = optimum(model, n, k)[0]
        tol = 1e-9 * max(1.0, opt)
        assert est.partition_.min_size >= k
        assert est.cost_ == pytest.approx(model.of(est.labels_))
        assert est.lower_bound_ <= opt + tol, "lower bound above the optimum"
        assert float(attribute_bound(model, k).sum()) <= opt + tol
        assert opt - tol <= est.cost_ <= size_limit(k) * opt + tol, "guarantee violated"
        if est.paper_cost_ is not None:
            assert est.cost_ <= est.paper_cost_ + tol
        else:  # no forest: the certificate proves the ratio
            assert est.cost_ <= size_limit(k) * est.lower_bound_ + tol
        ratios.append(est.cost_ / opt if opt > 0 else 1.0)
    assert np.median(ratios) <= 1.1
    assert np.mean(np.array(ratios) <= 1 + 1e-9) >= 0.5


def test_attribute_bound_is_the_cheapest_cell_holding_k() -> None:
    # x: 0, 1, 2, 10, 11, 30 — with k = 3 the narrowest windows of 3 values holding each
    table = pd.DataFrame({"x": [0.0, 1.0, 2.0, 10.0, 11.0, 30.0]})
    space = MetricSpace.from_table(table, Schema({"x": Numeric()}), norm=1)
    model = GeneralizationCost.on(space)
    got = attribute_bound(model, 3) * 30.0
    assert got.tolist() == pytest.approx([2.0, 2.0, 2.0, 9.0, 9.0, 20.0])
    # a hierarchy: A+ alone has 1 record, A holds 3: A costs (3 − 1)/(6 − 1) with all present
    table = pd.DataFrame({"q": ["A+", "A", "A-", "B+", "B", "B-", "B"]})
    space = MetricSpace.from_table(table, Schema({"q": Hierarchical(_quality())}), norm=1)
    model = GeneralizationCost.on(space)
    got = attribute_bound(model, 2)
    assert got.tolist() == pytest.approx([0.4, 0.4, 0.4, 0.4, 0.0, 0.4, 0.0])
    # value sets: a value of count 1 needs one more value when the largest holds k − 1
    model = GeneralizationCost.on(space, "sets")
    assert attribute_bound(model, 2).tolist() == pytest.approx([0.2] * 4 + [0.0, 0.2, 0.0])


def _charges(model: GeneralizationCost, labels: np.ndarray) -> np.ndarray:
    """Each record's charge: its crowd's cost per record."""
    from incrowd.costs.kernels import record_cost

    out = np.zeros(labels.size)
    stamp = np.zeros(max(model.ancestors.shape[2], 1), dtype=np.int64)
    for c in np.unique(labels):
        members = np.flatnonzero(labels == c)
        out[members] = record_cost(members, model.kernel_args(), stamp, 1 + 100 * int(c))
    return out


def _least_over_the_lattice(model: GeneralizationCost, k: int) -> np.ndarray:
    """By enumeration: each record's least cost over the nodes (a level per attribute)
    where its class holds ``k`` records (hierarchy labels and categorical values only)."""
    import itertools

    n, b = model.codes.shape
    best = np.full(n, np.inf)
    for node in itertools.product(*(range(int(h) + 1) for h in model.height)):
        keys = np.stack([model.ancestors[j, node[j], model.codes[:, j]] for j in range(b)], 1)
        _, cls, size = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
        cost = sum(model.cat_weight[j] * model.node_cost[j, node[j], keys[:, j]]
                   for j in range(b))  # fmt: skip
        held = size[cls.ravel()] >= k
        best[held] = np.minimum(best[held], cost[held])
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_the_lattice_bound_is_each_records_least_cost_where_k_share_its_class(seed, k) -> None:
    """Equal to enumeration on hierarchy labels; on any table at most each record's charge
    in the optimum and in incrowd's crowds, and at least the attribute bound."""
    rng = np.random.default_rng(seed)
    labels_only = seed % 2 == 0
    n = int(rng.integers(k + 1, 10))
    table, schema = random_table(rng, n, ("hierarchical", "categorical") if labels_only else None)
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.on(space, "sets" if seed % 3 == 0 else "levels")
    bound = lattice_bound(model, k)
    assert bound is not None
    tol = 1e-9
    if labels_only and not model.sets.any():
        assert bound == pytest.approx(_least_over_the_lattice(model, k))
        # so the (k − 1)-th pair cost adds nothing to it (LocalRecoding then skips it)
        pair = space.index(model.geometry).neighbours(n - 1)[0][:, k - 2]
        assert (bound >= pair - tol).all()
    assert (bound >= attribute_bound(model, k) - tol).all()
    _, best = optimum(model, n, k)
    assert (bound <= _charges(model, best.labels) + tol).all()
    mine = LocalRecoding(k=k, generalize="sets" if model.sets.any() else "levels").fit(space)
    assert (bound <= _charges(model, mine.labels_) + tol).all()


def _least_over_the_subsets(model: GeneralizationCost, k: int) -> np.ndarray:
    """By enumeration: each record's least, over the attribute sets ``S`` whose class holds
    ``k``, of the cheapest cells of the other attributes within that class (value sets and
    ranges; see :func:`subset_bound`)."""
    import itertools

    n, a = model.num.shape
    b = model.codes.shape[1]
    values = np.column_stack([model.num, model.codes.astype(np.float64)])
    best = np.full(n, np.inf)
    for r in range(a + b + 1):
        for S in itertools.combinations(range(a + b), r):
            _, cls, size = np.unique(values[:, list(S)] if S else np.zeros((n, 1)), axis=0,
                                     return_inverse=True, return_counts=True)  # fmt: skip
            cls = cls.ravel()
            for u in np.flatnonzero(size[cls] >= k):
                mates = values[cls == cls[u]]
                total = 0.0
                for j in set(range(a + b)) - set(S):
                    column = mates[:, j]
                    distinct, counts = np.unique(column, return_counts=True)
                    if distinct.size == 1:
                        total = np.inf
                        break
                    own = values[u, j]
                    if j < a:
                        widest = [
                            hi - lo
                            for lo in distinct
                            for hi in distinct
                            if lo <= own <= hi and ((column >= lo) & (column <= hi)).sum() >= k
                        ]
                        gap = np.abs(distinct[distinct != own] - own).min()
                        total += model.num_weight[j] * max(min(widest), gap)
                    else:
                        missing = k - int(counts[distinct == own][0])
                        reach = np.cumsum(np.sort(counts)[::-1])
                        others = (
                            max(1, int(np.searchsorted(reach, missing)) + 1) if missing > 0 else 1
                        )
                        total += model.cat_weight[j - a] * others / (model.domain[j - a] - 1)
                best[u] = min(best[u], total)
    return best


def _least_crowd(model: GeneralizationCost, k: int) -> np.ndarray:
    """By enumeration: each record's least per-record cost of a crowd of exactly ``k``."""
    n = model.n
    stamp = np.zeros(max(model.ancestors.shape[2], 1), dtype=np.int64)
    best = np.full(n, np.inf)
    for tick, crowd in enumerate(itertools.combinations(range(n), k)):
        members = np.array(crowd, dtype=np.intp)
        g = record_cost(members, model.kernel_args(), stamp, 1 + 100 * tick)
        best[members] = np.minimum(best[members], g)
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(1, 8))
def test_the_crowd_bound_is_each_records_least_crowd_over_its_nearest(seed, k, width) -> None:
    """With every other record listed: each record's least cost of a crowd of ``k``,
    by enumeration; with fewer: at most that, at most its charge in the optimum and in
    incrowd's crowds, and at least its ``(k − 1)``-th pair cost when ``k − 1`` are listed."""
    _, space, model = _random_model(seed, int(np.random.default_rng(seed).integers(k + 1, 10)))
    n = model.n
    tol = 1e-9
    least = _least_crowd(model, k)
    dist, idx = space.index(model.geometry).neighbours(n - 1)
    assert crowd_bound(model, k, dist, idx) == pytest.approx(least)
    w = min(width, n - 1)
    short = crowd_bound(model, k, dist[:, :w], idx[:, :w])
    assert (short <= least + tol).all()
    if w >= k - 1:
        assert (short >= dist[:, k - 2] - tol).all()
    opt, best = optimum(model, n, k)
    assert (short <= _charges(model, best.labels) + tol).all()
    mine = LocalRecoding(k=k, generalize="sets" if seed % 2 else "levels").fit(space)
    assert mine.lower_bound_ <= opt + tol
    assert (short <= _charges(model, mine.labels_) + tol).all()


def _least_excess(model: GeneralizationCost, k: int, y: np.ndarray, largest: int) -> np.ndarray:
    """By enumeration: each record's least ``g(C) − ȳ_C`` over the crowds ``C`` of ``k`` to
    ``largest`` records (``ȳ_C``: the mean of ``y`` over ``C``)."""
    n = model.n
    stamp = np.zeros(max(model.ancestors.shape[2], 1), dtype=np.int64)
    best = np.full(n, np.inf)
    tick = 1
    for size in range(k, min(largest, n) + 1):
        for crowd in itertools.combinations(range(n), size):
            members = np.array(crowd, dtype=np.intp)
            excess = record_cost(members, model.kernel_args(), stamp, tick) - y[members].mean()
            tick += 100
            best[members] = np.minimum(best[members], excess)
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(1, 8))
def test_the_excess_bound_is_below_every_crowds_excess_and_the_optimum(seed, k, width) -> None:
    """With every other record listed: ``k / (2k − 1)`` times each record's least excess
    over crowds of exactly ``k``, by enumeration; with fewer listed: still at most its
    least excess over the crowds of ``k`` to ``2k − 1`` records (those of some optimum),
    and the terms with it added at most the optimum."""
    _, space, model = _random_model(seed, int(np.random.default_rng(seed).integers(k + 1, 10)))
    n = model.n
    tol = 1e-9
    dist, idx = space.index(model.geometry).neighbours(n - 1)
    y = np.maximum(dist[:, k - 2], crowd_bound(model, k, dist, idx))  # each ≤ every crowd
    exact = _least_excess(model, k, y, k)
    assert excess_bound(model, k, dist, idx, y) == pytest.approx(k * exact / (2 * k - 1))
    w = min(width, n - 1)
    short = excess_bound(model, k, dist[:, :w], idx[:, :w], y)
    assert (short >= 0).all()
    assert (short <= _least_excess(model, k, y, 2 * k - 1) + tol).all()
    opt, _ = optimum(model, n, k)
    assert float((y + short).sum()) <= opt + tol


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_the_subset_bound_is_each_records_least_cost_over_the_sets_it_shares(seed, k) -> None:
    """With value sets: equal to enumeration; at most each record's charge in the optimum
    and in incrowd's crowds, and at least the attribute bound."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k + 1, 10))
    table, schema = random_table(rng, n)
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.on(space, "sets")
    bound = subset_bound(model, k)
    assert bound is not None
    tol = 1e-9
    assert bound == pytest.approx(_least_over_the_subsets(model, k))
    assert (bound >= attribute_bound(model, k) - tol).all()
    _, best = optimum(model, n, k)
    assert (bound <= _charges(model, best.labels) + tol).all()
    mine = LocalRecoding(k=k, generalize="sets").fit(space)
    assert (bound <= _charges(model, mine.labels_) + tol).all()
    assert mine.lower_bound_ >= float(bound.sum()) - tol


def test_the_lattice_bound_sees_what_no_attribute_alone_does() -> None:
    """Four records, k = 2: each value of q and of c is held twice, so every attribute
    alone costs nothing; but no two records agree on both, and the cheapest class of two
    generalizes one attribute fully (cost 1, or 1/3 + 1 through ``A``): each record's
    charge is at least 1."""
    table = pd.DataFrame({"q": ["A+", "A", "B+", "B"], "c": ["x", "y", "y", "x"]})
    schema = Schema({"q": Hierarchical(_quality()), "c": Categorical()})
    model = GeneralizationCost.on(MetricSpace.from_table(table, schema, norm=1))
    assert attribute_bound(model, 2).tolist() == pytest.approx([1 / 3] * 4)
    assert lattice_bound(model, 2).tolist() == pytest.approx([1.0] * 4)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5))
def test_resplitting_pairs_never_raises_the_cost(seed, k) -> None:
    rng = np.random.default_rng(seed)
    n = 80
    table, schema = random_table(rng, n)
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GeneralizationCost.on(space, "sets" if seed % 2 else "levels")
    cm = model.kernel_args()
    # a poor start: crowds of consecutive records
    labels = np.minimum(np.arange(n) // k, n // k - 1)
    before = model.of(labels)
    _, nbr = space.index(model.geometry).neighbours(8)
    resplit_pairs(labels, nbr, k, cm, float(seed % 2))
    assert model.of(labels) <= before + 1e-9
    assert np.all(labels >= 0) and np.bincount(labels).min() >= k


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, EXACT_UNION // 2), st.sampled_from([0, 2]))
def test_a_small_pair_is_resplit_to_its_optimum(seed, k, ell) -> None:
    # with ell = 2: the optimum over partitions into 2-diverse crowds
    n = 2 * k + seed % (EXACT_UNION + 1 - 2 * k)
    rng, space, model = _random_model(seed, n)
    sens = rng.integers(0, 3, size=n)
    labels = (np.arange(n) >= n // 2).astype(np.intp)  # two crowds, the union is everything
    sens[[0, n // 2]] = 0  # both crowds start 2-diverse
    sens[[1, n // 2 + 1]] = 1
    _, nbr = space.index(model.geometry).neighbours(n - 1)
    before = model.of(labels)
    resplit_pairs(labels, nbr, k, model.kernel_args(), 1.0, sens, ell)
    assert np.bincount(labels).min() >= k
    for c in np.unique(labels):
        assert np.unique(sens[labels == c]).size >= ell
    costs = model.subset_costs(n, k)  # the exact solver over all subsets
    for mask in range(1, 1 << n):
        members = [i for i in range(n) if (mask >> i) & 1]
        if len(members) >= k and np.unique(sens[members]).size < ell:
            costs[mask] = np.inf
    assert model.of(labels) == pytest.approx(solve(costs, n, k)[0], rel=1e-9, abs=1e-12)
    assert model.of(labels) <= before + 1e-9


def test_resplitting_a_crossed_pair_of_crowds_separates_the_letters() -> None:
    # crowds {A+, B+} and {A, B}: together they split by letter, {A+, A} and {B+, B}
    table = pd.DataFrame({"q": ["A+", "B+", "A", "B"]})
    space = MetricSpace.from_table(table, Schema({"q": Hierarchical(_quality())}), norm=1)
    model = GeneralizationCost.on(space)
    labels = np.array([0, 0, 1, 1])
    before = model.of(labels)
    _, nbr = space.index(model.geometry).neighbours(3)
    assert resplit_pairs(labels, nbr, 2, model.kernel_args(), 0.0) == 1
    assert labels[0] == labels[2] and labels[1] == labels[3] and labels[0] != labels[1]
    assert model.of(labels) < before


@given(st.integers(0, 10_000), st.integers(4, 40))
def test_pair_crowds_keep_copies_together_and_the_others_in_twos_and_threes(seed, n) -> None:
    """Every record in a crowd of two or more; the copies of a row share one crowd, which
    holds no other row's copies (a record alone in its row joins one only when it is the
    only such record); the other records are in crowds of 2 and 3."""
    rng, space, model = _random_model(seed, n)
    index = space.index(model.geometry)
    labels = pair_crowds(model, index)
    if labels is None:  # the candidate graph had no [1,2]-factor
        return
    assert (labels >= 0).all()
    sizes = np.bincount(labels)
    assert sizes[sizes > 0].min() >= 2
    _, row, counts, _ = index.distinct_rows
    lone = counts[row] == 1
    for u in np.flatnonzero(counts >= 2):
        held = np.flatnonzero(row == u)
        assert np.unique(labels[held]).size == 1
        crowd = labels == labels[held[0]]
        assert sizes[labels[held[0]]] == held.size + (
            int(lone[crowd].sum()) if lone.sum() == 1 else 0
        )
    if lone.sum() >= 2:
        assert set(sizes[np.unique(labels[lone])]) <= {2, 3}


def test_pair_crowds_of_distinct_records_are_within_twice_the_optimum() -> None:
    """On at most 7 distinct records every pair is a candidate, so the factor is the
    minimum over all pairs and Theorem 6's bound holds: cost ≤ 2 · OPT (k = 2)."""
    rng = np.random.default_rng(5)
    ratios = []
    for _ in range(150):
        n = int(rng.integers(4, 8))
        table, schema = random_table(rng, n)
        space = MetricSpace.from_table(table, schema, norm=1)
        model = GeneralizationCost.on(space, "levels")
        index = space.index(model.geometry)
        if index.n_distinct < n:
            continue
        labels = pair_crowds(model, index)
        assert labels is not None
        opt = optimum(model, n, 2)[0]
        cost = model.of(labels)
        assert cost <= 2 * opt + 1e-9 * max(1.0, opt)
        ratios.append(cost / opt if opt > 0 else 1.0)
    assert len(ratios) >= 100
    assert np.median(ratios) <= 1.1


def _linked(labels: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Each crowd's first member and each record's next, as ``_improve`` links them."""
    head, nxt = np.full(m, -1, dtype=np.intp), np.full(labels.size, -1, dtype=np.intp)
    for i in range(labels.size - 1, -1, -1):
        if labels[i] >= 0:
            nxt[i], head[labels[i]] = head[labels[i]], i
    return head, nxt


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("counted", [True, False])
def test_a_join_priced_from_the_summary_is_the_members_cost_to_the_last_bit(seed, counted):
    from incrowd.algorithms._shared.crowd_summary import joined_cost, set_offsets, summarize

    rng, space, model = _random_model(seed, int(np.random.default_rng(seed).integers(8, 40)))
    cm, n = model.kernel_args(), space.n
    labels = rng.integers(0, 3, n).astype(np.intp)
    labels[rng.random(n) < 0.2] = -1  # records outside every crowd: candidates to join
    m = 3
    head, nxt = _linked(labels, m)
    b = model.codes.shape[1]
    lo, hi = np.empty((m, model.num.shape[1])), np.empty((m, model.num.shape[1]))
    anchor, level = np.full(m, -1, dtype=np.intp), np.zeros((m, b), dtype=np.intp)
    kinds = np.zeros((m, b), dtype=np.intp)
    offs, width = set_offsets(cm)
    counts = np.zeros((m, width) if counted else (0, 0), dtype=np.int32)
    stamp, tick = np.zeros(max(model.ancestors.shape[2], 1), dtype=np.int64), 1
    for c in range(m):
        if head[c] >= 0:
            summarize(c, head, nxt, cm, lo, hi, anchor, level, counts, kinds, offs, stamp, tick)
            tick += b + 1
    for c in range(m):
        members = np.flatnonzero(labels == c)
        if members.size == 0:
            continue
        for x in range(n):
            if labels[x] == c:
                continue
            joined = joined_cost(c, x, head, nxt, cm, lo, hi, anchor, level, counts, kinds, offs)
            expected = record_cost(np.append(members, x), cm, stamp, tick)
            tick += b + 1
            assert joined == expected  # the same float: moves compare it with costs summed so


@pytest.mark.parametrize("seed", range(40))
def test_moves_are_the_same_with_value_counts_kept_or_scanned(seed):
    from incrowd.algorithms._shared.improve import improve_labels
    from incrowd.algorithms.forest import MAX_ROUNDS

    rng, space, model = _random_model(2 * seed + 1, 60)  # value sets
    k = int(rng.integers(2, 5))
    labels = (rng.permutation(60) % (60 // k)).astype(np.intp)  # crowds of k or more
    _, idx = space.index(model.geometry).neighbours(8)
    before = model.of(labels)
    results = []
    for cells in (1 << 20, 0):
        moved = labels.copy()
        improve_labels(moved, idx, k, True, False, model.row_cost, MAX_ROUNDS,
                       model.kernel_args(), count_cells=cells)  # fmt: skip
        results.append(moved)
    np.testing.assert_array_equal(results[0], results[1])
    assert model.of(results[0]) <= before
    assert np.bincount(results[0]).min() >= k


@pytest.mark.parametrize("k", [3, FOREST_SETS_UP_TO_K, FOREST_SETS_UP_TO_K + 1])
def test_value_sets_build_the_forest_up_to_its_k_and_the_specialization_above(
    k, monkeypatch
) -> None:
    """With value sets, the forest alone is built up to ``FOREST_SETS_UP_TO_K`` and the
    specialization alone above it (the certificate proving the forest's ratio there)."""
    rng = np.random.default_rng(11)
    table, schema = random_table(rng, 400, ["numeric", "categorical"])
    space = MetricSpace.from_table(table, schema, norm=1)
    built = []

    def noted(name: str):
        method = getattr(LocalRecoding, name)
        return lambda self, *a: built.append(name) or method(self, *a)

    for name in ("_forest", "_specialize"):
        monkeypatch.setattr(LocalRecoding, name, noted(name))
    mine = LocalRecoding(k=k, generalize="sets").fit(space)
    assert mine.cost_ <= size_limit(k) * mine.lower_bound_
    assert built == (["_forest"] if k <= FOREST_SETS_UP_TO_K else ["_specialize"])
    assert mine.construction_ == {"_forest": "forest", "_specialize": "specialization"}[built[0]]
    assert np.bincount(mine.labels_).min() >= k


def test_the_crowd_searches_stop_above_a_number_of_records(monkeypatch) -> None:
    """The searches of :func:`crowd_bound` and :func:`excess_bound` only raise the bound:
    above ``CROWD_BOUND_MAX_ROWS`` records they are left out, the crowds are the same and
    the bound no higher."""
    from incrowd.algorithms.recoding import _certificate, _run

    _, space, _ = _random_model(1, 60)  # value sets: the searches run at k = 3
    calls = []
    monkeypatch.setattr(_certificate, "crowd_bound",
                        lambda *a: calls.append(1) or crowd_bound(*a))  # fmt: skip
    searched = LocalRecoding(k=3, generalize="sets").fit(space)
    assert calls == [1]
    monkeypatch.setattr(_run, "CROWD_BOUND_MAX_ROWS", 59)  # where a run reads it
    plain = LocalRecoding(k=3, generalize="sets").fit(space)
    assert calls == [1]
    assert np.array_equal(plain.labels_, searched.labels_)
    assert plain.lower_bound_ <= searched.lower_bound_ + 1e-9
