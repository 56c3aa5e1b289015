"""Every request of the local app answers one line: 400 for a malformed request (a body that
is not a JSON object, a form of the wrong shape, a path with a NUL), 500 with the command
line's ``internal error`` line for a bug, never a traceback page; and the app's start and
its limits leave nothing behind."""

from __future__ import annotations

import socket
import tempfile
from types import SimpleNamespace

import pytest


@pytest.fixture
def loose(local):
    """A test client that answers a server exception as the server would (no re-raise)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        client = TestClient(local.app, base_url=f"http://127.0.0.1:{local.port}",
                            raise_server_exceptions=False)  # fmt: skip
    assert client.get(local.url).status_code == 200
    (local.folders.writable[0] / "t.csv").write_text("age,sex\n30,M\n40,F\n50,M\n")
    return client


def one_line(response, status, start="error: "):
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error.startswith(start) and "\n" not in error, error
    return error


@pytest.mark.parametrize("params", [{"path": "t\0.csv"}, {"path": "t.csv", "encoding": "utf-16"},
                                    {"path": "t.csv", "encoding": "no-such-codec"}])  # fmt: skip
def test_a_bad_path_or_encoding_is_a_400(loose, params):
    one_line(loose.get("/api/open", params=params), 400)


@pytest.mark.parametrize("columns", [[1], {"a": "x"}, {"age": {"role": "quasi-identifier",
                                     "hierarchy": 3}}, {"age": {"role": ["x"]}}])  # fmt: skip
def test_a_form_of_the_wrong_shape_is_a_400(loose, origin, columns):
    form = {"input": "t.csv", "k": 2, "columns": columns}
    error = one_line(loose.post("/api/runs", json=form, headers=origin), 400)
    assert "the form's columns" in error
    hierarchy = loose.post("/api/hierarchy", params={"column": "age"}, json=form, headers=origin)
    assert "the form's columns" in one_line(hierarchy, 400)
    assert loose.app.state.runs.runs == {}  # type: ignore[attr-defined]


def test_a_setting_of_the_wrong_shape_is_a_400(loose, origin):
    form = {"input": "t.csv", "k": [2], "columns": {"age": {"role": "quasi-identifier"}}}
    assert "the form's k" in one_line(loose.post("/api/runs", json=form, headers=origin), 400)


@pytest.mark.parametrize("body", [b"{bad", b"[1]", b'"x"', b"\xff"])
@pytest.mark.parametrize("url", ["/api/runs", "/api/hierarchy?column=age", "/api/runs/x/save"])
def test_a_body_that_is_not_a_json_object_is_a_400(loose, origin, url, body):
    response = loose.post(url, content=body, headers=origin)
    assert one_line(response, 400) == "error: the request is not a JSON object"


def test_a_bug_is_a_500_with_one_line(loose, monkeypatch):
    def broken(*args):
        raise KeyError("x")

    monkeypatch.setattr("incrowd.ui.app.open_path", broken)
    response = loose.get("/api/open", params={"path": "t.csv"})
    assert one_line(response, 500, "internal error: ") == "internal error: KeyError: 'x'"


def test_runs_that_failed_or_were_cancelled_do_not_count(client, local, origin):
    from incrowd.ui.limits import MAX_RUNS

    (local.folders.writable[0] / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    form = {"input": "t.csv", "k": 2, "columns": {"age": {"role": "quasi-identifier"}}}
    held = local.app.state.runs.runs
    held |= {f"r{i}": SimpleNamespace(state=("failed", "cancelled")[i % 2], result=None)
             for i in range(MAX_RUNS)}  # fmt: skip
    started = client.post("/api/runs", json=form, headers=origin)
    for i in range(MAX_RUNS):  # not runs: close() would cancel them
        del held[f"r{i}"]
    assert started.status_code == 200, started.text


def test_a_listener_that_breaks_fails_the_run(local):
    from incrowd.ui.runs import Run

    class Broken:
        def recv(self):
            raise RuntimeError("unpickled nonsense")

        def close(self):
            pass

    run = Run("x", None, local.uploads / "no-such-run",  # type: ignore[arg-type]
              process=SimpleNamespace(join=lambda timeout: None))  # fmt: skip
    local.app.state.runs._listen(run, Broken())
    assert run.state == "failed"
    assert run.error == "internal error: RuntimeError: unpickled nonsense"


def test_a_result_after_a_cancel_is_dropped(local):
    from incrowd.ui.runs import Run

    class Late:
        def recv(self):
            return ("done", {"late": True})

        def close(self):
            pass

    run = Run("x", None, local.uploads / "no-such-run",  # type: ignore[arg-type]
              process=SimpleNamespace(join=lambda timeout: None), state="cancelled")  # fmt: skip
    local.app.state.runs._listen(run, Late())
    assert run.state == "cancelled" and run.result is None


def test_a_port_in_use_leaves_no_folder(tmp_path, monkeypatch):
    from incrowd.ui.server import LocalApp

    (tmp_path / "tmp").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(OSError):
            LocalApp([tmp_path / "work"], port=taken.getsockname()[1])
    finally:
        taken.close()
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("cap", ["inf", "nan", "0", "-1"])
def test_max_upload_must_be_a_finite_number_above_0(cap):
    from typer.testing import CliRunner

    from incrowd.cli.app import app as cli

    made = CliRunner().invoke(cli, ["ui", "--max-upload", cap])
    assert made.exit_code != 0 and made.exception is None or isinstance(made.exception,
                                                                         SystemExit)  # fmt: skip
    assert f"--max-upload {cap}" in made.output and "Traceback" not in made.output, made.output


# a body nested too deep for the parsers, a client gone mid-upload


@pytest.mark.parametrize("url", ["/api/runs", "/api/hierarchy?column=age", "/api/runs/x/save"])
def test_json_nested_too_deep_is_a_400(loose, origin, url):
    from incrowd.ui.limits import MAX_BODY

    body = b"[" * 100_000 + b"]" * 100_000  # under the cap: the parser recursed past its limit
    assert len(body) < MAX_BODY
    response = loose.post(url, content=body, headers=origin)
    assert one_line(response, 400) == "error: the request is not valid JSON: too deeply nested"
    assert loose.app.state.runs.runs == {}  # type: ignore[attr-defined]


def test_an_uploaded_job_file_nested_too_deep_is_a_400(loose, origin, local):
    body = b'input = "t.csv"\nx = ' + b"[" * 5_000 + b"]" * 5_000 + b"\n"
    response = loose.post("/api/upload", params={"name": "job.toml"}, content=body,
                          headers=origin)  # fmt: skip
    assert "not a valid job file" in one_line(response, 400)


def test_a_client_gone_mid_upload_is_one_log_line(local, caplog):
    """The page closed while a file was sent: one line in the terminal (not a traceback),
    nothing kept, and the server goes on."""
    import asyncio
    import logging
    from concurrent.futures import ThreadPoolExecutor

    messages = [{"type": "http.request", "body": b"age,sex\n30,M\n", "more_body": True},
                {"type": "http.disconnect"}]  # fmt: skip
    sent = []

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    host = f"127.0.0.1:{local.port}"
    scope = {"type": "http", "method": "POST", "path": "/api/upload", "raw_path": b"/api/upload",
             "query_string": f"name=cut.csv&token={local.token}".encode(), "root_path": "",
             "headers": [(b"host", host.encode()), (b"origin", f"http://{host}".encode())],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", local.port),
             "client": ("127.0.0.1", 50000)}  # fmt: skip
    with caplog.at_level(logging.WARNING), ThreadPoolExecutor(1) as pool:
        # a loop of its own: another test's (Playwright's) may run in this thread
        pool.submit(asyncio.run, local.app(scope, receive, send)).result()
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["incrowd ui: the upload of 'cut.csv' was cut off by the browser; nothing "
                     "was kept"], lines  # fmt: skip
    assert list(local.uploads.rglob("*")) == []


def test_json_deeper_than_any_form_is_a_400(loose, origin):
    """Parsed, but deeper than a form nests: what reads it could recurse past the limit."""
    from incrowd.pipeline.job import MAX_NESTING

    deep = "[" * MAX_NESTING + "]" * MAX_NESTING
    form = '{"input": "t.csv", "k": 2, "settings": {"params": {"x": ' + deep + "}}}"
    response = loose.post("/api/runs", content=form.encode(), headers=origin)
    assert one_line(response, 400) == "error: the request is not valid JSON: too deeply nested"
