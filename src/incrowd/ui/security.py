"""The security rules of the local app, checked on every request before any route runs.

A local web server is reachable by every page the user's browser opens, so the app trusts
nothing a request says about itself:

- **Loopback only.** The server binds 127.0.0.1 (:mod:`incrowd.ui.server`); nothing else
  on the network can connect.
- **A token per start.** :func:`new_token` draws 32 random bytes (``secrets``) at each
  start; the printed URL carries it as ``?token=``. A request carrying the right token gets
  an ``HttpOnly``, ``SameSite=Strict`` cookie holding it; every request needs the cookie or
  the token (compared in constant time), else 403. Another local user or a page of another
  site cannot guess it.
- **Host.** ``Host`` must be ``127.0.0.1:PORT`` or ``localhost:PORT`` (this server's port):
  a DNS-rebinding page reaches the server under its own host name, and is refused.
- **Origin.** A request with an ``Origin`` header must come from this server's own origin,
  and every request that is not a GET (or HEAD) must carry one: no other site can post to
  the app, even with the user's cookie. A browser's ``Sec-Fetch-Site: cross-site`` (or
  ``same-site``) is refused too.
- **Folders.** Every file path a request names is resolved (symbolic links followed) and
  must lie inside a folder the user opened (:class:`Folders`), else 403; the bundled demo
  data and the app's private folder of uploads are readable, never writable.

Refusals are plain 403 responses that say which rule refused, never which token was
expected.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

__all__ = ["PLAIN_NAME", "Folders", "Forbidden", "Guard", "cookie_name", "new_token"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: A plain file name: letters, digits, - _ . (no folder, no hidden file); a saved release's
#: name, and (with a table's suffix) an upload's (:mod:`incrowd.ui.limits`).
PLAIN_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}"
#: Requests that may come without an ``Origin`` (a browser sends one with the others).
_SAFE_METHODS = ("GET", "HEAD")


def new_token() -> str:
    """A fresh random token (43 URL-safe characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def cookie_name(port: int) -> str:
    """The cookie of the server on ``port`` (cookies are shared across a host's ports, so
    two servers on one machine each have their own)."""
    return f"incrowd-ui-{port}"


class Forbidden(Exception):
    """A request for something the rules do not allow (answered with 403)."""


class Folders:
    """The folders a user opened (readable and writable) and the read-only ones (the
    bundled demo data); :meth:`resolve` admits a path only inside them.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp()).resolve()
    >>> folders = Folders([root])
    >>> folders.resolve("table.csv") == root / "table.csv"
    True
    >>> folders.resolve("/etc/passwd")
    Traceback (most recent call last):
    ...
    incrowd.ui.security.Forbidden: /etc/passwd is outside the folders this app may use
    """

    def __init__(self, writable: Iterable[str | Path], readable: Iterable[str | Path] = ()) -> None:
        self.writable = tuple(Path(f).resolve() for f in writable)
        self.readable = self.writable + tuple(Path(f).resolve() for f in readable)
        if not self.writable:
            msg = "at least one folder to work in is needed"
            raise ValueError(msg)

    def resolve(self, text: str | Path, *, write: bool = False) -> Path:
        """``text`` as an absolute path with symbolic links resolved (relative to the first
        folder opened); :class:`Forbidden` unless it lies inside an allowed folder (a
        writable one when ``write``)."""
        if "\0" in str(text):  # the OS refuses it (ValueError): a malformed request, 400
            from ..errors import InputError

            raise InputError(f"{str(text)!r} is not a path: it holds a NUL character")
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = self.writable[0] / path
        resolved = path.resolve()
        roots = self.writable if write else self.readable
        if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
            what = "the writable folders" if write else "the folders"
            msg = f"{text} is outside {what} this app may use"
            raise Forbidden(msg)
        # the demo data stays read-only even inside an opened folder (a checkout, a venv)
        only_read = self.readable[len(self.writable) :]
        if write and any(resolved == r or resolved.is_relative_to(r) for r in only_read):
            msg = f"{text} is in the bundled demo data, which this app does not write"
            raise Forbidden(msg)
        return resolved

    def shown(self) -> list[dict[str, Any]]:
        """The folders as the page lists them."""
        return [{"path": str(f), "writable": f in self.writable} for f in self.readable]


class Guard:
    """ASGI middleware applying the token, ``Host`` and ``Origin`` rules of the module
    docstring to every HTTP request (anything else, such as a websocket, is refused)."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app, self.token, self.port = app, token, port
        self.hosts = (f"127.0.0.1:{port}", f"localhost:{port}")
        self.origins = tuple(f"http://{host}" for host in self.hosts)
        self.cookie = cookie_name(port)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: not served (closed unanswered)
            return
        headers = _headers(scope["headers"])
        refusal, by_query = self.check(scope["method"], headers, scope.get("query_string", b""))
        if refusal is not None:
            await _refuse(send, refusal)
            return
        if not by_query:
            await self.app(scope, receive, send)
            return

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                value = f"{self.cookie}={self.token}; HttpOnly; SameSite=Strict; Path=/"
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"set-cookie", value.encode())]
            await send(message)

        await self.app(scope, receive, with_cookie)

    def check(self, method: str, headers: dict[str, str], query: bytes) -> tuple[str | None, bool]:
        """The refusal of a request (None: allowed), and whether it was let in by the token
        in its URL (it then gets the cookie)."""
        if headers.get("host") not in self.hosts:
            return "this server answers only to 127.0.0.1 and localhost on its own port", False
        origin = headers.get("origin")
        if origin is not None and origin not in self.origins:
            return "requests from other sites are refused", False
        if method not in _SAFE_METHODS and origin is None:
            return "a request that changes something must come from this app's page", False
        if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return "requests from other sites are refused", False
        given = parse_qs(query.decode("latin-1")).get("token", [None])[0]
        if given is not None and secrets.compare_digest(given.encode(), self.token.encode()):
            return None, True
        jar = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header: as if there were none
            jar = SimpleCookie()
        held = jar.get(self.cookie)
        if held is not None and secrets.compare_digest(held.value.encode(), self.token.encode()):
            return None, False
        return "missing or wrong token: open the URL `incrowd ui` printed", False


def _headers(raw: Sequence[tuple[bytes, bytes]]) -> dict[str, str]:
    """The request's headers by lower-case name (a repeated one: the first)."""
    out: dict[str, str] = {}
    for name, value in raw:
        out.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return out


async def _refuse(send: Send, reason: str) -> None:
    body = f"403 Forbidden: {reason}\n".encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})  # fmt: skip
    await send({"type": "http.response.body", "body": body})
