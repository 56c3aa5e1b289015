"""The Python API reads a table's types as the command line does (issue 57, item 4): an
integer code stays a category, a zip read as a float is a code with its zeros back, on
pandas and polars frames alike, each guess one warning naming the keyword that overrides
it; the job file's keys (``categorical=``, ``numeric=``, ``code=``, ``date=``) are keywords;
a published column that looks like a name or note is one warning (item 3)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from typer.testing import CliRunner

import incrowd
from incrowd import IncrowdWarning, ParameterError, Schema
from incrowd.cli.app import app

N = 400
ZIPS = [2142, 2139, 60615, 60614, 501, 10002]


def claims(seed: int = 0) -> pd.DataFrame:
    """As pandas reads a steward's CSV: a transport code 1-9 as Int64 (missing cells), zips
    as floats (their zeros lost), ages, an admission day, a diagnosis group."""
    rng = np.random.default_rng(seed)
    transport = pd.array(rng.integers(1, 10, N), dtype="Int64")
    transport[rng.random(N) < 0.02] = pd.NA
    zips = rng.choice(ZIPS, N).astype(float)
    zips[rng.random(N) < 0.02] = np.nan
    return pd.DataFrame({
        "age": rng.integers(0, 100, N), "transport": transport, "zip": zips,
        "admitted": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, N), "D"),
        "diag_group": rng.choice(["neoplasms", "injury", "circulatory"], N),
    })  # fmt: skip


def caught(run):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", IncrowdWarning)
        result = run()
    return result, [str(w.message) for w in seen if issubclass(w.category, IncrowdWarning)]


@pytest.mark.parametrize("frame", ["pandas", "polars"])
def test_codes_stay_codes_and_each_guess_names_its_keyword(frame):
    table = claims() if frame == "pandas" else pl.from_pandas(claims())
    release, said = caught(lambda: incrowd.anonymize(
        table, qi=["age", "transport", "zip"], sensitive=["diag_group"], k=5, seed=3))  # fmt: skip
    published = release.table.to_pandas() if frame == "polars" else release.table
    assert set(published["transport"]) <= {*map(str, range(1, 10)), "*", "(missing)"}
    zips = set(published["zip"]) - {"*", "(missing)"}
    assert zips and all(len(z) == 5 and re.fullmatch(r"[0-9]+\**", z) for z in zips), zips
    assert any(z.startswith("0") for z in zips), zips  # 02142, 00501: the zeros are back
    transport = [w for w in said if "'transport'" in w]
    assert len(transport) == 1 and "numeric=['transport']" in transport[0], said
    zip_line = [w for w in said if "'zip'" in w]
    assert len(zip_line) == 1 and "2142 as 02142" in zip_line[0], said
    assert "numeric=['zip']" in zip_line[0] and "--" not in zip_line[0]


def test_the_python_api_infers_the_types_the_command_line_infers(tmp_path):
    table = claims(1)
    text = table.assign(zip=[f"{z:05.0f}" if z == z else "" for z in table["zip"]],
                        admitted=table["admitted"].dt.strftime("%d/%m/%Y"))  # fmt: skip
    source = tmp_path / "claims.csv"
    text.to_csv(source, index=False, sep=";")
    out = tmp_path / "release.csv"
    qi = ["age", "transport", "zip", "admitted"]
    done = CliRunner().invoke(app, ["anonymize", str(source), "--qi", ",".join(qi), "--k", "5",
                                    "--sensitive", "diag_group", "--out", str(out)])  # fmt: skip
    assert done.exit_code == 0, done.output
    by_cli = json.loads(out.with_suffix(".json").read_text())["schema"]["quasi_identifiers"]
    release, _ = caught(lambda: incrowd.anonymize(table, qi=qi, sensitive=["diag_group"], k=5))
    by_python = release.metadata.schema["quasi_identifiers"]
    for name in qi:
        for key in ("type", "metric", "hierarchy"):
            assert by_python[name].get(key) == by_cli[name].get(key), (name, key)


def test_the_job_files_keys_are_keywords():
    table = claims(2).assign(day=lambda t: t["admitted"].dt.strftime("%Y-%m-%d"))
    release, said = caught(lambda: incrowd.anonymize(
        table, qi=["transport", "zip", "day"], k=5, seed=1, numeric=["transport"],
        code=["zip"], date=["day"], categorical=[]))  # fmt: skip
    assert not any("read as" in w for w in said), said  # declared: no guess
    types = {n: e["type"] for n, e in release.metadata.schema["quasi_identifiers"].items()}
    assert types == {"transport": "number", "zip": "code", "day": "date"}
    assert all(len(z) == 5 for z in set(release.table["zip"]) - {"*", "(missing)"})
    release, _ = caught(lambda: incrowd.anonymize(table, qi=["zip", "age"], k=5, seed=1,
                                                  categorical=["zip"]))  # fmt: skip
    assert release.metadata.schema["quasi_identifiers"]["zip"]["type"] == "category"
    schema = Schema.infer(table, ["age"])
    with pytest.raises(ParameterError, match="code="):
        incrowd.anonymize(table, schema, 5, code=["zip"])


def test_schema_infer_reads_a_polars_frame_as_pandas():
    table = claims(3)
    qi = ["age", "transport", "zip", "admitted"]
    by_pandas, _ = caught(lambda: Schema.infer(table, qi))
    by_polars, _ = caught(lambda: Schema.infer(pl.from_pandas(table), qi))
    for name in qi:
        one, other = by_pandas.quasi_identifiers[name], by_polars.quasi_identifiers[name]
        assert type(one) is type(other) and one.cells == other.cells, name
        assert getattr(one, "spec", None) == getattr(other, "spec", None), name
    assert by_polars.quasi_identifiers["transport"].cells.kind == "category"
    assert by_polars.quasi_identifiers["zip"].cells.kind == "code"


def test_a_published_column_that_looks_identifying_is_one_warning_and_honoured():
    rng = np.random.default_rng(4)
    table = claims(4).assign(
        naam=[f"Piet {w}" for w in rng.choice(["de Vries", "Jansen", "Bakker"], N)],
        opmerking=[f"Piet {i} belde over formulier {i % 7} en vroeg om uitstel" for i in range(N)],
    )  # fmt: skip
    release, said = caught(lambda: incrowd.anonymize(
        table, qi=["age", "zip"], k=5, seed=2, sensitive=["diag_group"],
        insensitive=["naam", "opmerking"], code=["zip"]))  # fmt: skip
    naam = [w for w in said if "'naam'" in w]
    notes = [w for w in said if "'opmerking'" in w]
    assert len(naam) == 1 and "a person's name" in naam[0], said
    assert len(notes) == 1 and "notes or free text" in notes[0], said
    assert "identifiers=['opmerking']" in notes[0]
    assert {"naam", "opmerking"} <= set(release.table.columns)  # the steward said so
    assert not any("'diag_group'" in w and "published as it is" in w for w in said)
