"""One style of numeric labels across methods (issue 57, item 7): ages and amounts are
published as ``104``, ``18-39``, ``65+`` or ``*`` by local recoding, global recoding, MDAV and
the forest alike — never ``[0, 1000)`` in one release and ``0-999`` in another, never
``104.0`` — and a decimal-comma input is published with a ``.`` decimal mark."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import incrowd
from incrowd.cli.app import app
from incrowd.data.ranges import range_label, read_range

METHODS = ["local-recoding", "global-recoding", "mdav", "forest"]


def claims(n: int = 160, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(0, 105, n).astype(float),  # whole numbers read as floats
        "amount": np.round(rng.uniform(0, 5000, n), 2),
        "sex": rng.choice(["f", "m"], n),
        "group": rng.choice(["a", "b", "c"], n),
    })  # fmt: skip


def assert_one_style(cells: pd.Series) -> None:
    """Each cell is ``*`` or a label in the one style: it reads back as a range, and that
    range is written as the very same text (``104.0`` would come back as ``104``)."""
    for cell in set(cells.astype(str)):
        if cell == "*":
            continue
        bounds = read_range(cell)
        assert bounds is not None, f"{cells.name}: {cell!r} is not a number or a range"
        assert range_label(*bounds) == cell, f"{cells.name}: {cell!r} is not in the one style"


@pytest.mark.parametrize("method", METHODS)
def test_every_method_labels_numbers_in_one_style(method):
    table = claims()
    release = incrowd.anonymize(table, qi=["age", "amount", "sex"], k=4, sensitive=["group"],
                                method=method, seed=1)  # fmt: skip
    for name in ("age", "amount"):
        assert_one_style(release.table[name])
    if method != "global-recoding":  # which may publish the amount as * (its optimum)
        assert (release.table["amount"] != "*").any()


def test_bands_and_widths_label_in_the_same_style_as_crowd_ranges():
    table = claims()
    bands = incrowd.anonymize(table, qi=["age", "amount"], k=4, method="global-recoding",
                              hierarchies={"age": "intervals:0-17,18-39,40-64,65+",
                                           "amount": "intervals:1000,2000"}, seed=1)  # fmt: skip
    assert set(bands.table["age"]) <= {"0-17", "18-39", "40-64", "65+", "*"}
    assert set(bands.table["amount"]) - {"*"} <= {
        "0-999.99", "1000-1999.99", "2000-2999.99", "3000-3999.99", "4000-4999.99",
        "0-1999.99", "2000-3999.99", "4000-5999.99"}  # fmt: skip
    assert_one_style(bands.table["amount"])


def test_a_decimal_comma_input_is_published_with_a_point(tmp_path):
    table = claims(seed=3)
    written = table.assign(amount=[f"{a:,.2f}".replace(",", " ").replace(".", ",")
                                   .replace(" ", ".") for a in table["amount"]])  # fmt: skip
    assert written["amount"].str.contains(",").all()
    path = tmp_path / "claims.csv"
    written.to_csv(path, sep=";", index=False)
    for method in ("local-recoding", "global-recoding"):
        out = tmp_path / f"{method}.csv"
        result = CliRunner().invoke(app, ["anonymize", str(path), "--qi", "age,amount,sex",
                                          "--k", "4", "--method", method, "--seed", "1",
                                          "--hierarchy", "amount=intervals:1000,2000",
                                          "--out", str(out)])  # fmt: skip
        assert result.exit_code == 0, result.output
        published = pd.read_csv(out, sep=";", dtype=str)
        for name in ("age", "amount"):
            assert_one_style(published[name])
        assert not published["amount"].str.contains(",").any()


def test_global_recoding_reads_a_banded_number_with_missing_cells_beside_another_number():
    """The number without a hierarchy gets intervals from its own cells; the banded one,
    already holding the missing label, is not read as numbers again (it was refused)."""
    table = claims().astype({"age": object})
    table.loc[::9, "age"] = None
    release = incrowd.anonymize(
        table,
        qi=["age", "amount"],
        k=4,
        method="global-recoding",
        hierarchies={"age": "intervals:<18,18-39,40-64,65+"},
        seed=1,
    )
    assert set(release.table["age"]) <= {"<18", "18-39", "40-64", "65+", "(missing)", "*"}
    assert_one_style(release.table["amount"])
