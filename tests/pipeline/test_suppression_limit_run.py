"""The suppression limit of the local methods through the pipeline and the command line:
deleted records counted in the metadata, withheld by default, the limit recorded, and
blockwise runs refused (a block cannot know the others' deletions)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd import Categorical, Schema, anonymize, verify
from incrowd.cli.app import app
from incrowd.errors import ParameterError


def outliers() -> tuple[pd.DataFrame, Schema]:
    """Three groups of four alike rows with one row off in one column each (too few to form
    a crowd of their own): deleting an odd row saves a cell at k = 4."""
    rows = []
    for g in range(3):
        rows += [[str(g)] * 4 + ["s"]] * 4 + [[str(g)] * 3 + [f"x{g}", "s"]]
    table = pd.DataFrame(rows, columns=["a", "b", "c", "d", "note"])
    return table, Schema({c: Categorical() for c in "abcd"})


@pytest.mark.parametrize("method", ["local-recoding", "forest"])
def test_deleted_records_are_counted_and_withheld(method):
    table, schema = outliers()
    release = anonymize(table, schema, 4, method=method, suppression_limit=0.14, seed=0)
    meta = release.metadata
    assert meta.n_suppressed == 2 and len(release.table) == 13
    assert meta.parameters["suppression_limit"] == 0.14
    assert meta.cost == pytest.approx(13.0)
    assert verify(release.table, schema.qi_names, 4, metadata=meta).ok
    kept = anonymize(table, schema, 4, method=method, seed=0).metadata
    assert kept.n_suppressed == 0 and kept.cost == pytest.approx(15.0)


@pytest.mark.parametrize("given", [{"suppression_limit": 0.1}, {"suppressed": "star"},
                                   {"suppressed": "drop"}])  # fmt: skip
def test_a_method_that_suppresses_nothing_refuses_the_suppression_settings(given):
    """Issue 58 #9: ``suppressed`` with MDAV, which suppresses nothing, was taken without
    effect (the suppression limit was refused); both are refused the same way now."""
    table, schema = outliers()
    with pytest.raises(ParameterError, match="applies to the methods that suppress records"):
        anonymize(table, schema, 4, method="mdav", seed=0, **given)
    assert anonymize(table, schema, 4, method="r-gather-outliers", seed=0,
                     suppressed="drop").metadata.k == 4  # fmt: skip


def test_blockwise_runs_refuse_a_suppression_limit():
    table, schema = outliers()
    from incrowd.distributed import anonymize_blocks

    with pytest.raises(ParameterError, match="does not run blockwise"):
        anonymize_blocks(table, schema, 4, suppression_limit=0.1, scheduler="sync")


def test_the_command_line_flag(tmp_path):
    table, _ = outliers()
    source = tmp_path / "t.csv"
    table.to_csv(source, index=False)
    out = tmp_path / "out.csv"
    result = CliRunner().invoke(app, ["anonymize", str(source), "--qi", "a,b,c,d",
                                      "--categorical", "a,b,c,d", "--k", "4",
                                      "--suppression-limit", "0.2", "--out", str(out),
                                      "--quiet"])  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["n_suppressed"] == 3 and meta["parameters"]["suppression_limit"] == 0.2
    assert len(pd.read_csv(out, sep=None, engine="python")) == 12
