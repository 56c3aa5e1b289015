"""What every command of the command line shares: its consoles, the one-line error
handling, option parsing helpers and the progress display."""

from __future__ import annotations

import ast
import os
import re
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

import typer

from ..errors import IncrowdError, IncrowdWarning, InputError, cli_text, printable, problem
from ..pipeline import stages_done

__all__ = [
    "TERMINATED",
    "Bar",
    "err_console",
    "error",
    "errors",
    "literal",
    "native_stdout_hidden",
    "out_console",
    "out_json",
    "parse_pairs",
    "progress",
    "quiet_unraisable",
    "stop_if_terminated",
    "terminate",
    "warn",
]


class _Console:
    """A rich ``Console`` made on first use: importing rich costs ~40 ms of every start,
    also of ``--help``, which prints nothing through it (benchmarks/cold_start.py). Every
    text it prints, a table's cells too, is :func:`~incrowd.errors.printable` first: a
    column name or cell holding an escape sequence cannot clear the screen or hide a line,
    whichever command prints it."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    def get(self) -> Any:
        """The rich ``Console`` itself."""
        if self._console is None:
            from rich.console import Console

            class Printable(Console):  # type: ignore[misc]
                # rich turns every str it prints into Text here (print, table cells, their
                # measuring); it strips BEL and CR but keeps ESC and C1
                def render_str(self, text: str, **options: Any) -> Any:
                    return super().render_str(printable(text), **options)

            self._console = Printable(highlight=False, soft_wrap=True, **self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


def escape(text: str) -> str:
    """``text`` with rich markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


out_console: Any = _Console()
err_console: Any = _Console(stderr=True)


#: The signal that asked the command to stop, once one did.
TERMINATED: list[int] = []


#: How soon a kill that arrived where unwinding is unsafe is delivered again (seconds).
REDELIVER_AFTER = 0.05
#: Python frames (file name ending, function) inside which unwinding is unsafe: threads
#: still work on our arrays while the main thread waits for them to finish, or starts more
#: of them (SciPy's threaded neighbour queries start their threads one by one: a kill while
#: a later one started crashed an earlier one at exit, once in some 150 runs on a loaded
#: machine). A plain wait (``Event.wait``, as Dask's client waits) stays killable at once.
_THREAD_FRAMES = (("threading.py", "join"), ("threading.py", "_wait_for_tstate_lock"),
                  ("threading.py", "start"), ("threading.py", "__init__"))  # fmt: skip


def terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handler: unwind like Ctrl-C (``finally`` blocks remove temporary files).

    Two places cannot unwind at once, so there the signal is delivered again a moment later:
    the JIT compiler's Python code (numba's, and llvmlite's callbacks into Python while numba
    compiles or loads a cached kernel; an exception there is swallowed and the compiler may
    go on with a broken buffer: a kill 1.5–2 s into ``incrowd anonymize`` on a loaded machine
    once in some 40 runs left a kernel's result tuple holding a null, and the process crashed
    unpacking it), and a wait for, or the start of, worker threads (SciPy's neighbour queries
    run threads over our arrays: leaving the wait frees the arrays under them — a crash).
    With both, no kill crashed in 133 runs on that loaded machine."""
    if not TERMINATED:
        TERMINATED.append(signum)
    if _unsafe_to_unwind(frame):
        timer = threading.Timer(REDELIVER_AFTER, os.kill, (os.getpid(), signum))
        timer.daemon = True
        timer.start()
        return
    raise SystemExit(128 + signum)


def _unsafe_to_unwind(frame: FrameType | None) -> bool:
    while frame is not None:
        code = frame.f_code
        if "llvmlite" in code.co_filename or f"{os.sep}numba{os.sep}" in code.co_filename:
            return True
        if any(code.co_filename.endswith(f) and code.co_name == n for f, n in _THREAD_FRAMES):
            return True
        frame = frame.f_back
    return False


def stop_if_terminated() -> None:
    """Unwind now if a kill arrived while a C callback ran (numba's compiler calls back into
    Python; an exception raised there is swallowed and the work would go on)."""
    if TERMINATED:
        raise SystemExit(128 + TERMINATED[0])


def quiet_unraisable(report: Any) -> None:
    """``sys.unraisablehook``: a kill swallowed by a C callback is not a traceback to show
    (:func:`stop_if_terminated` acts on it); anything else is reported as Python does."""
    if TERMINATED and isinstance(report.exc_value, SystemExit):
        return
    sys.__unraisablehook__(report)


@contextmanager
def errors() -> Iterator[None]:
    """One line and exit 2 for a user error; one line and exit 1 for a bug (traceback on
    ``INCROWD_DEBUG=1``); one ``warning:`` line for each :class:`~incrowd.IncrowdWarning`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", IncrowdWarning)
            shown = warnings.showwarning

            def show(message: Warning | str, category: type[Warning], *args: Any,
                     **kwargs: Any) -> None:  # fmt: skip
                if isinstance(message, IncrowdWarning):
                    warn(message.marked())
                elif issubclass(category, IncrowdWarning):
                    warn(str(message))
                else:  # a library's warning may quote the user's data too
                    shown(printable(str(message)), category, *args, **kwargs)

            warnings.showwarning = show
            yield
    except IncrowdError as exc:
        error(exc.marked())
        raise typer.Exit(2) from None
    except OSError as exc:
        error(problem(exc) or "")
        raise typer.Exit(2) from None
    except typer.Exit:
        raise
    except Exception as exc:  # a bug: say so plainly rather than dump a traceback
        if TERMINATED:  # a kill turned into some exception (inside an import): just stop
            raise typer.Exit(128 + TERMINATED[0]) from None
        if os.environ.get("INCROWD_DEBUG"):
            traceback.print_exc()
        err_console.print(
            f"[bold red]internal error:[/] {escape(type(exc).__name__)}: {escape(str(exc))} "
            "(set INCROWD_DEBUG=1 for the traceback, and please report it)"
        )
        raise typer.Exit(1) from None


