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
                  "from incrowd.cli import main; main()")  # fmt: skip
    assert version.returncode == 0, version.stderr
    assert "Traceback" not in version.stderr and "incrowd" in version.stdout
    work = textwrap.dedent(
        """
        import numpy as np, pandas as pd, incrowd
        from incrowd import _runtime
        assert not _runtime._cache_enabled()
        t = pd.DataFrame({"a": np.arange(40) % 7, "b": [f"x{i % 3}" for i in range(40)]})
        s = incrowd.Schema({"a": incrowd.Numeric(), "b": incrowd.Categorical()})
        for method in ("mdav", "forest"):
            r = incrowd.anonymize(t, s, 3, method=method, seed=1)
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

    def writable(folder):
        calls.append(folder)
        return folder.is_relative_to(tmp_path)

    monkeypatch.setattr(_runtime, "_writable", writable)
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
