"""The NCP incrowd reports is the NCP of the note every peer is scored by, to 1e-9.

Each release is scored three ways: the metadata incrowd writes, ``incrowd.measures.loss`` (from
the published table), and ``benchmarks/ncp_checker.py``, an implementation of the note that
shares no code with incrowd.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

import incrowd
from incrowd import Hierarchical, Hierarchy, Numeric, Schema
from incrowd.datasets import ADULT_QIS, adult_hierarchy_path
from incrowd.measures.loss import evaluate_release

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import ncp_checker  # noqa: E402


def _hierarchies(names):  # noqa: ANN001, ANN202
    return {q: ncp_checker.read_hierarchy(adult_hierarchy_path(q)) for q in names}


@pytest.mark.parametrize(
    ("age", "form", "method"),
    [("hierarchy", "levels", None), ("numeric", "sets", None), ("numeric", "levels", "forest")],
)
def test_adult_release_scored_three_ways(age, form, method) -> None:
    table, schema = incrowd.load_adult(age=age)
    release = incrowd.anonymize(table, schema, 5, method=method, generalize=form, seed=3)
    named = [q for q in ADULT_QIS if age == "hierarchy" or q != "age"]
    independent = ncp_checker.ncp(
        table.astype(str), release.table.astype(str), list(ADULT_QIS), _hierarchies(named)
    )
    reported = release.metadata["loss"]["ncp"]
    evaluated = evaluate_release(table, release.table, schema, release.metadata)["ncp"]
    assert reported == pytest.approx(independent, abs=1e-9)
    assert evaluated == pytest.approx(independent, abs=1e-9)
    # with unit weights and the NCP loss, the cost the method minimized is the same figure
    assert release.metadata["cost"] / (len(table) * len(ADULT_QIS)) == pytest.approx(
        independent, abs=1e-9
    )


def test_values_only_in_the_hierarchy_do_not_count() -> None:
    rows = [["a1", "A", "*"], ["a2", "A", "*"], ["a3", "A", "*"], ["b1", "B", "*"],
            ["b2", "B", "*"], ["c1", "C", "*"]]  # fmt: skip
    hierarchy = Hierarchy.from_rows(rows)
    ages = Hierarchy.from_rows([[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", "*"]
                                for v in range(0, 100)])  # fmt: skip
    table = pd.DataFrame({
        "h": ["a1", "a2", "b1", "b2", "a1", "b1"],
        "age": [21, 25, 33, 38, 29, 31],
    })  # fmt: skip
    schema = Schema({"h": Hierarchical(hierarchy), "age": Hierarchical(ages)})
    release = incrowd.anonymize(table, schema, 3, method="forest", seed=0)
    # crowds {a1, a2, a1 | 21, 25, 29} and {b1, b2, b1 | 33, 38, 31}: labels A and B cover
    # 2 of the 4 input values (a3, c1 are only in the hierarchy): 1/3 each; 20-29 and
    # 30-39 clipped to the input's 21..38 cover 8 and 8 of its 17
    assert sorted(release.table["h"]) == ["A"] * 3 + ["B"] * 3
    expected = (6 * (1 / 3) + 3 * (8 / 17) + 3 * (8 / 17)) / 12
    assert release.metadata["loss"]["ncp"] == pytest.approx(expected, abs=1e-12)
    independent = ncp_checker.ncp(
        table.astype(str), release.table.astype(str), ["h", "age"],
        {"h": rows, "age": [[str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", "*"]
                            for v in range(100)]},
    )  # fmt: skip
    assert independent == pytest.approx(expected, abs=1e-12)


def test_value_sets_count_input_values_only() -> None:
    table = pd.DataFrame({"c": ["x", "y", "x", "y"], "n": [1.0, 2.0, 3.0, 4.0]})
    schema = Schema({"c": Hierarchical(Hierarchy.from_rows(
        [["x", "*"], ["y", "*"], ["z", "*"]])), "n": Numeric()})  # fmt: skip
    release = incrowd.anonymize(table, schema, 4, generalize="sets", seed=0)
    # one crowd: {x|y} covers both input values (z is not in the input): 1; range 3/3
    assert release.metadata["loss"]["ncp"] == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(4))
def test_a_digit_coded_table_is_scored_with_codes_as_labels(seed) -> None:
    """Zip codes read as codes (leading zeros: inferred) are generalized by prefix masking
    and priced as labels, not as the number ranges their digits would spell (issue 45)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    zips = [f"{z:05d}" for z in rng.choice(
        [2138, 2139, 2142, 2210, 10002, 10003, 10013, 60615, 60616, 501], 80)]  # fmt: skip
    table = pd.DataFrame({"zip": zips, "age": rng.integers(20, 80, 80).astype(str)})
    schema = Schema.infer(table, ["zip", "age"])
    assert schema.quasi_identifiers["zip"].cells.kind == "code"
    release = incrowd.anonymize(table, schema, 4, seed=seed)
    prefix_rows = [[z[: 5 - j] + "*" * j for j in range(5)] + ["*"] for z in sorted(set(zips))]
    independent = ncp_checker.ncp(table, release.table.astype(str), ["zip", "age"],
                                  {"zip": prefix_rows}, labels=frozenset({"zip"}))  # fmt: skip
    as_numbers = ncp_checker.ncp(table, release.table.astype(str), ["zip", "age"],
                                 {"zip": prefix_rows})  # fmt: skip
    assert release.metadata.loss["ncp"] == pytest.approx(independent, abs=1e-9)
    assert evaluate_release(table, release.table, schema, release.metadata)["ncp"] == (
        pytest.approx(independent, abs=1e-9))  # fmt: skip
    assert as_numbers != pytest.approx(independent, abs=1e-6)  # the misreading would show


def test_a_hierarchy_of_codes_made_in_python_is_priced_as_labels() -> None:
    """A prefix hierarchy built by hand (no column type) over zips with leading zeros: the
    metadata prices its labels as codes, as the follow-up commands (which infer the type)
    and the independent checker do."""
    zips = ["02138", "02139", "02142", "02210", "10002", "10003"] * 10
    table = pd.DataFrame({"zip": zips})
    schema = Schema({"zip": Hierarchical(Hierarchy.from_prefix(zips))})
    release = incrowd.anonymize(table, schema, 20, seed=0)
    rows = [[z[: 5 - j] + "*" * j for j in range(5)] + ["*"] for z in sorted(set(zips))]
    independent = ncp_checker.ncp(table, release.table.astype(str), ["zip"], {"zip": rows},
                                  labels=frozenset({"zip"}))  # fmt: skip
    assert release.metadata.loss["ncp"] == pytest.approx(independent, abs=1e-9)
    inferred = Schema.infer(table, ["zip"])
    assert evaluate_release(table, release.table, inferred, release.metadata)["ncp"] == (
        pytest.approx(independent, abs=1e-9))  # fmt: skip
