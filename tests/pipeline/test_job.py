"""Reading a job file (and a job sent as JSON): what is wrong with a bad one is one
:class:`~incrowd.InputError` naming it, before any work (issue 58 #4, #7, #10, #11)."""

from __future__ import annotations

import pytest

from incrowd.errors import InputError
from incrowd.pipeline.job import MAX_NESTING, parse_json_job, read_job
from incrowd.pipeline.settings import Settings

JOB = 'input = "people.csv"\nout = "out.csv"\nk = 3\n[columns]\nqi = ["age"]\n'


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [5_000, 200, MAX_NESTING + 1])
def test_a_deeply_nested_job_file_is_not_a_valid_job_file(tmp_path, depth):
    """5,000 nested arrays were a RecursionError (an internal error on the command line and
    in the app's upload); fewer, but more than any job has, are refused the same way."""
    path = tmp_path / "deep.toml"
    path.write_text(f"{JOB}[params]\nx = {_nested(depth)}\n")
    with pytest.raises(InputError, match=r"deep.toml: not a valid job file: .*nested"):
        read_job(path)


def test_a_deeply_nested_table_is_refused_too(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(f"{JOB}[params]\n" + ".".join(["a"] * (MAX_NESTING + 2)) + " = 1\n")
    with pytest.raises(InputError, match="not a valid job file: nested deeper than"):
        read_job(path)


def test_what_a_job_may_hold_is_read(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(f"{JOB}[params]\nbands = [[0, 17], [18, 64]]\n")
    assert read_job(path).params == {"bands": [[0, 17], [18, 64]]}


@pytest.mark.parametrize("depth", [100_000, 1_000, MAX_NESTING])
def test_a_deeply_nested_json_job_is_refused(depth):
    """The app's ``POST /api/runs`` with 100,000 nested brackets (under its 1 MiB cap)
    answered a bare 500; it reads the body with ``loads_bounded``, as this function does."""
    body = '{"settings": {"params": {"x": ' + _nested(depth) + "}}}"
    with pytest.raises(InputError, match="the request: not a valid job file: .*nested"):
        parse_json_job(body.encode(), "the request")


def test_a_json_job_is_an_object():
    assert parse_json_job(b'{"k": 3, "qi": ["age"]}', "the request") == {"k": 3, "qi": ["age"]}
    assert parse_json_job(b"", "the request") == {}
    for raw in (b"[1]", b"{", b"\xff", b'"x"'):
        with pytest.raises(InputError, match="the request: not a valid job file"):
            parse_json_job(raw, "the request")


def test_one_depth_check_reads_json_and_toml():
    """The job file, a job as JSON and the app's request bodies share ``loads_bounded``: a
    value nested exactly ``MAX_NESTING`` deep is read, one level more is refused."""
    import json
    import tomllib

    from incrowd.pipeline.job import NestedTooDeep, loads_bounded

    assert loads_bounded(json.loads, _nested(MAX_NESTING)) == json.loads(_nested(MAX_NESTING))
    for parse, text in ((json.loads, _nested(MAX_NESTING + 1)),
                        (tomllib.loads, f"x = {_nested(MAX_NESTING)}")):  # fmt: skip
        with pytest.raises(NestedTooDeep):
            loads_bounded(parse, text)
    with pytest.raises(json.JSONDecodeError):  # the parser's own error, not NestedTooDeep
        loads_bounded(json.loads, "{")


def test_a_folder_or_a_device_is_no_job_file(tmp_path):
    with pytest.raises(InputError, match=f"job file '{tmp_path}': is a directory"):
        read_job(tmp_path)
    with pytest.raises(InputError, match="job file '/dev/null': is not a regular file"):
        read_job("/dev/null")
    with pytest.raises(InputError, match="job file not found: "):
        read_job(tmp_path / "nope.toml")


EMPTY = [("input", "", "no input table given"), ("input", "  ", "no input table given"),
         ("out", "", "no output file given")]  # fmt: skip


@pytest.mark.parametrize(("key", "value", "said"), EMPTY)
def test_an_empty_input_or_output_is_said_so(tmp_path, key, value, said):
    """``input = ""`` was taken as the job file's folder ("is a directory", once the run
    had started)."""
    path = tmp_path / "empty.toml"
    path.write_text(f"{key} = {value!r}\nk = 3\n[columns]\nqi = ['age']\n")
    with pytest.raises(InputError, match=f"empty.toml: {said}"):
        read_job(path)
    with pytest.raises(InputError, match=said):  # settings sent as a mapping (the app's)
        Settings.from_mapping({key: value, "k": 3}, "the request", base=tmp_path)


def test_a_job_file_with_a_byte_order_mark_is_read(tmp_path):
    """Windows editors save UTF-8 with a BOM: it was "Invalid statement (line 1, column 1)"."""
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + JOB.encode())
    job = read_job(path)
    assert (job.k, job.qi, job.input) == (3, ("age",), str(tmp_path / "people.csv"))
