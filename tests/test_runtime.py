"""Running on a shared or locked-down machine: no writable cache, CPUs limited by the
container, threads that must not keep spinning."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from incrowd import _runtime

SRC = Path(__file__).resolve().parents[1] / "src"


def _locked_down_runner(tmp: Path):
    """A way to run Python with the package, HOME and TMPDIR all unwritable: a read-only
    bind mount for root (who can write anything else), file modes for anyone else."""
    pkg = tmp / "pkg"
    shutil.copytree(SRC / "incrowd", pkg / "incrowd",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    home, scratch = tmp / "home", tmp / "tmp"
    home.mkdir()
    scratch.mkdir()
    out = tmp / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "INCROWD_THREADS")}  # fmt: skip
    env |= {"HOME": str(home), "TMPDIR": str(scratch), "PYTHONPATH": str(pkg)}
    if os.geteuid() != 0:
        for folder in (pkg, home, scratch):
            for root, dirs, _ in os.walk(folder):
                for d in dirs:
                    os.chmod(Path(root) / d, 0o555)
            os.chmod(folder, 0o555)
        return lambda code: subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=out
        ), out
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("running as root without mount namespaces: cannot make a directory "
                    "read-only for this process")  # fmt: skip
    # everything read-only (the package, HOME, TMPDIR and /tmp itself) but the output folder
    readonly = (pkg, home, scratch, *(Path(d) for d in ("/tmp", "/var/tmp", "/usr/tmp")
                                      if Path(d).is_dir()))  # fmt: skip
    mounts = " && ".join(
        [f"mount --bind {d} {d} && mount -o remount,bind,ro {d}" for d in readonly]
        + [f"mount --bind {out} {out} && mount -o remount,bind,rw {out}"]
    )

    def run(code: str) -> subprocess.CompletedProcess:
        script = f'{mounts} && exec {sys.executable} -c "$0"'
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                               script, code], env=env, capture_output=True, text=True,
                              cwd=out)  # fmt: skip

    return run, out


def test_no_writable_cache_anywhere_still_runs(tmp_path):
    """Issue 9 #11: a read-only install, no writable home or temporary directory. Every
    command must still work (kernels compiled in memory), never crash on the cache."""
    run, out = _locked_down_runner(tmp_path)
    version = run("import sys; sys.argv=['incrowd', '--version']; "
                  "from incrowd.cli.app import main; main()")  # fmt: skip
    assert version.returncode == 0, version.stderr
    assert "Traceback" not in version.stderr and "incrowd" in version.stdout
    work = textwrap.dedent(
        """
        import numpy as np, pandas as pd, incrowd
        from incrowd import _runtime
        assert not _runtime._cache_enabled()
        t = pd.DataFrame({"a": np.arange(40) % 7, "b": [f"x{i % 3}" for i in range(40)]})
        s = incrowd.Schema({"a": incrowd.Numeric(), "b": incrowd.Categorical()})
        # one method: every kernel is compiled through the same _runtime.jit (a second
        # method only compiled more kernels in memory)
        r = incrowd.anonymize(t, s, 3, method="mdav", seed=1)
        assert incrowd.verify(r, ["a", "b"], 3).ok
        print("ok")
        """
    )
    done = run(work)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


def test_cache_directory_falls_back_to_a_writable_place(tmp_path, monkeypatch):
    import numba

    # set first, so that teardown removes what the fallback sets (later tests' subprocesses
    # would otherwise compile every kernel afresh into the temporary folder)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []

    def private(folder):
        calls.append(folder)
        return folder.is_relative_to(tmp_path)

    monkeypatch.setattr(_runtime, "_private_folder", private)
    _runtime._cache_enabled.cache_clear()
    try:
        assert _runtime._cache_enabled()
        assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "cache" / "incrowd")
        assert calls[0].name == "__pycache__"  # beside the sources was tried first
    finally:
        _runtime._cache_enabled.cache_clear()


def test_threads_follow_affinity_quota_and_the_override(monkeypatch):
    _runtime.available_cpus.cache_clear()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3, 4, 5, 6, 7})
    monkeypatch.setattr(_runtime, "_cgroup_cpus", lambda: 2.5)
    try:
        assert _runtime.available_cpus() == 2  # a container limited to 2.5 CPUs
        monkeypatch.setenv("INCROWD_THREADS", "1")
        assert _runtime.threads() == 1
        monkeypatch.setenv("INCROWD_THREADS", "lots")
        assert _runtime.threads() == 2  # not a number: ignored
    finally:
        _runtime.available_cpus.cache_clear()


def test_openmp_threads_do_not_spin_for_long():
    """Idle OpenMP threads sleep after a short spin (unless the user chose otherwise), so
    a parallel kernel does not take CPU from the other jobs of a shared machine."""
    assert int(os.environ["GOMP_SPINCOUNT"]) <= 100_000


def test_chunked_runs_every_range_once():
    ranges = _runtime.chunks(1000, 7, minimum=10)
    assert ranges[0][0] == 0 and ranges[-1][1] == 1000
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    got = _runtime.chunked(lambda lo, hi: np.arange(lo, hi), ranges)
    np.testing.assert_array_equal(np.concatenate(got), np.arange(1000))


@pytest.mark.parametrize("count", ["1", "2"])
def test_a_background_task_gives_its_result_or_its_error(monkeypatch, count):
    """On its own thread with two threads or more, at once with one; either way the
    caller gets what it returned, or what it raised, when it asks."""
    import threading

    monkeypatch.setenv("INCROWD_THREADS", count)
    where = []
    result = _runtime.in_background(lambda: where.append(threading.current_thread()) or 7)
    assert result() == 7
    assert (where[0] is threading.main_thread()) == (count == "1")

    def fails() -> None:
        raise ValueError("named")

    with pytest.raises(ValueError, match="named"):
        _runtime.in_background(fails)()


WIDE = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_DATA, (1_500_000_000, 1_500_000_000))
    import numpy as np, pandas as pd, incrowd
    n = 20_000
    rng = np.random.default_rng(0)
    t = pd.DataFrame({"name": [f"n{i}" for i in rng.permutation(n)],
                      "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})
    s = incrowd.Schema({"name": incrowd.Categorical(), "age": incrowd.Numeric(),
                        "sex": incrowd.Categorical()})
    for method in ("forest", "mdav"):
        r = incrowd.anonymize(t, s, 3, method=method, seed=1)
        assert incrowd.verify(r, ["name", "age", "sex"], 3).ok
    print("ok")
    """
)


