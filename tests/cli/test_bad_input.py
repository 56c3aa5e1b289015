"""A corpus of bad inputs: each gets one line naming the problem, exit code 2, no traceback,
and leaves no new file (issue 9). Cases run through the real command line (incrowd.cli.app.run)."""

import gzip
import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from strategies import PEOPLE

from incrowd import InputError, ParameterError, SchemaError, anonymize, verify
from incrowd.cli.app import run
from incrowd.datasets import adult_hierarchy_path

RACE = str(adult_hierarchy_path("race"))
GOOD = ("--qi", "age,sex", "--k", "3")
BLOCKWISE = ("--block-size", "1000", "--scheduler", "sync")  # a TableFile, in this process


def files(d):
    """The inputs every case may use, written into the case's own folder."""
    PEOPLE.to_csv(d / "people.csv", index=False, sep=";")
    PEOPLE.to_csv(d / "data.json", index=False)  # a CSV with a misleading name
    (d / "sex_comma.csv").write_text("Male,M,*\nFemale,F,*\n")
    (d / "sex_gap.csv").write_text("Male;;*\nFemale;F;*\n")
    (d / "sex_two_parents.csv").write_text("Male;M;*\nMale;X;*\nFemale;F;*\n")
    (d / "latin1.csv").write_bytes("Male;M\xe4nnlich;*\nFemale;F;*\n".encode("latin-1"))
    (d / "in_latin1.csv").write_bytes("age;sex\n30;M\xe4nnlich\n".encode("latin-1"))
    (d / "ragged.csv").write_text('age,sex\n30,F\n31,"M\n')
    (d / "garbage.parquet").write_text("not parquet")
    (d / "empty.csv").write_text("")
    (d / "header.csv").write_text("age,sex\n")
    (d / "dupes.csv").write_text("age,age\n1,2\n3,4\n")
    (d / "inf.csv").write_text("age,x\n1,inf\n2,3\n3,4\n")
    (d / "nul.csv").write_bytes(b"age,x\n1,\xe9\x00\n2,3\n")
    (d / "nan_text.csv").write_text("age\n" + "\n".join(["20"] * 30 + ["unknown"]) + "\n")
    (d / "missing.csv").write_text("age,sex\n30,F\n,M\n31,\n32,F\n33,M\n34,F\n")
    (d / "pipes.csv").write_text("age,sex\n1,a|b\n2,c\n3,a|b\n4,c\n")
    (d / "count.csv").write_text("age,count\n1,2\n2,3\n3,4\n")
    (d / "formula.csv").write_text("age,note\n1,=1+1\n2,ok\n3,@x\n")
    (d / "mine.json").write_text('{"my": "notes"}')
    (d / "mine.csv").write_text("my,own\n1,2\n")
    (d / "folder.csv").mkdir()
    (d / "afile").write_text("x")
    (d / "bad.toml").write_text("k = = 3\n")
    # issue 58: job files nested past Python's recursion, naming no input table
    (d / "deep.toml").write_text("k = 3\n[params]\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    (d / "noinput.toml").write_text('input = ""\nout = "out.csv"\nk = 3\n[columns]\nqi = ["age"]\n')
    # issue 58: names that are terminal escape sequences (clear the screen, CSI) and a line break
    (d / "esc.csv").write_bytes('age\x1b[2J,"two\nlines",zip\x9b2J\n30,a,b\n31,c,d\n'.encode())
    # issue 43: hierarchies (the long line is a sparse file: 3 MiB of NUL, no disk used)
    (d / "sex_cross.csv").write_text("Male;Female;*\nFemale;Male;*\n")
    (d / "sex_loop.csv").write_text("Male;X;Male\nFemale;X;Male\n")
    with open(d / "sex_long.csv", "wb") as fh:
        fh.truncate(3 << 20)
    (d / "bogus.toml").write_text(
        'input = "people.csv"\nout = "out.csv"\nk = 3\n'
        '[columns]\nqi = ["age"]\n[hierarchy]\nage = "bogus:1"\n'
    )
    # issue 43: files and options
    os.symlink("nowhere.csv", d / "dangling.csv")
    (d / "huge.csv").write_text("age,x\n1,1e308\n2,-1e308\n3,4\n4,5\n")
    # issue 43: input tables (Parquet columns of lists, structs and bytes; rows of the wrong
    # length; files that are not tables)
    pq.write_table(pa.table({
        "age": PEOPLE["age"].tolist(),
        "tags": pa.array([["a", "b"], ["c"]] * 6, pa.list_(pa.string())),
        "place": pa.array([{"x": 1, "y": "a"}, {"x": 2, "y": "b"}] * 6),
        "photo": pa.array([b"\x89\xff", b"\x00"] * 6, pa.binary()),
    }), d / "nested.parquet")  # fmt: skip
    # issue 58: an infinite number in a Parquet column (no flag declared it numeric)
    pd.DataFrame({"age": [float("inf"), 30.0, 31.0, 32.0], "sex": list("FMFM")}).to_parquet(
        d / "inf.parquet")  # fmt: skip
    (d / "short.csv").write_text("age,sex,disease\n30,F,flu\n31,F\n32,M,cold\n33,M,flu\n")
    (d / "long.csv").write_text("age,sex,disease\n30,F,flu\n31,F,cold,x\n32,M,cold\n33,M,flu\n")
    (d / "book.xlsx").write_bytes(b"PK\x03\x04\x14\x00\x06\x00" + bytes(64))
    (d / "people.csv.gz").write_bytes(gzip.compress(PEOPLE.to_csv(index=False).encode()))
    for name, body in {
        "columns5.toml": "columns = 5\n",
        "seed15.toml": "seed = 1.5\n[columns]\nqi = ['age']\n",
        "kstr.toml": "k = 'five'\n[columns]\nqi = ['age']\n",
        "unknown.toml": "colour = 'red'\n[columns]\nqi = ['age']\n",
        "qi5.toml": "[columns]\nqi = 5\n",
        "hier5.toml": "[columns]\nqi = ['sex']\n[hierarchy]\nsex = 5\n",
        "weightx.toml": "[columns]\nqi = ['age']\n[weights]\nage = 'x'\n",
        "kcol.toml": "[columns]\nqi = ['age']\nk = 3\n",
    }.items():
        (d / name).write_text(f'input = "people.csv"\nout = "out.csv"\nk = 3\n{body}'
                              if "k =" not in body and name != "kcol.toml"
                              else f'input = "people.csv"\nout = "out.csv"\n{body}')  # fmt: skip


def anon(*args, source="people.csv", out="out.csv"):
    return ("anonymize", source, "--out", out, *args)


CASES = [
    # --- the defects of issue 9
    (anon(*GOOD, out="rel.json"), "must end in .csv or .parquet"),
    (anon(*GOOD, source="data.json", out="data.csv"), "it is an input of this run"),
    (anon(*GOOD, out="mine.csv"), "not part of an earlier incrowd release"),
    (anon(*GOOD, out="folder.csv"), "folder.csv: it is a directory"),
    (anon(*GOOD, out="afile/out.csv"), "afile"),
    (anon(*GOOD, "--seed", "-1"), "seed must be a non-negative integer, got -1"),
    (anon(*GOOD, "--sep", "::"), "separator must be a single character"),
    (("anonymize", "--config", "columns5.toml"), "[columns] must be a table of settings"),
    (("anonymize", "--config", "seed15.toml"), "seed must be an integer, got 1.5"),
    (anon("--qi", "sex", "--k", "3", "--hierarchy", "sex=sex_comma.csv"), "splits evenly on ','"),
    (anon("--qi", "age", "--k", "3", "--hierarchy", "disease=prefix"), "not a quasi-identifier"),
    (("verify", "{out}", "--qi", "age,height", "--k", "3"), "no column 'height'"),
    (("evaluate", "people.csv", "{out}", "--qi", "age"), "made with quasi-identifiers age, sex"),
    (anon("--qi", "x", "--numeric", "x", "--k", "2", source="inf.csv"), "row 1 holds 'inf'"),
    (
        anon(
            "--qi",
            "age",
            "--insensitive",
            "note",
            "--k",
            "2",
            "--csv-formulas",
            "refuse",
            source="formula.csv",
        ),
        "would run as a formula",
    ),  # fmt: skip
    (anon(*GOOD, "--csv-formulas", "maybe"), "--csv-formulas must be 'escape' or 'refuse'"),
    # --- usage errors (one line, not a box)
    (anon("--qi", "age", "--k", "abc"), "Invalid value for '--k'"),
    (anon("--qi", "age", "--k", "1.5"), "Invalid value for '--k'"),
    (anon(*GOOD, "--seed", "abc"), "Invalid value for '--seed'"),
    (anon(*GOOD, "--frobnicate"), "No such option: --frobnicate"),
    (("frobnicate",), "No such command 'frobnicate'"),
    (("verify",), "Missing argument"),
    (("anonymize",), "missing INPUT, --out, --k"),
    (("anonymize", "people.csv", "--qi", "age", "--k", "2"), "missing --out"),
    # --- columns and roles
    (anon("--qi", "age,height", "--k", "2"), "unknown column 'height'"),
    (anon("--qi", "age,age", "--k", "2"), "listed twice"),
    (anon("--qi", "age", "--sensitive", "age", "--k", "2"), "both quasi-identifier and sensitive"),
    (anon("--qi", "age", "--identifier", "ssn", "--k", "2"), "unknown column 'ssn'"),
    (anon("--qi", ",", "--k", "2"), "no quasi-identifiers"),
    (anon("--k", "2"), "no quasi-identifiers"),
    (anon("--qi", "age", "--categorical", "sex", "--k", "2"), "not a quasi-identifier"),
    (anon("--qi", "age", "--categorical", "age", "--numeric", "age", "--k", "2"), "declared both"),
    (anon("--qi", "sex", "--numeric", "sex", "--k", "2"), "row 1 holds 'Male'"),
    (anon("--qi", "age", "--k", "2", source="nan_text.csv"), "row 31 holds 'unknown'"),
    (
        anon("--qi", "age,sex", "--k", "2", "--missing", "error", source="missing.csv"),
        "1 missing value(s)",
    ),  # fmt: skip
    (anon("--qi", "age", "--k", "2", "--missing", "guess"), "missing must be"),
    (anon("--qi", "age", "--k", "2", "--date-format", "%Q"), "a date format needs %Y"),
    (anon("--qi", "age", "--k", "2", source="nul.csv"), "holds NUL bytes"),
    (
        anon(
            "--qi",
            "age",
            "--sensitive",
            "count",
            "--k",
            "2",
            "--release",
            "centers",
            source="count.csv",
        ),
        "reserved",
    ),  # fmt: skip
    (
        anon("--qi", "sex", "--k", "2", "--generalize", "sets", source="pipes.csv"),
        "cannot be published in a value set",
    ),  # fmt: skip
    # --- parameters
    (anon("--qi", "age", "--k", "1"), "k must be at least 2"),
    (anon("--qi", "age", "--k", "0"), "k must be at least 2"),
    (anon("--qi", "age", "--k", "13"), "cannot hide 12 record(s)"),
    (anon("--qi", "age", "--k", "2", "--method", "magic"), "unknown method 'magic'"),
    (anon("--qi", "age", "--k", "2", "--param", "depth=3"), "does not take those parameters"),
    (anon("--qi", "age", "--k", "2", "--param", "oops"), "NAME=VALUE"),
    (
        anon("--qi", "age", "--k", "2", "--method", "mdav", "--param", "variant='weird'"),
        "variant must be",
    ),
    (anon("--qi", "age", "--k", "2", "--release", "poster"), "unknown release form 'poster'"),
    (anon("--qi", "age", "--k", "2", "--norm", "3"), "norm must be 1 or 2"),
    (
        anon("--qi", "age", "--k", "2", "--center", "middle", "--release", "centers"),
        "center must be",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "r-gather-outliers", "--epsilon", "1.5"),
        "epsilon must be in [0, 1)",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "r-gather-outliers", "--epsilon", "-0.1"),
        "epsilon must be in [0, 1)",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "kr-center", "--max-clusters", "0"),
        "max_clusters must be a positive integer",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "r-gather", "--epsilon", "0.1"),
        "does not take those parameters",
    ),  # fmt: skip
    (anon("--qi", "age", "--k", "4", "--method", "3-anonymity"), "k must be 3"),
    (
        anon("--qi", "age", "--k", "3", "--method", "forest", "--generalize", "bags"),
        "generalize must be 'levels' or 'sets'",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--generalize", "sets", "--release", "centers"),
        "value sets",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "forest", "--weights", "age=-1"),
        "weight of 'age' must be a positive number",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "3", "--method", "forest", "--weights", "age=abc"),
        "weight of 'age' must be a positive number",
    ),  # fmt: skip
    (anon("--qi", "age", "--k", "3", "--weights", "disease=2"), "not a quasi-identifier"),
    (anon("--qi", "age", "--k", "3", "--weights", "age"), "NAME=VALUE"),
    # --- hierarchies
    (anon("--qi", "zip", "--k", "2", "--hierarchy", "zip=intervals:5,7"), "not a multiple"),
    (anon("--qi", "zip", "--k", "2", "--hierarchy", "zip=intervals:a,b"), "interval hierarchy"),
    (anon("--qi", "age", "--k", "2", "--hierarchy", "age=nope.csv"), "hierarchy file not found"),
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", f"sex={RACE}"),
        "value 'Male' of column 'sex' (row 1) is not in its hierarchy",
    ),  # fmt: skip
    (anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=sex_gap.csv"), "empty cell"),
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=sex_two_parents.csv"),
        "generalizes to both",
    ),  # fmt: skip
    (anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=latin1.csv"), "cannot read"),
    (anon("--qi", "sex", "--k", "2", "--hierarchy", "sex"), "NAME=VALUE"),
    (anon("--qi", "sex", "--k", "2", "--hierarchy", "height=prefix"), "unknown column 'height'"),
    # --- input files
    (anon(*GOOD, source="nope.csv"), "input file not found"),
    (anon("--qi", "age", "--k", "2", source="empty.csv"), "is empty"),
    (anon("--qi", "age", "--k", "2", source="header.csv"), "has no rows"),
    (anon("--qi", "age", "--k", "2", source="dupes.csv"), "two columns are named 'age'"),
    (
        anon("--qi", "age", "--k", "2", "--encoding", "utf-8", source="in_latin1.csv"),
        "line 2 is not utf-8 text",
    ),  # fmt: skip
    (anon("--qi", "age", "--k", "2", "--encoding", "klingon"), "unknown encoding 'klingon'"),
    (anon("--qi", "age", "--k", "2", source="ragged.csv"), "cannot read as a"),
    (anon("--qi", "age", "--k", "2", source="garbage.parquet"), "cannot read as Parquet"),
    # --- job files
    (("anonymize", "--config", "nope.toml"), "job file not found"),
    (("anonymize", "--config", "bad.toml"), "bad.toml: not a valid job file: Invalid value"),
    (("anonymize", "--config", "kstr.toml"), "k must be an integer, got 'five'"),
    (("anonymize", "--config", "unknown.toml"), "unknown setting 'colour'"),
    (("anonymize", "--config", "qi5.toml"), "must be a list of column names"),
    (("anonymize", "--config", "hier5.toml"), "hierarchy.sex must be a file name"),
    (("anonymize", "--config", "weightx.toml"), "weight of 'age' must be a positive number"),
    (("anonymize", "--config", "kcol.toml"), "[columns] k is not a list of columns"),
    # --- verify and evaluate
    (("verify", "nope.csv", "--qi", "age", "--k", "2"), "release file not found"),
    (("verify", "{out}", "--qi", "age,sex", "--k", "0"), "k must be a positive integer"),
    (("verify", "{out}", "--qi", ",", "--k", "2"), "no quasi-identifiers"),
    (("verify", "{badmeta}", "--qi", "age,sex", "--k", "2"), "not valid JSON metadata"),
    (("evaluate", "people.csv", "nope.csv", "--qi", "age,sex"), "release file not found"),
    (("evaluate", "nope.csv", "{out}", "--qi", "age,sex"), "input file not found"),
    # --- issue 43: outputs, huge numbers, options that had no effect
    (anon(*GOOD, out="dangling.csv"), "dangling.csv: it is a symbolic link"),
    (anon(*GOOD, out="afile/out.csv", source="nope.csv"), "afile is not a directory"),
    (
        anon("--qi", "age,x", "--numeric", "x", "--k", "2", source="huge.csv"),
        "in row 1, beyond ±1e+100",
    ),  # fmt: skip
    (anon(*GOOD, "--workers", "0"), "--workers must be a positive integer, got 0"),
    (anon(*GOOD, "--workers", "-2", "--block-size", "5"), "--workers must be a positive integer"),
    (anon(*GOOD, "--method", ""), "unknown method ''"),
    (anon(*GOOD, "--center", "medoid"), "center has no effect on a generalized release"),
    (("verify", "{out}", "--qi", "age,sex", "--k", "2", "--workers", "0"), "--workers must be"),
    # --- issue 43: hierarchies
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=sex_cross.csv"),
        "'Female' generalizes to both '*' (row 1) and 'Male' (row 2)",
    ),  # fmt: skip
    (anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=sex_loop.csv"), "row 1 is a cycle"),
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=sex_long.csv"),
        "hierarchy file 'sex_long.csv' has a line longer than 1 MiB (line 1)",
    ),  # fmt: skip
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=folder.csv"),
        "hierarchy file 'folder.csv': is a directory",
    ),  # fmt: skip
    (
        anon("--qi", "sex", "--k", "2", "--hierarchy", "sex=/dev/null"),
        "hierarchy file '/dev/null': is not a regular file",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--k", "2", "--hierarchy", "age=bogus:1"),
        "unknown hierarchy kind 'bogus'; use FILE, prefix or intervals:",
    ),  # fmt: skip
    (("anonymize", "--config", "bogus.toml"), "unknown hierarchy kind 'bogus'"),
    # --- issue 43: input tables
    (
        anon("--qi", "age,tags", "--k", "3", source="nested.parquet"),
        "column 'tags' holds list<string> values, which cannot be a quasi-identifier",
    ),  # fmt: skip
    (
        anon("--qi", "age,place", "--k", "3", source="nested.parquet"),
        "column 'place' holds struct<x: int64, y: string> values, which cannot be a quasi-",
    ),  # fmt: skip
    (
        anon("--qi", "age,photo", "--k", "3", source="nested.parquet"),
        "column 'photo' holds binary values, which cannot be a quasi-identifier",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--sensitive", "photo", "--k", "3", source="nested.parquet"),
        "column 'photo' (sensitive) holds binary values, which cannot be published",
    ),  # fmt: skip
    (
        anon("--qi", "age", "--insensitive", "tags", "--k", "3", source="nested.parquet"),
        "column 'tags' (insensitive) holds list<string> values, which cannot be published",
    ),  # fmt: skip
    (("risk", "nested.parquet", "{out}", "--qi", "age,photo"), "column 'photo' holds binary"),
    (
        anon("--qi", "age", "--k", "2", source="short.csv"),
        "short.csv: cannot read as a ','-separated table (Expected 3 fields in line 3, saw 2)",
    ),  # fmt: skip
    (anon("--qi", "age", "--k", "2", *BLOCKWISE, source="short.csv"), "line 3, saw 2)"),
    (anon("--qi", "age", "--k", "2", *BLOCKWISE, source="long.csv"), "line 3, saw 4)"),
    (anon(*GOOD, source="/dev/null"), "input file '/dev/null': is not a regular file"),
    (anon(*GOOD, source="folder.csv"), "input file 'folder.csv': is a directory"),
    (("evaluate", "folder.csv", "{out}", "--qi", "age,sex"), "'folder.csv': is a directory"),
    (
        anon(*GOOD, source="book.xlsx"),
        "input file 'book.xlsx' looks like an Excel workbook (a zip archive), not CSV or "
        "Parquet; save it as CSV",
    ),  # fmt: skip
    (anon(*GOOD, source="people.csv.gz"), "'people.csv.gz' is gzip-compressed, not CSV or"),
    (("verify", "/dev/null", "--qi", "age", "--k", "2"), "release file '/dev/null': is not a"),
    (("verify", "nested.parquet", "--qi", "age,photo", "--k", "2"), "'photo' holds binary"),
    # --- issue 58: job files, and a setting of suppression with a method that suppresses none
    (("anonymize", "--config", "deep.toml"), "not a valid job file: nested deeper than 32"),
    (("anonymize", "--config", "folder.csv"), "job file 'folder.csv': is a directory"),
    (("anonymize", "--config", "/dev/null"), "job file '/dev/null': is not a regular file"),
    (("anonymize", "--config", "noinput.toml"), "noinput.toml: no input table given"),
    (anon(*GOOD, "--method", "mdav", "--suppressed", "star"), "--suppressed applies to the"),
    (anon(*GOOD, "--method", "mdav", "--suppression-limit", "0.1"), "--suppression-limit appl"),
    (
        anon("--qi", "nope", "--k", "2", source="esc.csv"),
        "the table has: age\\x1b[2J, two\\nlines, zip\\x9b2J",
    ),  # fmt: skip
    # --- issue 58: Parquet inf is named as such, with no flag the user did not give
    (anon("--qi", "age", "--k", "2", source="inf.parquet"), "'age' row 1 holds inf: not a finit"),
    (
        anon("--qi", "age", "--numeric", "age", "--k", "2", source="inf.parquet"),
        "column 'age' row 1 holds inf: not a finite number",
    ),
]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert run(anon(*GOOD, out="good.csv", source="people.csv") + ("--quiet",)) == 0
    assert run(anon(*GOOD, out="badmeta.csv", source="people.csv") + ("--quiet",)) == 0
    (tmp_path / "badmeta.json").write_text("{not json")
    return tmp_path


