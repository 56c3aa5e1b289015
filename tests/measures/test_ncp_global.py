"""The loss of a global recoding's release, three ways: the metadata's figures (a partition
at fixed levels), ``incrowd.measures.loss`` from the published table, and
``benchmarks/ncp_checker.py`` (shares no code with incrowd) — with suppressed records left
out or published as rows of ``*``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from incrowd import Categorical, Hierarchical, Hierarchy, Partition, Schema, release_generalized
from incrowd.data.columns import encode_qis
from incrowd.measures.loss import (
    discernibility,
    evaluate_release,
    ncp_by_attribute,
    ncp_loss,
    published_discernibility,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import ncp_checker  # noqa: E402

AGES = [[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", f"{v // 40 * 40}-{v // 40 * 40 + 39}",
         "*"] for v in range(0, 120)]  # fmt: skip
PLACES = [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"], ["c1", "C", "*"]]
QIS = ["age", "place", "sex"]


def global_recoding(seed: int, node: tuple[int, int, int], k: int = 3):
    """A random table and the partition of ``node``: classes of equal generalized values,
    the records of classes below k suppressed (what a global recoding publishes)."""
    rng = np.random.default_rng(seed)
    n = 40
    table = pd.DataFrame(
        {
            "age": rng.integers(15, 95, n),
            "place": rng.choice(["a1", "a2", "b1", "b2", "c1"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "none"], n),
        }
    )
    schema = Schema(
        {
            "age": Hierarchical(Hierarchy.from_rows(AGES)),
            "place": Hierarchical(Hierarchy.from_rows(PLACES)),
            "sex": Categorical(),
        },
        sensitive=["disease"],
    )
    columns = encode_qis(table, schema)
    keys = np.stack(
        [columns[0].codes[:, node[0]], columns[1].codes[:, node[1]],
         columns[2].codes if node[2] == 0 else np.zeros(n, dtype=np.intp)], axis=1,
    )  # fmt: skip
    _, labels, counts = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    labels = labels.reshape(-1)
    small = counts[labels] < k
    kept = np.unique(labels[~small])
    labels = np.where(small, -1, np.searchsorted(kept, labels))
    return table, schema, columns, Partition(labels)


@pytest.mark.parametrize("suppressed", ["drop", "star"])
@pytest.mark.parametrize("node", [(1, 2, 1), (1, 1, 0), (1, 0, 1), (2, 1, 1), (3, 2, 1)])
@pytest.mark.parametrize("seed", range(3))
def test_metadata_ncp_equals_the_published_tables_three_ways(seed, node, suppressed):
    table, schema, columns, part = global_recoding(seed, node)
    release = release_generalized(table, part, schema, seed=seed, levels=list(node),
                                  suppressed=suppressed)  # fmt: skip
    published = release.table
    # every kept record is at the node's levels (the crowds agree on nothing finer)
    kept = published[~(published[QIS] == "*").all(axis=1)] if suppressed == "star" else published
    for j, name in enumerate(("age", "place")):
        levels = {schema.quasi_identifiers[name].hierarchy.level_of_label(c)[0]
                  for c in kept[name]}  # fmt: skip
        assert levels <= {node[j]} or node[j] == 0
    assert len(published) == len(table) - (part.n_suppressed if suppressed == "drop" else 0)
    metadata = ncp_loss(columns, part, levels=list(node))
    evaluated = evaluate_release(table, published, schema, release.metadata)
    independent = ncp_checker.ncp(table.astype(str), published.astype(str), QIS,
                                  {"age": AGES, "place": PLACES})  # fmt: skip
    assert metadata == pytest.approx(independent, abs=1e-12)
    assert evaluated["ncp"] == pytest.approx(independent, abs=1e-12)
    assert evaluated["discernibility"] == discernibility(part)
    assert (evaluated["n_released"], evaluated["n_suppressed"]) == (
        part.n_assigned, part.n_suppressed)  # fmt: skip
    # the functions a run calls on its own release, told how many rows of * it holds
    rows = part.n_suppressed if suppressed == "star" else 0
    by_attribute = ncp_by_attribute(published, columns, part.n_suppressed, suppressed_rows=rows)
    assert float(np.mean(list(by_attribute.values()))) == pytest.approx(metadata, abs=1e-12)
    assert published_discernibility(published, schema, "generalized", part.n,
                                    part.n_suppressed, suppressed_rows=rows) == (
        discernibility(part))  # fmt: skip


def test_without_fixed_levels_the_crowds_own_levels_are_priced():
    table, schema, columns, part = global_recoding(0, (1, 1, 0))
    own = release_generalized(table, part, schema, seed=0).table
    fixed = release_generalized(table, part, schema, seed=0, levels=[2, 1, 1]).table
    hierarchies = {"age": AGES, "place": PLACES}
    independent = [ncp_checker.ncp(table.astype(str), t.astype(str), QIS, hierarchies)
                   for t in (own, fixed)]  # fmt: skip
    assert ncp_loss(columns, part) == pytest.approx(independent[0], abs=1e-12)
    assert ncp_loss(columns, part, levels=[2, 1, 1]) == pytest.approx(independent[1], abs=1e-12)
    assert independent[1] > independent[0]


def test_a_star_row_is_priced_as_a_suppressed_record_whatever_the_hierarchys_top():
    """A hierarchy whose top is not ``*`` (a prefix mask): the star row's ``*`` is no label
    of it, and costs 1 per cell as a suppressed record."""
    zips = ["02138", "02139", "02142", "02139", "02138", "02142", "10002"]
    table = pd.DataFrame({"zip": zips})
    schema = Schema({"zip": Hierarchical(Hierarchy.from_prefix(zips))})
    part = Partition(np.array([0, 0, 0, 0, 0, 0, -1]))
    release = release_generalized(table, part, schema, seed=0, suppressed="star")
    assert sorted(release.table["zip"]) == ["*"] + ["021**"] * 6
    columns = encode_qis(table, schema)
    evaluated = evaluate_release(table, release.table, schema, release.metadata)
    assert evaluated["ncp"] == pytest.approx(ncp_loss(columns, part), abs=1e-12)
    assert evaluated["n_suppressed"] == 1 and evaluated["n_released"] == 6


def test_rows_of_stars_are_scored_by_risk_as_one_class():
    from incrowd.measures.risk import assess_risk

    table, schema, _, part = global_recoding(1, (2, 1, 1))
    assert part.n_suppressed
    figures = {}
    for suppressed in ("drop", "star"):
        release = release_generalized(table, part, schema, seed=1, levels=[2, 1, 1],
                                      suppressed=suppressed)  # fmt: skip
        report = assess_risk(table, release.table, schema, k=3, metadata=release.metadata)
        figures[suppressed] = report.to_dict()
    # a person missing from the published values is one of the rows of *: they count
    assert figures["star"]["n_released"] == part.n_assigned + part.n_suppressed
    assert figures["drop"]["n_released"] == part.n_assigned


def test_taking_suppressed_rows_out_of_a_table():
    from incrowd.measures.loss import without_suppressed_rows

    table = pd.DataFrame({"a": ["*", "x", "*", "*"], "b": ["*", "*", "*", "*"],
                          "count": [2, 3, 1, 4]})  # fmt: skip
    records = without_suppressed_rows(table, ["a", "b"], "generalized", 2)
    assert records.index.tolist() == [1, 3]
    centers = without_suppressed_rows(table, ["a", "b"], "centers", 4)
    assert centers["count"].tolist() == [3, 3]  # rows of 2 and 1 taken whole, 1 of the 4
    assert without_suppressed_rows(table, ["a", "b"], "centers", 0) is table