def test_a_label_with_as_many_values_as_records_fits_in_memory():
    """Issue 9 #10: 20,000 distinct names in 20,000 records, under a 1.5 GB data limit.
    A dense one-hot matrix alone would need 20,000 × 20,000 × 8 bytes = 3.2 GB."""
    done = subprocess.run([sys.executable, "-c", WIDE], capture_output=True, text=True)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-2000:]


def test_available_memory_is_at_most_the_machines():
    from pathlib import Path

    from incrowd._runtime import available_memory

    total = next(int(x.split()[1]) * 1024 for x in Path("/proc/meminfo").read_text().splitlines()
                 if x.startswith("MemTotal:"))  # fmt: skip
    assert 0 < available_memory() <= total


def test_stale_kernels_are_dropped_once_and_the_folder_stamped(tmp_path):
    for name in ("m.f-3.py311.nbi", "m.f-3.py311.1.nbc", "m.cpython-311.pyc"):
        (tmp_path / name).write_bytes(b"x")
    assert _runtime.drop_stale_kernels(tmp_path, "one")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "incrowd-sources.key", "m.cpython-311.pyc"
    ]  # fmt: skip
    (tmp_path / "m.f-3.py311.nbi").write_bytes(b"x")  # compiled from the same sources
    assert not _runtime.drop_stale_kernels(tmp_path, "one")
    assert (tmp_path / "m.f-3.py311.nbi").exists()
    assert _runtime.drop_stale_kernels(tmp_path, "two")
    assert not (tmp_path / "m.f-3.py311.nbi").exists()
    assert (tmp_path / _runtime.SOURCES_STAMP).read_text() == "two"


