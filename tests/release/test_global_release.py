"""Releases of a global recoding: fixed levels (one set of categories for the whole table)
and suppressed records published as rows of ``*``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from strategies import LETTERS

from incrowd import (
    Categorical,
    Hierarchical,
    Numeric,
    ParameterError,
    Partition,
    Schema,
    release_centers,
    release_generalized,
    release_microaggregated,
)
from incrowd.io.metadata import ReleaseMetadata
from incrowd.release import read_release


def table_and_schema():
    table = pd.DataFrame(
        {
            "name": ["ann", "bob", "cy", "dee", "eve", "fay", "gus"],
            "age": [30, 34, 31, 50, 50, 50, 70],
            "sex": ["F", "F", "F", "F", "M", "F", "M"],
            "letter": ["a", "a", "a", "c", "d", "e", "b"],
            "note": ["x", "y", "z", "u", "v", "w", "t"],
            "disease": ["flu", "cold", "flu", "none", "flu", "none", "hiv"],
        }
    )
    schema = Schema(
        {"age": Numeric(), "sex": Categorical(), "letter": Hierarchical(LETTERS)},
        sensitive=["disease"],
        insensitive=["note"],
        identifiers=["name"],
    )
    return table, schema, Partition(np.array([0, 0, 0, 1, 1, 1, -1]))


def qi_rows(frame: pd.DataFrame) -> set[tuple]:
    return set(map(tuple, frame[["age", "sex", "letter"]].astype(str).to_numpy()))


def test_a_crowd_that_agrees_below_the_fixed_level_is_published_at_it():
    table, schema, part = table_and_schema()
    own = release_generalized(table, part, schema, seed=0)
    assert qi_rows(own.table) == {("30-34", "F", "a"), ("50", "*", "*")}
    fixed = release_generalized(table, part, schema, seed=0, levels=[None, 1, 1])
    # crowd 0 agrees on "a" (level 0) and on "F": published as "ab" and "*"; crowd 1 stays
    # at the top, above the fixed level
    assert qi_rows(fixed.table) == {("30-34", "*", "ab"), ("50", "*", "*")}
    assert fixed.metadata.levels == {"sex": 1, "letter": 1}
    assert fixed.metadata.categories == {"sex": (("*", 6),), "letter": (("ab", 3), ("*", 3))}
    # level 0 (or None) everywhere is the release of the crowds' own levels, byte for byte
    same = release_generalized(table, part, schema, seed=0, levels=[0, 0, 0])
    pd.testing.assert_frame_equal(same.table, own.table)
    assert own.metadata.levels is None and own.metadata.categories is None


def test_levels_a_column_cannot_take_are_refused_by_name():
    table, schema, part = table_and_schema()
    for levels, match in (
        ([1, None, None], "'age'.*numeric column has no levels"),
        ([None, 2, None], "'sex'.*highest level is 1"),
        ([None, None, 3], "'letter'.*highest level is 2"),
        ([None, None, -1], "'letter' must be a whole number"),
        ([None, 1], "one level per quasi-identifier"),
    ):
        with pytest.raises(ParameterError, match=match):
            release_generalized(table, part, schema, levels=levels)
    with pytest.raises(ParameterError, match="sets"):
        release_generalized(table, part, schema, levels=[0, 1, 1], generalize="sets")
    with pytest.raises(ParameterError, match="suppressed must be"):
        release_generalized(table, part, schema, suppressed="blank")  # type: ignore[arg-type]


@pytest.mark.parametrize("form", ["generalized", "microaggregated"])
def test_suppressed_records_are_rows_of_stars_with_their_values_kept(form):
    table, schema, part = table_and_schema()
    make = release_generalized if form == "generalized" else release_microaggregated
    dropped = make(table, part, schema, seed=0)
    starred = make(table, part, schema, seed=0, suppressed="star")
    assert len(dropped.table) == 6 and len(starred.table) == len(table) == 7
    stars = starred.table[(starred.table[["age", "sex", "letter"]] == "*").all(axis=1)]
    assert stars[["note", "disease"]].values.tolist() == [["t", "hiv"]]
    assert sorted(starred.table["disease"]) == sorted(table["disease"])
    meta = starred.metadata
    assert (meta.suppressed_rows, meta.n_released, meta.n_suppressed) == ("star", 6, 1)
    assert dropped.metadata.suppressed_rows is None and dropped.metadata.suppressed_form == "drop"
    # the other rows are those of the release without stars
    rest = starred.table.drop(index=stars.index)
    if form == "generalized":
        assert sorted(rest["age"]) == sorted(dropped.table["age"])
    else:  # numbers as text, so that * fits: the same numbers
        assert sorted(pd.to_numeric(rest["age"])) == sorted(dropped.table["age"])
    assert sorted(rest["disease"]) == sorted(dropped.table["disease"])


def test_a_star_release_is_shuffled_and_reproducible(tmp_path):
    table, schema, part = table_and_schema()
    one = release_generalized(table, part, schema, seed=3, suppressed="star")
    two = release_generalized(table, part, schema, seed=3, suppressed="star")
    pd.testing.assert_frame_equal(one.table, two.table)
    orders = {
        tuple(release_generalized(table, part, schema, seed=s, suppressed="star").table["note"])
        for s in range(6)
    }
    assert len(orders) > 1
    one.write(tmp_path / "out.csv")
    back = read_release(tmp_path / "out.csv")
    assert len(back.table) == 7
    assert ReleaseMetadata.of(back.metadata).suppressed_rows == "star"


def test_the_centers_form_publishes_a_star_row_of_count_one_and_no_radius():
    table, schema, part = table_and_schema()
    rel = release_centers(table, part, schema, seed=0, suppressed="star")
    out = rel.table
    assert len(out) == 3 and out["count"].sum() == 7
    star = out[out["letter"] == "*"]
    star = star[star["age"] == "*"]
    assert len(star) == 1 and star["sex"].iloc[0] == "*"
    assert star["count"].iloc[0] == 1 and np.isnan(star["radius"].iloc[0])
    assert json.loads(star["disease"].iloc[0]) == {"hiv": 1}
    assert rel.metadata.suppressed_rows == "star" and rel.metadata.n_suppressed == 1
    plain = release_centers(table, part, schema, seed=0)
    assert len(plain.table) == 2 and plain.table["age"].dtype.kind == "f"
