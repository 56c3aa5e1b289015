"""What the local app accepts: the size of a request's body (checked while it is read, never
after), the files uploaded through the page, and how many runs a session holds.

- **JSON bodies** (a form) are capped at :data:`MAX_BODY`; **uploads** at the cap
  ``incrowd ui --max-upload MB`` sets (:data:`MAX_UPLOAD` by default). A ``Content-Length``
  over the cap is refused before a byte is read, and the bytes are counted as they come, so
  a body that lies about its length is refused at the first chunk past the cap
  (:class:`TooLarge`, answered 413).
- An **upload** is written into a folder of its own inside the app's private folder
  (mode 0700, removed when the app stops), under a hidden name until its last byte came:
  a refused or broken upload leaves no file. The folder is then read like any opened,
  read-only folder. Files that belong together (a job file, its table, its hierarchy
  files) are sent one by one into the same folder (``into``), at most
  :data:`MAX_UPLOAD_FILES` of them.
- **Runs**: at most :data:`MAX_RUNS` per session (going or holding a release: a failed or
  cancelled run does not count) and :data:`MAX_RUNNING` at once (:class:`TooMany`, answered
  429): each run holds a worker process and its release.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ..errors import InputError
from ..pipeline.job import NestedTooDeep, loads_bounded
from .security import PLAIN_NAME

__all__ = ["MAX_BODY", "MAX_RUNNING", "MAX_RUNS", "MAX_UPLOAD",
           "MAX_UPLOAD_FILES", "TooLarge", "TooMany", "admit_run", "read_json",
           "receive_upload"]  # fmt: skip

#: The largest JSON body the app reads (a form of a few hundred columns fits).
MAX_BODY = 1 << 20
#: The largest upload by default (``incrowd ui --max-upload MB``).
MAX_UPLOAD = 200 << 20
#: Runs a session keeps (their releases and reports stay in memory until the app stops).
MAX_RUNS = 20
#: Runs going at once (each a worker process; the machine has few cores).
MAX_RUNNING = 2
#: Files uploaded into one folder (a job file, its table, its hierarchy files).
MAX_UPLOAD_FILES = 64
#: An uploaded file's name: letters, digits, - _ . and a table's (or a hierarchy file's, a
#: CSV) or a job file's suffix.
_NAME = re.compile(PLAIN_NAME + r"\.(csv|tsv|txt|parquet|pq|toml)", re.IGNORECASE)
#: The name of an upload's folder (:func:`receive_upload` makes it).
_FOLDER = re.compile(r"[0-9a-f]{16}")

T = TypeVar("T")
_ADMIT = threading.Lock()


class TooLarge(Exception):
    """A request body over its cap (answered 413)."""


class TooMany(Exception):
    """A run over the session's limits (answered 429)."""


def _megabytes(cap: int) -> str:
    return f"{cap / (1 << 20):g} MiB"


async def _capped(headers: Mapping[str, str], chunks: AsyncIterator[bytes], cap: int,
                  what: str) -> AsyncIterator[bytes]:  # fmt: skip
    """The body's chunks, refused (:class:`TooLarge`) as soon as it is known to exceed
    ``cap``: by its ``Content-Length``, else at the chunk that passes it."""
    too_large = f"{what} is larger than {_megabytes(cap)}, the most this app accepts"
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise TooLarge(too_large)
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > cap:
            raise TooLarge(too_large)
        yield chunk


async def read_json(request: Any, cap: int = MAX_BODY) -> dict[str, Any]:
    """The request's JSON object, its body read at most ``cap`` bytes far;
    :class:`~incrowd.InputError` for anything but a JSON object (answered 400)."""
    raw = b"".join([c async for c in _capped(request.headers, request.stream(), cap,
                                             "the request")])  # fmt: skip
    # nested deeper than a job may be (pipeline.job.MAX_NESTING): what reads it could
    # recurse past Python's limit
    try:
        data = loads_bounded(json.loads, raw or b"{}")
    except NestedTooDeep:
        raise InputError("the request is not valid JSON: too deeply nested") from None
    except ValueError:  # not JSON, or not UTF-8
        data = None
    if not isinstance(data, dict):
        raise InputError("the request is not a JSON object")
    return data


async def receive_upload(request: Any, folder: Path, name: str, cap: int,
                         into: str = "") -> Path:  # fmt: skip
    """Write the request's body, a file called ``name``, into a new folder of its own under
    ``folder``, or into the folder ``into`` an earlier upload made (its files belong
    together); its path. A name that is not a plain table, hierarchy or job file name, an
    ``into`` that is not an upload's folder, a name already there or a folder full
    (:data:`MAX_UPLOAD_FILES`) is a ValueError; a body over ``cap`` is :class:`TooLarge`,
    and nothing is left written."""
    if not _NAME.fullmatch(name):
        msg = (
            f"{name!r} is not a plain file name of a table, a hierarchy or a job file "
            "(letters, digits, - _ ., ending .csv, .tsv, .txt, .parquet, .pq or .toml)"
        )
        raise ValueError(msg)  # fmt: skip
    if into and not (_FOLDER.fullmatch(into) and (folder / into).is_dir()):
        raise ValueError(f"{into!r} is not a folder of this session's uploads")
    if into and (folder / into / name).exists():
        raise ValueError(f"{name} was uploaded into that folder already")
    if into and len(os.listdir(folder / into)) >= MAX_UPLOAD_FILES:
        raise ValueError(f"at most {MAX_UPLOAD_FILES} files are uploaded together")
    chunks = _capped(request.headers, request.stream(), cap, f"{name}")
    first = await anext(chunks, b"")  # a Content-Length over the cap: refused before any file
    place = folder / (into or secrets.token_hex(8))
    if not into:
        place.mkdir(mode=0o700)
    part, final = place / f".{name}.part", place / name
    try:  # this request's own part file (O_EXCL): two uploads of one name never share it
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise ValueError(f"{name} is being uploaded into that folder already") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(first)
            async for chunk in chunks:
                out.write(chunk)
        os.link(part, final)  # never replaces: a name already there fails
    except FileExistsError:
        raise ValueError(f"{name} was uploaded into that folder already") from None
    finally:
        part.unlink(missing_ok=True)
        if not into and not final.exists():
            place.rmdir()
    return final


def admit_run(runs: Any, start: Callable[[], T]) -> T:
    """``start()`` when ``runs`` (:class:`~incrowd.ui.runs.Runs`) holds fewer than
    :data:`MAX_RUNS` runs going or holding a result (a failed or cancelled run holds none),
    fewer than :data:`MAX_RUNNING` of them going; else :class:`TooMany`."""
    with _ADMIT:  # the count and the start at once: two clicks do not both pass
        runs_now = list(runs.runs.values())
        going = sum(run.state == "running" for run in runs_now)
        held = [run for run in runs_now if run.result is not None or run.state == "running"]
        if going >= MAX_RUNNING:
            msg = (f"{going} runs are going, the most at once: wait for one to finish or "
                   "cancel it")  # fmt: skip
            raise TooMany(msg)
        if len(held) >= MAX_RUNS:
            msg = (f"this session holds {len(held)} runs, the most it keeps: save what you "
                   "need and restart incrowd ui")  # fmt: skip
            raise TooMany(msg)
        return start()