def test_sources_digest_follows_every_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "sub" / "b.py").write_text("B = 1\n")
    first = _runtime.sources_digest(tmp_path)
    (tmp_path / "sub" / "b.py").write_text("B = 2\n")
    assert _runtime.sources_digest.__wrapped__(tmp_path) != first
    (tmp_path / "sub" / "b.py").rename(tmp_path / "sub" / "c.py")
    assert _runtime.sources_digest.__wrapped__(tmp_path) not in (first, None)


def test_a_cached_kernel_follows_a_change_in_a_kernel_it_calls(tmp_path):
    """numba checks a cached kernel only against its own file; ``f`` compiles in ``g`` from
    another file, so after ``g`` changes, a cache not stamped with all the sources would
    still answer with the old ``g``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from incrowd._runtime import jit\nfrom .b import g\n\n\n"
        "@jit()\ndef f(x):\n    return g(x) + 1\n"
    )
    callee = "from incrowd._runtime import jit\n\n\n@jit()\ndef g(x):\n    return x * {}\n"
    run = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
        "from incrowd import _runtime; _runtime.PACKAGE = Path(sys.argv[1]) / 'pkg'; "
        "from pkg.a import f; print(f(3))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def result() -> str:
        done = subprocess.run([sys.executable, "-c", run, str(tmp_path)], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    (pkg / "b.py").write_text(callee.format(2))
    assert result() == "7"
    assert result() == "7"  # from the cache
    (pkg / "b.py").write_text(callee.format(30))
    assert result() == "91"


# ------------------------------------------------------------------ whose cache (issue 43)
KERNEL = "from incrowd._runtime import jit\n\n\n@jit()\ndef twice(x):\n    return 2 * x\n"


def _run_kernel(tmp_path: Path, code: str = "", **env: str) -> subprocess.CompletedProcess:
    """Compile and call a kernel of a module of its own in a fresh Python (so that numba
    reads ``NUMBA_CACHE_DIR`` at its import, as in a real run); ``code`` runs first."""
    folder = tmp_path / "mod"
    folder.mkdir(exist_ok=True)
    (folder / "kernel.py").write_text(KERNEL)
    base = {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}  # fmt: skip
    run = ("import sys\nsys.path.insert(0, sys.argv[1])\n"
           f"{code}\nfrom kernel import twice\nprint(twice(21))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", run, str(folder)], env=base | env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "42", done.stderr
    return done


def _contents(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def _refused(done: subprocess.CompletedProcess, folder: Path, why: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0] == f"incrowd: not caching compiled code in {folder}: {why}"


def test_a_cache_folder_of_another_user_is_refused(tmp_path):
    """Issue 43: numba's cache index is a pickle. Another user who made the folder first
    and left an index there would run code as us: their folder is not used, nor written."""
    if os.geteuid() != 0:
        pytest.skip("needs root to chown a folder to another user")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "planted.nbi").write_bytes(b"x")
    os.chown(theirs, 65534, 65534)
    os.chown(theirs / "planted.nbi", 65534, 65534)
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(theirs))
    _refused(done, theirs, f"owned by {NOBODY}, not you")
    assert _contents(theirs) == ["planted.nbi"]


def test_a_cache_folder_inside_another_users_folder_is_refused(tmp_path):
    """Whoever owns a folder above ours, or may write one that is not sticky, can swap
    ours for theirs between our check and numba's read (review of issue 43)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to chown a folder to another user")
    theirs = tmp_path / "theirs"
    (theirs / "cache").mkdir(parents=True, mode=0o700)
    os.chown(theirs, 65534, 65534)
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(theirs / "cache"))
    _refused(done, theirs / "cache", f"{theirs} belongs to {NOBODY}")
    assert _contents(theirs) == ["cache"]
    open_above = tmp_path / "open"
    (open_above / "mine" / "cache").mkdir(parents=True, mode=0o700)
    open_above.chmod(0o777)  # two levels up, not sticky
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(open_above / "mine" / "cache"))
    _refused(done, open_above / "mine" / "cache",
             f"{open_above} is writable by others (mode 0777)")  # fmt: skip


