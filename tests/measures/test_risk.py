"""Re-identification risk from the published table: hand-made releases with known answers,
a planted re-identifiable record, and every method's release of (a sample of) Adult."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import METHODS, Categorical, Hierarchical, Hierarchy, Numeric, Schema, anonymize
from incrowd.cli.app import run
from incrowd.errors import InputError
from incrowd.measures.risk import assess_risk
from incrowd.testing import configured


def people() -> tuple[pd.DataFrame, Schema]:
    table = pd.DataFrame(
        {
            "age": [30, 31, 32, 40, 41, 42, 43, 50],
            "city": ["a", "a", "b", "b", "c", "c", "c", "d"],
            "x": range(8),
        }
    )
    hierarchy = Hierarchy.from_rows([["a", "ab"], ["b", "ab"], ["c", "cd"], ["d", "cd"]])
    return table, Schema({"age": Numeric(), "city": Hierarchical(hierarchy)}, sensitive=["x"])


def test_known_answers_on_a_hand_made_release():
    table, schema = people()
    published = pd.DataFrame(
        {
            "age": ["30-32", "30-32", "30-32", "40-50", "40-50", "40-50", "40-50", "40-50"],
            "city": ["ab", "ab", "ab", "*", "*", "*", "*", "*"],
            "x": range(8),
        }
    )
    report = assess_risk(table, published, schema, k=3)
    assert report.n_classes == 2
    # prosecutor: classes of 3 and 5
    assert report.prosecutor["highest"] == pytest.approx(1 / 3)
    assert report.prosecutor["average"] == pytest.approx(2 / 8)
    assert report.prosecutor["records_at_risk"] == 3  # 1/3 > 0.2
    # every original record is consistent with exactly its own class here
    assert report.consistent.tolist() == [3, 3, 3, 5, 5, 5, 5, 5]
    assert report.linkage["max_reidentification_probability"] == pytest.approx(1 / 3)
    assert report.linkage["records_below_k"] == 0
    assert report.journalist["highest"] == pytest.approx(1 / 3)
    assert report.marketer == pytest.approx((3 / 3 + 5 / 5) / 8)


def test_overlapping_classes_share_the_population():
    table, schema = people()
    # '*' on age and city for the last class: every original record is consistent with it
    published = pd.DataFrame(
        {"age": ["30-32"] * 3 + ["*"] * 5, "city": ["ab"] * 3 + ["*"] * 5, "x": range(8)}
    )
    report = assess_risk(table, published, schema, k=3)
    assert report.consistent.tolist() == [8, 8, 8, 5, 5, 5, 5, 5]
    assert sorted(report.class_population.tolist()) == [3, 8]
    assert report.journalist["highest"] == pytest.approx(1 / 3)
    assert report.marketer == pytest.approx((3 / 3 + 5 / 8) / 8)


def test_the_linkage_attack_finds_a_planted_record():
    table, schema = people()
    published = pd.DataFrame(
        {
            "age": ["30-32"] * 3 + ["40-43"] * 4 + ["50"],  # the last one is alone: broken
            "city": ["ab"] * 3 + ["*"] * 4 + ["d"],
            "x": range(8),
        }
    )
    report = assess_risk(table, published, schema, k=3)
    assert report.linkage["max_reidentification_probability"] == 1.0
    assert report.linkage["records_below_k"] == 1
    assert report.consistent[7] == 1


def test_sets_labels_and_unmatched_records():
    table = pd.DataFrame({"name": ["ann", "bob", "cy", "di", "ed"], "y": [1, 2, 3, 4, 5]})
    schema = Schema({"name": Categorical()}, sensitive=["y"])
    published = pd.DataFrame({"name": ["{ann|bob}", "{ann|bob}", "{cy|di}", "{cy|di}"],
                              "y": [1, 2, 3, 4]})  # fmt: skip
    report = assess_risk(table, published, schema, k=2)
    assert report.consistent.tolist() == [2, 2, 2, 2, 0]  # ed was suppressed
    assert report.linkage["records_unmatched"] == 1
    assert report.linkage["max_reidentification_probability"] == 0.5


def test_a_label_not_in_the_hierarchy_is_a_clear_error():
    table, schema = people()
    published = pd.DataFrame({"age": ["30-32"] * 8, "city": ["nowhere"] * 8, "x": range(8)})
    with pytest.raises(InputError, match="not a label of its hierarchy"):
        assess_risk(table, published, schema)


def test_every_method_releases_adult_with_risk_at_most_one_over_k():
    data, schema = incrowd.load_adult(age="hierarchy")
    sample = data.sample(1200, random_state=3).reset_index(drop=True)
    for name, cls in sorted(METHODS.items()):
        if cls.tags.max_records is not None or cls.tags.coordinates is not None:
            continue  # the exact solver (20 records) and the methods on places
        k = cls.tags.fixed_k or 5
        params = {n: v for n, v in configured(cls, k).get_params().items() if n != "k"}
        release = anonymize(sample, schema, k, method=name, params=params, seed=0)
        report = assess_risk(sample, release.table, schema, metadata=release.metadata)
        assert report.linkage["max_reidentification_probability"] <= 1 / k + 1e-12, name
        assert report.linkage["records_below_k"] == 0, name
        assert report.prosecutor["highest"] <= 1 / k + 1e-12, name


def test_cli_prints_one_json_object(tmp_path, capsys):
    table, schema = people()
    source, out = tmp_path / "people.csv", tmp_path / "rel.csv"
    table.to_csv(source, index=False)
    hierarchy = tmp_path / "city.csv"
    hierarchy.write_text("a;ab\nb;ab\nc;cd\nd;cd\n")
    release = anonymize(table, schema, 3, method="forest", seed=0)
    release.write(out)
    capsys.readouterr()
    code = run(["risk", str(source), str(out), "--qi", "age,city", "--hierarchy",
                f"city={hierarchy}", "--json"])  # fmt: skip
    assert code == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["max_reidentification_probability"] <= 1 / 3
    assert figures["records_below_k"] == 0
    assert {"prosecutor", "journalist", "marketer"} <= set(figures)
    assert run(["risk", str(source), str(out), "--qi", "age,nope", "--json"]) == 2


@pytest.mark.parametrize("release", ["microaggregated", "centers"])
def test_center_releases_are_linked_by_distance(release):
    rng = np.random.default_rng(1)
    table = pd.DataFrame({"x": rng.normal(size=120), "y": rng.normal(size=120)})
    table["c"] = rng.choice(["a", "b"], 120)
    table["s"] = rng.integers(0, 3, 120)
    schema = Schema({"x": Numeric(), "y": Numeric(), "c": Categorical()}, sensitive=["s"])
    rel = anonymize(table, schema, 6, method="mdav", release=release, seed=0)
    report = assess_risk(table, rel.table, schema, metadata=rel.metadata)
    assert report.linkage["records_unmatched"] == 0  # everyone is near (within) a center
    assert report.linkage["max_reidentification_probability"] <= 1 / 6 + 1e-12
    assert report.journalist["highest"] <= 1 / 6 + 1e-12


def test_a_release_read_without_its_hierarchy_is_a_clear_error():
    table = pd.DataFrame({"city": ["a", "b", "c", "d"], "x": range(4)})
    schema = Schema({"city": Categorical()}, sensitive=["x"])  # the hierarchy is not given
    published = pd.DataFrame({"city": ["ab", "ab", "cd", "cd"], "x": range(4)})
    with pytest.raises(InputError, match="give the hierarchy"):
        assess_risk(table, published, schema)


def test_a_threshold_outside_0_1_is_refused_by_the_one_check():
    from incrowd.errors import ParameterError
    from incrowd.measures.risk import assess_risk

    table = pd.DataFrame({"a": [1, 2, 3, 4]})
    schema = Schema({"a": Numeric()})
    for bad in (0, 1.5, -0.1):
        with pytest.raises(ParameterError, match=r"threshold must be in \(0, 1\]"):
            assess_risk(table, table, schema, k=2, threshold=bad)


@pytest.mark.parametrize("gap", [np.nan, None, "", "(missing)"], ids=repr)
def test_attribute_disclosure_counts_a_missing_sensitive_value(gap):
    # issue 57, item 1: a class whose records all lack the sensitive value discloses it as
    # much as one whose records share a value; a class of a value and a gap does not
    table, schema = people()
    table = table.assign(x=["flu", np.nan, "flu", np.nan, None, np.nan, "cold", "flu"])
    published = pd.DataFrame({
        "age": ["30-32"] * 3 + ["40-50"] * 3 + ["40-50"] * 2,
        "city": ["ab"] * 3 + ["*"] * 3 + ["cd"] * 2,
        "x": ["flu", gap, "flu", gap, None, np.nan, "cold", "flu"],
    })  # fmt: skip
    report = assess_risk(table, published, schema, k=2)
    assert report.attribute_disclosure == {"x": {"classes": 1, "records": 3}}