def warn(text: str) -> None:
    """One warning line on standard error; the text is the user's, never read as markup (a
    setting it names, :func:`~incrowd.errors.option`, is shown as the flag)."""
    err_console.print(f"[bold yellow]warning:[/] {escape(cli_text(text))}", soft_wrap=True)


def error(text: str) -> None:
    """One line on standard error; the text is the user's, never read as markup (a setting
    it names, :func:`~incrowd.errors.option`, is shown as the flag)."""
    err_console.print(f"[bold red]error:[/] {escape(cli_text(text))}", soft_wrap=True)


def out_json(data: Any) -> None:
    """``data`` as indented JSON on standard output, non-ASCII text kept as it is but DEL and
    C1 control characters escaped (``\\u009b``; JSON escapes C0 itself): the same value to
    a reader of JSON, nothing a terminal acts on."""
    import json

    text = json.dumps(data, indent=2, ensure_ascii=False)
    typer.echo(re.sub("[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}", text))


def parse_pairs(items: list[str] | None, what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            msg = f"{what} must look like NAME=VALUE, got {item!r}"
            raise InputError(msg)
        pairs[name.strip()] = value.strip()
    return pairs


def literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


@contextmanager
def native_stdout_hidden() -> Iterator[None]:
    """Point file descriptor 1 at the null device while the work runs: HiGHS, inside the
    search's programs, now and then prints a debugging line there
    (``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();``), which
    would land among the summary a user may parse. Nothing of ours is written to standard
    output meanwhile (the progress bar and errors go to standard error, the summary after);
    where the descriptor cannot be copied, or there is no null device, it is left as it is."""
    hidden = _stdout_to_null()
    try:
        yield
    finally:
        if hidden is not None:
            saved, null = hidden
            with suppress(OSError, ValueError, AttributeError):
                sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)


def _stdout_to_null() -> tuple[int, int] | None:
    """Descriptor 1 pointed at the null device: a copy of the old one and the null device's
    (None, and nothing changed, where that cannot be done)."""
    try:
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):  # no null device, or no standard output
        return None
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1
        os.close(null)
        return None
    try:
        os.dup2(null, 1)
    except OSError:
        os.close(saved)
        os.close(null)
        return None
    return saved, null


class Bar:
    """What :func:`progress` yields. ``bar(name)`` begins a stage of the run; ``bar.count(done,
    total)`` counts the current stage's work (the crowds as a method forms them) within that
    stage's share of the bar; ``bar.blocks(done, total)`` counts a blockwise run's blocks,
    the whole run's scale. Each checks first whether a kill arrived (:func:`stop_if_terminated`).
    """

    def __init__(self, progress: Any = None, task: Any = None, stages: int = 1) -> None:
        self.progress, self.task, self.stages = progress, task, stages
        self.begun = 1  # stages begun: the first, reading the input, with the bar
        self.name = "reading the input"

    def __call__(self, name: str) -> None:
        stop_if_terminated()
        self.begun, self.name = self.begun + 1, name
        self._show(name, self.begun - 1, self.stages)

    def count(self, done: int, total: int) -> None:
        stop_if_terminated()
        if total > 0:  # the stages done, and this one's share: never back, nor past it
            shown = stages_done(self.begun, (done, total))
            self._show(f"{self.name} {done}/{total}", shown, self.stages)

    def blocks(self, done: int, total: int) -> None:
        stop_if_terminated()
        self._show(f"blocks {done}/{total}", done, total)

    def _show(self, description: str, completed: float, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, description=description, completed=completed,
                                 total=total)  # fmt: skip


@contextmanager
def progress(enabled: bool, stages: int = 1) -> Iterator[Bar]:
    """A progress bar on standard error over the ``stages`` of a run, the first of which,
    reading the input, shows as it opens (:class:`Bar`: a stage begun fills the stages
    before it; counts within a stage fill that stage's share, so the bar never goes back;
    a blockwise run's blocks have a scale of their own). Not ``enabled``: nothing shown."""
    if not enabled:
        yield Bar(stages=stages)
        return
    # loaded here, not with the module: `incrowd --help` and `incrowd methods` start faster
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err_console.get(), transient=True) as progress:
        bar = Bar(progress, None, stages)
        bar.task = progress.add_task(bar.name, total=stages)
        yield bar