def test_a_cache_folder_others_may_write_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(shared))
    _refused(done, shared, "writable by others (mode 0777)")
    assert _contents(shared) == []


def test_a_symbolic_link_is_no_cache_folder(tmp_path):
    """Another user's link (in /tmp, say) to a folder of theirs: refused, whatever it
    points to."""
    target, link = tmp_path / "target", tmp_path / "link"
    target.mkdir(mode=0o700)
    link.symlink_to(target)
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(link))
    _refused(done, link, "a symbolic link")
    assert _contents(target) == []


def test_an_absent_cache_folder_is_made_private_and_used(tmp_path):
    cache = tmp_path / "new" / "cache"
    done = _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(cache))
    assert done.stderr == ""
    assert cache.stat().st_mode & 0o777 == 0o700
    # numba keeps each source folder's kernels in a subfolder: made private too, by us
    (sub,) = cache.iterdir()
    assert sub.stat().st_mode & 0o777 == 0o700 and list(sub.glob("kernel.twice-*.nbi"))
    assert _run_kernel(tmp_path, NUMBA_CACHE_DIR=str(cache)).stderr == ""


def test_kernels_beside_sources_others_may_write_are_not_cached(tmp_path):
    """numba's default keeps kernels in ``__pycache__`` beside their source: not when
    others may write that folder (they could swap ``__pycache__`` for theirs)."""
    (tmp_path / "mod").mkdir(mode=0o777)
    (tmp_path / "mod").chmod(0o777)
    done = _run_kernel(tmp_path)
    _refused(done, tmp_path / "mod" / "__pycache__",
             f"{tmp_path / 'mod'} is writable by others (mode 0777)")  # fmt: skip
    assert not list((tmp_path / "mod").rglob("*.nb[ic]"))


def _user(uid: int) -> str:
    import pwd

    try:
        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except KeyError:
        return f"uid {uid}"


#: How a refusal names the other user the tests give a folder to.
NOBODY = _user(65534)


def test_a_planted_temporary_cache_folder_is_passed_over_for_a_private_one(tmp_path):
    """The attack of issues 43 and 58 #14: no writable home nor package folder, so the cache
    would go to ``$TMPDIR/incrowd-<uid>-cache`` — which another user made first, open to
    all. It is refused, naming its owner, and the kernels are cached in a folder of ours
    with a name nobody could guess to make first (every run compiled in memory before: a
    6-row table took 257 s); the next run finds that folder again and loads them."""
    if os.geteuid() != 0:
        pytest.skip("needs root to chown a folder to another user")
    home, scratch = tmp_path / "home-is-a-file", tmp_path / "tmp"
    home.write_text("")
    scratch.mkdir()
    planted = scratch / f"incrowd-{os.getuid()}-cache"
    lookalike = scratch / f"incrowd-{os.getuid()}-cache-aaaaaaaa"  # theirs, named like ours
    for folder in (planted, lookalike):
        folder.mkdir()
        (folder / "planted.nbi").write_bytes(b"x")
        folder.chmod(0o777)
        os.chown(folder, 65534, 65534)
    # the package's own __pycache__ unwritable, as in a read-only install
    readonly = ("from pathlib import Path; from incrowd import _runtime; "
                f"_runtime.PACKAGE = Path({str(home)!r}) / 'pkg'")  # fmt: skip
    done = _run_kernel(tmp_path, readonly, HOME=str(home), TMPDIR=str(scratch))
    _refused(done, planted, f"owned by {NOBODY}, not you")
    assert _contents(planted) == _contents(lookalike) == ["planted.nbi"]
    (private,) = set(scratch.iterdir()) - {planted, lookalike}
    assert private.name.startswith(f"incrowd-{os.getuid()}-cache-")
    info = private.stat()
    assert info.st_uid == os.geteuid() and info.st_mode & 0o777 == 0o700
    (index,) = private.rglob("kernel.twice-*.nbi")
    compiled = index.stat().st_mtime_ns
    again = _run_kernel(tmp_path, readonly, HOME=str(home), TMPDIR=str(scratch))
    _refused(again, planted, f"owned by {NOBODY}, not you")
    assert set(scratch.iterdir()) == {planted, lookalike, private}  # found again, not a new one
    assert [p.stat().st_mtime_ns for p in private.rglob("kernel.twice-*.nbi")] == [compiled]


