"""The app's temporary folders: gone after Ctrl-C, SIGTERM and SIGHUP (the terminal closed);
after a SIGKILL, removed by the next start — only this user's own folders of an app whose
process is gone, never a link, another user's folder or one others may write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest


def gone_pid() -> int:
    """The id of a process that ran and ended (reaped)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def ours(temp: Path, name: str) -> Path:
    folder = temp / name
    folder.mkdir(mode=0o700)
    (folder / "t.csv").write_text("age\n30\n")
    return folder


def test_only_our_own_folders_of_a_gone_app_are_removed(tmp_path):
    from incrowd.ui.leftovers import remove_leftovers

    temp, dead = tmp_path / "tmp", gone_pid()
    temp.mkdir()
    left = ours(temp, f"incrowd-ui-uploads-{dead}-abc_12")
    running = ours(temp, f"incrowd-ui-run-{os.getpid()}-abc")
    older = ours(temp, "incrowd-ui-uploads-x7k2p9")  # a version that recorded no process
    other = ours(temp, "not-incrowd-ui-run-1-abc")
    target = ours(tmp_path, "target")
    (temp / f"incrowd-ui-run-{dead}-link").symlink_to(target)  # never followed
    shared = ours(temp, f"incrowd-ui-run-{dead}-shared")
    shared.chmod(0o777)  # others may write it: not ours alone
    (temp / f"incrowd-ui-run-{dead}-file").write_text("a file")
    kept = [running, older, other, target, shared, temp / f"incrowd-ui-run-{dead}-link"]
    if os.geteuid() == 0:  # another user's folder (only root can make one here)
        theirs = ours(temp, f"incrowd-ui-run-{dead}-theirs")
        os.chown(theirs, 65534, 65534)
        kept.append(theirs)
    assert remove_leftovers(temp) == [left]
    assert not left.exists()
    assert all(os.path.lexists(p) for p in kept)
    assert (target / "t.csv").is_file() and (temp / f"incrowd-ui-run-{dead}-file").is_file()


def test_a_private_folder_records_its_process(tmp_path, monkeypatch):
    from incrowd.ui.leftovers import private_folder, remove_leftovers

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = private_folder("run")
    assert folder.parent == tmp_path and folder.name.startswith(f"incrowd-ui-run-{os.getpid()}-")
    assert folder.stat().st_mode & 0o777 == 0o700
    assert remove_leftovers(tmp_path) == [] and folder.is_dir()  # this process runs


def test_the_app_removes_what_a_killed_app_left_when_it_starts(tmp_path, monkeypatch):
    from incrowd.ui.server import LocalApp

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    left = ours(tmp_path, f"incrowd-ui-run-{gone_pid()}-abc")
    (tmp_path / "work").mkdir()
    app = LocalApp([tmp_path / "work"])
    try:
        assert app.removed == [left] and not left.exists()
        assert app.uploads.parent == tmp_path and app.uploads.is_dir()
    finally:
        app.close()
    assert not app.uploads.exists()


# the command itself, stopped by a signal


def start_ui(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    """``incrowd ui`` in a process of its own, its temporary folder ``tmp_path / "tmp"``;
    the process and the URL it printed."""
    (tmp_path / "work").mkdir(exist_ok=True)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"), PYTHONUNBUFFERED="1")
    process = subprocess.Popen([sys.executable, "-m", "incrowd", "ui", "--folder",
                                str(tmp_path / "work")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    first = process.stdout.readline()  # type: ignore[union-attr]
    assert first.startswith("incrowd ui: http://127.0.0.1:"), (first, process.stderr)
    return process, first.split()[-1]


def upload(url: str) -> None:
    base, token = url.split("/?token=")
    request = urllib.request.Request(f"{base}/api/upload?name=t.csv&token={token}",
                                     data=b"age,sex\n30,M\n40,F\n", method="POST",
                                     headers={"Origin": base})  # fmt: skip
    with urllib.request.urlopen(request, timeout=60) as answer:  # the socket listens already
        assert answer.status == 200


def app_folders(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "tmp").iterdir() if p.name.startswith("incrowd-ui"))


@pytest.mark.parametrize("sent", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_a_signal_that_stops_the_app_leaves_no_folder(tmp_path, sent):
    process, url = start_ui(tmp_path)
    try:
        upload(url)
        (folder,) = app_folders(tmp_path)
        assert list((tmp_path / "tmp" / folder).rglob("t.csv"))
        process.send_signal(sent)
        _, errors = process.communicate(timeout=60)
    finally:
        process.kill()
        process.wait()
    assert app_folders(tmp_path) == []
    assert "Traceback" not in errors, errors
    assert process.returncode >= 0, errors  # it ended itself, not killed by the signal


def test_a_killed_apps_folders_are_removed_by_the_next_start(tmp_path):
    process, url = start_ui(tmp_path)
    upload(url)
    process.kill()  # SIGKILL: nothing runs
    process.communicate(timeout=60)
    (left,) = app_folders(tmp_path)
    again, _ = start_ui(tmp_path)  # removed before the URL is printed, and said next
    try:
        said = again.stdout.readline()  # type: ignore[union-attr]
        assert left not in app_folders(tmp_path)
    finally:
        again.terminate()
        again.communicate(timeout=60)
    assert said.startswith("removed 1 temporary folder(s) left by an incrowd ui that was killed")
    assert app_folders(tmp_path) == []
