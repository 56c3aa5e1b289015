"""One Settings object (issue 44): every option of a run declared once, the job file's keys
and the command line's options checked against it, and each parameter's rule one rule
whichever way the value comes (Python, the TOML job file, the command line)."""

import json

import pytest
from strategies import PEOPLE

from incrowd import InputError, Numeric, ParameterError, Schema, anonymize
from incrowd.pipeline.settings import Settings
from incrowd.privacy.models import Diversity

#: A valid value, other than the default, of every setting (a new setting needs one here).
VALID = {
    "input": "in.csv", "out": "out.csv", "k": 5, "method": "mdav", "release": "centers",
    "seed": 1, "sep": ";", "missing": "drop", "center": "medoid", "norm": 1,
    "generalize": "sets", "suppression_limit": 0.02, "suppressed": "drop",
    "csv_formulas": "refuse", "l": 3.0, "l_kind": "recursive",
    "c": 2.0, "t": 0.5, "t_kind": "ordered", "scheduler": "sync", "workers": 2,
    "block_size": 1000, "blocks": 2, "block_by": ("b",), "spill": "always",
    "na_values": ("?", "NA"), "qi": ("age", "sex"), "sensitive": ("disease",),
    "identifier": ("name",), "insensitive": ("note",), "categorical": ("sex",),
    "numeric": ("age",), "code": ("zip",), "date": ("day",), "encoding": "latin-1",
    "thousands": ".", "decimal": ",", "date_format": "%d/%m/%Y",
    "hierarchy": {"sex": "prefix"}, "weights": {"age": 2.0},
    "params": {"variant": "classic"}, "min_level": {"age": 1}, "max_level": {"sex": 0},
}  # fmt: skip

#: Options of ``incrowd anonymize`` that are no setting: the job file itself, the display,
#: and shortcuts for entries of ``params`` (``--epsilon``, ``--max-clusters``,
#: ``--allow-deletion``).
CLI_ONLY = {"config", "quiet", "epsilon", "max_clusters", "allow_deletion"}
#: The command line's name of a setting where it differs (``--param NAME=VALUE``, repeated).
CLI_NAMES = {"param": "params"}


def _toml(values):
    """A job file holding ``values`` (scalars and lists above the tables)."""
    lines, tables = [], []
    for key, value in values.items():
        if isinstance(value, dict):
            tables += [f"[{key}]"] + [f"{k} = {json.dumps(v)}" for k, v in value.items()]
        else:
            value = list(value) if isinstance(value, tuple) else value
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines + tables) + "\n"


def test_every_setting_is_a_job_file_key_and_every_key_a_setting(tmp_path):
    assert set(VALID) == set(Settings.names())
    path = tmp_path / "job.toml"
    path.write_text(_toml(VALID))
    read = Settings.from_toml(path)
    for name, value in VALID.items():
        if name in ("input", "out"):  # paths are taken relative to the file
            value = str(tmp_path / value)
        assert getattr(read, name) == value, name
    for name in Settings.names():  # and each one alone
        path.write_text(_toml({name: VALID[name]}))
        alone = getattr(Settings.from_toml(path), name)
        assert alone == getattr(read, name), name
    path.write_text(_toml({"k": 3, "colour": "red"}))
    with pytest.raises(InputError, match="unknown setting 'colour'"):
        Settings.from_toml(path)
    assert Settings.from_mapping({"columns": {"qi": ["a"]}, "k": 3}).qi == ("a",)


def test_every_setting_is_declared_with_its_type_default_help_and_rule():
    for name in Settings.names():
        option = Settings.option(name)
        assert option.type and option.help.endswith("."), option
    assert Settings.option("norm").constraint == "1 | 2"
    assert Settings.option("method").constraint == "a name of `incrowd methods`"
    assert Settings.option("weights").constraint == "{name: weight > 0}"
    assert Settings.option("release").shown == "generalized"


def test_flags_override_the_file_where_given_and_merge_the_tables():
    base = Settings(k=3, weights={"age": 2.0}, params={"variant": "classic"}, seed=4)
    over = base.replace(k=5, seed=None, weights={"sex": 3.0}, qi=())
    assert (over.k, over.seed, over.qi) == (5, 4, ())
    assert dict(over.weights) == {"age": 2.0, "sex": 3.0}
    assert dict(over.params) == {"variant": "classic"}


