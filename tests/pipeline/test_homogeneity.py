"""Attribute disclosure: classes whose records all hold one sensitive value are counted in
the metadata and named in one warning line (issue 45, item 7)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from incrowd import Diversity, IncrowdWarning, Schema, anonymize, verify
from incrowd.privacy.models import published_figures


def _table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 60
    return pd.DataFrame({
        "age": rng.integers(20, 70, n),
        "sex": rng.choice(["f", "m"], n),
        "disease": rng.choice(["flu", "cold", "asthma"], n, p=[0.6, 0.3, 0.1]),
    })  # fmt: skip


def _independent(table: pd.DataFrame, qi: list[str], name: str) -> tuple[int, int]:
    """Classes of identical published QIs with one value of ``name``, and their records."""
    groups = table.groupby(qi, sort=False)[name]
    single = groups.nunique() == 1
    if table[name].nunique() < 2:
        return 0, 0
    return int(single.sum()), int(groups.size()[single].sum())


@pytest.mark.parametrize("seed", range(6))
def test_homogeneous_classes_match_an_independent_count_and_warn(seed):
    table = _table(seed)
    schema = Schema.infer(table, ["age", "sex"], sensitive=["disease"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        release = anonymize(table, schema, k=3, seed=seed)
    classes, records = _independent(release.table, ["age", "sex"], "disease")
    assert release.metadata.homogeneous == {
        "disease": {"classes": classes, "of_classes": release.metadata.n_groups,
                    "records": records}
    }  # fmt: skip
    lines = [str(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]
    if classes:
        assert len(lines) == 1 and f"{classes} of {release.metadata.n_groups}" in lines[0]
        assert "'disease'" in lines[0] and "diversity=Diversity(l=2)" in lines[0]
    else:
        assert not lines


def test_l_diversity_leaves_no_homogeneous_class_and_no_warning():
    table = _table(0)
    schema = Schema.infer(table, ["age", "sex"], sensitive=["disease"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", IncrowdWarning)
        release = anonymize(table, schema, k=3, seed=0, diversity=Diversity(l=2))
    assert release.metadata.homogeneous["disease"]["classes"] == 0


def test_a_constant_sensitive_column_is_not_a_disclosure():
    table = _table(1).assign(disease="flu")
    figures = published_figures(table, ["age", "sex"], ["disease"], centers=False)
    assert figures["disease"]["homogeneous_classes"] == 0


def test_no_sensitive_column_records_nothing():
    table = _table(2)
    release = anonymize(table, Schema.infer(table, ["age", "sex"]), k=3, seed=0)
    assert release.metadata.homogeneous is None and "homogeneous" not in release.metadata


# issue 57, item 1: a sensitive column with missing cells, from Python
def _gappy(seed: int) -> pd.DataFrame:
    table = _table(seed).astype({"disease": object})
    rng = np.random.default_rng(seed)
    table.loc[rng.choice(len(table), 12, replace=False), "disease"] = np.nan
    return table


def _as_given(table: pd.DataFrame, frame: str, tmp_path):
    if frame == "pandas":
        return table
    if frame == "polars":
        import polars as pl

        return pl.from_pandas(table)  # NaN of an object column: polars null
    path = tmp_path / "gappy.csv"
    table.fillna("unknown").to_csv(path, index=False)
    from incrowd.io.tables import read_table

    return read_table(path, na_values=["unknown"])


@pytest.mark.parametrize("frame", ["pandas", "polars", "read_table"])
@pytest.mark.parametrize("method", ["local-recoding", "global-recoding"])
def test_a_missing_sensitive_value_is_one_more_value(method, frame, tmp_path):
    table = _gappy(3)
    given = _as_given(table, frame, tmp_path)
    schema = Schema.infer(table, ["age", "sex"], sensitive=["disease"])
    expected = table["disease"].fillna("(missing)").value_counts().sort_index()
    for diversity in (None, Diversity(l=2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IncrowdWarning)
            release = anonymize(given, schema, k=3, seed=1, method=method, diversity=diversity)
        published = release.table if frame != "polars" else release.table.to_pandas()
        # every record published (none suppressed, or as rows of *), the missing ones spelled
        # as the quasi-identifiers spell theirs
        found = published["disease"].value_counts().sort_index()
        assert found.to_dict() == expected.to_dict()
        kept = published[~published[["age", "sex"]].eq("*").all(axis=1)]  # not suppressed
        classes, records = _independent(kept, ["age", "sex"], "disease")
        assert release.metadata.homogeneous["disease"]["classes"] == classes
        assert release.metadata.homogeneous["disease"]["records"] == records
        if diversity is not None:
            assert classes == 0
            assert verify(release, ["age", "sex"], 3, diversity=diversity).ok
