"""Global recoding (``algorithms.global_recoding``): the optimum over the lattice, checked by
brute force over every node of small random tables."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from incrowd import MetricSpace, Schema
from incrowd.algorithms import GlobalRecoding, LocalRecoding
from incrowd.data.schema import Categorical, Hierarchical, Numeric
from incrowd.errors import InfeasibleError, ParameterError
from incrowd.testing import check_algorithm, random_table


def _published(table: pd.DataFrame, schema: Schema, node: tuple[int, ...]) -> list[tuple]:
    """Per attribute: each record's published label at ``node`` and what it costs (NCP by
    ``../shared/notes/ncp-definition.md``, written here from the hierarchy rows alone)."""
    return [
        _attribute_at(table[name].astype(str).tolist(), metric, level)
        for (name, metric), level in zip(schema.quasi_identifiers.items(), node, strict=True)
    ]


def _attribute_at(cells: list[str], metric, level: int) -> tuple:
    """Each cell's label at ``level`` and its price, and the attribute's weight."""
    if not isinstance(metric, Hierarchical):  # a category or a number: the value, or *
        labels = cells if level == 0 else ["*"] * len(cells)
        return labels, [0.0 if level == 0 else 1.0] * len(cells), metric.weight
    h = metric.hierarchy
    row = {v: i for i, v in enumerate(h.values)}
    labels = [h.labels[level][h.codes[row[c], level]] for c in cells]
    present = sorted(set(cells))
    under: dict[str, int] = {}
    for v in present:  # the input values under each label of the level
        lab = h.labels[level][h.codes[row[v], level]]
        under[lab] = under.get(lab, 0) + 1
    d = len(present)
    price = [(under[lab] - 1) / (d - 1) if d > 1 else 0.0 for lab in labels]
    return labels, price, metric.weight


def _heights(schema: Schema) -> list[int]:
    return [
        m.hierarchy.height if isinstance(m, Hierarchical) else 1
        for m in schema.quasi_identifiers.values()
    ]


def _brute_force(table, schema, k, budget, ell=1, sens=None, loss="ncp"):
    """Every node's loss (None when it suppresses more than the budget)."""
    n = len(table)
    row = sum(m.weight for m in schema.quasi_identifiers.values())
    heights = _heights(schema)
    result = {}
    cells = [table[name].astype(str).tolist() for name in schema.quasi_identifiers]
    metrics = list(schema.quasi_identifiers.values())
    at = {(j, v): _attribute_at(cells[j], metrics[j], v)
          for j, h in enumerate(heights) for v in range(h + 1)}  # fmt: skip
    for node in itertools.product(*(range(h + 1) for h in heights)):
        cols = [at[j, v] for j, v in enumerate(node)]
        keys = list(zip(*(c[0] for c in cols), strict=True))
        members: dict = {}
        for i, key in enumerate(keys):
            members.setdefault(key, []).append(i)
        suppressed, total = 0, 0.0
        for rows in members.values():
            distinct = len({sens[i] for i in rows}) if ell >= 2 else ell
            if len(rows) < k or distinct < ell:
                suppressed += len(rows)
                total += (n if loss == "discernibility" else row) * len(rows)
            elif loss == "discernibility":
                total += len(rows) ** 2
            else:
                for i in rows:
                    for j, (_, price, w) in enumerate(cols):
                        p = node[j] / heights[j] if loss == "height" else price[i]
                        total += w * p
        # the suppressed records are one class of rows of *: none, or k meeting l
        starred = [
            i
            for rows in members.values()
            for i in rows
            if len(rows) < k or (ell >= 2 and len({sens[j] for j in rows}) < ell)
        ]
        star_ok = not starred or (
            len(starred) >= k and (ell < 2 or len({sens[i] for i in starred}) >= ell)
        )
        result[node] = total if suppressed <= budget and star_ok else None
    return result


def _case(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 26))
    table, schema = random_table(rng, n)
    k = int(rng.integers(2, 5))
    limit = float(rng.choice([0.0, 0.05, 0.1, 0.25]))
    return rng, table, schema, min(k, n), limit


