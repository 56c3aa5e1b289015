"""How incrowd uses the machine: CPUs it may use, compiled kernels, and their cache.

Our users run on shared servers and in locked-down containers, so:

- **CPUs**: the number of threads is what this process may really use — its CPU affinity,
  capped by a cgroup CPU quota (a container limited to 2 CPUs on a 64-core host gets 2),
  or ``INCROWD_THREADS`` when set. Every thread pool (numba, scipy's KD-tree queries, our
  own) takes it from :func:`threads`.
- **No spinning**: numba's OpenMP layer would keep idle threads spinning between parallel
  regions, taking CPU from every other job on the machine; ``OMP_WAIT_POLICY=PASSIVE``
  (unless the user set it) makes them sleep. Kernels that need parallelism run it in coarse
  chunks on a thread pool (:func:`chunked`), or adaptively (MDAV).
- **Compiled kernels** (numba) are cached on disk where possible: next to the package, else
  in the user's cache directory, else in a private temporary directory; where nothing is
  writable (a read-only image, no home directory) they are compiled in memory each run,
  never failing for want of a cache. numba's index of cached kernels is a pickle, so
  whoever can write it runs code as us: a folder is used only if it is ours and nobody
  else may write it or swap it (:mod:`incrowd._runtime.folders`); another is passed over,
  with one line on stderr. numba checks a cached kernel only against the file that defines it,
  and a kernel compiles in the kernels it calls from other files: after a change to those
  (a ``git pull`` in a clone), it would load stale code. So each folder of cached kernels
  is stamped with a digest of all the package's sources, and emptied of kernels when the
  stamp differs.
- **Progress**: a long computation counts its work with :func:`report_progress`, to the
  callback a caller set with :func:`reporting` (:mod:`incrowd._runtime.progress`; a context
  variable, never a parameter of the work, so nothing it publishes records it).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import os
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from .folders import _cache_candidates, _private_folder, private_temporary
from .progress import progress_part, report_progress, reporting

__all__ = [
    "available_cpus", "available_memory", "threads", "jit", "variant", "chunked", "chunks",
    "in_background", "progress_part", "report_progress", "reporting", "matplotlib_quiet",
    "process_running",
]  # fmt: skip

T = TypeVar("T")

os.environ.setdefault("GOMP_SPINCOUNT", os.environ.get("INCROWD_SPINCOUNT", "10000"))


def _cgroup_cpus() -> float | None:
    """The CPU quota of this process's cgroup, in CPUs (None when unlimited or unknown)."""
    with contextlib.suppress(OSError, ValueError):
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            return int(quota) / int(period)
        return None
    with contextlib.suppress(OSError, ValueError):
        quota = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read_text())
        period = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read_text())
        if quota > 0 and period > 0:
            return quota / period
    return None


