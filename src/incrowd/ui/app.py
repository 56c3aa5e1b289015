"""The routes of the local app (Starlette), behind the :class:`~incrowd.ui.security.Guard`.

=======================================  ===================================================
``GET /``                                the page: one template, its script and style inline
``GET /api/choices``                     methods, release forms, roles, types, each help
``GET /api/open?path=P[&sep=S]...``      a table or job file: rows, columns, inference (read
                                         with the Open form's options: sep, encoding, ...)
``POST /api/upload?name=N[&into=F]...``  a file sent as the body, opened as a path (``open=0``:
                                         kept, one of several sent into folder F)
``POST /api/hierarchy?column=C``         the levels of C's hierarchy as the form spells it
``POST /api/runs``                       start a run of the form's settings (JSON)
``GET /api/runs/ID``                     its progress, then its verdict and warnings
``POST /api/runs/ID/cancel``             stop its worker
``GET /runs/ID/report``                  its report page
``POST /api/runs/ID/save``               save release, report and job file into a folder
=======================================  ===================================================

A user error, and a malformed request (a body that is not a JSON object, a form of the
wrong shape, a path with a NUL), is answered 400 with the command line's one line
(``error: ...``, flags named as flags); a path outside the folders 403; a body over its cap
413 and a run over the session's limits 429 (:mod:`incrowd.ui.limits`); anything else (a
bug) 500 with the command line's ``internal error: Type: ...`` line, never a traceback.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import IncrowdError, one_line
from .form import READ_OPTIONS, form_settings
from .limits import TooLarge, TooMany, admit_run, read_json, receive_upload
from .runs import Runs, save
from .security import PLAIN_NAME, Folders, Forbidden, Guard
from .tables import choices, open_path, preview_hierarchy

__all__ = ["make_app"]

#: What the page may run and load: its own inline script and style (named by their SHA-256,
#: filled in by :func:`make_app`), the report's inline images.
_PAGE_POLICY = ("default-src 'none'; script-src {scripts}; style-src {style}; "
                "img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'self'; "
                "base-uri 'none'; frame-ancestors 'none'")  # fmt: skip
#: The report: its inline style and data: images, no script at all, framed by the page only.
_REPORT_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                  "frame-ancestors 'self'; sandbox")  # fmt: skip
#: The page's script (in this order) and style, from the package.
_SCRIPTS, _STYLE = ("look.js", "ui.js"), "ui.css"
#: A saved release's name: a plain file name.
_STEM = re.compile(PLAIN_NAME)


def make_app(folders: Folders, token: str, port: int, uploads: Path | None = None,
             max_upload: int = 0) -> Any:  # fmt: skip
    """The app, its routes wrapped in the security guard; ``app.state.runs`` holds the runs
    (stopped with :meth:`~incrowd.ui.runs.Runs.close`). Uploads (at most ``max_upload``
    bytes) go into ``uploads``, a private read-only folder of ``folders`` (None: refused)."""
    import jinja2
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    runs = Runs()
    here = files(__package__)
    env = jinja2.Environment(autoescape=True, loader=jinja2.FunctionLoader(
        lambda name: here.joinpath("templates", name).read_text(encoding="utf-8")))  # fmt: skip
    headers = {"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff",
               "Cache-Control": "no-store"}  # fmt: skip

    def failed(exc: Exception) -> Any:
        """The one line for ``exc``: 403, 400 (a user's error), else 500 (a bug)."""
        if isinstance(exc, Forbidden):
            return JSONResponse({"error": f"forbidden: {exc}"}, 403, headers=headers)
        status = 400 if isinstance(exc, IncrowdError | OSError) else 500
        return JSONResponse({"error": one_line(exc)}, status, headers=headers)

    def answer(work: Callable[[], Any]) -> Any:
        try:
            return JSONResponse(work(), headers=headers)
        except (TooLarge, TooMany):  # the app's handlers answer them (413, 429)
            raise
        except Exception as exc:  # every request answers one line, never a traceback page
            return failed(exc)

    async def body(request: Request) -> dict[str, Any] | Response:
        """The request's JSON object (its size checked as it is read: TooLarge, 413), or the
        answer refusing it (400)."""
        try:
            return await read_json(request)
        except IncrowdError as exc:
            return failed(exc)

    # the page (nothing in it changes while the app runs) is made once, its script and style
    # inline: three requests fewer before the page is ready (tests/ui/test_ui_browser.py
    # writes the page load's time to test-output/ui-timings.json)
    scripts = [here.joinpath("static", name).read_text(encoding="utf-8") for name in _SCRIPTS]
    style = here.joinpath("static", _STYLE).read_text(encoding="utf-8")
    html = env.get_template("index.html.j2").render(
        folders=folders.shown(), max_upload=max_upload, choices=choices(),
        style=_inline(style, "</style"), scripts=[_inline(s, "</script") for s in scripts],
    )  # fmt: skip
    policy = _PAGE_POLICY.format(scripts=" ".join(map(_csp_hash, scripts)),
                                 style=_csp_hash(style))  # fmt: skip

    async def page(request: Request) -> Response:
        return HTMLResponse(html, headers=headers | {"Content-Security-Policy": policy})

    async def api_choices(request: Request) -> Response:
        return answer(choices)

    async def api_open(request: Request) -> Response:
        query = request.query_params
        return await run_in_threadpool(answer, lambda: open_path(
            folders, query.get("path", ""), _reading(query)))  # fmt: skip

    async def api_start(request: Request) -> Response:
        form = await body(request)
        if not isinstance(form, dict):
            return form
        return await run_in_threadpool(answer, lambda: admit_run(
            runs, lambda: runs.start(form_settings(folders, form))).status())  # fmt: skip

    async def api_upload(request: Request) -> Response:
        if uploads is None:
            return JSONResponse({"error": "forbidden: this app takes no uploads"}, 403,
                                headers=headers)  # fmt: skip
        query = request.query_params
        try:
            path = await receive_upload(request, uploads, query.get("name", ""), max_upload,
                                        query.get("into", ""))  # fmt: skip
        except ValueError as exc:  # a name with a folder in it, or not a table's
            return JSONResponse({"error": f"forbidden: {exc}"}, 403, headers=headers)
        if query.get("open") == "0":  # one of several files: the last one sent is opened
            return JSONResponse({"into": path.parent.name}, headers=headers)
        return await run_in_threadpool(answer, lambda: open_path(
            folders, str(path), _reading(query)))  # fmt: skip

    async def api_hierarchy(request: Request) -> Response:
        form = await body(request)
        if not isinstance(form, dict):
            return form
        column = request.query_params.get("column", "")
        return await run_in_threadpool(answer, lambda: preview_hierarchy(folders, form, column))

    def _run(request: Request) -> Any:
        run = runs.get(request.path_params["id"])
        if run is None:
            raise Forbidden("no such run")
        return run

    async def api_status(request: Request) -> Response:
        return answer(lambda: _run(request).status())

    async def api_cancel(request: Request) -> Response:
        def cancel() -> dict[str, Any]:
            run = _run(request)
            runs.cancel(run)
            return run.status()

        return await run_in_threadpool(answer, cancel)

    async def report(request: Request) -> Response:
        run = runs.get(request.path_params["id"])
        if run is None or run.result is None:
            return Response("no report: the run has not finished", 404)
        # the page names the release by the name Save replaces: shown, it is "release"
        html = run.result["page"].replace(run.result["name"], "release")
        return HTMLResponse(html, headers=headers | {"Content-Security-Policy": _REPORT_POLICY})

    async def api_save(request: Request) -> Response:
        form = await body(request)
        if not isinstance(form, dict):
            return form

        def write() -> dict[str, str]:
            run = _run(request)
            if run.result is None:
                raise Forbidden("the run has not finished")
            stem = str(form.get("name") or "")
            if not _STEM.fullmatch(stem):
                raise Forbidden(f"{stem!r} is not a plain file name (letters, digits, - _ .)")
            target = folders.resolve(str(form.get("folder") or ""), write=True)
            return save(run, target, stem, uploads)

        return await run_in_threadpool(answer, write)

    routes = [
        Route("/", page),
        Route("/api/choices", api_choices),
        Route("/api/open", api_open),
        Route("/api/upload", api_upload, methods=["POST"]),
        Route("/api/hierarchy", api_hierarchy, methods=["POST"]),
        Route("/api/runs", api_start, methods=["POST"]),
        Route("/api/runs/{id}", api_status),
        Route("/api/runs/{id}/cancel", api_cancel, methods=["POST"]),
        Route("/api/runs/{id}/save", api_save, methods=["POST"]),
        Route("/runs/{id}/report", report),
    ]

    def refused(status: int) -> Callable[[Request, Exception], Any]:
        return lambda request, exc: JSONResponse({"error": f"refused: {exc}"}, status,
                                                 headers=headers)  # fmt: skip

    def cut_off(request: Request, exc: Exception) -> Response:
        """A client gone mid-request (a page closed during an upload): one line in the
        terminal, not a traceback; an upload's part file is already removed."""
        name = request.query_params.get("name")
        what = f"the upload of {name!r}" if name else f"a request to {request.url.path}"
        logging.getLogger("uvicorn.error").warning(
            "incrowd ui: %s was cut off by the browser; nothing was kept", what)  # fmt: skip
        return Response(status_code=400)

    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, token=token, port=port)],
        exception_handlers={
            TooLarge: refused(413),
            TooMany: refused(429),
            ClientDisconnect: cut_off,
        },
    )
    app.state.runs = runs
    return app


def _reading(query: Any) -> dict[str, str | None]:
    """The Open form's reading options a request's query gives."""
    return {name: query.get(name) for name in READ_OPTIONS}


def _inline(text: str, end: str) -> Any:
    """``text`` to put inside the page's ``<script>`` or ``<style>`` as it is (a file of the
    package: one that held its own end tag would be a bug)."""
    from markupsafe import Markup

    if end in text.lower():
        raise AssertionError(f"a file of the page holds {end}")
    return Markup(text)  # noqa: S704 - the package's own file, checked above


def _csp_hash(text: str) -> str:
    """The Content-Security-Policy source that allows this inline script or style."""
    import base64

    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
