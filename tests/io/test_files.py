"""The write protocol of releases (incrowd.io.atomic, incrowd.io.release_format): nothing lost,
nothing overwritten, no mix of old and new after a kill at any point."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from incrowd import OutputError, anonymize, make_microdata, verify
from incrowd.io.atomic import Output, commit, journal_path, resolve
from incrowd.io.release_format import escape_formulas, unescape_formulas
from incrowd.release import read_release


def release(seed=1, n=60):
    table, schema = make_microdata(n, 2, random_state=seed)
    return anonymize(table, schema, 3, seed=seed)


def hidden(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_table_and_metadata_written_together_with_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        table_path, meta_path = release().write(tmp_path / "r.csv")
    finally:
        os.umask(old)
    assert oct(table_path.stat().st_mode & 0o777) == oct(0o640)
    assert oct(meta_path.stat().st_mode & 0o777) == oct(0o640)
    meta = json.loads(meta_path.read_text())
    assert meta["format"] == "incrowd release 1" and len(meta["table_sha256"]) == 64
    assert meta["table_bytes"] == table_path.stat().st_size
    assert verify(table_path, ["x0", "x1"], 3).ok
    assert hidden(tmp_path) == []


def test_a_release_replaces_an_earlier_release(tmp_path):
    release(1).write(tmp_path / "r.csv")
    second = release(2)
    second.write(tmp_path / "r.csv")
    assert json.loads((tmp_path / "r.json").read_text())["seed"] == 2
    assert hidden(tmp_path) == []


@pytest.mark.parametrize("name", ["r.json", "r.txt", "r", "r.csv.bak"])
def test_a_table_name_without_csv_or_parquet_is_refused(tmp_path, name):
    with pytest.raises(OutputError, match=r"must end in \.csv or \.parquet"):
        release().write(tmp_path / name)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("existing", ["r.csv", "r.json"])
def test_files_that_are_not_a_release_are_never_overwritten(tmp_path, existing):
    mine = tmp_path / existing
    mine.write_text("my own data\n")
    with pytest.raises(OutputError, match="not part of an earlier incrowd release"):
        release().write(tmp_path / "r.csv")
    assert mine.read_text() == "my own data\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [existing]


def test_inputs_are_protected(tmp_path):
    data = tmp_path / "data.json"
    data.write_text("{}")
    with pytest.raises(OutputError, match="it is an input of this run"):
        release().write(tmp_path / "data.csv", protect=[data])
    assert data.read_text() == "{}"


def test_a_directory_target_leaves_nothing_and_names_the_target(tmp_path):
    (tmp_path / "r.csv").mkdir()
    with pytest.raises(OutputError, match=r"r\.csv: it is a directory"):
        release().write(tmp_path / "r.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv"]


def test_a_file_that_appears_while_the_output_is_written_is_not_replaced(tmp_path):
    """The replace rule is asked again under the folder's lock: another program's file that
    appeared after the first check (a long blockwise write) is refused, not overwritten."""
    from incrowd.io.atomic import write_new
    from incrowd.io.targets import NEVER

    target = tmp_path / "page.html"

    def writer(fh):
        target.write_text("someone else's")  # appears between the check and the rename
        fh.write(b"incrowd page")

    with pytest.raises(OutputError, match="page.html"):
        commit([Output(target, writer, replaceable=NEVER)])
    assert target.read_text() == "someone else's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]  # no temporary left
    target.unlink()
    write_new(target, b"incrowd page")
    assert target.read_bytes() == b"incrowd page"


def test_a_failing_writer_leaves_the_previous_files(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("old\n")

    def broken(fh):
        fh.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match=r"cannot write .*t\.csv: No space left on device"):
        commit([Output(target, broken)])
    assert target.read_text() == "old\n" and hidden(tmp_path) == []


def test_a_committed_group_is_finished_by_the_next_reader(tmp_path):
    """The state a kill between the two renames leaves: the journal says what to finish."""
    a, b = tmp_path / "a.csv", tmp_path / "a.json"
    a.write_text("old a"), b.write_text("old b")
    ta, tb = tmp_path / ".a.csv.incrowd-1-aa.tmp", tmp_path / ".a.json.incrowd-1-bb.tmp"
    tb.write_text("new b")
    a.write_text("new a")  # the table was renamed into place, the metadata was not
    journal_path(a).write_text(json.dumps({"rename": [[ta.name, a.name], [tb.name, b.name]]}))
    os.chmod(tmp_path, 0o555)
    try:
        if os.geteuid() != 0:  # root writes anyway: then the reader simply finishes it
            assert resolve([a, b]) == [a, tb]
    finally:
        os.chmod(tmp_path, 0o755)
    assert resolve([a, b]) == [a, b]
    assert (a.read_text(), b.read_text()) == ("new a", "new b")
    assert hidden(tmp_path) == []


def test_dead_processes_temporaries_are_removed_by_the_next_write(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = tmp_path / f".r.csv.incrowd-{dead}-abcd.tmp"
    stale.write_text("80 MB of a killed run")
    live = tmp_path / f".r.csv.incrowd-{os.getpid()}-abcd.tmp"
    live.write_text("a run still going")
    release().write(tmp_path / "r.csv")
    assert not stale.exists() and live.exists()


def test_a_killed_writer_not_yet_reaped_is_gone_too(tmp_path):
    """A writer killed but not reaped (a zombie) writes nothing more: its temporary goes; an
    id that is no process id (past the kernel's range) is left alone."""
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        with open(f"/proc/{zombie.pid}/stat") as fh:  # ended, not waited for: a zombie
            while fh.read().rsplit(")", 1)[-1].split()[0] != "Z":
                fh.seek(0)
        stale = tmp_path / f".r.csv.incrowd-{zombie.pid}-abcd.tmp"
        stale.write_text("half a table")
        huge = tmp_path / f".r.csv.incrowd-{1 << 80}-abcd.tmp"
        huge.write_text("not ours to judge")
        release().write(tmp_path / "r.csv")
        assert not stale.exists() and huge.exists()
    finally:
        zombie.wait()


def test_any_write_into_a_folder_removes_every_dead_processes_temporary(tmp_path):
    """A SIGKILL leaves hidden temporaries of ``rel.csv``; a later run that writes another
    file of the folder removes them (issue 43), after finishing any committed group: a dead
    process's temporary named in a journal is a committed file, installed, not lost."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = [tmp_path / f".rel.csv.incrowd-{dead}-abcd.tmp",
             tmp_path / f".rel.json.incrowd-{dead}-abce.tmp"]  # fmt: skip
    for path in stale:
        path.write_text("a killed run's bytes")
    (tmp_path / f".ds.parquet.incrowd-{dead}-abcf.tmp").mkdir()  # a dead run's staging folder
    live = tmp_path / f".rel.csv.incrowd-{os.getpid()}-abcd.tmp"
    live.write_text("a run still going")
    mine = tmp_path / f".notes.incrowd-{dead}.tmp"  # not incrowd's pattern: never touched
    mine.write_text("the user's")
    # a committed group of another target, interrupted before its metadata was renamed
    old_meta, waiting = tmp_path / "b.json", tmp_path / f".b.json.incrowd-{dead}-abd0.tmp"
    (tmp_path / "b.csv").write_text("new b"), old_meta.write_text("old"), waiting.write_text("new")
    journal_path(tmp_path / "b.csv").write_text(
        json.dumps({"rename": [[f".b.csv.incrowd-{dead}-abd1.tmp", "b.csv"],
                               [waiting.name, "b.json"]]}))  # fmt: skip
    release().write(tmp_path / "other.csv")
    assert old_meta.read_text() == "new"
    assert sorted(hidden(tmp_path)) == sorted([live.name, mine.name])


def test_a_journal_renames_only_our_temporaries_onto_their_own_targets(tmp_path):
    """A journal planted in a shared folder (review of issue 43) must not move the user's
    files: a write there follows only journals that rename a temporary of ours onto the
    target its name is for."""
    (tmp_path / "data.csv").write_text("the user's data")
    (tmp_path / "notes.txt").write_text("precious")
    planted = tmp_path / ".planted.incrowd-commit"
    planted.write_text(json.dumps({"rename": [["data.csv", "notes.txt"]]}))
    release().write(tmp_path / "unrelated.csv")
    assert (tmp_path / "data.csv").read_text() == "the user's data"
    assert (tmp_path / "notes.txt").read_text() == "precious"


def test_another_machines_temporaries_are_never_removed(tmp_path):
    """A process id says whether a writer lives only on its own machine: in a folder shared
    over NFS, another machine's temporaries stay, however dead their pid looks here."""
    from incrowd.io import staging as protocol

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    other = "0" * 8 if protocol.HOST != "0" * 8 else "1" * 8
    theirs = tmp_path / f".r.csv.incrowd-{dead}-{other}-abcd.tmp"
    ours = tmp_path / f".r.csv.incrowd-{dead}-{protocol.HOST}-abcd.tmp"
    theirs.write_text("a run on another machine"), ours.write_text("a killed run here")
    release().write(tmp_path / "r.csv")
    assert theirs.exists() and not ours.exists()


def test_a_dangling_link_at_the_target_is_refused_not_replaced(tmp_path):
    (tmp_path / "r.csv").symlink_to(tmp_path / "nowhere.csv")
    with pytest.raises(OutputError, match="r.csv: it is a symbolic link"):
        release().write(tmp_path / "r.csv")
    assert (tmp_path / "r.csv").is_symlink() and not (tmp_path / "r.json").exists()
    target = tmp_path / "x.csv"
    target.symlink_to(tmp_path / "gone.csv")
    with pytest.raises(OutputError, match="symbolic link"):  # the protocol's own check too
        commit([Output(target, lambda fh: fh.write(b"new"))])
    assert target.is_symlink() and not (tmp_path / "gone.csv").exists()


# ----------------------------------------------------------------- kills, through the CLI
KILLER = textwrap.dedent(
    """
    import os, signal, sys
    targets = set(sys.argv[2].split(","))
    when = int(sys.argv[1])
    real, seen = os.replace, [0]
    def replace(src, dst, *args, **kw):
        if os.path.basename(str(dst)) in targets:
            seen[0] += 1
            if seen[0] == when:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kw)
    os.replace = replace
    sys.argv = ["incrowd", *sys.argv[3:]]
    from incrowd.cli.app import main
    main()
    """
)


def run_cli(*args, kill_at=None, targets=()):
    if kill_at is None:
        cmd = [sys.executable, "-m", "incrowd", *map(str, args)]
    else:
        cmd = [sys.executable, "-c", KILLER, str(kill_at), ",".join(targets), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True)


@pytest.fixture
def data(tmp_path):
    table, _ = make_microdata(300, 2, random_state=5)
    path = tmp_path / "in.csv"
    table.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("kill_at", [1, 2, 3])
def test_a_kill_at_any_rename_leaves_the_old_or_the_new_release(tmp_path, data, kill_at):
    out = tmp_path / "out.csv"
    args = ("anonymize", data, "--qi", "x0,x1", "--k", "3", "--out", out, "--quiet")
    first = run_cli(*args, "--seed", "1")
    assert first.returncode == 0, first.stderr
    old = read_release(out)
    # renames: the journal (1), the table (2), the metadata (3); SIGKILL just before one
    names = (".out.csv.incrowd-commit", "out.csv", "out.json")
    killed = run_cli(*args, "--seed", "2", kill_at=kill_at, targets=names)
    assert killed.returncode == -signal.SIGKILL
    check = run_cli("verify", out, "--qi", "x0,x1", "--k", "3")  # finishes a committed write
    assert check.returncode == 0, check.stderr
    now = read_release(out)
    assert now.metadata["table_sha256"] == now.sha256  # never a mix
    expected_seed = 1 if kill_at == 1 else 2  # the journal's rename is the commit point
    assert now.metadata["seed"] == expected_seed
    if expected_seed == 1:
        pd.testing.assert_frame_equal(now.table, old.table)
    assert hidden(tmp_path) == []  # the killed run's temporaries are gone


def test_a_kill_during_the_write_leaves_no_temporary_after_the_next_run(tmp_path, data):
    out = tmp_path / "out.csv"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            KILLER,
            "1",
            "out.csv",
            "anonymize",
            str(data),
            "--qi",
            "x0,x1",
            "--k",
            "3",
            "--out",
            str(out),
            "--quiet",
        ],  # fmt: skip
    )
    assert proc.wait() == -signal.SIGKILL  # killed with the table staged, before the commit
    assert not out.exists()
    again = run_cli("anonymize", data, "--qi", "x0,x1", "--k", "3", "--out", out, "--quiet")
    assert again.returncode == 0, again.stderr
    assert hidden(tmp_path) == []


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    table, _ = make_microdata(20_000, 4, random_state=1)
    path = tmp_path_factory.mktemp("big") / "big.csv"
    table.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("after", [0.3, 1.0, 2.0, 3.5])