@functools.cache
def available_cpus() -> int:
    """CPUs this process may use: affinity, capped by a cgroup quota; at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        count = os.cpu_count() or 1
    quota = _cgroup_cpus()
    if quota is not None:
        count = min(count, max(1, int(quota)))
    return max(1, count)


def available_memory() -> int:
    """Bytes of memory this process may still take: the machine's available memory, capped
    by the room left under a cgroup memory limit (a container's, not the host's)."""
    free = None
    with contextlib.suppress(OSError, ValueError, StopIteration):
        lines = Path("/proc/meminfo").read_text().splitlines()
        free = int(next(x for x in lines if x.startswith("MemAvailable:")).split()[1]) * 1024
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):  # fmt: skip
        with contextlib.suppress(OSError, ValueError):
            limit = Path(limit_file).read_text().strip()
            if limit != "max" and int(limit) < (1 << 60):
                room = int(limit) - int(Path(usage_file).read_text())
                free = room if free is None else min(free, room)
            break
    if free is None:  # pragma: no cover - not Linux
        free = 4 << 30
    return max(free, 0)


def process_running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (this one does; another user's
    counts): a writer whose temporaries, or an app whose folders, are left alone. A zombie
    (ended, not yet reaped) is gone; an id that is no process id, or that we may not
    signal, is left alone (True)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # not ours to signal (or no process id): left alone
        return True
    with contextlib.suppress(OSError):  # a zombie (killed, not yet reaped) is gone
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[-1].split()[0] != "Z"
    return True


def threads() -> int:
    """Threads to use: ``INCROWD_THREADS`` when set to a positive integer, else
    :func:`available_cpus`."""
    value = os.environ.get("INCROWD_THREADS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return available_cpus()


# ------------------------------------------------------------------ compiled kernels
@functools.cache
def _cache_enabled() -> bool:
    """Whether numba may cache compiled kernels, choosing a private folder for them: the
    user's ``NUMBA_CACHE_DIR`` (none if it will not do), else ``__pycache__`` beside the
    sources, else one of :func:`_cache_candidates`, else :func:`private_temporary`."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        # refused: every kernel is compiled with cache=False, so numba (which read the
        # variable at its import) never opens it
        return _private_folder(Path(os.environ["NUMBA_CACHE_DIR"]))
    if _private_folder(PACKAGE / "__pycache__"):
        return True  # numba's default: beside the sources
    chosen = next((f for f in _cache_candidates() if _private_folder(f)), None)
    if chosen is None:  # the temporary folder's was another user's: one nobody can guess
        chosen = private_temporary()
    if chosen is None:
        return False
    os.environ["NUMBA_CACHE_DIR"] = str(chosen)  # worker processes inherit it
    import numba

    numba.config.CACHE_DIR = str(chosen)
    return True


def _kernel_folder(fn: Callable[..., Any]) -> str | None:
    """The folder numba will keep ``fn``'s kernels in (as its cache locators choose it:
    a subfolder of ``NUMBA_CACHE_DIR`` per source folder, else ``__pycache__`` beside the
    source), when it is private (:func:`_private_folder`, which makes it so when absent —
    numba would make it with the umask's mode); else None."""
    import numba

    source = inspect.getfile(fn)
    if not os.path.isfile(source):  # typed at a prompt: numba cannot cache it anyway
        return None
    if numba.config.CACHE_DIR:
        try:
            from numba.core.caching import _CacheLocator
        except ImportError:  # a numba whose layout we do not know: no cache, not a guess
            return None
        folder = os.path.join(numba.config.CACHE_DIR,
                              _CacheLocator.get_suitable_cache_subpath(source))  # fmt: skip
    else:
        folder = os.path.join(os.path.dirname(source), "__pycache__")
    return folder if _private_folder(Path(folder)) else None


#: In each folder of cached kernels: the digest of the sources they were compiled from.
SOURCES_STAMP = "incrowd-sources.key"
#: The package's sources, whose digest stamps the cached kernels.
PACKAGE = Path(__file__).resolve().parents[1]
_stamped: set[str] = set()
_stamping = threading.Lock()


@functools.cache
def sources_digest(root: Path | None = None) -> str | None:
    """A digest of every Python source under ``root`` (default :data:`PACKAGE`; names and
    contents); None when they cannot be read (then cached kernels are left as numba finds
    them)."""
    root = PACKAGE if root is None else root
    digest = hashlib.blake2b(digest_size=16)
    try:
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


def drop_stale_kernels(folder: Path, digest: str) -> bool:
    """Delete the cached kernels (``*.nbi``, ``*.nbc``) in ``folder`` unless its stamp is
    ``digest``, and stamp it; True when kernels were dropped. A kernel being loaded by
    another process meanwhile is compiled afresh there (numba reads a vanished file as a
    miss)."""
    stamp = folder / SOURCES_STAMP
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest:
            return False
    dropped = False
    for path in folder.glob("*.nb[ic]"):
        with contextlib.suppress(OSError):
            path.unlink()
            dropped = True
    fresh = folder / f"{SOURCES_STAMP}.{os.getpid()}.{threading.get_ident()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fresh.write_text(digest)
        os.replace(fresh, stamp)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        with contextlib.suppress(OSError):
            fresh.unlink()
    return dropped


