"""The local app's security rules (incrowd.ui.security): the token, Host, Origin and the
folders; every refusal is a 403, every good request goes through."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from incrowd.cli.app import app as cli

ADULT = Path(__file__).resolve().parents[2] / "src" / "incrowd" / "datasets" / "adult"


def fresh(local, **options):
    """A client that holds no cookie."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        return TestClient(local.app, base_url=f"http://127.0.0.1:{local.port}", **options)


def test_the_page_needs_the_token(local):
    c = fresh(local)
    assert c.get("/").status_code == 403
    assert c.get("/?token=wrong").status_code == 403
    assert c.get("/api/choices").status_code == 403
    first = c.get(f"/?token={local.token}")
    assert first.status_code == 200
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and local.token in cookie
    assert c.get("/api/choices").status_code == 200  # by the cookie now
    assert fresh(local, cookies={f"incrowd-ui-{local.port}": "wrong"}).get("/").status_code == 403


def test_the_token_is_new_at_each_start(tmp_path):
    from incrowd.ui.server import LocalApp

    one, two = LocalApp([tmp_path]), LocalApp([tmp_path])
    try:
        assert one.token != two.token and len(one.token) >= 40
    finally:
        one.close()
        two.close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1",
                                  "127.0.0.1", "0.0.0.0:{port}", "[::1]:{port}"])  # fmt: skip
def test_a_foreign_host_is_refused(client, local, host):
    response = client.get("/api/choices", headers={"Host": host.format(port=local.port)})
    assert response.status_code == 403
    assert "127.0.0.1 and localhost" in response.text


def test_localhost_is_our_host(client, local):
    assert (
        client.get("/api/choices", headers={"Host": f"localhost:{local.port}"}).status_code == 200
    )


@pytest.mark.parametrize("origin_", ["http://evil.example", "null", "http://127.0.0.1:1",
                                     "https://127.0.0.1:{port}"])  # fmt: skip
def test_a_foreign_origin_is_refused(client, local, origin_):
    headers = {"Origin": origin_.format(port=local.port)}
    assert client.get("/api/choices", headers=headers).status_code == 403
    assert client.post("/api/runs", json={}, headers=headers).status_code == 403


def test_a_change_needs_our_origin(client, local, origin):
    assert client.post("/api/runs", json={}).status_code == 403  # no Origin
    cross = origin | {"Sec-Fetch-Site": "cross-site"}
    assert client.post("/api/runs", json={}, headers=cross).status_code == 403
    # our own origin passes the guard (the form is then refused for its k: 400, not 403)
    response = client.post("/api/runs", json={"input": "x.csv", "k": 0}, headers=origin)
    assert response.status_code == 400
    assert response.json()["error"].startswith("error: ")


