import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import LETTERS, tables

from incrowd import (
    METHODS,
    Categorical,
    Hierarchical,
    InfeasibleError,
    InputError,
    Numeric,
    ParameterError,
    Partition,
    Schema,
    SchemaError,
    anonymize,
    release_centers,
    release_generalized,
    release_microaggregated,
    verify,
)
from incrowd.release import metadata_path
from incrowd.testing import configured

FORMS = ("generalized", "microaggregated", "centers")


def small_table():
    table = pd.DataFrame(
        {
            "name": ["ann", "bob", "cy", "dee", "eve", "fay"],
            "age": [30, 34, 31, 50, 50, 50],
            "sex": ["F", "M", "F", "F", "F", "F"],
            "letter": ["a", "b", "a", "c", "d", "e"],
            "disease": ["flu", "cold", "flu", "none", "flu", "none"],
        }
    )
    schema = Schema(
        {"age": Numeric(), "sex": Categorical(), "letter": Hierarchical(LETTERS)},
        sensitive=["disease"],
        identifiers=["name"],
    )
    return table, schema, Partition(np.array([0, 0, 0, 1, 1, 1]))


def test_generalized_cells():
    table, schema, part = small_table()
    out = release_generalized(table, part, schema, seed=0).table
    assert list(out.columns) == ["age", "sex", "letter", "disease"]  # no identifier
    rows = set(map(tuple, out[["age", "sex", "letter"]].to_numpy()))
    assert rows == {("30-34", "*", "ab"), ("50", "F", "*")}
    assert sorted(out["disease"]) == sorted(table["disease"])


def test_microaggregated_cells():
    table, schema, part = small_table()
    out = release_microaggregated(table, part, schema, seed=0).table
    rows = set(map(tuple, out[["age", "sex", "letter"]].to_numpy()))
    assert len(rows) == 2  # one published QI tuple per crowd
    first = out[out["age"] < 40]
    assert first["age"].iloc[0] == pytest.approx(95 / 3)
    assert set(first["sex"]) == {"F"} and set(first["letter"]) == {"a"}  # modes
    second = out[out["age"] == 50]
    assert set(second["letter"]) == {"c"}  # three-way tie: the smallest value


def test_centers_rows_counts_radii_and_multisets():
    table, schema, part = small_table()
    rel = release_centers(table, part, schema, seed=0)
    out = rel.table.sort_values("age").reset_index(drop=True)
    assert list(out.columns) == ["age", "sex", "letter", "count", "radius", "disease"]
    assert out["count"].tolist() == [3, 3]
    assert out["age"].tolist() == [pytest.approx(95 / 3), 50.0]
    assert out["letter"].tolist() == ["ab", "*"]  # lowest common ancestors
    assert json.loads(out["disease"][0]) == {"cold": 1, "flu": 2}
    # The radius is measured from the published center in the space (age scaled by 20).
    # Crowd 2: age and sex agree; letters c, d, e meet only at the root (height 2), and
    # under L2 the LCA center is zero on both levels: distance sqrt(2 * (1/sqrt(4))**2).
    assert out["radius"][1] == pytest.approx(np.sqrt(0.5))
    medoid = release_centers(table, part, schema, center="medoid", seed=0).table
    assert set(medoid["age"]) <= set(table["age"])


def test_reserved_names_and_misfit_partition():
    table, schema, part = small_table()
    bad = Schema({"age": Numeric()}, sensitive=["count"])
    with pytest.raises(SchemaError, match="reserved"):
        release_centers(table.rename(columns={"disease": "count"}), part, bad)
    with pytest.raises(ValueError, match="covers 3 records"):
        release_generalized(table, Partition(np.array([0, 0, 0])), schema)


def test_suppressed_records_are_left_out_and_counted():
    table, schema, _ = small_table()
    part = Partition(np.array([0, 0, -1, 1, 1, 1]))
    rel = release_generalized(table, part, schema, seed=0)
    assert len(rel.table) == 5
    assert rel.metadata["n_released"] == 5 and rel.metadata["n_suppressed"] == 1


@settings(max_examples=60)
@given(tables(), st.sampled_from(FORMS), st.sampled_from(sorted(METHODS)),
       st.integers(0, 2**31 - 1))  # fmt: skip