def _fresh_cache(dispatcher: Any) -> None:
    """Check, once per process, the folder ``dispatcher`` caches its kernels in."""
    folder = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    digest = sources_digest()
    if not folder or digest is None:
        return
    with _stamping:
        if folder not in _stamped:
            _stamped.add(folder)
            drop_stale_kernels(Path(folder), digest)


def jit(*, parallel: bool = False, inline: bool = False) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit`` with ``nogil`` and a disk cache wherever one can be kept; ``inline``
    for small helpers called per record in a hot loop (numba then inlines them)."""
    import numba

    options: dict[str, Any] = {"nogil": True, "parallel": parallel}
    if inline:
        options["inline"] = "always"

    def wrap(fn: Callable[..., Any]) -> Any:
        folder = _kernel_folder(fn) if _cache_enabled() else None
        if folder is not None:
            try:
                dispatcher = numba.njit(cache=True, **options)(fn)
            except RuntimeError:  # numba found no usable cache location after all
                pass
            else:
                # numba passes over a folder it cannot write, to one we have not checked
                if getattr(dispatcher._cache, "_cache_path", None) == folder:
                    _fresh_cache(dispatcher)
                    return dispatcher
        return numba.njit(cache=False, **options)(fn)

    return wrap


def variant(fn: Callable[..., Any], suffix: str, names: dict[str, Any]) -> Callable[..., Any]:
    """A copy of ``fn`` named ``fn.__name__ + suffix`` whose global names in ``names``
    resolve to other values (other compiled helpers, or constants numba folds away). Each
    copy is compiled, and cached, on its own: one source, several specialized kernels."""
    env = dict(fn.__globals__) | names
    copy = types.FunctionType(fn.__code__, env, fn.__name__ + suffix, fn.__defaults__)
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__ = fn.__module__
    return copy


# ------------------------------------------------------------------ matplotlib
#: What matplotlib logs when it cannot write its own folders (no writable home): it makes a
#: temporary one of its own instead (``mkdtemp``: mode 0700, removed at exit) and says so.
_MATPLOTLIB_FOLDER_LINES = ("mkdir -p failed", "%s is not a writable directory",
                            "Matplotlib created a temporary")  # fmt: skip


def _not_a_folder_line(record: Any) -> bool:
    return not str(record.msg).startswith(_MATPLOTLIB_FOLDER_LINES)


@contextlib.contextmanager
def matplotlib_quiet() -> Iterator[None]:
    """Import a library that imports matplotlib in here (pymatching, which the factor
    methods need, imports it for its drawings): with no writable home, matplotlib's two
    lines on stderr about the temporary folder it makes instead say nothing of the run and
    are held back — only those; the folder is matplotlib's own private one as before."""
    import logging

    logger = logging.getLogger("matplotlib")
    logger.addFilter(_not_a_folder_line)
    try:
        yield
    finally:
        logger.removeFilter(_not_a_folder_line)


# ------------------------------------------------------------------ coarse parallelism
def chunks(n: int, parts: int, minimum: int = 1) -> list[tuple[int, int]]:
    """``[lo, hi)`` ranges covering ``0..n`` in at most ``parts`` pieces of ≥ ``minimum``."""
    parts = max(1, min(parts, n // max(minimum, 1)))
    bounds = [round(i * n / parts) for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def chunked(task: Callable[[int, int], T], ranges: Sequence[tuple[int, int]]) -> list[T]:
    """Run ``task(lo, hi)`` on each range, on :func:`threads` threads (the kernels release
    the GIL); results in order. One range runs in the calling thread."""
    if len(ranges) <= 1:
        return [task(lo, hi) for lo, hi in ranges]
    with ThreadPoolExecutor(max_workers=min(threads(), len(ranges))) as pool:
        return list(pool.map(lambda r: task(*r), ranges))


def in_background(task: Callable[[], T]) -> Callable[[], T]:
    """Start ``task`` on a thread of its own while the caller goes on, when this process may
    use two threads or more (the compiled kernels release the GIL), else run it at once;
    returns the call that waits for its result (raising what it raised)."""
    if threads() < 2:
        result = task()
        return lambda: result
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(task)
    pool.shutdown(wait=False)  # the thread ends with the task
    return future.result
