"""The ``incrowd`` command line: inspect, anonymize, verify, evaluate, risk, report, methods,
hierarchy.

Every anticipated problem (an :class:`IncrowdError`) is reported as one line on standard
error with exit code 2, and leaves no output file behind. ``incrowd verify`` exits 1 when a
release is not k-anonymous.

Each command lives in a module of its own (:mod:`.anonymize`, :mod:`.verify`, ...) that
imports the heavy libraries (pandas, the algorithms, Dask) only when the command runs, so
listing the commands or their help starts fast; this module builds the app from them.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from .. import __version__
from ._options import Command, Group
from ._output import TERMINATED, error, quiet_unraisable, terminate
from .anonymize import anonymize
from .evaluate import evaluate
from .hierarchy import hierarchy_app
from .inspect import inspect
from .methods import methods
from .precompile import precompile
from .report import report
from .risk import risk
from .ui import ui
from .verify import verify

__all__ = ["app", "main", "run"]

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    # plain click help: rich's help renderer costs ~0.1 s of every start (benchmarks/cold_start.py)
    rich_markup_mode=None,
    help="Publish tables of personal records so that everyone hides in a crowd of at least k.",
)
for _command in (inspect, anonymize, verify, evaluate, risk, report, methods, precompile, ui):
    app.command(cls=Command)(_command)
app.add_typer(hierarchy_app, name="hierarchy")


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Show the version.")] = False,
) -> None:
    if version:
        typer.echo(f"incrowd {__version__}")  # not through rich: a faster start
        raise typer.Exit(0)


def run(argv: Sequence[str]) -> int:
    """Run the command line on ``argv``; return the exit code.

    A usage error (an unknown option, a value of the wrong type) is one line on standard
    error and exit code 2, like every other user error.
    """
    try:
        code = app(args=list(argv), prog_name="incrowd", standalone_mode=False)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not TERMINATED:
            return _usage_error(exc)
        code = None  # the kill arrived inside an import or a C extension: just stop
    # a kill seen at all (also one put off in an unsafe frame as the work ended) is a kill
    if TERMINATED:
        return 128 + TERMINATED[0]
    return code if isinstance(code, int) else 0


def _usage_error(exc: Exception) -> int:
    """One line and exit code 2 for a usage error; anything else is raised again."""
    format_message = getattr(exc, "format_message", None)
    if not callable(format_message):  # not a usage error: the command's own handler
        raise exc
    context = getattr(exc, "ctx", None)
    where = f" (see {context.command_path} --help)" if context is not None else ""
    message = " ".join(str(format_message()).split())
    error(message + where)
    return int(getattr(exc, "exit_code", 2) or 2)


def main() -> None:
    """Console-script entry point."""
    # A polite kill (SIGTERM) unwinds like Ctrl-C, so no temporary file is left behind; so
    # does the terminal closing (SIGHUP), unless the command runs under nohup (ignored).
    signal.signal(signal.SIGTERM, terminate)
    hangup = getattr(signal, "SIGHUP", None)  # not on Windows
    if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN:
        signal.signal(hangup, terminate)
    sys.unraisablehook = quiet_unraisable
    code = run(sys.argv[1:])
    # The work is done (or undone): a kill from here on stops the process at once. Raised
    # while the interpreter shuts down, SystemExit would crash it in native teardown code.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hangup is not None and signal.getsignal(hangup) is terminate:
        signal.signal(hangup, signal.SIG_DFL)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