def snapshot(d):
    return sorted((p.name, p.lstat().st_mtime_ns) for p in d.iterdir())


def test_the_corpus_is_large():
    assert len(CASES) >= 120  # 90 before issue 43


@pytest.mark.parametrize(("argv", "pattern"), CASES, ids=[c[1][:40] for c in CASES])
def test_bad_input(folder, capsys, argv, pattern):
    capsys.readouterr()
    argv = [a.format(out="good.csv", badmeta="badmeta.csv") for a in argv]
    before = snapshot(folder)
    code = run(argv)
    captured = capsys.readouterr()
    assert code == 2, (code, captured.out, captured.err)
    # a warning may come first (a follow-up given another input than the release's)
    lines = [x for x in captured.err.strip().splitlines() if not x.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error:"), captured.err
    assert pattern in lines[0], lines[0]
    assert "Traceback" not in captured.err + captured.out
    assert snapshot(folder) == before, "a bad input must not leave or change a file"


def test_inspect_shows_what_anonymize_refuses(folder, capsys):
    """issue 58: inspect shows a table with list, struct and binary columns, or an infinite
    number, naming each column and what it holds in one warning line (no internal error)."""
    for source, said in (
        ("nested.parquet", ["column 'tags' holds list<string> values",
                            "column 'place' holds struct<x: int64, y: string> values",
                            "column 'photo' holds binary values"]),
        ("inf.parquet", ["column 'age' row 1 holds inf: not a finite number"]),
    ):  # fmt: skip
        capsys.readouterr()
        assert run(["inspect", source]) == 0
        captured = capsys.readouterr()
        warned = [line for line in captured.err.splitlines() if line.startswith("warning:")]
        for text in said:
            assert len([line for line in warned if text in line]) == 1, captured.err
        assert "internal error" not in captured.err and "np.float64" not in captured.err
        assert "--numeric" not in captured.err


# --------------------------------------------------------------------- the Python API
def test_api_errors_are_incrowd_errors():
    table = PEOPLE.copy()
    from incrowd import Numeric, Schema

    schema = Schema({"age": Numeric()})
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        anonymize(table, schema, 3, seed=-1)
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        anonymize(table, schema, 3, seed=1.5)
    with pytest.raises(InputError, match="no column 'x'"):
        verify(table, ["x"], 2)
    with pytest.raises(SchemaError, match="unknown column 'height'"):
        anonymize(table, Schema({"height": Numeric()}), 3)


def test_integer_column_names_work_in_the_python_api():
    from incrowd import Numeric, Schema

    table = pd.DataFrame({0: list(range(10)), 1: [v % 3 for v in range(10)]})
    rel = anonymize(table, Schema({"0": Numeric(), "1": Numeric()}), 3, seed=1)
    assert verify(rel, ["0", "1"], 3).ok
    assert list(rel.table.columns) == ["0", "1"]


def test_no_file_is_left_by_any_case(folder):
    """The folder holds only the fixture's files after every case above (checked per case);
    here: no hidden temporaries either."""
    assert [p for p in os.listdir(folder) if p.startswith(".")] == []
