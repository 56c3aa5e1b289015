"""A message names a setting once (:func:`incrowd.errors.option`): a Python caller reads the
keyword, the command line the flag."""

from __future__ import annotations

import pickle
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import incrowd
from incrowd.cli.app import app
from incrowd.errors import (
    FLAGS,
    IncrowdWarning,
    InputError,
    OutputError,
    cli_text,
    option,
    python_text,
)

SRC = Path(incrowd.__file__).parent
MISSING_AGE = pd.DataFrame({"age": [30, None, 31, 32, 33, 34], "sex": list("FMFFMF")})


def test_an_option_is_the_keyword_in_python_and_the_flag_on_the_command_line():
    msg = (f"a {option('hierarchies', {'age': ...})} b {option('code', ['zip'])} "
           f"c {option('missing', 'drop')} d {option('qi')} "
           f"e {option('thousands', ' ')}")  # fmt: skip
    assert python_text(msg) == (
        "a hierarchies={'age': ...} b code=['zip'] c missing='drop' d qi e thousands=' '"
    )
    assert (
        cli_text(msg)
        == "a --hierarchy age=... b --code zip c --missing drop d --qi e --thousands ' '"
    )
    assert str(InputError(msg)) == python_text(msg) == str(IncrowdWarning(msg))
    assert cli_text(InputError(msg).marked()) == cli_text(msg)
    assert python_text(option("l", 2)) == "diversity=Diversity(l=2)"
    assert cli_text(option("l", 2)) == "--l 2"


def test_the_marks_survive_pickling_and_an_os_error_keeps_its_text():
    exc = pickle.loads(pickle.dumps(InputError(f"x {option('missing', 'drop')}")))
    assert str(exc) == "x missing='drop'" and cli_text(exc.marked()) == "x --missing drop"
    assert str(OutputError(f"y {option('sep', ';')}")) == "y sep=';'"


def _flags() -> set[str]:
    command = typer.main.get_command(app).commands["anonymize"]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in param.opts}


def test_every_flag_of_the_table_is_an_option_of_incrowd_anonymize():
    assert set(FLAGS.values()) - _flags() == set()


def test_every_option_named_in_the_source_is_in_the_table():
    called = re.compile(r"""(?<![.\w])option\(\s*["'](\w+)["']""")
    named = {m for path in SRC.rglob("*.py") for m in called.findall(path.read_text())}
    assert named and named - set(FLAGS) == set()


def test_a_python_caller_reads_keywords():
    with pytest.raises(InputError) as info:
        incrowd.anonymize(MISSING_AGE, qi=["age", "sex"], k=2, missing="error")
    text = str(info.value)
    assert "missing='drop'" in text and "missing='keep'" in text and "--" not in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        incrowd.anonymize(MISSING_AGE, qi=["age", "sex"], k=2, seed=1)
    said = [str(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]
    assert any("hierarchies={'age': ...}" in s and "missing='drop'" in s for s in said), said
    assert not any("--" in s for s in said), said


def test_the_command_line_reads_flags(tmp_path):
    path = tmp_path / "in.csv"
    MISSING_AGE.to_csv(path, index=False)
    runner = CliRunner()
    common = ["anonymize", str(path), "--qi", "age,sex", "--k", "2", "--out"]
    refused = runner.invoke(app, [*common, str(tmp_path / "a.csv"), "--missing", "error"])
    assert refused.exit_code == 2, refused.output
    assert "--missing drop" in refused.stderr and "missing='drop'" not in refused.stderr
    kept = runner.invoke(app, [*common, str(tmp_path / "b.csv"), "--seed", "1"])
    assert kept.exit_code == 0, kept.output
    assert "--hierarchy age=..." in kept.stderr and "--missing drop" in kept.stderr
    assert "hierarchies=" not in kept.stderr and "\ue000" not in kept.stderr
