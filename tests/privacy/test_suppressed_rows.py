"""verify reads suppressed records published as rows of ``*``: counted apart, reconciled
with the metadata's ``n_suppressed``, and — a group an attacker can point at — none or at
least k of them; in one table and part by part."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from strategies import LETTERS

from incrowd import (
    Categorical,
    Diversity,
    Hierarchical,
    Partition,
    Schema,
    release_centers,
    release_generalized,
    verify,
)
from incrowd.privacy.verify import check_part, finish_check, merge_checks, star_rows

QI = ["sex", "letter"]


def star_release(labels=(0, 0, 0, 1, 1, 1, -1, -1, -1), **keywords):
    n = len(labels)
    letters = {0: "ab", 1: "cd", 2: "e", -1: "a"}  # crowd 0 publishes ab, crowd 1 cd
    table = pd.DataFrame(
        {
            "sex": ["F" if c in (0, -1) else "M" for c in labels],
            "letter": [letters[c][i % len(letters[c])] for i, c in enumerate(labels)],
            "disease": (["flu", "cold", "none"] * n)[:n],
        }
    )
    schema = Schema({"sex": Categorical(), "letter": Hierarchical(LETTERS)}, sensitive=["disease"])
    part = Partition(np.array(labels))
    return release_generalized(table, part, schema, seed=1, suppressed="star", **keywords)


def test_star_rows_are_counted_apart_and_must_be_none_or_k():
    rel = star_release()
    assert star_rows(rel.table, QI).sum() == 3
    report = verify(rel, QI, 3)
    assert report.ok, report.problems
    assert (report.n_suppressed_rows, report.n_records, report.n_rows) == (3, 6, 9)
    assert report.n_classes == 2 and report.k_achieved == 3
    # two rows of * are a group of two: a person missing from the published values is one
    few = star_release(labels=(0, 0, 0, 1, 1, 1, -1, -1))
    report = verify(few, QI, 3)
    assert any("fewer than k=3" in p for p in report.problems), report.problems


def test_a_star_count_that_disagrees_with_the_metadata_fails():
    rel = star_release()
    more = rel.metadata.replace(n_suppressed=4, n_input=10)
    report = verify(rel.table, QI, 3, metadata=more)
    assert any("shows 3 suppressed record(s) as rows of *" in p for p in report.problems)
    fewer = rel.metadata.replace(n_suppressed=2, n_input=8)
    report = verify(rel.table, QI, 3, metadata=fewer)
    assert not report.ok  # the third row of * is a kept record: the counts do not add up
    assert any("holds 7 records" in p for p in report.problems)


def test_a_real_class_below_k_still_fails_beside_star_rows():
    rel = star_release(labels=(0, 0, 0, 1, 1, 2, -1, -1, -1))
    report = verify(rel, QI, 3)
    assert not report.ok and report.n_suppressed_rows == 3
    assert any("fewer than k=3" in p for p in report.problems)


def test_without_metadata_rows_of_stars_are_read_as_suppressed():
    table = pd.DataFrame({"a": ["x", "x", "*", "y", "y", "*"], "b": ["1", "1", "*", "2", "2", "*"]})
    report = verify(table, ["a", "b"], 2)
    assert report.ok and report.n_suppressed_rows == 2 and report.n_records == 4
    assert not verify(table.head(5), ["a", "b"], 2).ok  # one row of *: a group of one
    # a row of * in only some quasi-identifiers is a class like any other
    half = table.assign(b=["1", "1", "3", "2", "2", "*"])
    assert not verify(half, ["a", "b"], 2).ok


def test_a_node_at_the_top_of_every_hierarchy_is_one_class_not_suppressed():
    rel = star_release(labels=(0, 0, 0, 0, 0, 0, 0, 0), levels=[1, 2])
    assert star_rows(rel.table, QI).all() and rel.metadata.n_suppressed == 0
    report = verify(rel, QI, 3)
    assert report.ok, report.problems
    assert (report.n_suppressed_rows, report.n_records, report.n_classes) == (0, 8, 1)


def test_written_star_releases_verify_from_the_file_alone(tmp_path):
    rel = star_release()
    for name in ("out.csv", "out.parquet"):
        rel.write(tmp_path / name)
        report = verify(tmp_path / name, QI, 3)
        assert report.ok and report.n_suppressed_rows == 3, report.problems


def test_part_checks_count_star_rows_across_parts():
    rel = star_release()
    meta = rel.metadata
    parts = [rel.table.iloc[:3], rel.table.iloc[3:5], rel.table.iloc[5:]]
    merged = merge_checks(check_part(p, QI, meta) for p in parts)
    report = finish_check(merged, 3, meta, [], "parts")
    assert report.ok and report.n_suppressed_rows == 3 and report.n_records == 6
    wrong = meta.replace(n_suppressed=4, n_input=10)
    report = finish_check(merged, 3, wrong, [], "parts")
    assert any("metadata says 4 were suppressed" in p for p in report.problems)


def test_diversity_is_checked_on_the_star_rows_as_one_class():
    spec = Diversity(l=3)  # each crowd holds flu, cold and none
    rel = star_release(labels=(0, 1, 0, 1, 0, 1, -1, -1, -1))  # the rows of *: all three
    assert verify(rel, QI, 3, diversity=spec).ok
    rel = star_release(labels=(-1, -1, 0, -1, 0, 1, 0, 1, 1, 1, 1, 1))  # of *: flu, cold, flu
    problems = verify(rel, QI, 3, diversity=spec).problems
    assert len(problems) == 1 and "break" in problems[0], problems


def test_a_centers_release_with_star_rows_verifies():
    table = pd.DataFrame({"sex": ["F", "F", "F", "M", "M", "M", "F"], "disease": list("abcabca")})
    schema = Schema({"sex": Categorical()}, sensitive=["disease"])
    part = Partition(np.array([0, 0, 0, 1, 1, 1, -1]))
    rel = release_centers(table, part, schema, seed=0, suppressed="star")
    report = verify(rel, ["sex"], 3)
    assert (report.n_suppressed_rows, report.n_records) == (1, 6)
    assert not report.ok and "fewer than k=3" in report.problems[0]


@pytest.mark.parametrize("suppressed", ["star", "drop"])
def test_star_and_drop_releases_agree_on_everything_but_the_rows(suppressed):
    table = pd.DataFrame({"sex": list("FFFMMMFFF"), "letter": list("abcdeabab")})
    schema = Schema({"sex": Categorical(), "letter": Hierarchical(LETTERS)})
    part = Partition(np.array([0, 0, 0, 1, 1, 1, -1, -1, -1]))
    rel = release_generalized(table, part, schema, seed=0, suppressed=suppressed)
    report = verify(rel, QI, 3)
    assert report.ok and report.n_records == 6
    assert report.n_suppressed_rows == (3 if suppressed == "star" else 0)