def test_paths_outside_the_folders_are_refused(client, local, tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text("a,b\n1,2\n")
    work = tmp_path / "work"
    (work / "link.csv").symlink_to(outside)
    for path in ("/etc/passwd", str(outside), "../outside.csv", "link.csv", str(work / "link.csv")):
        response = client.get("/api/open", params={"path": path})
        assert response.status_code == 403, path
        assert "outside" in response.json()["error"]


def test_a_table_inside_the_folders_opens(client, tmp_path):
    (tmp_path / "work" / "t.csv").write_text("age,zip\n30,12345\n40,12346\n")
    response = client.get("/api/open", params={"path": "t.csv"})
    assert response.status_code == 200
    view = response.json()
    assert view["n_rows"] == 2 and [c["column"] for c in view["columns"]] == ["age", "zip"]
    assert view["columns"][0]["type"] == "number"


def test_the_demo_data_is_readable_not_writable(client, local):
    from incrowd.ui.security import Forbidden

    assert client.get("/api/open", params={"path": str(ADULT / "incrowd.toml")}).status_code == 200
    with pytest.raises(Forbidden):
        local.folders.resolve(ADULT / "saved.csv", write=True)


def test_the_demo_data_stays_read_only_inside_an_opened_folder(tmp_path):
    """Started in a folder that holds the demo data (a checkout, a venv): still not written."""
    from incrowd.ui.security import Folders, Forbidden

    demo = tmp_path / "pkg" / "datasets"
    demo.mkdir(parents=True)
    folders = Folders([tmp_path], readable=[demo])
    assert folders.resolve(tmp_path / "out.csv", write=True) == (tmp_path / "out.csv").resolve()
    assert folders.resolve(demo / "adult.csv") == (demo / "adult.csv").resolve()
    with pytest.raises(Forbidden, match="demo data"):
        folders.resolve(demo / "saved.csv", write=True)


def test_open_hands_the_browser_a_private_page_not_the_token(tmp_path):
    """A command line is readable by every local user: --open gives the browser a file of
    ours that forwards to the URL."""
    import stat

    from incrowd.cli.ui import _forwarding_page

    url = "http://127.0.0.1:8765/?token=secret-token"
    page = _forwarding_page(url)
    assert "secret-token" not in page.as_uri()
    assert url in page.read_text()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700


def test_a_job_file_may_not_point_outside(client, tmp_path):
    (tmp_path / "secret.csv").write_text("a,b\n1,2\n")
    (tmp_path / "work" / "job.toml").write_text('input = "../secret.csv"\n')
    assert client.get("/api/open", params={"path": "job.toml"}).status_code == 403


def test_a_hierarchy_file_outside_is_refused(client, tmp_path, origin):
    (tmp_path / "work" / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    (tmp_path / "h.csv").write_text("M;*\nF;*\n")
    form = {
        "input": "t.csv",
        "k": 2,
        "columns": {
            "sex": {
                "role": "quasi-identifier",
                "type": "auto",
                "hierarchy": str(tmp_path / "h.csv"),
            }
        },
    }
    assert client.post("/api/runs", json=form, headers=origin).status_code == 403


def test_the_page_shows_the_command_lines_error(client, tmp_path):
    """A latin-1 table read as UTF-8: the page's message is the one line of incrowd inspect."""
    table = tmp_path / "work" / "latin.csv"
    table.write_bytes("name,city\nJosé,Zürich\n".encode("latin-1"))
    response = client.get("/api/open", params={"path": str(table), "encoding": "utf-8"})
    assert response.status_code == 400
    shown = response.json()["error"]
    line = CliRunner().invoke(cli, ["inspect", str(table), "--encoding", "utf-8"])
    assert line.exit_code == 2
    assert shown == " ".join(line.output.split()), (shown, line.output)


def test_a_setting_is_checked_where_the_command_line_checks_it(client, tmp_path, origin):
    (tmp_path / "work" / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    form = {"input": "t.csv", "k": 0, "columns": {"age": {"role": "quasi-identifier"}}}
    response = client.post("/api/runs", json=form, headers=origin)
    assert response.status_code == 400
    assert response.json()["error"].startswith("error: the form: k")


def test_save_names_are_plain_file_names(client, origin):
    assert client.post("/api/runs/nope/save", json={"name": "x"}, headers=origin).status_code == 403


def test_the_server_binds_loopback(local):
    assert local.socket.getsockname()[0] == "127.0.0.1"
    assert local.url.startswith(f"http://127.0.0.1:{local.port}/?token=")


def test_a_hierarchys_levels_are_previewed(client, tmp_path, origin):
    (tmp_path / "work" / "t.csv").write_text("age,zip\n30,12345\n47,12346\n")
    form = {
        "input": "t.csv",
        "columns": {
            "age": {"role": "quasi-identifier", "type": "number", "hierarchy": "intervals:10,20"}
        },
    }
    response = client.post("/api/hierarchy", params={"column": "age"}, json=form,
                           headers=origin)  # fmt: skip
    assert response.status_code == 200, response.text
    found = response.json()
    assert found["rows"][0][:2] == ["30", "30-39"] and found["levels"][-1] == 1
    outside = dict(form["columns"]["age"], hierarchy=str(tmp_path / "h.csv"), type="auto")
    refused = client.post("/api/hierarchy", params={"column": "age"},
                          json=form | {"columns": {"age": outside}}, headers=origin)  # fmt: skip
    assert refused.status_code == 403


def test_a_value_missing_from_a_hierarchy_shows_the_command_lines_error(client, tmp_path, origin):
    work = tmp_path / "work"
    (work / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    (work / "sex.csv").write_text("M;*\n")
    form = {"input": "t.csv", "columns": {"sex": {"role": "quasi-identifier",
                                                  "hierarchy": "sex.csv"}}}  # fmt: skip
    response = client.post("/api/hierarchy", params={"column": "sex"}, json=form, headers=origin)
    assert response.status_code == 400
    line = CliRunner().invoke(cli, ["anonymize", str(work / "t.csv"), "--qi", "sex", "--k", "2",
                                    "--hierarchy", f"sex={work / 'sex.csv'}",
                                    "--out", str(tmp_path / "o.csv")])  # fmt: skip
    assert line.exit_code == 2
    assert response.json()["error"] == " ".join(line.output.split())


# uploads (incrowd.ui.limits): the same guard, a cap checked while reading, nothing written


def uploaded(local) -> list[Path]:
    """Every file under the app's upload folder."""
    return [p for p in local.uploads.rglob("*") if p.is_file()]


def test_an_upload_opens_like_a_path(client, local, origin):
    import stat

    body = b"age,zip\n30,12345\n40,12346\n"
    response = client.post("/api/upload", params={"name": "t.csv"}, content=body, headers=origin)
    assert response.status_code == 200, response.text
    view = response.json()
    assert view["n_rows"] == 2 and [c["column"] for c in view["columns"]] == ["age", "zip"]
    (path,) = uploaded(local)
    assert path.read_bytes() == body and view["opened"] == str(path)
    assert stat.S_IMODE(local.uploads.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert client.get("/api/open", params={"path": str(path)}).status_code == 200
    from incrowd.ui.security import Forbidden

    with pytest.raises(Forbidden):  # read-only: nothing is saved into it
        local.folders.resolve(path.parent / "release.csv", write=True)
    local.close()
    assert not local.uploads.exists()


def test_an_upload_needs_the_token_host_and_origin(local, client, origin):
    body = b"a,b\n1,2\n"
    no_token = fresh(local).post("/api/upload", params={"name": "t.csv"}, content=body,
                                 headers=origin)  # fmt: skip
    assert no_token.status_code == 403
    for headers in ({"Host": "evil.example"} | origin, {"Origin": "http://evil.example"}, {},
                    origin | {"Sec-Fetch-Site": "cross-site"}):  # fmt: skip
        response = client.post("/api/upload", params={"name": "t.csv"}, content=body,
                               headers=headers)  # fmt: skip
        assert response.status_code == 403, headers
    assert uploaded(local) == []


def test_an_upload_over_the_cap_is_refused_and_nothing_is_written(tmp_path, origin):
    from incrowd.ui.server import LocalApp

    (tmp_path / "work").mkdir(exist_ok=True)
    local = LocalApp([tmp_path / "work"], max_upload=1000)
    try:
        c = fresh(local)
        assert c.get(local.url).status_code == 200
        own = {"Origin": f"http://127.0.0.1:{local.port}"}
        ok = c.post("/api/upload", params={"name": "t.csv"}, content=b"a\n" * 500, headers=own)
        assert ok.status_code == 200, ok.text
        before = uploaded(local)
        declared = c.post("/api/upload", params={"name": "big.csv"}, content=b"a\n" * 501,
                          headers=own)  # fmt: skip
        assert declared.status_code == 413
        assert declared.json()["error"] == (
            "refused: big.csv is larger than 0.000953674 MiB, the most this app accepts"
        )
        # no Content-Length: the bytes are counted as they come
        chunks = (b"a\n" * 100 for _ in range(20))
        streamed = c.post("/api/upload", params={"name": "big.csv"}, content=chunks, headers=own)
        assert streamed.status_code == 413
        assert uploaded(local) == before
        assert [p for p in local.uploads.iterdir() if not any(p.iterdir())] == []
    finally:
        local.close()


@pytest.mark.parametrize("name", ["../t.csv", "t.exe", ".t.csv", "a/t.csv", ""])
def test_an_upload_is_a_plain_table_name(client, local, origin, name):
    response = client.post("/api/upload", params={"name": name}, content=b"a\n1\n", headers=origin)
    assert response.status_code == 403 and response.json()["error"].startswith("forbidden: ")
    assert uploaded(local) == []


def test_a_json_body_is_capped_while_it_is_read(client, origin):
    from incrowd.ui.limits import MAX_BODY

    declared = client.post("/api/runs", content=b" " * (MAX_BODY + 1), headers=origin)
    assert declared.status_code == 413
    chunks = (b" " * 65536 for _ in range(MAX_BODY // 65536 + 1))
    streamed = client.post("/api/runs", content=chunks, headers=origin)
    assert streamed.status_code == 413
    assert "larger than 1 MiB" in streamed.json()["error"]


def test_a_hierarchy_is_never_looked_for_in_the_current_folder(client, tmp_path, origin,
                                                               monkeypatch):  # fmt: skip
    """``ab:x`` and ``sex.csv`` are taken beside the table, not from the server's folder."""
    work, cwd = tmp_path / "work", tmp_path / "cwd"
    cwd.mkdir()
    (work / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    (cwd / "ab:x").write_text("M;*\nF;*\n")
    (cwd / "sex.csv").write_text("M;*\nF;*\n")
    monkeypatch.chdir(cwd)
    for spec, status, said in (("ab:x", 400, "unknown hierarchy kind 'ab'"),
                               ("sex.csv", 400, "sex.csv"),
                               (str(cwd / "sex.csv"), 403, "outside")):  # fmt: skip
        form = {"input": "t.csv", "columns": {"sex": {"role": "quasi-identifier",
                                                      "hierarchy": spec}}}  # fmt: skip
        response = client.post("/api/hierarchy", params={"column": "sex"}, json=form,
                               headers=origin)  # fmt: skip
        assert response.status_code == status, (spec, response.text)
        assert said in response.json()["error"]
    (work / "sex.csv").write_text("M;*\nF;*\n")  # beside the table: found
    form = {"input": "t.csv", "columns": {"sex": {"role": "quasi-identifier",
                                                  "hierarchy": "sex.csv"}}}  # fmt: skip
    response = client.post("/api/hierarchy", params={"column": "sex"}, json=form, headers=origin)
    assert response.status_code == 200 and response.json()["levels"] == [2, 1]


def test_runs_are_limited(client, local, origin):
    from types import SimpleNamespace

    from incrowd.ui.limits import MAX_RUNNING, MAX_RUNS

    (local.folders.writable[0] / "t.csv").write_text("age,sex\n30,M\n40,F\n")
    form = {"input": "t.csv", "k": 2, "columns": {"age": {"role": "quasi-identifier"}}}
    held = local.app.state.runs.runs
    held |= {f"r{i}": SimpleNamespace(state="running", result=None) for i in range(MAX_RUNNING)}
    going = client.post("/api/runs", json=form, headers=origin)
    assert going.status_code == 429 and "runs are going" in going.json()["error"]
    held.clear()
    held |= {f"r{i}": SimpleNamespace(state="done", result={}) for i in range(MAX_RUNS)}
    kept = client.post("/api/runs", json=form, headers=origin)
    assert kept.status_code == 429 and "the most it keeps" in kept.json()["error"]
    held.clear()


def test_files_uploaded_together_go_into_an_upload_folder_only(client, local, origin):
    first = client.post("/api/upload", params={"name": "t.csv", "open": "0"},
                        content=b"a\n1\n", headers=origin)  # fmt: skip
    assert first.status_code == 200, first.text
    into = first.json()["into"]
    assert (local.uploads / into / "t.csv").is_file()
    for bad in ["..", "../" + into, "0123456789abcdef", into + "/x", "/tmp"]:
        response = client.post("/api/upload", params={"name": "h.csv", "into": bad},
                               content=b"a;b\n", headers=origin)  # fmt: skip
        assert response.status_code == 403, bad
    again = client.post("/api/upload", params={"name": "t.csv", "into": into},
                        content=b"b\n2\n", headers=origin)  # fmt: skip
    assert again.status_code == 403 and "uploaded into that folder already" in again.text
    assert [p.name for p in uploaded(local)] == ["t.csv"]
    assert (local.uploads / into / "t.csv").read_bytes() == b"a\n1\n"


def test_the_page_runs_only_its_own_inline_script_and_style(client, local):
    """The page's policy names its script and style by their SHA-256: an inline script
    injected into the page (anything not the package's own) would not run."""
    import base64
    import hashlib
    import re

    page = client.get("/")
    policy = page.headers["Content-Security-Policy"]
    scripts = re.findall(r"<script>(.*?)</script>", page.text, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page.text, re.S)
    assert len(scripts) == 2 and len(styles) == 1 and "<script src" not in page.text

    def source(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    script_src = re.search(r"script-src ([^;]*)", policy).group(1).split()
    style_src = re.search(r"style-src ([^;]*)", policy).group(1).split()
    assert script_src == [source(s) for s in scripts]
    assert style_src == [source(s) for s in styles]
    assert "unsafe" not in policy and "default-src 'none'" in policy
    assert client.get("/static/ui.js").status_code == 404


def test_two_uploads_of_one_name_into_one_folder_never_replace_each_other(tmp_path):
    """Both in flight at once: the second is refused (its own part file, created before its
    body is read), the first completes, and a name already there is never replaced."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from incrowd.ui.limits import receive_upload

    def _in_a_thread(coroutine):  # a loop of its own: another test's may run in this thread
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, coroutine).result()

    class Body:
        def __init__(self, chunks, gate=None):
            self.headers, self.chunks, self.gate = {}, chunks, gate

        async def stream(self):
            for i, chunk in enumerate(self.chunks):
                if i == 1 and self.gate is not None:
                    await self.gate.wait()  # the first upload stops half way
                yield chunk

    uploads = tmp_path / "uploads"
    uploads.mkdir()
    first = _in_a_thread(receive_upload(Body([b"a\n"]), uploads, "t.csv", 1000))
    into = first.parent.name

    async def both():
        gate = asyncio.Event()
        a = asyncio.create_task(receive_upload(Body([b"A1\n", b"A2\n"], gate), uploads,
                                               "h.csv", 1000, into))  # fmt: skip
        await asyncio.sleep(0.05)  # a is waiting half way, its part file made
        with pytest.raises(ValueError, match="being uploaded into that folder already"):
            await receive_upload(Body([b"B\n"]), uploads, "h.csv", 1000, into)
        gate.set()
        return await a

    done = _in_a_thread(both())
    assert done.read_bytes() == b"A1\nA2\n"
    with pytest.raises(ValueError, match="uploaded into that folder already"):
        _in_a_thread(receive_upload(Body([b"C\n"]), uploads, "h.csv", 1000, into))
    assert done.read_bytes() == b"A1\nA2\n"
    assert sorted(p.name for p in first.parent.iterdir()) == ["h.csv", "t.csv"]
