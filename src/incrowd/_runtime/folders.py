"""Folders incrowd may keep files in that it later loads as code: numba's index of cached
kernels is a pickle, so whoever can write such a folder runs code as us. A folder is used
only if it is ours and nobody else may write it or swap it (:func:`_private_folder`);
another is passed over, with one line on stderr naming its owner. Another user may make
our predictable folder in the shared temporary folder first; then the cache goes to one with
a name nobody can guess (:func:`private_temporary`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import stat
import sys
import tempfile
from pathlib import Path

__all__ = ["distrust"]


def _others_may_write(info: os.stat_result) -> bool:
    """Whether users other than the owner may write a folder. Its group may, when it is the
    owner's own private group (what a umask of 002 gives on Debian and Ubuntu)."""
    if info.st_mode & stat.S_IWOTH:
        return True
    if not info.st_mode & stat.S_IWGRP:
        return False
    try:
        import grp
        import pwd

        user, group = pwd.getpwuid(info.st_uid), grp.getgrgid(info.st_gid)
    except (ImportError, KeyError):
        return True
    return not (group.gr_gid == user.pw_gid and group.gr_name == user.pw_name
                and set(group.gr_mem) <= {user.pw_name})  # fmt: skip


def distrust(folder: Path, info: os.stat_result) -> str | None:
    """Why files in ``folder`` may have been written by someone else (None: they cannot)."""
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "not a folder"
    if info.st_uid != os.geteuid():
        return f"owned by {_user(info.st_uid)}, not you"
    if _others_may_write(info):
        return f"writable by others (mode {stat.S_IMODE(info.st_mode):04o})"
    # whoever owns or may write a folder above it may swap it (or the path to it) for a
    # folder of theirs, unless that folder is sticky, as /tmp is: there only an entry's
    # owner may rename or remove it. Every folder above, as named and as resolved, counts.
    absolute = Path(os.path.abspath(folder))
    for chain in (absolute.parents, Path(os.path.realpath(folder)).parents):
        for above in chain:
            up = os.stat(above)
            if up.st_uid not in (0, os.geteuid()):
                return f"{above} belongs to {_user(up.st_uid)}"
            if _others_may_write(up) and not up.st_mode & stat.S_ISVTX:
                return f"{above} is writable by others (mode {stat.S_IMODE(up.st_mode):04o})"
    return None


def _user(uid: int) -> str:
    """``uid 1001 (mallory)``: the user id, and the user's name where it has one."""
    try:
        import pwd

        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except (ImportError, KeyError):
        return f"uid {uid}"


#: The first folder refused, once one was (its line is printed once).
_REFUSED: list[Path] = []


@functools.cache
def _private_folder(folder: Path) -> bool:
    """Whether ``folder`` may hold files that this process loads as code — numba's index
    of cached kernels is a pickle: whoever can write it runs code as us. Only a real folder
    of ours that nobody else may write qualifies; an absent one is made, mode 0700. One
    line on stderr when a folder we could write is refused (an unwritable one, such as
    a read-only install's, is passed over quietly)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = os.lstat(folder)
        why = distrust(folder, info) if hasattr(os, "geteuid") else None
    except OSError:
        return False
    if why is not None:
        if os.access(folder, os.W_OK) and not _REFUSED:  # one line per process, not per folder
            _REFUSED.append(folder)
            print(f"incrowd: not caching compiled code in {folder}: {why}", file=sys.stderr)
        return False
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return False
    return True


def _cache_candidates() -> list[Path]:
    """Folders for caches of ours, best first, when the package's own cannot be used: the
    user's cache directory, else one in the temporary directory."""
    candidates = []
    if os.environ.get("XDG_CACHE_HOME"):
        candidates.append(Path(os.environ["XDG_CACHE_HOME"]) / "incrowd")
    with contextlib.suppress(RuntimeError, KeyError):
        if Path.home().is_dir():  # never make a missing home (root could)
            candidates.append(Path.home() / ".cache" / "incrowd")
    temp = _temporary()
    if temp is not None:
        candidates.append(temp / f"{_TEMPORARY_PREFIX}cache")
    return candidates


#: The start of our folders' names in the shared temporary folder.
_TEMPORARY_PREFIX = f"incrowd-{os.getuid() if hasattr(os, 'getuid') else 'user'}-"
#: Folders named like our private ones looked at, at most (anyone may make such names).
_LOOKED_AT = 64


def _temporary() -> Path | None:
    """The shared temporary folder (None where tempfile falls back to the current one)."""
    temp = Path(tempfile.gettempdir())
    return None if temp.resolve() == Path.cwd().resolve() else temp


def private_temporary() -> Path | None:
    """A folder for cached code in the temporary folder when our predictable one there was
    refused (another user made it first): an earlier run's ``incrowd-<uid>-cache-XXXXXXXX``
    that is :func:`_private_folder` (ours, nobody else may write it, in a sticky folder:
    only we could have put files there, so its kernels are as safe to load as ever), else
    a new one from ``mkdtemp`` (mode 0700, a name nobody can guess to make first); None
    when neither can be had."""
    temp = _temporary()
    if temp is None:
        return None
    prefix = f"{_TEMPORARY_PREFIX}cache-"
    try:
        with os.scandir(temp) as entries:
            names = sorted(itertools.islice(
                (e.name for e in entries if e.name.startswith(prefix)), _LOOKED_AT))  # fmt: skip
    except OSError:
        names = []
    for name in names:
        if _private_folder(temp / name):
            return temp / name
    try:
        made = Path(tempfile.mkdtemp(prefix=prefix, dir=temp))
    except OSError:
        return None
    return made if _private_folder(made) else None
