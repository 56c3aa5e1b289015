"""Writing a group of files so that a crash or a kill never leaves a mixed or partial output.

This module is the one place where incrowd writes files. A release is two files, the table
and its JSON metadata, and they must change together. POSIX renames one file atomically,
never two, so the group is committed through a small journal, as a database would.

The write protocol
------------------
For outputs ``F1 .. Fm`` (all in one directory ``D``; a release is ``out.csv``, ``out.json``):

1. **Check.** Every target is refused if it is a directory (unless a directory is what is
   written: a Parquet dataset, filled beforehand in a hidden staging directory of ``D``),
   a symbolic link (even one pointing nowhere: renaming onto it would silently replace the
   link), and (when the caller says so) if it exists and is not a file the caller may
   replace. Nothing is written yet. Commands check the same before any work is done
   (:func:`check_target`), including that ``D`` (or the nearest folder that exists above it)
   can be written.
2. **Write.** Each file's content is written to an *unnamed* file in ``D`` (Linux
   ``O_TMPFILE``), flushed and ``fsync``-ed. A kill here leaves nothing at all: the kernel
   frees an unnamed file. Where ``O_TMPFILE`` is unavailable, the content goes to a hidden
   temporary ``.F.incrowd-PID-TOKEN.tmp`` instead, removed on any error and, after a kill,
   by the next write to ``F`` (temporaries of processes that are no longer alive).
3. **Name.** Under an exclusive lock on ``D`` (``flock``; writers of ``D`` take turns only
   for steps 3–6, which take milliseconds), each unnamed file is linked to its hidden
   temporary name.
4. **Commit.** A journal ``.F1.incrowd-commit`` listing ``(temporary, target)`` pairs is
   written, ``fsync``-ed and renamed into place, and ``D`` is ``fsync``-ed. This rename is
   the commit point: before it the previous files stand; after it the new ones do.
5. **Install.** Each temporary is renamed onto its target, in the order given (a release's
   table first, then its metadata), and ``D`` is ``fsync``-ed. A directory target that
   exists (an earlier dataset) is first renamed aside to a hidden temporary, then removed.
6. **Clean.** The journal is removed.

What a reader sees, and what a kill leaves
------------------------------------------
- Before step 4 completes: the previous files, unchanged (or no files). A kill in steps 2–3
  leaves no content on disk except, in the fallback without ``O_TMPFILE`` or in the
  microseconds of step 3, hidden temporaries that the next write removes.
- From step 4 on, the new group is committed. A reader that goes through
  :func:`resolve` (``incrowd verify``, ``evaluate``, :func:`incrowd.read_release`) first
  finishes an interrupted step 5 (:func:`recover`); in a directory it may not write to, it
  reads each file from where the journal says it is. So incrowd never shows a new table with
  old metadata, or the reverse. A program that opens the files directly sees, between the two
  renames of step 5, the new table beside the old metadata; the release metadata carries the
  table's SHA-256, so ``incrowd verify`` names such a mismatch instead of trusting it.
- The next write into ``D``, to any target, or any reader, completes every committed group
  of ``D`` and removes the temporaries of processes that are no longer alive (a process
  killed with SIGKILL cannot clean up after itself); a live process's are never touched.

New files get the permissions of a normal ``open``: ``0o666`` less the process umask.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import OutputError

try:  # POSIX advisory locks; without them (not Linux/macOS) writers simply do not wait
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Output", "check_target", "commit", "recover", "resolve", "journal_path",
    "staging_directory",
]  # fmt: skip

_TMP_TAG = ".incrowd-"
_JOURNAL_SUFFIX = ".incrowd-commit"


@dataclass(frozen=True)
class Output:
    """One file (or directory) of a group: where it goes and how to write its bytes.

    ``write`` receives a binary file object opened for writing. Or ``staged`` names what is
    already written, a hidden temporary from :func:`staging_directory` (a directory, such
    as a Parquet dataset, filled piece by piece); it is renamed into place at the commit.
    ``replaceable`` is asked, when the target already exists, whether it may be replaced
    (None: always).
    """

    path: Path
    write: Callable[[BinaryIO], None] | None = None
    replaceable: Callable[[Path], bool] | None = None
    staged: Path | None = None


def staging_directory(final: str | os.PathLike[str]) -> Path:
    """A new hidden directory beside ``final`` to fill and then commit as ``final``; a kill
    leaves only this hidden directory, which the next write to ``final`` removes."""
    final = Path(final)
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        path = _temp_name(final.parent, final)
        path.mkdir()
    except OSError as exc:
        raise OutputError(f"cannot write {final}: {_reason(exc)}") from None
    return path


def journal_path(first: Path) -> Path:
    """The journal of a group whose first output is ``first``."""
    return first.with_name(f".{first.name}{_JOURNAL_SUFFIX}")


def check_target(path: str | os.PathLike[str], *, directory: bool = False) -> Path:
    """Refuse, before any work is done, a target that cannot be written: a directory (unless
    ``directory``: a dataset replaces an earlier one), a symbolic link, or one whose folder
    (or, when that does not exist yet, the nearest folder above it) is not a folder this
    process can create files in. Raises :class:`~incrowd.OutputError`; creates nothing."""
    target = Path(path)
    if target.is_symlink():
        msg = (f"cannot write {target}: it is a symbolic link; incrowd replaces only files it "
               "wrote (remove the link or choose another name)")  # fmt: skip
        raise OutputError(msg)
    if target.is_dir() and not directory:
        raise OutputError(f"cannot write {target}: it is a directory")
    folder = target.parent
    while not os.path.lexists(folder) and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise OutputError(f"cannot write {target}: {folder} is not a directory")
    try:  # a real probe: permission bits say nothing of read-only mounts, ACLs or root
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise OutputError(f"cannot write {target}: the folder {folder} is not writable "
                          f"({_reason(exc)})") from None  # fmt: skip
    return target


def commit(outputs: Sequence[Output], refuse_message: Callable[[Path], str] | None = None) -> None:
    """Write ``outputs`` as one group, by the protocol of the module docstring.

    Raises :class:`~incrowd.OutputError` naming the target (never a temporary file) when a
    target is a directory, may not be replaced, or cannot be written; nothing is changed
    then. ``refuse_message`` words the refusal of an existing file that is not replaceable.
    """
    if not outputs:
        return
    paths = [Path(o.path) for o in outputs]
    folder = paths[0].parent
    if any(p.parent != folder for p in paths):
        msg = "the files of one group must share a directory"
        raise ValueError(msg)
    for out, path in zip(outputs, paths, strict=True):
        check_target(path, directory=out.staged is not None and out.staged.is_dir())
        if out.replaceable is not None and path.exists() and not out.replaceable(path):
            text = refuse_message(path) if refuse_message else f"{path} exists; not replacing it"
            raise OutputError(text)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the directory {folder}: {_reason(exc)}") from None
    if not folder.is_dir():
        raise OutputError(f"cannot write into {folder}: it is not a directory")

    staged: list[_Staged] = []
    target = paths[0]
    try:
        for out, path in zip(outputs, paths, strict=True):
            target = path
            if out.staged is not None:
                staged.append(_Staged(None, Path(out.staged)))
            else:
                assert out.write is not None
                staged.append(_stage(folder, path, out.write))
        target = paths[0]
        with _locked(folder):
            _recover_folder(folder)  # this group's own journal among the folder's
            pairs = [(s.name(folder, p), p) for s, p in zip(staged, paths, strict=True)]
            journal = journal_path(paths[0])
            _write_journal(journal, pairs)
            for tmp, final in pairs:
                target = final
                _install(tmp, final)
            _fsync_dir(folder)
            with contextlib.suppress(FileNotFoundError):
                journal.unlink()
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    finally:
        for s in staged:
            s.discard()


def recover(paths: Sequence[Path], *, _locked_already: bool = False) -> bool:
    """Finish a committed group (targets ``paths``, first one first) that a kill interrupted,
    and remove temporaries that processes no longer alive left behind.

    Returns True when there was nothing to finish or it was finished; False when that was
    not possible (for example in a read-only directory); :func:`resolve` still finds every
    file then.
    """
    paths = [Path(p) for p in paths]
    folder = paths[0].parent
    journal = journal_path(paths[0])
    context = contextlib.nullcontext() if _locked_already else _locked(folder)
    try:
        with context:
            if journal.is_file():
                pairs = _read_journal(journal)
                for tmp, final in pairs or ():  # a torn journal was never committed
                    if tmp.exists():
                        _install(tmp, final)
                _fsync_dir(folder)
                journal.unlink()
            _remove_dead_temporaries(folder, [*paths, journal])
    except OSError:
        return False
    return True


def _recover_folder(folder: Path) -> None:
    """Finish every committed group of ``folder`` and remove every temporary of a process
    that is no longer alive (held under the folder's lock). Each group's journal is finished
    before any temporary goes: a dead process's temporary named in a journal is a committed
    file still to be installed."""
    with contextlib.suppress(OSError):
        journals = [Path(e.path) for e in os.scandir(folder)
                    if e.name.startswith(".") and e.name.endswith(_JOURNAL_SUFFIX)
                    and _ours(Path(e.path))]  # fmt: skip
        for journal in journals:
            first = folder / journal.name[1 : -len(_JOURNAL_SUFFIX)]
            recover([first], _locked_already=True)
        if not any(Path(j).exists() for j in journals):  # an unfinished one keeps its files
            _remove_dead_temporaries(folder, None)


def resolve(paths: Sequence[Path]) -> list[Path]:
    """Where to read each of a group's files from, finishing an interrupted commit first.

    ``paths`` are the group's targets, first one first. Normally they come back unchanged;
    when a committed group could not be finished (no write access), the files still waiting
    under their temporary names are read from there.
    """
    paths = [Path(p) for p in paths]
    if recover(paths):
        return paths
    pairs = _read_journal(journal_path(paths[0])) or []
    waiting = {final: tmp for tmp, final in pairs if tmp.exists()}
    return [waiting.get(p, p) for p in paths]


# --------------------------------------------------------------------------- internals
class _Staged:
    """A file written but not yet named: an unnamed ``O_TMPFILE`` or a hidden temporary."""

    def __init__(self, fd: int | None, temp: Path | None) -> None:
        self.fd, self.temp = fd, temp

    def name(self, folder: Path, final: Path) -> Path:
        if self.temp is None:
            assert self.fd is not None
            target = _temp_name(folder, final)
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
            _remove(self.temp)


def _install(tmp: Path, final: Path) -> None:
    """Rename ``tmp`` onto ``final``; a directory in the way (an earlier release) is moved
    aside under a hidden temporary name first, then removed."""
    if tmp.is_dir() and final.is_dir() and not final.is_symlink():
        aside = _temp_name(final.parent, final)
        os.rename(final, aside)
        os.rename(tmp, final)
        _remove(aside)
        return
    os.replace(tmp, final)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _stage(folder: Path, final: Path, write: Callable[[BinaryIO], None]) -> _Staged:
    fd = _open_unnamed(folder)
    temp = None
    if fd is None:
        temp = _temp_name(folder, final)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    staged = _Staged(fd, temp)
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
        probe = _temp_name(folder, folder / "probe")
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


#: A hidden temporary of :func:`_temp_name`: ``.FINAL.incrowd-PID-HEX.tmp``.
#: A hidden temporary of :func:`_temp_name`: ``.FINAL.incrowd-PID-HOST-HEX.tmp`` (HOST is
#: absent from the names of earlier versions).
_TEMPORARY = re.compile(
    r"^\.(?P<final>.+)\.incrowd-(?P<pid>\d+)-(?:(?P<host>[0-9a-f]{8})-)?[0-9a-f]+\.tmp$"
)
#: This machine, in the names of its temporaries: a process id says whether a writer is
#: alive only on the machine that wrote it (a folder may be shared over NFS, or by
#: containers), so only this machine's temporaries are ever removed as dead.
_HOST = hashlib.blake2b(socket.gethostname().encode(), digest_size=4).hexdigest()


def _temp_name(folder: Path, final: Path) -> Path:
    name = f".{final.name}{_TMP_TAG}{os.getpid()}-{_HOST}-{secrets.token_hex(4)}.tmp"
    return folder / name


def _remove_dead_temporaries(folder: Path, finals: Sequence[Path] | None) -> None:
    """Remove hidden temporaries of ``finals`` (None: of any target in ``folder``) left by
    processes that are no longer alive."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            match = _TEMPORARY.match(entry.name)
            if match is None or (finals is not None and match["final"] not in
                                 {f.name for f in finals}):  # fmt: skip
                continue
            if match["host"] in (None, _HOST) and not _alive(int(match["pid"])):
                _remove(Path(entry.path))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def _write_journal(journal: Path, pairs: list[tuple[Path, Path]]) -> None:
    payload = json.dumps({"rename": [[t.name, f.name] for t, f in pairs]}).encode()
    tmp = _temp_name(journal.parent, journal)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, journal)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(journal.parent)


def _ours(path: Path) -> bool:
    """Whether ``path`` is a regular file (not a link) of this user's: a journal anybody
    else could have written (in a shared folder such as /tmp) is never followed."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    mine = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
    return stat.S_ISREG(info.st_mode) and mine


def _read_journal(journal: Path) -> list[tuple[Path, Path]] | None:
    """The renames a journal commits, or None for a torn one or one that is not ours. It
    only ever renames a temporary of ours onto the target its name is for: a journal
    cannot move any other file."""
    if not _ours(journal):
        return None
    try:
        names = [(str(t), str(f)) for t, f in json.loads(journal.read_text())["rename"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # plain names only: a journal never points outside its own directory
    if any(n in ("", ".", "..") or "/" in n or os.sep in n for pair in names for n in pair):
        return None
    for tmp, final in names:
        match = _TEMPORARY.match(tmp)
        if match is None or match["final"] != final:
            return None
    return [(journal.parent / t, journal.parent / f) for t, f in names]


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield  # cannot open the directory to lock it: the renames will say what is wrong
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
