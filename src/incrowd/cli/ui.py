"""``incrowd ui``: the local browser app (:mod:`incrowd.ui`), on 127.0.0.1 with a token
per start; Starlette and uvicorn are imported only when the command runs."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..ui.limits import MAX_UPLOAD
from ._output import errors, out_console

if TYPE_CHECKING:
    from ..ui.server import LocalApp

__all__ = ["ui"]


def ui(
    folder: Annotated[
        list[Path] | None,
        typer.Option(
            metavar="DIR",
            help="A folder the app may read and write (repeat it; default: the "
            "current folder). The bundled demo data is always readable.",
        ),
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: a free one).")] = 0,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
    max_upload: Annotated[
        float, typer.Option(metavar="MB", help="The largest table the page may upload, in MiB.")
    ] = MAX_UPLOAD >> 20,
) -> None:
    """Start the local browser app: open a table, set the schema and the model, run,
    read the report, save. Stop it with Ctrl-C."""
    from ..errors import InputError

    with errors():
        try:
            import jinja2  # noqa: F401 - the extra's packages, imported later by the app
            import starlette  # noqa: F401
            import uvicorn  # noqa: F401

            from ..ui.server import LocalApp
        except ImportError:  # starlette or uvicorn missing
            raise InputError("incrowd ui needs its extra: pip install 'incrowd[ui]'") from None
        for path in folder or []:
            if not path.is_dir():
                raise InputError(f"--folder {path}: not a folder")
        if not (math.isfinite(max_upload) and max_upload > 0):
            raise InputError(f"--max-upload {max_upload:g}: must be a number of MiB above 0")
        local = LocalApp(folder or [Path.cwd()], port, max_upload=int(max_upload * (1 << 20)))
    try:  # closed also when a signal comes before it serves (serving closes it too)
        _started(local, open_browser)
        local.serve()
    except KeyboardInterrupt:
        pass
    finally:
        local.close()


def _started(local: LocalApp, open_browser: bool) -> None:
    """Say where the app is (and what an app killed earlier left), open the browser."""
    out_console.print(f"incrowd ui: {local.url}", soft_wrap=True, highlight=False)
    if local.removed:  # an app killed earlier (SIGKILL, a crash) could not remove them
        out_console.print(f"removed {len(local.removed)} temporary folder(s) left by an incrowd "
                          "ui that was killed", highlight=False)  # fmt: skip
    out_console.print("folders: " + ", ".join(str(f) for f in local.folders.writable)
                      + " (and the demo data, read-only); Ctrl-C stops it")  # fmt: skip
    if open_browser:
        import webbrowser

        # the browser gets a private file that forwards to the URL, not the URL itself: a
        # command line (with the token) is readable by every local user
        webbrowser.open(_forwarding_page(local.url).as_uri())


def _forwarding_page(url: str) -> Path:
    """A page readable by this user only, in a private temporary folder, that forwards to
    ``url`` (the way Jupyter hands its token to a browser)."""
    import atexit
    import html
    import shutil

    from ..ui.leftovers import private_folder

    folder = private_folder("page")  # mode 0700
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    page = folder / "open.html"
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(f'<!DOCTYPE html><meta http-equiv="refresh" content="0;url={html.escape(url)}">'
                  f'<a href="{html.escape(url)}">incrowd ui</a>\n')  # fmt: skip
    return page