def test_what_depends_on_several_settings_is_checked_on_the_final_ones():
    """A file's ``center`` with a flag's ``--release centers`` is fine; the check runs on
    the merged settings (``check_run``), not on each part."""
    job = Settings(center="medoid")
    assert job.replace(release="centers").check_run().center == "medoid"
    with pytest.raises(ParameterError, match="center has no effect"):
        job.check_run()
    with pytest.raises(ParameterError, match="value sets"):
        Settings(generalize="sets", release="centers").check_run()


# ----------------------------------------------------------------------- the command line
def _anonymize_command():
    import typer

    from incrowd.cli.app import app

    return typer.main.get_command(app).commands["anonymize"]


def _shown(param):
    """The default a command-line option's help shows (None: none)."""
    shown = getattr(param, "show_default", None)
    if isinstance(shown, str):
        return shown
    return None if param.default in (None, False, [], ()) else str(param.default)


def test_every_option_of_the_command_line_is_a_setting_and_back():
    params = {p.name: p for p in _anonymize_command().params}
    named = {CLI_NAMES.get(name, name) for name in params} - CLI_ONLY
    assert named == set(Settings.names())


def test_the_command_line_shows_each_settings_help_and_default():
    """The command line's help starts with the declaration's (it may add what only the
    command line needs, such as "required unless given in --config"), and shows its
    default."""
    differ = set()
    for param in _anonymize_command().params:
        if param.name in CLI_ONLY:
            continue
        option = Settings.option(CLI_NAMES.get(param.name, param.name))
        if not (getattr(param, "help", None) or "").startswith(option.help):
            differ.add((param.name, "help"))
        if _shown(param) != option.shown:
            differ.add((param.name, "default"))
    assert not differ, sorted(differ)


# ----------------------------------------------------------------------- one rule each
BAD = [
    ("weights", {"age": 0}, "--weights", "age=0", "weight of 'age' must be a positive number"),
    ("weights", {"age": -1}, "--weights", "age=-1", "weight of 'age' must be a positive number"),
    ("norm", 3, "--norm", "3", "norm must be 1 or 2"),
    ("norm", 0, "--norm", "0", "norm must be 1 or 2"),
    ("generalize", "bags", "--generalize", "bags", "generalize must be 'levels' or 'sets'"),
    ("seed", -1, "--seed", "-1", "seed must be a non-negative integer"),
]


@pytest.mark.parametrize(("name", "value", "flag", "text", "message"), BAD)
def test_each_rule_refuses_the_same_values_from_python_toml_and_the_command_line(
    tmp_path, capsys, name, value, flag, text, message
):
    from incrowd.cli.app import run

    with pytest.raises(ParameterError, match=message):  # Python
        Settings(**{name: value})
    if name != "weights":  # incrowd.anonymize's keyword
        with pytest.raises(ParameterError, match=message):
            anonymize(PEOPLE, Schema({"age": Numeric()}), 3, **{name: value})
    else:  # a method's weights (the generalization cost's), the same rule
        with pytest.raises(ParameterError, match=message):
            anonymize(PEOPLE, Schema({"age": Numeric()}), 3, method="forest",
                      params={"weights": value})  # fmt: skip
    job = tmp_path / "job.toml"  # the job file
    job.write_text(_toml({"k": 3, name: value}))
    with pytest.raises(ParameterError, match=message):
        Settings.from_toml(job)
    PEOPLE.to_csv(tmp_path / "people.csv", index=False)  # the command line
    capsys.readouterr()
    code = run(["anonymize", str(tmp_path / "people.csv"), "--qi", "age", "--k", "3",
                "--out", str(tmp_path / "out.csv"), "--method", "forest", flag, text])  # fmt: skip
    assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_anonymize_builds_its_method_whole():
    """The run gives the method its published form and seed when it is made (no adjusting
    after), and the method's own ``params`` cannot override them."""
    schema = Schema({"age": Numeric()}, sensitive=["disease"])
    fitted = []
    anonymize(PEOPLE, schema, 3, generalize="sets", seed=7, params={"generalize": "levels"},
              on_fitted=lambda method, _space: fitted.append(method))  # fmt: skip
    assert (fitted[0].generalize, fitted[0].random_state) == ("sets", 7)
    fitted.clear()
    anonymize(PEOPLE, schema, 3, diversity=Diversity(l=2),
              on_fitted=lambda method, _space: fitted.append(method))  # fmt: skip
    assert fitted[0].l == 2
