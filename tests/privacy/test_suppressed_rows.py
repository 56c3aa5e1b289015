"""verify reads suppressed records published as rows of ``*``: not a class, counted apart,
reconciled with the metadata's ``n_suppressed``; in one table and part by part."""

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


def star_release(labels=(0, 0, 0, 1, 1, 1, -1, -1), **keywords):
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


def test_fewer_than_k_star_rows_are_suppressed_records_not_a_class():
    rel = star_release()
    assert star_rows(rel.table, QI).sum() == 2
    report = verify(rel, QI, 3)
    assert report.ok, report.problems
    assert (report.n_suppressed_rows, report.n_records, report.n_rows) == (2, 6, 8)
    assert report.n_classes == 2 and report.k_achieved == 3
    # read as a release that drops its suppressed records, the two rows are a class below k
    drop = rel.metadata.replace(suppressed_rows=None, n_released=8, n_suppressed=0)
    assert not verify(rel.table, QI, 3, metadata=drop).ok


def test_a_star_count_that_disagrees_with_the_metadata_fails():
    rel = star_release()
    more = rel.metadata.replace(n_suppressed=3, n_input=9)
    report = verify(rel.table, QI, 3, metadata=more)
    assert any("shows 2 suppressed record(s) as rows of *" in p for p in report.problems)
    fewer = rel.metadata.replace(n_suppressed=1, n_input=7)
    report = verify(rel.table, QI, 3, metadata=fewer)
    assert not report.ok  # the third row of * is a kept record: the counts do not add up
    assert any("holds 7 records" in p for p in report.problems)


def test_a_real_class_below_k_still_fails_beside_star_rows():
    rel = star_release(labels=(0, 0, 0, 1, 1, 2, -1, -1))
    report = verify(rel, QI, 3)
    assert not report.ok and report.n_suppressed_rows == 2
    assert any("fewer than k=3" in p for p in report.problems)


def test_without_metadata_rows_of_stars_are_read_as_suppressed():
    table = pd.DataFrame({"a": ["x", "x", "*", "y", "y"], "b": ["1", "1", "*", "2", "2"]})
    report = verify(table, ["a", "b"], 2)
    assert report.ok and report.n_suppressed_rows == 1 and report.n_records == 4
    # a row of * in only some quasi-identifiers is a class like any other
    half = table.assign(b=["1", "1", "3", "2", "2"])
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
        assert report.ok and report.n_suppressed_rows == 2, report.problems


def test_part_checks_count_star_rows_across_parts():
    rel = star_release()
    meta = rel.metadata
    parts = [rel.table.iloc[:3], rel.table.iloc[3:5], rel.table.iloc[5:]]
    merged = merge_checks(check_part(p, QI, meta) for p in parts)
    report = finish_check(merged, 3, meta, [], "parts")
    assert report.ok and report.n_suppressed_rows == 2 and report.n_records == 6
    wrong = meta.replace(n_suppressed=3, n_input=9)
    report = finish_check(merged, 3, wrong, [], "parts")
    assert any("metadata says 3 were suppressed" in p for p in report.problems)


def test_diversity_is_checked_on_the_classes_without_the_star_rows():
    rel = star_release(labels=(0, 1, 0, 1, 0, 1, -1, -1))
    spec = Diversity(l=3)  # each crowd holds flu, cold and none; the star rows flu and cold
    report = verify(rel, QI, 3, diversity=spec)
    assert report.ok, report.problems
    # read without the star form, the two rows are one more class, of two values
    drop = rel.metadata.replace(suppressed_rows=None, n_released=8, n_suppressed=0)
    problems = verify(rel.table, QI, 2, metadata=drop, diversity=spec).problems
    assert problems == ("1 class(es) break l-diversity (distinct, l=3) on 'disease'",) or (
        len(problems) == 1 and "break" in problems[0]
    )


def test_a_centers_release_with_star_rows_verifies():
    table = pd.DataFrame({"sex": ["F", "F", "F", "M", "M", "M", "F"], "disease": list("abcabca")})
    schema = Schema({"sex": Categorical()}, sensitive=["disease"])
    part = Partition(np.array([0, 0, 0, 1, 1, 1, -1]))
    rel = release_centers(table, part, schema, seed=0, suppressed="star")
    report = verify(rel, ["sex"], 3)
    assert report.ok, report.problems
    assert (report.n_suppressed_rows, report.n_records) == (1, 6)


@pytest.mark.parametrize("suppressed", ["star", "drop"])
def test_star_and_drop_releases_agree_on_everything_but_the_rows(suppressed):
    table = pd.DataFrame({"sex": list("FFFMMMF"), "letter": list("abcdeab")})
    schema = Schema({"sex": Categorical(), "letter": Hierarchical(LETTERS)})
    part = Partition(np.array([0, 0, 0, 1, 1, 1, -1]))
    rel = release_generalized(table, part, schema, seed=0, suppressed=suppressed)
    report = verify(rel, QI, 3)
    assert report.ok and report.n_records == 6
    assert report.n_suppressed_rows == (1 if suppressed == "star" else 0)
