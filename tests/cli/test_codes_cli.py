"""Codes of several lengths through the command line (issue 57, item 6): an extract with
ICD-10 codes of 3 to 7 characters, anonymized with ``--hierarchy icd10=prefix`` by local and
global recoding, then verified from the published file."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def icd10_codes(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` ICD-10-like codes: a chapter letter and two digits, then none, one, two or three
    more characters after a dot (``C34``, ``C34.9``, ``C34.90``, ``J45.901``)."""
    stems = [f"{c}{d:02d}" for c in "CJE" for d in rng.choice(100, 3, replace=False)]
    out = []
    for _ in range(n):
        code = str(rng.choice(stems))
        extra = int(rng.integers(0, 4))
        if extra:
            code += "." + "".join(str(d) for d in rng.integers(0, 3, extra))
        out.append(code)
    return out


@pytest.fixture
def claims(tmp_path):
    rng = np.random.default_rng(57)
    n = 240
    table = pd.DataFrame({
        "icd10": icd10_codes(rng, n), "sex": rng.choice(["f", "m"], n),
        "group": rng.choice(["a", "b", "c"], n),
    })  # fmt: skip
    assert {len(c) for c in table["icd10"]} == {3, 5, 6, 7}
    path = tmp_path / "claims.csv"
    table.to_csv(path, index=False)
    return path, table


@pytest.mark.parametrize("method", ["local-recoding", "global-recoding"])
def test_prefix_masks_codes_of_several_lengths_and_the_release_verifies(claims, tmp_path, method):
    path, table = claims
    out = tmp_path / "out.csv"
    result = invoke("anonymize", path, "--qi", "icd10,sex", "--sensitive", "group", "--k", "4",
                    "--hierarchy", "icd10=prefix", "--method", method, "--seed", "1",
                    "--out", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    published = pd.read_csv(out, dtype=str, keep_default_na=False)
    codes = set(table["icd10"])
    for label in set(published["icd10"]):  # an input code, a masked prefix, or the top
        kept = label.rstrip("*")
        assert label == "*" or label in codes or (
            len(label) == 7 and any(c.startswith(kept) for c in codes)), label  # fmt: skip
    assert (published["icd10"] != "*").any()
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["schema"]["quasi_identifiers"]["icd10"]["hierarchy"] == "prefix"
    verified = invoke("verify", out, "--k", "4")
    assert verified.exit_code == 0 and "OK" in verified.stdout, verified.output


@pytest.mark.parametrize(
    ("bands", "message"),
    [("0-17,18-64,>64", "'>64' is neither a width nor a band (LO-HI with LO <= HI, <HI or LO+)"),
     ("<18,17-64,65+", "bands '<18' and '17-64' of level 1 overlap")],
)  # fmt: skip
def test_a_malformed_open_band_is_one_line_and_nothing_is_written(tmp_path, bands, message):
    path = tmp_path / "ages.csv"
    pd.DataFrame({"age": [3, 17, 30, 64, 65, 104] * 3, "sex": ["f", "m"] * 9}).to_csv(path)
    result = invoke("anonymize", path, "--qi", "age,sex", "--k", "3", "--out",
                    tmp_path / "out.csv", "--hierarchy", f"age=intervals:{bands}")  # fmt: skip
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines
    assert not (tmp_path / "out.csv").exists()


def test_open_bands_publish_as_written_and_verify(tmp_path):
    path = tmp_path / "ages.csv"
    pd.DataFrame({"age": [3, 17, 30, 64, 65, 104] * 3, "sex": ["f", "m"] * 9}).to_csv(path)
    out = tmp_path / "out.csv"
    result = invoke("anonymize", path, "--qi", "age", "--k", "6", "--out", out,
                    "--hierarchy", "age=intervals:<18,18-64,65+", "--seed", "1")  # fmt: skip
    assert result.exit_code == 0, result.output
    published = set(pd.read_csv(out, dtype=str)["age"])
    assert published <= {"3", "17", "30", "64", "65", "104", "<18", "18-64", "65+", "*"}
    assert {"<18", "65+"} <= published
    assert invoke("verify", out, "--k", "6").exit_code == 0
