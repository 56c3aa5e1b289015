"""The report as a PDF, printed by a real browser engine: headless Chromium.

:func:`find_engine` looks for Chromium (or Google Chrome) at fixed system locations only
(:data:`CANDIDATES`), never on ``PATH``, and refuses one that another user could have put
there: a binary that is, or lies in a folder that is, writable by every user, or owned by
another user than root or this one. :func:`print_pdf` runs it headless on the written page,
with a new profile in a temporary folder, no network services of its own, no GPU, and the
sandbox off only when running as root (Chromium will not start as root otherwise); the PDF
is A4 by the page's print stylesheet (``@page``), without the browser's header and footer.

Guarantee: either the PDF's bytes (starting with ``%PDF``) or one
:class:`~incrowd.OutputError` line; no browser process outlives the call (it runs in a
session of its own, killed whole on a timeout or an interruption).
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import tempfile
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputError

__all__ = ["CANDIDATES", "INSTALL_HINT", "TIMEOUT", "Engine", "find_engine", "print_pdf"]

#: Where a browser engine is looked for, in this order (fixed places a package installs to).
CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
)
#: How to install one, as the message without an engine says it.
INSTALL_HINT = "apt-get install chromium"
#: Seconds the browser may take to print (it starts in about 2 s on a 2-core machine).
TIMEOUT = 120.0


@dataclass(frozen=True)
class Engine:
    """A browser engine found: its path, and what ``--version`` prints (e.g. ``Chromium
    150.0.7871.100 built on Debian GNU/Linux 12 (bookworm)``)."""

    path: Path
    version: str


def _trusted(path: Path) -> str | None:
    """Why ``path`` may not be run (None when it may): it, or its folder, is writable by
    every user; a folder above is so without the sticky bit (which keeps others from
    renaming what is inside, as in ``/tmp``); or one of them belongs to another user than
    root or this one. Both the name and the file it links to are checked."""
    own = {0, os.getuid()}
    for name in (path, path.resolve()):
        for depth, place in enumerate((name, *name.parents)):
            try:
                st = place.stat()
            except OSError as exc:
                return f"cannot inspect {place} ({exc.strerror or exc})"
            shared = st.st_mode & stat.S_IWOTH and (depth < 2 or not st.st_mode & stat.S_ISVTX)
            if shared:
                return f"{place} is writable by every user"
            if st.st_uid not in own:
                return f"{place} belongs to another user (uid {st.st_uid})"
    return None


def find_engine(candidates: tuple[str, ...] | None = None) -> Engine:
    """The first browser engine of ``candidates`` (default :data:`CANDIDATES`) that exists,
    may be run (:func:`_trusted`) and tells its version; else an
    :class:`~incrowd.OutputError` saying none was found and how to install one."""
    refused: list[str] = []
    for name in CANDIDATES if candidates is None else candidates:
        path = Path(name)
        if not path.is_file() or not os.access(path, os.X_OK):
            continue
        why = _trusted(path)
        if why is not None:
            refused.append(f"{path} refused: {why}")
            continue
        try:
            done = subprocess.run(
                [str(path), "--version"], shell=False, timeout=30, capture_output=True,
                text=True, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            refused.append(f"{path} refused: --version failed ({exc})")
            continue
        version = done.stdout.strip().splitlines()[-1:] if done.returncode == 0 else []
        if not version:
            refused.append(f"{path} refused: --version failed (exit {done.returncode})")
            continue
        return Engine(path, version[0].strip())
    looked = ", ".join(CANDIDATES if candidates is None else candidates)
    msg = (f"no browser engine found to print the PDF (looked for {looked}"
           + "".join(f"; {r}" for r in refused)
           + f"); install one ({INSTALL_HINT}) and run the report again")  # fmt: skip
    raise OutputError(msg)


def print_pdf(page: Path, engine: Engine, *, timeout: float = TIMEOUT) -> bytes:
    """The PDF of the HTML file ``page``, printed by ``engine`` headless; an
    :class:`~incrowd.OutputError` naming the page when it cannot."""
    with tempfile.TemporaryDirectory(prefix="incrowd-pdf-") as folder:
        pdf = Path(folder) / "report.pdf"
        args = [
            str(engine.path),
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            *(["--no-sandbox"] if os.geteuid() == 0 else []),
            f"--user-data-dir={Path(folder) / 'profile'}",
            f"--print-to-pdf={pdf}",
            "--no-pdf-header-footer",
            page.resolve().as_uri(),
        ]
        rc, errors = _run(args, timeout, page)
        try:
            data = pdf.read_bytes()
        except OSError:
            data = b""
    if not data.startswith(b"%PDF"):
        last = next((line for line in reversed(errors.splitlines()) if line.strip()), "")
        msg = (f"{engine.path.name} could not print {page} to PDF (exit {rc}"
               + (f": {last.strip()}" if last else "") + ")")  # fmt: skip
        raise OutputError(msg)
    return data


def _run(args: list[str], timeout: float, page: Path) -> tuple[int, str]:
    """Run the browser in a session of its own and wait; its exit code and standard error.
    ``subprocess.run`` would kill only the first process on a timeout, and the browser
    starts several (renderer, GPU and zygote processes): the whole session is killed."""
    proc = subprocess.Popen(args, shell=False, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)  # fmt: skip
    try:
        _, errors = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        msg = f"{Path(args[0]).name} did not print {page} within {timeout:g} s"
        raise OutputError(msg) from None
    finally:
        if proc.returncode is None:  # a timeout, or this process was interrupted
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, errors
