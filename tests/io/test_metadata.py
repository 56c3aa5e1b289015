"""The typed release metadata: one definition of the JSON file, read strictly, written back
whole (unknown keys kept)."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from incrowd import InputError, Schema, anonymize, verify
from incrowd.io.metadata import ReleaseMetadata
from incrowd.io.release_format import metadata_json, read_release

FULL = {
    "release": "generalized", "method": "local-recoding", "parameters": {"k": 3, "norm": 1},
    "seed": 1, "version": "0.1.0", "generalize": "levels", "center": "medoid", "k": 3,
    "qi": ["age", "zip"], "sensitive": ["disease"], "withheld_columns": ["name"],
    "schema": {"quasi_identifiers": {"age": {"metric": "numeric", "type": "number"}}},
    "input": {"file": "in.csv", "bytes": 10, "sha256": "ef" * 32},
    "created": "2026-11-27T15:00:00Z",
    "n_input": 10, "n_released": 9, "n_suppressed": 1, "n_dropped_missing": 0, "n_crowds": 3,
    "n_groups": 3, "k_achieved": 3, "suppressed_rows": "star", "levels": {"age": 1},
    "categories": {"age": [["20-29", 5], ["*", 4]]}, "loss": {"ncp": 0.25, "l_sse": None},
    "cost": 2.5,
    "objective": "generalization", "lower_bound": 1.0, "certified_ratio": 2.5,
    "approximation_ratio": 5.0, "certificate": {"kind": "dual"}, "guarantee_text": "at most",
    "reference": "Aggarwal", "polish": None, "diversity": None,
    "homogeneous": {"disease": {"classes": 1, "records": 3}}, "blocked_lower_bound": 0.5,
    "blocked_certified_ratio": 5.0, "blocking": {"n_blocks": 2}, "seconds": 0.1,
    "format": "incrowd release 1", "table_sha256": "ab" * 32, "table_bytes": 100,
    "files": [{"file": "part-00001.parquet", "rows": 9, "sha256": "cd" * 32}],
}  # fmt: skip


def test_every_field_round_trips_and_a_field_is_never_left_out():
    names = {f.name for f in dataclasses.fields(ReleaseMetadata)} - {"extra"}
    assert names == set(FULL), "a field of ReleaseMetadata is missing from this test"
    meta = ReleaseMetadata.from_json(FULL)
    assert meta.to_json() == FULL
    assert meta.qi == ("age", "zip") and meta.files is not None and meta.files[0]["rows"] == 9


def test_unknown_keys_are_kept_and_written_back():
    meta = ReleaseMetadata.from_json({"k": 2, "made_by": "a newer incrowd"})
    assert meta.extra == {"made_by": "a newer incrowd"}
    assert json.loads(metadata_json(meta))["made_by"] == "a newer incrowd"


def test_absent_fields_read_as_none_or_empty_and_optional_ones_are_not_written():
    meta = ReleaseMetadata.from_json({})
    assert meta.k is None and meta.qi == () and meta.parameters == {} and meta.loss == {}
    written = meta.to_json()
    assert "blocking" not in written and "table_sha256" not in written
    assert written["certificate"] is None and written["qi"] == []
    with pytest.raises(KeyError):
        meta["blocking"]


@pytest.mark.parametrize(
    ("key", "value", "want"),
    [("n_input", "abc", "an integer"), ("k", True, "an integer"), ("qi", "age", "a list"),
     ("cost", "1.5", "a number"), ("loss", [1], "an object"), ("files", [1], "a list"),
     ("release", 3, "text"), ("cost", float("nan"), "a number")],
)  # fmt: skip
def test_a_field_of_the_wrong_type_is_refused_by_name(key, value, want):
    with pytest.raises(InputError, match=rf"out.json: '{key}' must be {want}"):
        ReleaseMetadata.from_json({key: value}, where="out.json")


def test_the_form_of_suppressed_rows_and_the_categories_of_a_global_recoding():
    old = ReleaseMetadata.from_json({"release": "generalized", "n_suppressed": 2})
    assert old.suppressed_rows is None and old.suppressed_form == "drop"
    assert "suppressed_rows" not in old.to_json() and "levels" not in old.to_json()
    star = ReleaseMetadata.from_json({"suppressed_rows": "star"})
    assert star.suppressed_form == "star"
    with pytest.raises(InputError, match="'suppressed_rows' must be one of star, drop"):
        ReleaseMetadata.from_json({"suppressed_rows": "blank"})
    for key, value in (("levels", {"age": -1}), ("levels", {"age": "1"}), ("levels", [1]),
                       ("categories", {"age": [["20-29"]]}), ("categories", {"age": "x"}),
                       ("categories", {"age": [[5, 5]]})):  # fmt: skip
        with pytest.raises(InputError, match=f"'{key}' must be an object of"):
            ReleaseMetadata.from_json({key: value})
    built = ReleaseMetadata(levels={"age": 1}, categories={"age": [["20-29", 5], ("*", 4)]})
    assert built.categories == {"age": (("20-29", 5), ("*", 4))}
    assert ReleaseMetadata.from_json(built.to_json()) == built


def test_an_integral_float_reads_as_an_integer():
    assert ReleaseMetadata.from_json({"n_input": 30162.0}).n_input == 30162


def test_reads_as_a_mapping_of_the_json_keys():
    meta = ReleaseMetadata.from_json(FULL)
    assert meta["loss"]["ncp"] == 0.25 and meta.get("nothing") is None
    assert set(meta) == set(FULL) and len(meta) == len(FULL)
    assert ReleaseMetadata.of(dict(meta)) == meta and ReleaseMetadata.of(meta) is meta


def test_written_release_reads_back_as_the_metadata_it_was(tmp_path):
    table = pd.DataFrame({"age": [20, 21, 22, 40, 41, 42], "zip": list("aabbcc")})
    release = anonymize(table, Schema.infer(table, qi=["age", "zip"]), k=3, seed=0)
    assert isinstance(release.metadata, ReleaseMetadata)
    release.write(tmp_path / "out.csv")
    files = read_release(tmp_path / "out.csv")
    assert files.metadata is not None
    assert files.metadata.replace(format=None, table_sha256=None, table_bytes=None) == (
        release.metadata
    )
    assert files.metadata.table_sha256 is not None


def test_tampered_counts_are_an_error_naming_the_field_not_a_crash(tmp_path):
    table = pd.DataFrame({"age": [20, 21, 22, 40, 41, 42], "zip": list("aabbcc")})
    release = anonymize(table, Schema.infer(table, qi=["age", "zip"]), k=3, seed=0)
    release.write(tmp_path / "out.csv")
    meta_path = tmp_path / "out.json"
    data = json.loads(meta_path.read_text())
    data["n_released"] = "six"
    meta_path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="'n_released' must be an integer"):
        verify(tmp_path / "out.csv", ["age", "zip"], 3)


def test_a_release_written_before_the_schema_record_counted_dropped_in_suppressed():
    table = pd.DataFrame({"age": ["20-30"] * 4})
    old = {"n_input": 6, "n_released": 4, "n_suppressed": 2, "n_dropped_missing": 2}
    assert verify(table, ["age"], 2, metadata=old).ok
    new = old | {"schema": {"quasi_identifiers": {}}}  # now dropped is counted apart
    problems = verify(table, ["age"], 2, metadata=new).problems
    assert problems and "records do not add up" in problems[0]
