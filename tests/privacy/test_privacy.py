import json

import pandas as pd
import pytest

from incrowd import (
    InputError,
    PrivacyViolation,
    anonymize,
    check_k_anonymity,
    make_microdata,
    verify,
)


def written(tmp_path, form="generalized", k=3, n=40):
    table, schema = make_microdata(n, 2, random_state=1)
    table["secret"] = ["a", "b"] * (n // 2)
    schema = type(schema)(dict(schema.quasi_identifiers), sensitive=["secret"])
    path = tmp_path / f"{form}.csv"
    anonymize(table, schema, k, release=form, seed=3).write(path)
    return path, list(schema.qi_names)


@pytest.mark.parametrize("form", ["generalized", "microaggregated", "centers"])
def test_written_releases_verify_from_the_file_alone(tmp_path, form):
    path, qi = written(tmp_path, form)
    report = verify(path, qi, 3)
    assert report.ok and report.n_records == 40 and report.form == form
    assert not verify(path, qi, report.k_achieved + 1).ok


def test_detects_a_tampered_row(tmp_path):
    path, qi = written(tmp_path)
    frame = pd.read_csv(path, dtype=str)
    frame.loc[0, qi[0]] = "999"
    frame.to_csv(path, index=False)
    report = verify(path, qi, 3)
    assert not report.ok and report.k_achieved == 1
    assert "SHA-256 differs" in report.problems[-1]
    with pytest.raises(PrivacyViolation, match="fewer than k=3"):
        report.raise_if_failed()


def test_detects_records_that_do_not_reconcile(tmp_path):
    path, qi = written(tmp_path)
    frame = pd.read_csv(path, dtype=str)
    frame.iloc[:-3].to_csv(path, index=False)  # three rows silently lost
    problems = " ".join(verify(path, qi, 1).problems)
    assert "holds 37 records but the metadata says 40" in problems
    meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta |= {"n_released": 37, "n_suppressed": 0}
    meta_path.write_text(json.dumps(meta))
    assert "do not add up" in " ".join(verify(path, qi, 1).problems)


def test_detects_a_withheld_column_and_bad_multisets(tmp_path):
    path, qi = written(tmp_path, form="centers")
    meta_path = path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps(meta | {"withheld_columns": ["radius"]}))
    assert "should have been withheld" in verify(path, qi, 3).problems[0]
    meta_path.write_text(json.dumps(meta))
    frame = pd.read_csv(path, dtype=str)
    frame.loc[0, "secret"] = json.dumps({"a": 1})
    frame.to_csv(path, index=False)
    assert "multiset holds 1 values" in " ".join(verify(path, qi, 3).problems)


def test_centers_rows_with_equal_centers_pool_their_counts():
    frame = pd.DataFrame({"q": ["x", "x", "y"], "count": [1, 2, 3]})
    assert verify(frame, ["q"], 3).ok
    assert not verify(frame, ["q"], 4).ok


def test_input_problems():
    with pytest.raises(InputError, match="not found"):
        verify("/nonexistent/release.csv", ["a"], 2)
    with pytest.raises(InputError, match="no column 'b'; its columns are: a"):
        verify(pd.DataFrame({"a": [1, 1]}), ["b"], 2)
    bad = pd.DataFrame({"a": ["x"], "count": ["many"]})
    assert "count" in verify(bad, ["a"], 1).problems[0]
    with pytest.raises(PrivacyViolation):
        check_k_anonymity(pd.DataFrame({"a": [1, 2]}), ["a"], 2)
