"""render_job: the TOML text of Settings that the job file reader gives back unchanged."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from incrowd.errors import ParameterError
from incrowd.pipeline.job import job_from_mapping
from incrowd.pipeline.job_writer import render_job, toml_key, toml_value
from incrowd.pipeline.settings import Settings

BASE = Path("/data/steward")
#: Any text a column name may be, but lone surrogates (no file holds them).
NAMES = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
TRICKY = ['a "quoted" name', "hash # not a comment", "Größe (m²)", "with space", "tab\there",
          "line\nbreak", "back\\slash", "", "ключ", "emoji 🙂", "=", "[columns]", "'single'",
          "\x7f\x00ctl", "trailing\\"]  # fmt: skip


def read_back(text: str, base: Path = BASE) -> Settings:
    """What the job file reader gives for ``text`` saved in ``base``."""
    return job_from_mapping(tomllib.loads(text), "job", base)


def positive_floats() -> st.SearchStrategy[float]:
    return st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)


def params() -> st.SearchStrategy[object]:
    scalars = st.one_of(st.booleans(), st.integers(-(2**63), 2**63 - 1), NAMES,
                        st.floats(allow_nan=False))  # fmt: skip
    return st.one_of(scalars, st.lists(scalars, max_size=3),
                     st.dictionaries(NAMES, scalars, max_size=2))  # fmt: skip


@st.composite
def settings(draw: st.DrawFn) -> Settings:
    """Settings with every kind of field: paths under BASE, strings, ints, floats, lists,
    the column lists, hierarchy specs and files, weights and params."""
    names = st.lists(NAMES, max_size=4).map(tuple)
    maybe = lambda strategy: st.none() | strategy  # noqa: E731
    spec = st.sampled_from(["prefix", "dates", "dates:month,year", "intervals:5,10,20",
                            "intervals:0-17,18-64,65-120", "bogus:1"]) | NAMES.filter(
        lambda s: s.strip(" ./") and "\x00" not in s and ":" not in s
    ).map(lambda s: str(BASE / "h" / s.strip(" ./")))  # fmt: skip
    l_kind = draw(st.sampled_from(["distinct", "entropy", "recursive"]))
    l = draw(maybe(st.integers(1, 9).map(float) if l_kind == "distinct"  # noqa: E741
                   else st.floats(1, 9)))  # fmt: skip
    return Settings(
        input=draw(maybe(st.sampled_from(["t.csv", "in put/ß #1.csv", 'q"uote.csv']).map(
            lambda s: str(BASE / s)))),
        out=draw(maybe(st.just("/elsewhere/out.csv"))),
        k=draw(maybe(st.integers(2, 10**6))),
        method=draw(maybe(st.sampled_from(["mdav", "local-recoding"]))),
        release=draw(st.sampled_from(["generalized", "microaggregated", "centers"])),
        seed=draw(maybe(st.integers(0, 2**32 - 1))),
        sep=draw(maybe(st.sampled_from([",", ";", "\t", "|", "#", "\\"]))),
        missing=draw(st.sampled_from(["keep", "drop", "error"])),
        encoding=draw(maybe(st.sampled_from(["latin-1", "cp1252"]))),
        thousands=draw(maybe(st.sampled_from([",", ".", "'", " "]))),
        decimal=draw(maybe(st.sampled_from([".", ","]))),
        date_format=draw(maybe(st.sampled_from(["%d/%m/%Y", "%Y-%m-%d %H:%M"]))),
        norm=draw(maybe(st.sampled_from([1, 2]))),
        generalize=draw(st.sampled_from(["levels", "sets"])),
        l=l, l_kind=l_kind, c=draw(positive_floats()) if l_kind == "recursive" else 1.0,
        t=draw(maybe(st.floats(0, 1))), t_kind=draw(st.sampled_from(["equal", "ordered", "auto"])),
        workers=draw(maybe(st.integers(1, 64))), block_by=draw(names), na_values=draw(names),
        spill=draw(st.sampled_from(["auto", "always", "never"])),
        qi=draw(names), sensitive=draw(names), identifier=draw(names), insensitive=draw(names),
        categorical=draw(names), numeric=draw(names), code=draw(names), date=draw(names),
        hierarchy=draw(st.dictionaries(NAMES, spec, max_size=3)),
        weights=draw(st.dictionaries(NAMES, positive_floats(), max_size=3)),
        params=draw(st.dictionaries(NAMES, params(), max_size=3)),
    )  # fmt: skip


def same(a: object, b: object) -> bool:
    """Equal, with nan equal to nan (a float param)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b and type(a) is type(b) or (isinstance(a, int | float) and a == b)


