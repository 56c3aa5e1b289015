"""The one overwrite policy: which targets incrowd may write, checked before any work is done.

- A target is never a directory (unless a dataset replaces an earlier one), never a
  symbolic link (renaming onto it would silently replace the link), and always in a folder
  this process can create files in (:func:`check_target`).
- A release (a table and its metadata, :mod:`incrowd.io.release_format`) may replace only
  an earlier release, never one of the run's inputs (:func:`check_release_target`).
- A report (its HTML page, and the PDF printed from it) may replace only a report incrowd
  wrote and nobody changed since, never an input (:func:`check_report_target`): the page
  names its writer in its ``<head>`` (:data:`REPORT_GENERATOR`) and carries there the
  SHA-256 of its own bytes (:data:`REPORT_SEAL`, written by :func:`seal_report`), so a
  steward's edit of an older page, or a page of a version before the seal, is never
  replaced; the PDF carries the page's title (:data:`REPORT_TITLE`) and one ``%%EOF``.
- Any other output of a command (a built hierarchy) is new: an existing file is
  never replaced, nor an input (:func:`check_new_file`). The Python function
  :func:`incrowd.write_table` is the exception: like ``DataFrame.to_csv`` it replaces its
  target (atomically), because a Python caller names the file on purpose.

The commit protocol (:mod:`incrowd.io.atomic`) checks the same again under its lock, with
the ``replaceable`` of each output: :data:`NEVER`, :func:`release_replaceable`, or
:func:`is_report` (every report is committed by
:func:`incrowd.report.reading.report_output`, which seals a page).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO

from ..errors import OutputError
from .staging import reason

__all__ = [
    "FORMAT", "NEVER", "REPORT_GENERATOR", "REPORT_SEAL", "REPORT_TITLE", "TABLE_SUFFIXES",
    "check_new_file", "check_release_path", "check_release_target", "check_report_target",
    "check_target", "exists_message", "is_release_metadata", "is_report", "metadata_path",
    "refusal", "release_replaceable", "report_refusal", "same_file", "seal_report",
]  # fmt: skip

#: Written into every release's metadata; marks a file incrowd may later replace.
FORMAT = "incrowd release 1"
#: In the ``<head>`` of every report page (then the version and ``">``); marks a page
#: incrowd wrote, replaced only when its seal (:data:`REPORT_SEAL`) matches.
REPORT_GENERATOR = '<meta name="generator" content="incrowd report'
#: In the ``<head>`` of every report page written (then 64 hex digits and ``">``): the
#: SHA-256 of the page's bytes with those digits as ``0`` (:func:`seal_report`).
REPORT_SEAL = '<meta name="incrowd-seal" content="sha256:'
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
#: How much of a PDF is read to recognize a printed report (its title is in its document
#: information, near its start).
_REPORT_PEEK = 1 << 24
#: Where a page's generator and seal are looked for: its first kilobyte (its ``<head>``).
_HEAD = 1024
#: The largest page whose seal is checked (a report is under a few MB): a larger file at a
#: report's name is not one, and is not read past it.
_PAGE_MAX = 1 << 26
#: The title as Chromium's PDF writer (Skia) spells a non-ASCII one: UTF-16 in hex.
_PDF_TITLE_HEX = "FEFF" + REPORT_TITLE.encode("utf-16-be").hex().upper()
_SEAL = REPORT_SEAL.encode()
_BLANK = b"0" * 64


def _seal_at(head: bytes) -> int | None:
    """Where the 64 digits of the seal start in ``head`` (a page's first bytes), or None
    when ``head`` is not the start of a report page: ``<!DOCTYPE html>``, then
    :data:`REPORT_GENERATOR` and :data:`REPORT_SEAL` (64 lowercase hex digits and ``">``)
    within :data:`_HEAD` bytes."""
    head = head[:_HEAD]
    if not head[:15].lower() == b"<!doctype html>" or REPORT_GENERATOR.encode() not in head:
        return None
    at = head.find(_SEAL)
    if at < 0:
        return None
    at += len(_SEAL)
    digits = head[at : at + 66]
    if len(digits) < 66 or not digits.endswith(b'">') or digits[:64].strip(b"0123456789abcdef"):
        return None
    return at


def seal_report(page: bytes) -> bytes:
    """The report page ``page`` sealed: :data:`REPORT_SEAL` filled with the SHA-256 of the
    page's bytes with its 64 digits as ``0`` (the seal is inserted after the generator's
    ``<meta>`` first when the page has none). The one place a page is sealed; every writer
    of a report page writes what it returns, and :func:`is_report` checks it.

    Guarantee: the same page gives the same bytes, and ``seal_report(seal_report(p)) ==
    seal_report(p)``; a ``ValueError`` when ``page`` does not start as a report page.
    Complexity: O(len(page)), one SHA-256 of it."""
    at = _seal_at(page)
    if at is None:
        found = page.find(REPORT_GENERATOR.encode(), 0, _HEAD)
        end = page.find(b">", found) + 1 if found >= 0 else 0
        page = page[:end] + b"\n" + _SEAL + _BLANK + b'">' + page[end:]
        at = _seal_at(page) if end else None
        if at is None:
            msg = f"not a report page: its first {_HEAD} bytes must hold {REPORT_GENERATOR!r}"
            raise ValueError(msg)
    blank = page[:at] + _BLANK + page[at + 64 :]
    return page[:at] + hashlib.sha256(blank).hexdigest().encode() + page[at + 64 :]


def _sealed(head: bytes, rest: BinaryIO) -> bool:
    """Whether the page that starts with ``head`` (its first bytes) and goes on in ``rest``
    holds its own seal (:func:`seal_report`); read in blocks of 1 MiB, and no further than
    one byte past :data:`_PAGE_MAX`."""
    at = _seal_at(head)
    if at is None:
        return False
    digest = hashlib.sha256(head[:at] + _BLANK + head[at + 64 :])
    size = len(head)
    while block := rest.read(min(1 << 20, _PAGE_MAX + 1 - size)):
        size += len(block)
        digest.update(block)
    return size <= _PAGE_MAX and digest.hexdigest().encode() == head[at : at + 64]


def is_report(path: Path) -> bool:
    """True when ``path`` is a report incrowd wrote and nobody changed since: an HTML page
    that starts with ``<!DOCTYPE html>``, holds :data:`REPORT_GENERATOR` and its seal
    (:data:`REPORT_SEAL`) in its first kilobyte, and whose bytes match the seal; or a PDF
    that Chromium printed (Skia), never edited since (one ``%%EOF``: a signed or annotated
    PDF adds an update), whose title starts with :data:`REPORT_TITLE`. Reads a page in
    blocks, no further than :data:`_PAGE_MAX`, and at most :data:`_REPORT_PEEK` of a PDF."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
            if not head.startswith(b"%PDF-"):
                return _sealed(head, fh)
            data = head + fh.read(_REPORT_PEEK - _HEAD)
    except OSError:
        return False
    titled = (b"/Title (" + REPORT_TITLE.encode()) in data or (
        b"/Title <" + _PDF_TITLE_HEX.encode()
    ) in data
    return titled and b"/Producer (Skia/PDF" in data and data.count(b"%%EOF") == 1


def report_refusal(path: Path) -> str:
    """The refusal of an existing file where a report is written: a page that starts as an
    incrowd report but does not match its seal (edited, or written before the seal) is
    named as such."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        head = b""
    if head[:15].lower() == b"<!doctype html>" and REPORT_GENERATOR.encode() in head:
        return (
            f"{path} was changed since incrowd wrote it, or was not written by this version "
            "(its seal does not match): incrowd never replaces an edited report; move it "
            "away or choose another name"
        )
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
