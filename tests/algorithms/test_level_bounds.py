"""Bounds on the generalization levels of local recoding and the forest (issue 57, item 5):
no published cell below its attribute's ``min_level`` or above its ``max_level``, every
crowd of at least k, no record lost (only the blocks under k suppressed, within the limit),
a lower bound below the bounded optimum and a ratio that holds, checked against every
partition of tiny tables; without a bound, the same crowds as before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import tables

from incrowd import Categorical, Hierarchical, Hierarchy, MetricSpace, Numeric, Schema
from incrowd.algorithms.forest import ForestKAnonymity
from incrowd.algorithms.recoding import LocalRecoding
from incrowd.data.columns import CategoricalColumn, NumericColumn
from incrowd.errors import InfeasibleError, ParameterError, cli_text
from incrowd.params import outlier_budget
from incrowd.testing import random_hierarchy

METHODS = [LocalRecoding, ForestKAnonymity]

#: ages 0-99 in decades under bands: level 0 the age, 1 the decade, 2 the band, 3 *
AGES = Hierarchy.from_rows(
    [[str(a), f"{a // 10 * 10}s", "young" if a < 40 else "old", "*"] for a in range(100)]
)


def bounded_table(rng: np.random.Generator, n: int) -> tuple[pd.DataFrame, Schema]:
    """Hierarchies of random shapes, a category and a number (which takes no bound)."""
    sizes = [int(rng.integers(2, 7)), int(rng.integers(2, 7))]
    hierarchies = [random_hierarchy(rng, size, int(rng.integers(1, 4))) for size in sizes]
    table = pd.DataFrame({
        "h0": [f"v{v}" for v in rng.integers(0, sizes[0], size=n)],
        "h1": [f"v{v}" for v in rng.integers(0, sizes[1], size=n)],
        "c": [f"c{v}" for v in rng.integers(0, 3, size=n)],
        "x": rng.integers(0, 30, size=n),
    })  # fmt: skip
    schema = Schema({"h0": Hierarchical(hierarchies[0]), "h1": Hierarchical(hierarchies[1]),
                     "c": Categorical(), "x": Numeric()})  # fmt: skip
    return table, schema


def random_bounds(rng: np.random.Generator, space: MetricSpace) -> tuple[dict, dict]:
    """A floor and a ceiling for some of the coded attributes (floor ≤ ceiling)."""
    low, high = {}, {}
    for column in space.columns:
        if isinstance(column, NumericColumn):
            continue
        top = 1 if isinstance(column, CategoricalColumn) else column.hierarchy.height
        a, b = sorted(int(v) for v in rng.integers(0, top + 1, size=2))
        if rng.random() < 0.6:
            low[column.name] = a
        if rng.random() < 0.6:
            high[column.name] = b
    return low, high


def published_levels(space: MetricSpace, labels: np.ndarray, low: dict) -> dict[str, np.ndarray]:
    """Per coded attribute, the level each crowd publishes: the lowest on which its records
    agree (read from the columns, not from the method), raised to the floor."""
    out = {}
    kept = labels >= 0
    crowds = np.unique(labels[kept])
    for column in space.columns:
        if isinstance(column, NumericColumn):
            continue
        levels = []
        for crowd in crowds:
            mine = column.codes[labels == crowd]
            if isinstance(column, CategoricalColumn):
                agreed = 0 if np.unique(mine).size == 1 else 1
            else:
                agreed = next(t for t in range(mine.shape[1]) if np.unique(mine[:, t]).size == 1)
            levels.append(max(agreed, low.get(column.name, 0)))
        out[column.name] = np.asarray(levels)
    return out


def assert_within(space: MetricSpace, fitted, k: int, low: dict, high: dict) -> None:
    labels = fitted.labels_
    sizes = np.bincount(labels[labels >= 0])
    assert sizes[sizes > 0].min(initial=k) >= k
    for name, levels in published_levels(space, labels, low).items():
        assert levels.min(initial=99) >= low.get(name, 0), name
        assert levels.max(initial=0) <= high.get(name, 99), (name, high)


@pytest.mark.parametrize("cls", METHODS)
@pytest.mark.parametrize("seed", range(6))
def test_every_published_cell_respects_the_bounds_and_no_record_is_lost(cls, seed) -> None:
    rng = np.random.default_rng(seed)
    table, schema = bounded_table(rng, 90)
    space = MetricSpace.from_table(table, schema, norm=1)
    low, high = random_bounds(rng, space)
    k = int(rng.integers(2, 6))
    fitted = cls(k=k, min_level=low, max_level=high, suppression_limit=0.5).fit(space)
    assert_within(space, fitted, k, low, high)
    # only the records of blocks under k are suppressed (no deletion budget spent else)
    lean = cls(k=k, min_level=low, max_level=high, suppression_limit=1.0)
    assert fitted.partition_.n_suppressed <= outlier_budget(0.5, space.n)
    assert fitted.n_level_suppressed_ <= fitted.partition_.n_suppressed
    # the cost is the published cells' price: the crowds priced at the floors
    floors = [low.get(c.name, 0) for c in space.columns]
    assert fitted.cost_ == pytest.approx(lean.cost(space).of(fitted.labels_))
    assert fitted.cost_ == pytest.approx(cls(k=k).cost(space).at_levels(fitted.labels_, floors))
    assert fitted.lower_bound_ <= fitted.cost_ + 1e-9


@settings(max_examples=40, deadline=None)
@given(tables(min_rows=2, max_rows=30), st.sampled_from(METHODS), st.data())
def test_any_table_is_published_within_its_bounds(drawn, cls, data) -> None:
    """Hypothesis tables (numbers, a category, a hierarchy): bounds drawn for the category
    and the hierarchy, a suppression limit; the release keeps them and k, and suppresses
    only within the limit — or the bound is refused as infeasible, naming it."""
    from incrowd import release_generalized

    table, schema, k = drawn
    space = MetricSpace.from_table(table, schema, norm=1)
    tops = {"sex": 1, "letter": 2}
    qis = [q for q in tops if q in schema.qi_names]
    low = {q: data.draw(st.integers(0, tops[q])) for q in qis if data.draw(st.booleans())}
    high = {q: data.draw(st.integers(low.get(q, 0), tops[q])) for q in qis
            if data.draw(st.booleans())}  # fmt: skip
    limit = data.draw(st.sampled_from([0.0, 0.25, 1.0]))
    method = cls(k=k, min_level=low, max_level=high, suppression_limit=limit)
    try:
        fitted = method.fit(space)
    except InfeasibleError as exc:
        assert "max_level" in str(exc) and high
        return
    assert_within(space, fitted, k, low, high)
    assert fitted.partition_.n_suppressed <= outlier_budget(limit, space.n)
    floors = [low.get(name) for name in schema.qi_names]
    out = release_generalized(table, fitted.partition_, schema, columns=space.columns,
                              floors=floors)  # fmt: skip
    assert len(out.table) + fitted.partition_.n_suppressed == len(table)  # no record lost
    if low.get("letter", 0) >= 1:  # no value below its floor ("e" is its own parent)
        assert not set(out.table["letter"]) & set("abcd")


@pytest.mark.parametrize("cls", METHODS)
def test_a_feasible_bound_loses_no_record(cls) -> None:
    """Without a suppression limit every record is published, each at its bounds."""
    rng = np.random.default_rng(3)
    ages = rng.integers(0, 100, size=200)
    table = pd.DataFrame({"age": ages.astype(str), "sex": rng.choice(["F", "M"], size=200)})
    space = MetricSpace.from_table(table, Schema({"age": Hierarchical(AGES),
                                                  "sex": Categorical()}), norm=1)  # fmt: skip
    fitted = cls(k=5, min_level={"age": 1}, max_level={"age": 2}).fit(space)
    assert fitted.partition_.n_suppressed == 0
    assert_within(space, fitted, 5, {"age": 1}, {"age": 2})


def test_local_recoding_publishes_no_exact_age_above_a_floor() -> None:
    """The issue's case: bands publish exact ages (0, 104) in crowds of k; with min_level 1
    no crowd publishes an age."""
    bands = Hierarchy.from_rows(
        [[str(a), "0-17" if a < 18 else "18-39" if a < 40 else "40-64" if a < 65 else "65-120",
          "*"] for a in range(121)]
    )  # fmt: skip
    rng = np.random.default_rng(0)
    ages = np.r_[np.zeros(6, int), np.full(6, 104), rng.integers(1, 100, size=60)]
    table = pd.DataFrame({"age": ages.astype(str), "sex": ["F"] * 12 + ["F", "M"] * 30})
    schema = Schema({"age": Hierarchical(bands), "sex": Categorical()})
    space = MetricSpace.from_table(table, schema, norm=1)
    free = LocalRecoding(k=5).fit(space)
    exact = published_levels(space, free.labels_, {})["age"]
    assert (exact == 0).any(), "the case the floor is for: exact ages published"
    floored = LocalRecoding(k=5, min_level={"age": 1}).fit(space)
    assert (published_levels(space, floored.labels_, {"age": 1})["age"] >= 1).all()
    assert floored.cost_ >= free.cost_ - 1e-9


@pytest.mark.parametrize("cls", METHODS)
def test_bounds_that_cut_nothing_keep_the_crowds(cls) -> None:
    """Floors of 0 and ceilings at the top are no bound: the same crowds, cost and bound."""
    rng = np.random.default_rng(8)
    table, schema = bounded_table(rng, 80)
    space = MetricSpace.from_table(table, schema, norm=1)
    tops = {"h0": schema.quasi_identifiers["h0"].hierarchy.height, "c": 1}
    free = cls(k=3).fit(space)
    same = cls(k=3, min_level={"h1": 0}, max_level=tops).fit(space)
    np.testing.assert_array_equal(free.labels_, same.labels_)
    assert (free.cost_, free.lower_bound_) == (same.cost_, same.lower_bound_)


# ----------------------------------------------------------------- against every partition
def _partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]
        yield [[first], *part]


def bounded_optimum(space: MetricSpace, k: int, low: dict, high: dict, budget: int) -> float:
    """The least cost over every partition into crowds of at least k whose cells respect the
    bounds, one of its parts (at most ``budget`` records) suppressed at a full row each."""
    model = LocalRecoding(k=k).cost(space)  # the labels' prices, without any bound
    coded = [c for c in space.columns if not isinstance(c, NumericColumn)]
    best = np.inf
    for part in _partitions(list(range(space.n))):
        for dropped in [None, *range(len(part))]:
            if dropped is not None and len(part[dropped]) > budget:
                continue
            total = 0.0 if dropped is None else len(part[dropped]) * model.row_cost
            for i, crowd in enumerate(part):
                if i == dropped:
                    continue
                if len(crowd) < k:
                    total = np.inf
                    break
                members = np.asarray(crowd)
                price = sum(model.num_weight[j] * np.ptp(model.num[members, j])
                            for j in range(model.num.shape[1]))  # fmt: skip
                for j, column in enumerate(coded):
                    leaves = model.codes[members, j]
                    nodes = model.ancestors[j][:, leaves]
                    agreed = next(t for t in range(model.height[j] + 1)
                                  if np.unique(nodes[t]).size == 1)  # fmt: skip
                    level = max(agreed, low.get(column.name, 0))
                    if level > high.get(column.name, 99):
                        price = np.inf
                        break
                    node = model.ancestors[j, level][leaves[0]]
                    price += model.cat_weight[j] * model.node_cost[j, level, node]
                total += len(crowd) * price
            best = min(best, total)
    return float(best)


@pytest.mark.parametrize("cls", METHODS)
@pytest.mark.parametrize("seed", range(12))
def test_against_every_partition_of_a_tiny_table(cls, seed) -> None:
    rng = np.random.default_rng(40 + seed)
    table, schema = bounded_table(rng, 7)
    space = MetricSpace.from_table(table, schema, norm=1)
    low, high = random_bounds(rng, space)
    k = int(rng.integers(2, 4))
    limit = float(rng.choice([0.0, 0.3]))
    budget = outlier_budget(limit, space.n)
    opt = bounded_optimum(space, k, low, high, budget)
    method = cls(k=k, min_level=low, max_level=high, suppression_limit=limit)
    if not np.isfinite(opt):
        with pytest.raises(InfeasibleError, match="max_level"):
            method.fit(space)
        return
    fitted = method.fit(space)
    assert_within(space, fitted, k, low, high)
    assert fitted.partition_.n_suppressed <= budget
    assert fitted.cost_ >= opt - 1e-9
    assert fitted.lower_bound_ <= opt + 1e-9
    assert fitted.cost_ <= fitted.approximation_ratio_ * opt + 1e-9


# ----------------------------------------------------------------- blocks under k, refusals
@pytest.mark.parametrize("cls", METHODS)
def test_a_group_under_k_is_suppressed_within_the_limit_else_refused(cls) -> None:
    """Two records of the 90s cannot share a crowd within their decade: suppressed when the
    limit allows them, else one error naming the bound and what to relax."""
    ages = [str(a) for a in [91, 95] + [21, 22, 23, 24, 25, 26] + [31, 33, 35, 37]]
    table = pd.DataFrame({"age": ages})
    space = MetricSpace.from_table(table, Schema({"age": Hierarchical(AGES)}), norm=1)
    fitted = cls(k=3, max_level={"age": 1}, suppression_limit=0.2).fit(space)
    assert fitted.labels_[:2].tolist() == [-1, -1] and fitted.n_level_suppressed_ == 2
    assert (fitted.labels_[2:] >= 0).all()
    assert fitted.lower_bound_ >= 2 * fitted.cost(space).row_cost - 1e-9
    with pytest.raises(InfeasibleError) as caught:
        cls(k=3, max_level={"age": 1}).fit(space)
    text = cli_text(caught.value.marked())
    assert "--max-level age=1 leaves 2 record(s) in groups of fewer than k = 3" in text
    assert "age 90s" in text and "--suppression-limit 0.1667" in text
    assert "\n" not in text


REFUSED = [
    ({"min_level": {"x": 1}}, "'x' is a number without a hierarchy"),
    ({"max_level": {"zip": 1}}, "'zip' is not a quasi-identifier"),
    ({"min_level": {"age": 4}}, "'age' has levels 0 (its values) to 3 (*)"),
    ({"max_level": {"c": 2}}, "'c' has levels 0 (its values) to 1 (*) (a category"),
    ({"min_level": {"age": 2}, "max_level": {"age": 1}}, "min_level={'age': 2} is above"),
    ({"min_level": {"age": -1}}, "a level is a whole number from 0"),
    ({"min_level": {"age": 1.5}}, "a level is a whole number from 0"),
    ({"min_level": {"age": 1}, "generalize": "sets"}, "not value sets"),
]


@pytest.mark.parametrize("cls", METHODS)
@pytest.mark.parametrize(("params", "message"), REFUSED)
def test_a_bound_a_column_cannot_take_is_refused_naming_it(cls, params, message) -> None:
    table = pd.DataFrame({"age": ["1", "2", "55", "56"], "c": ["a", "a", "b", "b"],
                          "x": [1, 2, 3, 4]})  # fmt: skip
    schema = Schema({"age": Hierarchical(AGES), "c": Categorical(), "x": Numeric()})
    space = MetricSpace.from_table(table, schema, norm=1)
    with pytest.raises(ParameterError) as caught:
        cls(k=2, **params).fit(space)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("cls", METHODS)
def test_the_blocks_count_one_rising_progress(cls, raw_progress) -> None:
    """Blocked by a ceiling, the runs' counts are mapped onto one count over the blocks:
    each rises to its total (raw, before the reporter holds it from going back)."""
    from incrowd._runtime import reporting

    rng = np.random.default_rng(2)
    table = pd.DataFrame({"age": rng.integers(0, 100, size=300).astype(str),
                          "sex": rng.choice(["F", "M"], size=300)})  # fmt: skip
    schema = Schema({"age": Hierarchical(AGES), "sex": Categorical()})
    space = MetricSpace.from_table(table, schema, norm=1)
    with reporting(lambda _done, _total: None, interval=0):
        cls(k=4, max_level={"age": 2}).fit(space)
    done = [d for d, _ in raw_progress]
    assert len({total for _, total in raw_progress}) == 1
    assert all(a <= b for a, b in zip(done, done[1:], strict=False)), done
    assert done[-1] == raw_progress[-1][1] and len(set(done)) >= 4
