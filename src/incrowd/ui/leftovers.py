"""The app's private temporary folders, and those an app that was killed left behind.

Every folder the app makes in the temporary folder — its uploads, a run's release, the page
that hands the browser its token — is named ``incrowd-ui-KIND-PID-*``, has mode 0700 and
so records the app's process id (:func:`private_folder`). Ctrl-C, SIGTERM and SIGHUP (the
terminal closed) stop the app, which removes them; a SIGKILL or a crash cannot, so each
start removes what such an app left (:func:`remove_leftovers`): a folder ``incrowd-ui-*``
that is a real folder (a symbolic link is never followed), owned by this user and writable
by nobody else (the rules of :mod:`incrowd._runtime.folders`), whose recorded process is
gone. Another user's folder, a folder whose name records no process id (an older
version's), and one whose process id runs again (reused by another process) are left
alone.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from .._runtime import process_running
from .._runtime.folders import distrust

__all__ = ["PREFIX", "private_folder", "remove_leftovers"]

#: The start of the name of every temporary folder of the app.
PREFIX = "incrowd-ui-"
#: A folder's name: its kind, the process id of the app that made it, mkdtemp's letters.
_NAME = re.compile(re.escape(PREFIX) + r"[a-z]+-([0-9]+)-[A-Za-z0-9_]+")


def private_folder(kind: str) -> Path:
    """A new folder ``incrowd-ui-KIND-PID-*`` (this process's id) in the temporary folder,
    mode 0700."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-{os.getpid()}-"))


def remove_leftovers(temp: Path | None = None) -> list[Path]:
    """Remove the folders ``incrowd-ui-*`` in ``temp`` (default: the temporary folder) that
    an app of this user left when it was killed (the module's rules); the ones removed."""
    temp = Path(tempfile.gettempdir()) if temp is None else temp
    try:
        names = sorted(os.listdir(temp))
    except OSError:
        return []
    removed = []
    for name in names:
        named = _NAME.fullmatch(name)
        if named is None or process_running(int(named[1])):
            continue
        folder = temp / name
        try:
            info = os.lstat(folder)  # the entry itself: a link is not followed
            if not stat.S_ISDIR(info.st_mode) or distrust(folder, info) is not None:
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)  # never follows a link inside either
        if not os.path.lexists(folder):
            removed.append(folder)
    return removed