@given(settings(), st.dictionaries(NAMES, NAMES, max_size=3))
def test_render_job_reads_back_to_the_same_settings(job, comments):
    text = render_job(job, comments=comments, base=BASE)
    back = read_back(text)
    for name in Settings.names():
        assert same(getattr(back, name), getattr(job, name)), (name, text)


@pytest.mark.parametrize("name", TRICKY)
def test_a_column_name_of_any_spelling_survives(name, tmp_path):
    job = Settings(input=str(tmp_path / "data.csv"), k=3, qi=(name, "b"), code=(name,),
                   hierarchy={name: "prefix"}, weights={name: 2.5},
                   params={name: [name, 1, 2.5, True]})  # fmt: skip
    (tmp_path / "job.toml").write_text(
        render_job(job, comments={name: f"a comment on {name}", "b": "x\ny"}, base=tmp_path),
        encoding="utf-8",
    )
    assert Settings.from_toml(tmp_path / "job.toml") == job


def test_paths_are_relative_to_the_file_when_under_it(tmp_path):
    hierarchy = tmp_path / "h" / "sex.csv"
    job = Settings(input=str(tmp_path / "sub" / "in.csv"), out="/abs/out.csv",
                   hierarchy={"sex": str(hierarchy), "zip": "prefix"})  # fmt: skip
    text = render_job(job, base=tmp_path)
    assert 'input = "sub/in.csv"' in text and 'out = "/abs/out.csv"' in text
    assert 'sex = "h/sex.csv"' in text and 'zip = "prefix"' in text
    (tmp_path / "job.toml").write_text(text, encoding="utf-8")
    assert Settings.from_toml(tmp_path / "job.toml") == job
    # with no base, paths are written as they are
    assert 'input = "data.csv"' in render_job(Settings(input="data.csv"))


def test_only_changed_settings_are_written_but_the_steward_keys_always_are():
    text = render_job(Settings())
    keys = [line.split(" = ")[0] for line in text.splitlines() if " = " in line
            and not line.startswith("#")]  # fmt: skip
    assert keys == ["qi", "sensitive", "identifier", "insensitive"]
    assert "# k = " in text  # unset: a commented-out line (TOML has no null)
    lines = text.splitlines()
    for key in ("# k", "qi", "sensitive", "identifier", "insensitive"):  # each after a comment
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
        assert lines[at - 1].startswith("# ") and " = " not in lines[at - 1], key
    assert read_back(text) == Settings()
    assert "missing" not in render_job(Settings(missing="keep"))
    assert 'missing = "drop"' in render_job(Settings(missing="drop"))


def test_a_comment_sits_beside_its_column_and_stays_one_line():
    text = render_job(Settings(qi=("age", "zip")), comments={
        "zip": "code, 6 distinct,\n3 missing", "gone": "not in any list"})  # fmt: skip
    lines = text.splitlines()
    assert '    "zip",  # code, 6 distinct, 3 missing' in lines
    assert '    "age",' in lines
    assert '# "gone" (not published: no list names it): not in any list' in lines
    assert read_back(text) == Settings(qi=("age", "zip"))


def test_toml_scalars():
    assert toml_key("a-b_1") == "a-b_1" and toml_key("a.b") == '"a.b"'
    assert toml_value("a\tb\u0001") == '"a\\tb\\u0001"'
    assert toml_value(1e-7) == "1e-07" and toml_value(float("nan")) == "nan"
    assert tomllib.loads(f"x = {toml_value(0.1 + 0.2)}")["x"] == 0.1 + 0.2
    assert toml_value({"a": [1, True]}) == "{ a = [1, true] }"


def test_a_param_toml_cannot_hold_is_an_error_naming_it():
    with pytest.raises(ParameterError, match="params.variant: None cannot be written"):
        render_job(Settings(params={"variant": None}))
