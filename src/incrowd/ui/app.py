"""The routes of the local app (Starlette), behind the :class:`~incrowd.ui.security.Guard`.

=======================================  ===================================================
``GET /``                                the page (one template, one script, one style)
``GET /static/NAME``                     the page's script and style, from the package
``GET /api/choices``                     methods, release forms, roles, types, each help
``GET /api/open?path=P[&encoding=E]``    a table or job file: rows, columns, inference
``POST /api/upload?name=N[&encoding=E]``  a table sent as the body, then opened as a path
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
import re
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import IncrowdError, one_line
from .limits import TooLarge, TooMany, admit_run, read_json, receive_upload
from .runs import Runs, save
from .security import PLAIN_NAME, Folders, Forbidden, Guard
from .tables import choices, form_settings, open_path, preview_hierarchy

__all__ = ["make_app"]

#: What the page may load: its own script and style, the report's inline images.
_PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                "connect-src 'self'; frame-src 'self'; form-action 'self'; base-uri 'none'; "
                "frame-ancestors 'none'")  # fmt: skip
#: The report: its inline style and data: images, no script at all, framed by the page only.
_REPORT_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                  "frame-ancestors 'self'; sandbox")  # fmt: skip
_STATIC = {"ui.js": "text/javascript", "look.js": "text/javascript", "ui.css": "text/css"}
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
    from starlette.requests import Request
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

    # the page (nothing in it changes while the app runs) and its files are made once; the
    # files are revalidated when the page is loaded again (304)
    html = env.get_template("index.html.j2").render(
        folders=folders.shown(), max_upload=max_upload, choices=choices()
    )

    async def page(request: Request) -> Response:
        return HTMLResponse(html, headers=headers | {"Content-Security-Policy": _PAGE_POLICY})

    kept = {name: here.joinpath("static", name).read_bytes() for name in _STATIC}
    tags = {name: f'"{hashlib.sha256(data).hexdigest()[:16]}"' for name, data in kept.items()}

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return Response("not found", 404)
        again = headers | {"Cache-Control": "no-cache", "ETag": tags[name]}
        if request.headers.get("if-none-match") == tags[name]:
            return Response(status_code=304, headers=again)
        return Response(kept[name], media_type=_STATIC[name], headers=again)

    async def api_choices(request: Request) -> Response:
        return answer(choices)

    async def api_open(request: Request) -> Response:
        query = request.query_params
        return await run_in_threadpool(answer, lambda: open_path(
            folders, query.get("path", ""), query.get("encoding") or None))  # fmt: skip

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
            path = await receive_upload(request, uploads, query.get("name", ""), max_upload)
        except ValueError as exc:  # a name with a folder in it, or not a table's
            return JSONResponse({"error": f"forbidden: {exc}"}, 403, headers=headers)
        return await run_in_threadpool(answer, lambda: open_path(
            folders, str(path), query.get("encoding") or None))  # fmt: skip

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
        return HTMLResponse(
            run.result["html"], headers=headers | {"Content-Security-Policy": _REPORT_POLICY}
        )

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
        Route("/static/{name}", static),
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

    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, token=token, port=port)],
        exception_handlers={TooLarge: refused(413), TooMany: refused(429)},
    )
    app.state.runs = runs
    return app