def test_sigterm_at_any_time_unwinds_and_cleans_up(tmp_path, big_csv, after):
    """A polite kill at any point (while importing, computing or writing) stops quietly,
    with no traceback and no file left but a complete release."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "incrowd", "anonymize", str(big_csv), "--qi", "x0,x1,x2,x3",
         "--k", "5", "--out", str(tmp_path / "out.csv"), "--quiet"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        proc.wait(timeout=after)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    # -SIGTERM: killed before the handler was installed (nothing had been written yet)
    assert proc.returncode in (0, 128 + signal.SIGTERM, -signal.SIGTERM), err
    assert "Traceback" not in err and "internal error" not in err, err
    leftovers = sorted(p.name for p in tmp_path.iterdir())
    assert leftovers in ([], ["out.csv", "out.json"])


# ----------------------------------------------------------------- spreadsheet formulas
CELLS = ["=cmd|' /C calc'!A0", "=1+1", "@x", "+SUM(1,2)", "-2+3", "\tx", "'=x", "''@y", "-5",
         "+3", "1e-5", "-1.5e3", "plain", "'quoted", "a=b", ""]  # fmt: skip


def test_formula_cells_are_neutralized_and_read_back_exactly(tmp_path):
    frame = pd.DataFrame({"=evil": CELLS, "n": np.arange(len(CELLS)) - 3})
    escaped = escape_formulas(frame)
    assert list(escaped.columns) == ["'=evil", "n"]
    shown = dict(zip(CELLS, escaped["'=evil"], strict=True))
    for cell in ("=cmd|' /C calc'!A0", "=1+1", "@x", "+SUM(1,2)", "-2+3", "\tx"):
        assert shown[cell] == "'" + cell
    for cell in ("-5", "+3", "1e-5", "-1.5e3", "plain", "'quoted", "a=b", ""):
        assert shown[cell] == cell
    assert shown["'=x"] == "''=x" and shown["''@y"] == "'''@y"
    back = unescape_formulas(escaped)
    assert list(back.columns) == ["=evil", "n"] and back["=evil"].tolist() == CELLS


def test_formula_cells_in_a_written_release(tmp_path):
    table, schema = make_microdata(30, 1, random_state=2)
    table["note"] = ["=1+1", "@x", "ok"] * 10
    schema = type(schema)(dict(schema.quasi_identifiers), insensitive=["note"])
    rel = anonymize(table, schema, 3, seed=1)
    rel.write(tmp_path / "r.csv")
    raw = pd.read_csv(tmp_path / "r.csv", dtype=str, keep_default_na=False)
    assert set(raw["note"]) == {"'=1+1", "'@x", "ok"}
    assert sorted(read_release(tmp_path / "r.csv").table["note"]) == sorted(table["note"])
    with pytest.raises(Exception, match="would run as a formula"):
        rel.write(tmp_path / "s.csv", formulas="refuse")
    assert not (tmp_path / "s.csv").exists()
    rel.write(tmp_path / "r.parquet")  # typed: stored as it is
    assert sorted(pd.read_parquet(tmp_path / "r.parquet")["note"]) == sorted(table["note"])


def test_a_group_with_two_files_of_one_name_is_refused_before_any_write(tmp_path):
    """The last of two outputs with one path would silently win over the first."""
    target = tmp_path / "r-input.csv"
    with pytest.raises(ValueError, match="different names"):
        commit([Output(target, lambda fh: fh.write(b"table")),
                Output(tmp_path / "r-input.csv", lambda fh: fh.write(b"hierarchy"))])  # fmt: skip
    assert list(tmp_path.iterdir()) == []


def test_encoded_bytes_are_written_as_the_table_of_a_csv_release_only(tmp_path):
    from incrowd.io.release_format import write_release

    table = pd.DataFrame({"a": [1, 2]})
    encoded = b"a\n1\n2\n"
    written, meta = write_release(table, {"k": 2}, tmp_path / "r.csv", encoded=encoded)
    assert written.read_bytes() == encoded
    import hashlib

    assert json.loads(meta.read_text())["table_sha256"] == hashlib.sha256(encoded).hexdigest()
    with pytest.raises(ValueError, match="not a Parquet release"):
        write_release(table, {"k": 2}, tmp_path / "r.parquet", encoded=encoded)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json"]
