"""Where the commit protocol (:mod:`incrowd.io.atomic`) stages what it writes: unnamed files
(Linux ``O_TMPFILE``) or hidden temporaries ``.F.incrowd-PID-HOST-TOKEN.tmp`` beside the
target, and the removal of temporaries left by processes that are no longer alive.

A process id says whether a writer is alive only on the machine that wrote it (a folder may
be shared over NFS, or by containers), so only this machine's temporaries are ever removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import shutil
import socket
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from .._runtime import process_running
from ..errors import OutputError

__all__ = [
    "HOST", "TEMPORARY", "Staged", "install", "reason", "remove",
    "remove_dead_temporaries", "stage", "staging_directory", "temp_name",
]  # fmt: skip

_TMP_TAG = ".incrowd-"


def staging_directory(final: str | os.PathLike[str]) -> Path:
    """A new hidden directory beside ``final`` to fill and then commit as ``final``; a kill
    leaves only this hidden directory, which the next write to ``final`` removes."""
    final = Path(final)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        path = temp_name(final.parent, final)
        path.mkdir()
    except OSError as exc:
        raise OutputError(f"cannot write {final}: {reason(exc)}") from None
    return path


class Staged:
    """A file written but not yet named: an unnamed ``O_TMPFILE`` or a hidden temporary."""

    def __init__(self, fd: int | None, temp: Path | None) -> None:
        self.fd, self.temp = fd, temp

    def name(self, folder: Path, final: Path) -> Path:
        if self.temp is None:
            assert self.fd is not None
            target = temp_name(folder, final)
            try:
                os.link(f"/proc/self/fd/{self.fd}", target, follow_symlinks=True)
            except OSError:  # /proc went away since the probe: copy into a named file
                _copy_fd(self.fd, target)
            self.temp = target
        return self.temp

    def discard(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        if self.temp is not None:
            remove(self.temp)


def install(tmp: Path, final: Path) -> None:
    """Rename ``tmp`` onto ``final``; a directory in the way (an earlier release) is moved
    aside under a hidden temporary name first, then removed."""
    if tmp.is_dir() and final.is_dir() and not final.is_symlink():
        aside = temp_name(final.parent, final)
        os.rename(final, aside)
        os.rename(tmp, final)
        remove(aside)
        return
    os.replace(tmp, final)


def remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def stage(folder: Path, final: Path, write: Callable[[BinaryIO], None]) -> Staged:
    fd = _open_unnamed(folder)
    temp = None
    if fd is None:
        temp = temp_name(folder, final)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    staged = Staged(fd, temp)
    try:
        with os.fdopen(os.dup(fd), "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        staged.discard()
        raise
    if temp is not None:  # a named temporary needs no open descriptor
        os.close(fd)
        staged.fd = None
    return staged


#: Per device: whether an unnamed file can later be given a name (a probe, made once).
_LINKABLE: dict[int, bool] = {}


def _open_unnamed(folder: Path) -> int | None:
    """An unnamed file in ``folder`` (``O_TMPFILE``), or None where that cannot be named later
    (no ``O_TMPFILE``, or a kernel that will not link ``/proc/self/fd``)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return None
    try:
        device = os.stat(folder).st_dev
        fd = os.open(folder, flag | os.O_RDWR, 0o666)
    except OSError:
        return None
    if device not in _LINKABLE:
        probe = temp_name(folder, folder / "probe")
        try:
            os.link(f"/proc/self/fd/{fd}", probe, follow_symlinks=True)
            os.unlink(probe)
            _LINKABLE[device] = True
        except OSError:
            _LINKABLE[device] = False
    if not _LINKABLE[device]:
        os.close(fd)
        return None
    return fd


def _copy_fd(fd: int, target: Path) -> None:
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(os.dup(fd), "rb") as src, os.fdopen(out, "wb") as dst:
            src.seek(0)
            while chunk := src.read(1 << 20):
                dst.write(chunk)
            dst.flush()
            os.fsync(dst.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
        raise


#: A hidden temporary of :func:`temp_name`: ``.FINAL.incrowd-PID-HOST-HEX.tmp`` (HOST is
#: absent from the names of earlier versions).
TEMPORARY = re.compile(
    r"^\.(?P<final>.+)\.incrowd-(?P<pid>\d+)-(?:(?P<host>[0-9a-f]{8})-)?[0-9a-f]+\.tmp$"
)
#: This machine, in the names of its temporaries: a process id says whether a writer is
#: alive only on the machine that wrote it (a folder may be shared over NFS, or by
#: containers), so only this machine's temporaries are ever removed as dead.
HOST = hashlib.blake2b(socket.gethostname().encode(), digest_size=4).hexdigest()


def temp_name(folder: Path, final: Path) -> Path:
    name = f".{final.name}{_TMP_TAG}{os.getpid()}-{HOST}-{secrets.token_hex(4)}.tmp"
    return folder / name


def remove_dead_temporaries(folder: Path, finals: Sequence[Path] | None) -> None:
    """Remove hidden temporaries of ``finals`` (None: of any target in ``folder``) left by
    processes that are no longer alive."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            match = TEMPORARY.match(entry.name)
            if match is None or (finals is not None and match["final"] not in
                                 {f.name for f in finals}):  # fmt: skip
                continue
            if match["host"] in (None, HOST) and not process_running(int(match["pid"])):
                remove(Path(entry.path))


def reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
