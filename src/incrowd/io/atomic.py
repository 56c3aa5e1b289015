"""Writing a group of files so that a crash or a kill never leaves a mixed or partial output.

This module is the one place where incrowd writes files (every writer of :mod:`incrowd.io`
commits through it); the overwrite policy is :mod:`incrowd.io.targets`, the staging of
unnamed files and temporaries :mod:`incrowd.io.staging`. A release is two files, the table
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
import json
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import OutputError
from .staging import (
    TEMPORARY,
    Staged,
    install,
    reason,
    remove_dead_temporaries,
    stage,
    staging_directory,
    temp_name,
)
from .targets import NEVER, check_target, exists_message

try:  # POSIX advisory locks; without them (not Linux/macOS) writers simply do not wait
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Output", "check_target", "commit", "recover", "resolve", "journal_path",
    "staging_directory", "write_new",
]  # fmt: skip

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


def journal_path(first: Path) -> Path:
    """The journal of a group whose first output is ``first``."""
    return first.with_name(f".{first.name}{_JOURNAL_SUFFIX}")


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
    if len(set(paths)) != len(paths):  # the last would silently win over the others
        msg = f"the files of one group must have different names: {sorted(map(str, paths))}"
        raise ValueError(msg)
    for out, path in zip(outputs, paths, strict=True):
        check_target(path, directory=out.staged is not None and out.staged.is_dir())
    _refuse_existing(outputs, paths, refuse_message)  # before any work
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the directory {folder}: {reason(exc)}") from None
    if not folder.is_dir():
        raise OutputError(f"cannot write into {folder}: it is not a directory")

    staged: list[Staged] = []
    target = paths[0]
    try:
        for out, path in zip(outputs, paths, strict=True):
            target = path
            if out.staged is not None:
                staged.append(Staged(None, Path(out.staged)))
            else:
                assert out.write is not None
                staged.append(stage(folder, path, out.write))
        target = paths[0]
        with _locked(folder):
            _recover_folder(folder)  # this group's own journal among the folder's
            # again under the lock: a file that appeared while the outputs were written
            _refuse_existing(outputs, paths, refuse_message)
            pairs = [(s.name(folder, p), p) for s, p in zip(staged, paths, strict=True)]
            journal = journal_path(paths[0])
            _write_journal(journal, pairs)
            for tmp, final in pairs:
                target = final
                install(tmp, final)
            _fsync_dir(folder)
            with contextlib.suppress(FileNotFoundError):
                journal.unlink()
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {reason(exc)}") from None
    finally:
        for s in staged:
            s.discard()


def _refuse_existing(
    outputs: Sequence[Output], paths: Sequence[Path], refuse_message: Callable[[Path], str] | None
) -> None:
    for out, path in zip(outputs, paths, strict=True):
        if out.replaceable is not None and path.exists() and not out.replaceable(path):
            text = refuse_message(path) if refuse_message else f"{path} exists; not replacing it"
            raise OutputError(text)


def write_new(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` as a new file (a report, a built hierarchy) by :func:`commit`; an
    existing file is never replaced (:func:`~incrowd.io.targets.exists_message`)."""
    target = Path(path)
    commit([Output(target, lambda fh: fh.write(data), replaceable=NEVER)],
           refuse_message=exists_message)  # fmt: skip
    return target


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
                        install(tmp, final)
                _fsync_dir(folder)
                journal.unlink()
            remove_dead_temporaries(folder, [*paths, journal])
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
            remove_dead_temporaries(folder, None)


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


def _write_journal(journal: Path, pairs: list[tuple[Path, Path]]) -> None:
    payload = json.dumps({"rename": [[t.name, f.name] for t, f in pairs]}).encode()
    tmp = temp_name(journal.parent, journal)
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
        match = TEMPORARY.match(tmp)
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
