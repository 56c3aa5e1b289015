"""The local server: bound to 127.0.0.1 on a port of its own, with a token drawn at start.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     app = LocalApp([folder])
...     app.url.startswith(f"http://127.0.0.1:{app.port}/?token=")
...     app.close()
True
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .leftovers import private_folder, remove_leftovers
from .limits import MAX_UPLOAD
from .security import Folders, new_token

__all__ = ["DEMO_DATA", "LocalApp"]

#: The bundled demo data, always readable (never writable).
DEMO_DATA = Path(__file__).resolve().parents[1] / "datasets"


class LocalApp:
    """The app on a loopback socket: ``port`` (0: any free one), ``url`` (with the token),
    :meth:`serve` (blocks until :meth:`stop`), :meth:`close`. Uploads of at most
    ``max_upload`` bytes go into ``uploads``, a private folder (0700) read like an opened
    one, never written by a save, removed by :meth:`close`. At start, the folders an app
    that was killed left behind are removed (:mod:`.leftovers`; ``removed``)."""

    def __init__(self, folders: Iterable[str | Path], port: int = 0,
                 max_upload: int = MAX_UPLOAD) -> None:  # fmt: skip
        from .app import make_app
        from .tables import warm

        # the imports and first calls of opening a table (a second or more), done before the
        # URL is shown: in a thread, they would hold up the page's first requests
        warm()
        # bound here, before the URL is printed: the port is ours, and the Host rule knows it
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(("127.0.0.1", port))
            self.socket.listen(128)  # a browser opening the URL at once waits, not refused
        except BaseException:  # a port in use: nothing is left behind
            self.socket.close()
            raise
        self.port = self.socket.getsockname()[1]
        self.removed = remove_leftovers()
        self.uploads = private_folder("uploads")
        try:
            self.folders = Folders(folders, readable=[DEMO_DATA, self.uploads])
            self.token = new_token()
            self.app = make_app(self.folders, self.token, self.port, self.uploads, max_upload)
        except BaseException:
            self.socket.close()
            shutil.rmtree(self.uploads, ignore_errors=True)
            raise
        self.url = f"http://127.0.0.1:{self.port}/?token={self.token}"
        self.server: Any = None

    def serve(self) -> None:
        """Serve until :meth:`stop` (or Ctrl-C, in the main thread); then stop every run."""
        import uvicorn

        config = uvicorn.Config(self.app, log_level="warning", access_log=False,
                                server_header=False, lifespan="off")  # fmt: skip
        self.server = _server(uvicorn.Server)(config)
        try:
            self.server.run(sockets=[self.socket])
        finally:
            self.close()

    def stop(self) -> None:
        """Ask :meth:`serve` to return (from another thread)."""
        if self.server is not None:
            self.server.should_exit = True

    def close(self) -> None:
        """Stop the runs still going, release the socket, remove the uploads."""
        self.app.state.runs.close()
        self.socket.close()
        shutil.rmtree(self.uploads, ignore_errors=True)


def _server(base: type) -> type:
    """uvicorn's server, stopped by SIGHUP (the terminal closed) as it is by SIGTERM: it
    stops serving, then the signal's own handler runs (the command line's unwinds, and
    :meth:`LocalApp.serve` removes the app's folders). Only where the process handles SIGHUP
    with a function of its own (``incrowd``'s ``main`` does; under ``nohup`` it is ignored,
    and stays so)."""

    class Server(base):  # type: ignore[misc,valid-type]
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            hangup = getattr(signal, "SIGHUP", None)  # not on Windows
            with super().capture_signals():
                handled = hangup is not None and callable(signal.getsignal(hangup))
                if threading.current_thread() is not threading.main_thread() or not handled:
                    yield
                    return
                previous = signal.signal(hangup, self.handle_exit)
                try:
                    yield
                finally:  # restored before uvicorn delivers the signals it caught again
                    signal.signal(hangup, previous)

    return Server
