"""Global recoding on a lattice cut by level bounds, priced by data/ncp.py's definition: the
node found is the exact optimum of the cut lattice (computed naively here, node by node),
``cost_`` is the NCP of the published table, a stopped search still has a real candidate,
a bounded heap keeps a true certificate, and the top of the lattice is never published."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from incrowd import MetricSpace, Schema
from incrowd.algorithms import GlobalRecoding
from incrowd.algorithms.global_recoding import _lattice_tables
from incrowd.algorithms.global_recoding._search import search
from incrowd.data.schema import Categorical, Hierarchical
from incrowd.errors import InfeasibleError, ParameterError
from incrowd.measures.loss import ncp_loss
from incrowd.testing import random_table


def _column(cells: list, metric, level: int) -> tuple[list, list[float]]:
    """Each cell's published label at ``level`` and its NCP as ``../shared/notes/
    ncp-definition.md`` and data/ncp.py define it, from the cells and hierarchy rows alone:
    a value costs 0; ``*`` on a number or a category costs 1, or 0 when the input holds one
    value; a hierarchy label (values under it − 1) / (values − 1), counting input values."""
    present = sorted(set(cells), key=str)
    d = len(present)
    if not isinstance(metric, Hierarchical):
        if level == 0:
            return list(cells), [0.0] * len(cells)
        return ["*"] * len(cells), [1.0 if d > 1 else 0.0] * len(cells)
    h = metric.hierarchy
    row = {v: i for i, v in enumerate(h.values)}
    labels = [h.labels[level][h.codes[row[c], level]] for c in cells]
    under: dict[str, int] = {}
    for v in present:
        lab = h.labels[level][h.codes[row[v], level]]
        under[lab] = under.get(lab, 0) + 1
    return labels, [(under[lab] - 1) / (d - 1) if d > 1 else 0.0 for lab in labels]


def _heights(schema: Schema) -> list[int]:
    return [m.hierarchy.height if isinstance(m, Hierarchical) else 1
            for m in schema.quasi_identifiers.values()]  # fmt: skip


def _cut_lattice(table, schema, k, budget, ell, sens, low, high, star):
    """Every node of the cut lattice: its NCP loss (weighted, a suppressed record a full
    row), or None when it does not qualify."""
    metrics = list(schema.quasi_identifiers.values())
    cells = [table[name].tolist() for name in schema.quasi_identifiers]
    row = sum(m.weight for m in metrics)
    out = {}
    for node in itertools.product(*(range(a, b + 1) for a, b in zip(low, high, strict=True))):
        cols = [_column(cells[j], metrics[j], v) for j, v in enumerate(node)]
        members: dict = {}
        for i, key in enumerate(zip(*(c[0] for c in cols), strict=True)):
            members.setdefault(key, []).append(i)
        starred, total = [], 0.0
        for rows in members.values():
            if len(rows) < k or len({sens[i] for i in rows}) < ell:
                starred += rows
                total += row * len(rows)
            else:
                total += sum(
                    m.weight * c[1][i] for i in rows for m, c in zip(metrics, cols, strict=True)
                )
        ok = len(starred) <= budget
        if star and starred:  # rows of *: a class of their own, at least k meeting l
            ok = ok and len(starred) >= k and len({sens[i] for i in starred}) >= ell
        out[node] = total if ok else None
    return out


def _case(seed: int):
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(4, 22))
    table, schema = random_table(rng, n)
    k = min(int(rng.integers(2, 5)), n)
    limit = float(rng.choice([0.0, 0.1, 0.25]))
    heights = _heights(schema)
    names = list(schema.quasi_identifiers)
    low, high = [0] * len(names), list(heights)
    bounds: dict[str, dict[str, int]] = {"min_level": {}, "max_level": {}}
    if seed % 2:  # cut the lattice: a random floor and ceiling on some attributes
        for j, name in enumerate(names):
            a, b = sorted(int(v) for v in rng.integers(0, heights[j] + 1, 2))
            if rng.random() < 0.5:
                low[j] = a
                bounds["min_level"][name] = a
            if rng.random() < 0.5:
                high[j] = b if b >= low[j] else low[j]
                bounds["max_level"][name] = high[j]
    # l >= 2 on a column unique per record, or on three values, or no l
    ell = (1, 2, 3)[seed % 3]
    sens = rng.permutation(n) if seed % 4 < 2 else rng.integers(0, 3, n)
    return table, schema, k, limit, ell, sens, low, high, bounds


@pytest.mark.parametrize("seed", range(160))
def test_the_optimum_of_the_cut_lattice_priced_by_the_definition(seed):
    table, schema, k, limit, ell, sens, low, high, bounds = _case(seed)
    star = seed % 5 != 0
    budget = math.floor(limit * len(table) + 1e-9)
    every = _cut_lattice(table, schema, k, budget, ell, sens if ell >= 2 else [0] * len(table),
                         low, high, star)  # fmt: skip
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GlobalRecoding(k=k, suppression_limit=limit, l=ell, star_class=star,
                           min_level=bounds["min_level"] or None,
                           max_level=bounds["max_level"] or None)  # fmt: skip
    feasible = [v for v in every.values() if v is not None]
    if not feasible:
        with pytest.raises(InfeasibleError):
            model.fit(space, sens)
        return
    model.fit(space, sens)
    assert model.certificate_["optimal"]
    assert model.certificate_["lattice_nodes"] == len(every)
    assert all(a <= v <= b for a, v, b in zip(low, model.levels_, high, strict=True))
    assert every[model.levels_] == pytest.approx(model.loss_, abs=1e-9)  # it qualifies
    assert model.loss_ == pytest.approx(min(feasible), abs=1e-9)  # and none does better
    # cost_ is the NCP of the table published at the node, by the definition
    assert model.cost_ == pytest.approx(model.loss_, abs=1e-9)
    if all(m.weight == 1 for m in schema.quasi_identifiers.values()) and not any(
            v > 0 and not isinstance(m, Categorical | Hierarchical) for v, m in zip(
                model.levels_, schema.quasi_identifiers.values(), strict=True)):  # fmt: skip
        measured = ncp_loss(space.columns, model.partition_, levels=model.levels_)
        assert measured * len(table) * len(low) == pytest.approx(model.cost_, abs=1e-9)
    # the top (every attribute *) is flagged, never published as a release
    top = tuple(_heights(schema))
    assert (model.nothing_published_ is not None) == (
        model.levels_ == top or model.partition_.n_suppressed == len(table)
    )


@pytest.mark.parametrize("seed", range(60))
def test_a_search_stopped_at_once_has_a_qualifying_node_not_the_top(seed):
    table, schema, k, limit, ell, sens, low, high, bounds = _case(2 * seed)  # uncut
    budget = math.floor(limit * len(table) + 1e-9)
    every = _cut_lattice(table, schema, k, budget, 1, [0] * len(table), low, high, False)
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GlobalRecoding(k=k, suppression_limit=limit, star_class=False, time_limit=1e-9)
    top = tuple(high)
    if not any(v is not None for v in every.values()):
        with pytest.raises(InfeasibleError):
            model.fit(space)
        return
    model.fit(space)
    assert every[model.levels_] is not None  # a real candidate, whatever the time
    if any(v is not None for node, v in every.items() if node != top):
        assert model.levels_ != top
        assert model.nothing_published_ is None
    lower = model.certificate_["lattice_lower_bound"]
    assert lower <= min(v for v in every.values() if v is not None) + 1e-9


def test_a_bounded_heap_keeps_its_certificate_true():
    rng = np.random.default_rng(4)
    table, schema = random_table(rng, 300, ("hierarchical",))
    space = MetricSpace.from_table(table, schema, norm=1)
    model = GlobalRecoding(k=5, suppression_limit=0.02)
    codes, tables = _lattice_tables(model.cost(space), None)
    exact = search(tables, 5, 6)
    small = search(tables, 5, 6, node_limit=4)  # the heap's worse half dropped at once
    assert exact is not None and small is not None and exact.optimal
    assert small.lower_bound <= exact.loss + 1e-9 <= small.loss + 2e-9
    assert small.optimal == (small.lower_bound >= small.loss)


def test_level_bounds_are_checked():
    table = pd.DataFrame({"sex": list("ffmm"), "city": list("abab")})
    space = MetricSpace.from_table(table, Schema({"sex": Categorical(), "city": Categorical()}))
    cases = [
        ({"min_level": {"zip": 1}}, "'zip' is not a quasi-identifier"),
        ({"max_level": {"sex": 2}}, "'sex' has levels 0 .its values. to 1"),
        ({"min_level": {"sex": 1}, "max_level": {"sex": 0}}, "is above"),
        ({"min_level": {"sex": -1}}, "whole number"),
        ({"max_level": {"sex": 1.5}}, "whole number"),
        ({"max_level": {"sex": True}}, "whole number"),
        ({"min_level": [1]}, "must map"),
    ]
    for given, words in cases:
        with pytest.raises(ParameterError, match=words) as caught:
            GlobalRecoding(k=2, **given).fit(space)
        assert "\n" not in str(caught.value)


def test_an_all_star_optimum_is_found_and_flagged():
    """Only the top qualifies: the estimator reports it (the lattice's optimum) with the
    reason it publishes nothing; anonymize refuses it."""
    table = pd.DataFrame({"a": list("abcdef"), "b": list("uvwxyz")})
    space = MetricSpace.from_table(table, Schema({"a": Categorical(), "b": Categorical()}))
    model = GlobalRecoding(k=3, suppression_limit=0.0).fit(space)
    assert model.levels_ == (1, 1) and model.certificate_["optimal"]
    assert "every quasi-identifier *" in model.nothing_published_
    assert "\n" not in model.nothing_published_
    # what to relax names k and the limit, and l or a min_level only where they were given
    assert "l=" not in model.nothing_published_ and "min_level" not in model.nothing_published_
    floored = GlobalRecoding(k=3, suppression_limit=0.0, min_level={"a": 1}).fit(space)
    assert "min_level" in floored.nothing_published_ and "l=" not in floored.nothing_published_
    cut = GlobalRecoding(k=3, suppression_limit=1.0, max_level={"b": 0}).fit(space)
    assert cut.partition_.n_suppressed == 6  # b kept at its values: every record suppressed
    assert "every record suppressed" in cut.nothing_published_


def test_a_cut_lattice_where_nothing_qualifies_names_the_ceiling():
    table = pd.DataFrame({"a": list("abcdef"), "b": list("uvwxyz")})
    space = MetricSpace.from_table(table, Schema({"a": Categorical(), "b": Categorical()}))
    with pytest.raises(InfeasibleError, match=r"within max_level=\{'b': 0\} qualifies") as caught:
        GlobalRecoding(k=3, suppression_limit=0.0, max_level={"b": 0}).fit(space)
    assert "\n" not in str(caught.value)