@pytest.mark.parametrize("seed", range(320))
def test_the_node_found_is_the_least_loss_of_every_node(seed):
    rng, table, schema, k, limit = _case(seed)
    loss = ("ncp", "ncp", "height", "discernibility")[seed % 4]
    ell = 2 if seed % 5 == 0 else 1
    sens = rng.integers(0, 3, len(table)) if ell >= 2 else None
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GlobalRecoding(k=k, suppression_limit=limit, loss=loss, l=ell)
    budget = math.floor(limit * len(table) + 1e-9)
    every = _brute_force(table, schema, k, budget, ell, sens, loss)
    feasible = [v for v in every.values() if v is not None]
    if not feasible:
        with pytest.raises(InfeasibleError):
            model.fit(space, sens)
        return
    model.fit(space, sens)
    best = min(feasible)
    assert model.certificate_["optimal"]
    assert model.loss_ == pytest.approx(best, abs=1e-9)
    # no node, pruned or not, qualifies with less loss; the node found does qualify
    assert every[model.levels_] == pytest.approx(model.loss_, abs=1e-9)
    labels = model.labels_
    assert (labels < 0).sum() <= budget
    kept = labels[labels >= 0]
    assert kept.size == 0 or np.bincount(kept).min() >= k


def test_every_record_of_a_class_shares_the_node_labels_and_classes_are_maximal():
    rng = np.random.default_rng(7)
    table, schema = random_table(rng, 30, ("hierarchical", "categorical"))
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GlobalRecoding(k=3, suppression_limit=0.2).fit(space)
    cols = _published(table, schema, model.levels_)
    keys = list(zip(*(c[0] for c in cols), strict=True))
    labels = model.labels_
    for c in np.unique(labels[labels >= 0]):
        members = np.flatnonzero(labels == c)
        assert len({keys[i] for i in members}) == 1
        # a class is every record with its labels (none held back in another class)
        assert sum(key == keys[members[0]] for key in keys) == members.size


def test_a_time_limit_returns_the_best_found_with_a_lower_bound():
    rng = np.random.default_rng(3)
    table, schema = random_table(rng, 400, ("hierarchical",))
    space = MetricSpace.from_table(table, schema, norm=1)
    exact = GlobalRecoding(k=5, suppression_limit=0.02).fit(space)
    cut = GlobalRecoding(k=5, suppression_limit=0.02, time_limit=1e-9).fit(space)
    assert not cut.certificate_["optimal"]
    assert cut.certificate_["lattice_lower_bound"] <= exact.loss_ + 1e-9
    assert cut.loss_ >= exact.loss_ - 1e-9
    gap = cut.certificate_["gap"]
    assert gap is None or gap >= 1.0  # None: the bound is still 0


@pytest.mark.parametrize(
    ("loss", "limit"), [("ncp", 0.05), ("ncp", 0.3), ("height", 0.2), ("discernibility", 0.2)]
)
def test_common_checks(loss, limit):
    check_algorithm(GlobalRecoding(k=2, suppression_limit=limit, loss=loss), n_instances=24)


def test_a_number_without_a_hierarchy_is_its_value_or_a_star():
    table = pd.DataFrame({"age": [30, 30, 30, 41, 41, 52], "sex": list("fffmmm")})
    schema = Schema({"age": Numeric(), "sex": Categorical()})
    space = MetricSpace.from_table(table, schema, norm=1)
    withheld = GlobalRecoding(k=2, suppression_limit=1 / 6, star_class=False).fit(space)
    assert withheld.levels_ == (0, 0)  # only the 52-year-old is suppressed
    assert withheld.labels_.tolist().count(-1) == 1
    assert withheld.cost_ == pytest.approx(2.0)  # one full row
    # published as a row of *, they would be a class of one: ages go to * instead
    starred = GlobalRecoding(k=2, suppression_limit=1 / 6).fit(space)
    assert starred.levels_ == (1, 0) and (starred.labels_ >= 0).all()
    assert starred.cost_ == pytest.approx(6.0)


