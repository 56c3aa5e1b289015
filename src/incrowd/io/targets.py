"""The one overwrite policy: which targets incrowd may write, checked before any work is done.

- A target is never a directory (unless a dataset replaces an earlier one), never a
  symbolic link (renaming onto it would silently replace the link), and always in a folder
  this process can create files in (:func:`check_target`).
- A release (a table and its metadata, :mod:`incrowd.io.release_format`) may replace only
  an earlier release, never one of the run's inputs (:func:`check_release_target`).
- A report (its HTML page, and the PDF printed from it) may replace only a report incrowd
  wrote, never an input (:func:`check_report_target`): the page names its writer in its
  ``<head>`` (:data:`REPORT_GENERATOR`), the PDF carries the page's title
  (:data:`REPORT_TITLE`).
- Any other output of a command (a built hierarchy) is new: an existing file is
  never replaced, nor an input (:func:`check_new_file`). The Python function
  :func:`incrowd.write_table` is the exception: like ``DataFrame.to_csv`` it replaces its
  target (atomically), because a Python caller names the file on purpose.

The commit protocol (:mod:`incrowd.io.atomic`) checks the same again under its lock, with
the ``replaceable`` of each output: :data:`NEVER`, :func:`release_replaceable`, or
:func:`is_report`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import OutputError
from .staging import reason

__all__ = [
    "FORMAT", "NEVER", "REPORT_GENERATOR", "REPORT_TITLE", "TABLE_SUFFIXES", "check_new_file",
    "check_release_path", "check_release_target", "check_report_target", "check_target",
    "exists_message", "is_release_metadata", "is_report", "metadata_path", "refusal",
    "release_replaceable", "report_refusal", "same_file",
]  # fmt: skip

#: Written into every release's metadata; marks a file incrowd may later replace.
FORMAT = "incrowd release 1"
#: In the ``<head>`` of every report page (then the version and ``">``); marks a page
#: incrowd may later replace.
REPORT_GENERATOR = '<meta name="generator" content="incrowd report'
#: How the title of every report page starts: a PDF printed from it carries it as its title.
REPORT_TITLE = "incrowd report"
#: Suffixes of a release table: CSV, or Parquet.
TABLE_SUFFIXES = (".csv", ".parquet", ".pq")


def NEVER(_path: Path) -> bool:  # noqa: N802 - a policy, named as a constant
    """The ``replaceable`` of an output that never replaces an existing file."""
    return False


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
                          f"({reason(exc)})") from None  # fmt: skip
    return target


# ----------------------------------------------------------------------------- new files
def exists_message(path: Path) -> str:
    """The refusal of an existing file where a new one is written."""
    return f"{path} exists; incrowd never overwrites a file: move it away or choose another name"


def check_new_file(
    path: str | os.PathLike[str], protect: Sequence[str | os.PathLike[str]] = ()
) -> Path:
    """Refuse, before any work, an output that exists or is one of the inputs ``protect``."""
    target = _not_an_input(Path(path), protect)
    check_target(target)
    if target.exists():
        raise OutputError(exists_message(target))
    return target


def _not_an_input(target: Path, protect: Sequence[str | os.PathLike[str]]) -> Path:
    """``target``, unless it is one of the inputs ``protect`` of this run."""
    for guarded in protect:
        if same_file(target, Path(guarded)):
            msg = f"refusing to write {target}: it is an input of this run"
            raise OutputError(msg)
    return target


# ----------------------------------------------------------------------------- reports
#: How much of a file is read to recognize a report (a page is under 1 MB; a printed PDF's
#: title is in its document information, near its start).
_REPORT_PEEK = 1 << 24
#: The title as Chromium's PDF writer (Skia) spells a non-ASCII one: UTF-16 in hex.
_PDF_TITLE_HEX = "FEFF" + REPORT_TITLE.encode("utf-16-be").hex().upper()


def is_report(path: Path) -> bool:
    """True when ``path`` is a report incrowd wrote: an HTML page that starts with
    ``<!DOCTYPE html>`` and holds :data:`REPORT_GENERATOR` in its first kilobyte, or a PDF
    that Chromium printed (Skia), never edited since (one ``%%EOF``: a signed or annotated
    PDF adds an update), whose title starts with :data:`REPORT_TITLE`."""
    try:
        with path.open("rb") as fh:
            data = fh.read(_REPORT_PEEK)
    except OSError:
        return False
    if data.startswith(b"%PDF-"):
        titled = (b"/Title (" + REPORT_TITLE.encode()) in data or (
            b"/Title <" + _PDF_TITLE_HEX.encode()
        ) in data
        return titled and b"/Producer (Skia/PDF" in data and data.count(b"%%EOF") == 1
    head = data[:1024].decode("utf-8", errors="replace")
    return head.lower().startswith("<!doctype html>") and REPORT_GENERATOR in head


def report_refusal(path: Path) -> str:
    """The refusal of an existing file where a report is written."""
    return (
        f"{path} exists and is not a report incrowd wrote; move it away or choose another "
        "name (incrowd replaces only its own reports)"
    )


def check_report_target(
    path: str | os.PathLike[str], protect: Sequence[str | os.PathLike[str]] = ()
) -> Path:
    """Refuse, before any work, a report target that is one of the inputs ``protect``, cannot
    be written (:func:`check_target`), or exists and is not a report incrowd wrote."""
    target = _not_an_input(Path(path), protect)
    check_target(target)
    if target.exists() and not is_report(target):
        raise OutputError(report_refusal(target))
    return target


# ----------------------------------------------------------------------------- releases
def metadata_path(path: str | os.PathLike[str]) -> Path:
    """Where the JSON metadata of a release written to ``path`` lives."""
    return Path(path).with_suffix(".json")


def check_release_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a release table target; a clear error unless it ends in .csv or .parquet."""
    target = Path(path)
    if target.suffix.lower() not in TABLE_SUFFIXES:
        msg = (
            f"the release file must end in .csv or .parquet, got {str(target)!r} "
            f"(its metadata is written beside it as {metadata_path(target).name})"
        )
        raise OutputError(msg)
    return target