def test_every_release_is_k_anonymous_and_loses_no_record(data, form, method, seed):
    """Every registered method, every release form, random tables of every column role."""
    table, schema, k = data
    cls = METHODS[method]
    model = configured(cls, k, epsilon=0.1, max_clusters=4, allow_deletion=True)
    params = {n: v for n, v in model.get_params().items() if n != "k"}
    k = model.k
    limit = cls.tags.max_records
    if len(table) < k or (limit is not None and len(table) > limit):
        return
    if len(table) - int(np.floor(params.get("epsilon", 0) * len(table) + 1e-9)) < k:
        return  # the outlier budget would leave fewer than k records: rejected, tested elsewhere
    before = table.copy(deep=True)
    needs = cls.tags.coordinates
    metrics = list(schema.quasi_identifiers.values())
    if needs is not None and not (
        len(metrics) == needs and all(isinstance(m, Numeric) for m in metrics)
    ):  # a method on places refuses other tables (random labels are no zip codes), by name
        with pytest.raises(InputError, match="place"):
            anonymize(table, schema, k, method=method, params=params, release=form, seed=seed)
        return
    if cls.tags.full_domain and form != "generalized":  # one level each: a generalized table
        with pytest.raises(ParameterError, match="publishes hierarchy levels"):
            anonymize(table, schema, k, method=method, params=params, release=form, seed=seed)
        return
    try:
        rel = anonymize(table, schema, k, method=method, params=params, release=form, seed=seed)
    except InfeasibleError as refused:  # a full-domain optimum of all * is refused, not
        # published (that no informative node qualified: the brute force of
        # tests/algorithms/test_global_recoding_bounds.py)
        assert cls.tags.full_domain and "publishes anything" in str(refused), refused
        return
    pd.testing.assert_frame_equal(table, before)  # the input is not mutated
    report = verify(rel, schema.qi_names, k)
    assert report.ok, report.problems
    meta = rel.metadata
    assert meta["cost"] == pytest.approx(meta["loss"][meta["objective"]], rel=1e-9, abs=1e-12)
    assert meta["n_released"] + meta["n_suppressed"] == meta["n_input"] == len(table)
    assert report.n_records == meta["n_released"]
    if not params.get("allow_deletion"):  # deleted rows are counted as suppressed
        share = params.get("suppression_limit") or params.get("epsilon") or 0
        assert meta["n_suppressed"] <= np.floor(share * len(table) + 1e-9)
    assert "id" not in rel.table.columns
    # a full-domain method publishes its suppressed records as rows of * (none or at least k),
    # their values kept; the others withhold theirs
    starred = meta.suppressed_form == "star"
    assert report.n_suppressed_rows == (meta["n_suppressed"] if starred else 0)
    kept = table if starred else table.iloc[np.flatnonzero(rel.partition.labels >= 0)]
    if form != "centers":
        # every released record is there: pass-through columns are a permutation
        assert sorted(rel.table["disease"]) == sorted(kept["disease"])
        assert sorted(rel.table["note"]) == sorted(kept["note"])
    else:
        total = {}
        for cell in rel.table["disease"]:
            for value, count in json.loads(cell).items():
                total[value] = total.get(value, 0) + count
        assert total == kept["disease"].value_counts().to_dict()


@settings(max_examples=15)
@given(tables(min_rows=4), st.sampled_from(FORMS), st.integers(0, 1000))
def test_same_seed_gives_byte_identical_release(tmp_path_factory, data, form, seed):
    table, schema, k = data
    d = tmp_path_factory.mktemp("rel")
    for name in ("a.csv", "b.csv"):
        anonymize(table, schema, k, release=form, seed=seed).write(d / name)
    assert (d / "a.csv").read_bytes() == (d / "b.csv").read_bytes()
    meta_a, meta_b = (json.loads(metadata_path(d / n).read_text()) for n in ("a.csv", "b.csv"))
    for key in ("seconds", "created"):  # the run's time
        meta_a.pop(key), meta_b.pop(key)
    assert meta_a == meta_b


def test_metadata_keys_scripts_rely_on(tmp_path):
    table, schema, _ = small_table()
    rel = anonymize(table, schema, 3, seed=5, method="mdav")
    for key in (
        "method",
        "parameters",
        "seed",
        "version",
        "k",
        "n_input",
        "n_released",
        "n_suppressed",
        "loss",
        "cost",
        "lower_bound",
        "certified_ratio",
        "approximation_ratio",
        "seconds",
    ):
        assert key in rel.metadata, key
    assert rel.metadata["approximation_ratio"] is None and rel.metadata["lower_bound"] is None
    assert rel.metadata["withheld_columns"] == ("name",) == rel.metadata.withheld_columns
    rel.write(tmp_path / "out.parquet")
    back = pd.read_parquet(tmp_path / "out.parquet")
    assert len(back) == 6 and (tmp_path / "out.json").is_file()


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    table, schema, _ = small_table()
    rel = anonymize(table, schema, 3, seed=5)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(OSError, match="disk full"):
        rel.write(tmp_path / "out.csv")
    assert list(tmp_path.iterdir()) == []
