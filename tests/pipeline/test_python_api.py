"""The Python API a data steward meets first (issue 45, item 8): anonymize a frame by naming
its columns, with the hierarchy spellings of the command line; errors name parameters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import incrowd
from incrowd import ParameterError


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({
        "age": rng.integers(0, 99, n),
        "zip": [f"{z:05d}" for z in rng.choice([2138, 2139, 10002, 10003], n)],
        "disease": rng.choice(["flu", "cold"], n),
    })  # fmt: skip


def test_anonymize_by_naming_columns_with_hierarchy_spellings():
    table = _table()
    release = incrowd.anonymize(
        table, qi=["age", "zip"], sensitive=["disease"], k=5, seed=1,
        hierarchies={"zip": "prefix", "age": "intervals:0-17,18-64,65-120"},
    )  # fmt: skip
    assert set(release.table["age"]) <= {"0-17", "18-64", "65-120", "*"}
    assert all(len(z) == 5 or z == "*" for z in release.table["zip"])  # the top is *
    assert incrowd.verify(release, ["age", "zip"], 5).ok
    assert release.metadata.schema["quasi_identifiers"]["zip"]["hierarchy"] == "prefix"


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"k": 5}, "qi="), ({"qi": ["age"]}, "needs k"),
     ({"qi": ["age"], "k": 5, "schema": "x"}, "not both")],
)  # fmt: skip
def test_errors_name_the_parameters(kwargs, named):
    table = _table()
    schema = kwargs.pop("schema", None)
    if schema is not None:
        schema = incrowd.Schema.infer(table, ["age"])
    with pytest.raises(ParameterError, match=named):
        incrowd.anonymize(table, schema, **kwargs)


def test_dir_shows_the_public_api_only():
    assert dir(incrowd) == sorted(incrowd.__all__)
    assert all(hasattr(incrowd, name) for name in incrowd.__all__)