def test_parameters_are_checked():
    space = MetricSpace.from_array(np.arange(10.0).reshape(5, 2))
    with pytest.raises(ParameterError, match="suppression_limit"):
        GlobalRecoding(k=2, suppression_limit=1.5).fit(space)
    with pytest.raises(ParameterError, match="generalize"):
        GlobalRecoding(k=2, generalize="sets").fit(space)
    with pytest.raises(ParameterError, match="y"):
        GlobalRecoding(k=2, l=2).fit(space)
    with pytest.raises(ParameterError, match="discernibility counts classes"):
        GlobalRecoding(k=2, loss="discernibility", weights={"x0": 2.0}).fit(space)


@pytest.mark.parametrize("seed", range(40))
def test_a_class_check_is_a_constraint_like_l(seed):
    rng, table, schema, k, limit = _case(seed)
    sens = rng.integers(0, 3, len(table))
    space = MetricSpace.from_table(table, schema, norm=1)

    def two_values(labels, n_classes):  # distinct 2-diversity, written as a class check
        pairs = {(c, s) for c, s in zip(labels, sens, strict=True) if c >= 0}
        seen = np.bincount([c for c, _ in pairs], minlength=n_classes)
        return seen >= 2

    try:
        by_l = GlobalRecoding(k=k, suppression_limit=limit, l=2).fit(space, sens)
    except InfeasibleError:
        with pytest.raises(InfeasibleError):
            GlobalRecoding(k=k, suppression_limit=limit, class_check=two_values).fit(space)
        return
    by_check = GlobalRecoding(k=k, suppression_limit=limit, class_check=two_values).fit(space)
    assert by_check.levels_ == by_l.levels_
    assert by_check.loss_ == pytest.approx(by_l.loss_)
    assert by_check.partition_ == by_l.partition_


def test_a_suppressed_row_pays_every_attribute_a_number_at_star_included():
    """Issue 58.15: with ``age`` at ``*`` a suppressed row still pays its age cell."""
    table = pd.DataFrame({"age": [1, 2, 3, 4, 5, 6], "city": list("aaabbc")})
    space = MetricSpace.from_table(table, Schema({"age": Numeric(), "city": Categorical()}))
    model = GlobalRecoding(k=2, suppression_limit=1 / 6, star_class=False).fit(space)
    assert model.levels_ == (1, 0) and model.labels_.tolist().count(-1) == 1
    # five kept ages at * (1 each), the suppressed 'c' row a full row of two cells
    assert model.loss_ == pytest.approx(7.0)
    assert model.cost_ == pytest.approx(7.0)


def test_a_star_on_a_column_of_one_value_costs_nothing():
    """Issue 58.16: ``*`` over a column that holds one value hides nothing (data/ncp.py:
    the top costs 0 then); the search and ``cost_`` price it so."""
    table = pd.DataFrame({"sex": ["f"] * 4, "city": list("aabb")})
    space = MetricSpace.from_table(table, Schema({"sex": Categorical(), "city": Categorical()}))
    model = GlobalRecoding(k=2, suppression_limit=0.0, time_limit=1e-9).fit(space)

    def price(cells: list[str], level: int) -> float:  # a category: its value, or *
        return 0.0 if level == 0 or len(set(cells)) == 1 else float(len(cells))

    by_definition = price(["f"] * 4, model.levels_[0]) + price(list("aabb"), model.levels_[1])
    assert model.loss_ == pytest.approx(by_definition)
    assert model.cost_ == pytest.approx(by_definition)
    cost = model.cost(space)
    assert cost.at_levels(np.zeros(4, dtype=np.intp), (1, 1)) == pytest.approx(4.0)  # city's *
    assert cost.at_levels(np.array([0, 0, 1, 1]), (1, 0)) == pytest.approx(0.0)
    forced = GlobalRecoding(k=2, suppression_limit=0.0, min_level={"sex": 1}).fit(space)
    assert forced.levels_ == (1, 0)
    assert forced.loss_ == pytest.approx(0.0) and forced.cost_ == pytest.approx(0.0)
    # local recoding prices with the same cost model: sex raised to * costs nothing there too
    local = LocalRecoding(k=2, min_level={"sex": 1}).fit(space)
    assert local.cost_ == pytest.approx(0.0)