# ------------------------------------------------------------------ matplotlib (issue 43)
def _quiet_env(tmp_path: Path) -> dict[str, str]:
    """Our environment with no writable home (a file in its place stops root as well)."""
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    (tmp_path / "tmp").mkdir(exist_ok=True)
    drop = ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "NUMBA_CACHE_DIR")
    return {k: v for k, v in os.environ.items() if k not in drop} | {
        "HOME": str(home), "TMPDIR": str(tmp_path / "tmp")}  # fmt: skip


def _table(tmp_path: Path) -> Path:
    table = tmp_path / "t.csv"
    table.write_text("age,sex\n" + "".join(f"{30 + i % 7},{'MF'[i % 2]}\n" for i in range(60)))
    return table


def test_a_command_without_plots_does_not_load_matplotlib(tmp_path):
    table, out = _table(tmp_path), tmp_path / "out.csv"
    probe = ("import sys\nfrom incrowd.cli.app import run\n"
             f"assert run(['anonymize', {str(table)!r}, '--qi', 'age,sex', '--k', '3', "
             f"'--out', {str(out)!r}]) == 0\n"
             f"assert run(['verify', {str(out)!r}, '--qi', 'age,sex', '--k', '3']) == 0\n"
             "print('matplotlib' in sys.modules)")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", probe], env=_quiet_env(tmp_path),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
    assert "matplotlib" not in done.stderr.lower()


def test_the_report_says_nothing_of_matplotlib_without_a_writable_home(tmp_path):
    """Issue 43: matplotlib warned twice on stderr that it had to make a temporary
    folder; the report now draws its plots itself (SVG) and loads no matplotlib."""
    pytest.importorskip("jinja2")
    table, out, page = _table(tmp_path), tmp_path / "out.csv", tmp_path / "page.html"
    from incrowd.cli.app import run

    assert run(["anonymize", str(table), "--qi", "age,sex", "--k", "3", "--out", str(out)]) == 0
    done = subprocess.run([sys.executable, "-m", "incrowd", "report", str(table), str(out),
                           "--qi", "age,sex", "--out", str(page)], env=_quiet_env(tmp_path),
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "matplotlib" not in done.stderr.lower(), done.stderr
    assert page.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("method", ["2-anonymity", "2-microaggregation"])
def test_the_factor_methods_say_nothing_of_matplotlib_without_a_writable_home(tmp_path, method):
    """Issue 58 #6: the factor methods load pymatching, which imports matplotlib, which
    warned twice on stderr that it made a temporary folder for want of a writable home."""
    table, out = _table(tmp_path), tmp_path / "out.csv"
    done = subprocess.run([sys.executable, "-m", "incrowd", "anonymize", str(table), "--qi",
                           "age,sex", "--k", "2", "--method", method, "--out", str(out)],
                          env=_quiet_env(tmp_path), capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "matplotlib" not in done.stderr.lower(), done.stderr
    assert done.stderr == "", done.stderr


def test_a_process_runs_until_it_ended(tmp_path):
    """The one check the app's leftover folders and the commit protocol's temporaries use: a
    zombie (ended, not reaped) and a reaped process are gone; this process, and an id we may
    not signal or that is no process id, are left alone."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    with open(f"/proc/{child.pid}/stat") as fh:
        while fh.read().rsplit(")", 1)[-1].split()[0] != "Z":
            fh.seek(0)
    assert not _runtime.process_running(child.pid)
    child.wait()
    assert not _runtime.process_running(child.pid)
    assert _runtime.process_running(os.getpid())
    assert _runtime.process_running(1 << 80)  # OverflowError: no process id, left alone
    if os.geteuid() != 0:
        assert _runtime.process_running(1)  # another user's (init): not ours to signal
