"""The bundled data and the generators: the zip table, and census-like microdata."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from incrowd import MetricSpace, anonymize
from incrowd.datasets import load_zip_population, make_census


def test_zip_table_is_complete():
    zips = load_zip_population()
    assert len(zips) == 33_774 and zips["population"].sum() == 334_365_877
    assert zips["zip"].str.len().eq(5).all() and zips["zip"].iloc[0] == "00601"


def test_census_is_reproducible_and_census_like():
    a, schema = make_census(5_000, random_state=3)
    b, _ = make_census(5_000, random_state=3)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 5_000 and a["age"].between(17, 90).all()
    assert set(schema.qi_names) == {"age", "sex", "race", "marital-status", "education",
                                    "native-country", "workclass", "occupation", "zip"}  # fmt: skip
    assert list(schema.sensitive) == ["income"] and "state" not in schema.columns
    rich = a["income"] >= 50_000
    assert 0.15 < rich.mean() < 0.35  # Adult's share of >50K
    big = a["state"].value_counts()
    assert big.index[0] == "CA"  # zips drawn by population
    MetricSpace.from_table(a.head(500), schema)  # every QI encodes
    release = anonymize(a.head(400), schema, 5, method="mdav", seed=0)
    assert release.metadata["k_achieved"] >= 5


def test_census_refuses_a_bad_size():
    with pytest.raises(ValueError, match="positive integer"):
        make_census(0)
    assert np.issubdtype(make_census(10, random_state=0)[0]["income"].dtype, np.integer)