def is_release_metadata(path: Path) -> bool:
    """True when ``path`` is the JSON metadata of an incrowd release (which may be replaced)."""
    try:
        with path.open("rb") as fh:
            data = json.loads(fh.read(1 << 24))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    # releases written before the format marker carry these keys
    return data.get("format") == FORMAT or {"release", "n_released", "qi"} <= set(data)


def release_replaceable(meta_target: Path) -> Callable[[Path], bool]:
    """The ``replaceable`` of a release's files: whether ``meta_target`` is an earlier
    release's metadata (checked again under the commit, in case of a race)."""

    def replaceable(_path: Path) -> bool:
        return is_release_metadata(meta_target)

    return replaceable


def refusal(path: Path) -> str:
    """The refusal of an existing file that is not part of an earlier release."""
    return (
        f"{path} exists and is not part of an earlier incrowd release; move it away or "
        "choose another output name (incrowd never overwrites other files)"
    )


def check_release_target(
    path: str | os.PathLike[str],
    protect: Sequence[str | os.PathLike[str]] = (),
    *,
    directory: bool = False,
) -> Path:
    """Check, before any work is done, that a release can be written at ``path``.

    Raises :class:`~incrowd.OutputError` when the name does not end in .csv / .parquet, when
    the table or its metadata would land on a directory (unless ``directory``: the table is
    a Parquet dataset and the directory an earlier release's), on a symbolic link, in a
    folder that cannot be written (:func:`check_target`), on one of the files in
    ``protect`` (the inputs), or on an existing file that is not part of an earlier release.
    """
    target = check_release_path(path)
    meta = metadata_path(target)
    dataset = target.suffix.lower() in (".parquet", ".pq")
    for candidate in (target, meta):
        check_target(candidate, directory=directory and candidate == target and dataset)
        for guarded in protect:
            if same_file(candidate, Path(guarded)):
                msg = f"refusing to write {candidate}: it is an input of this run ({guarded})"
                raise OutputError(msg)
        if candidate.exists() and not is_release_metadata(meta):
            raise OutputError(refusal(candidate))
    return target


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` both exist and are one file."""
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
