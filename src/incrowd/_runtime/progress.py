"""Counted progress from inside a long computation, to whoever asked for it.

A method forming crowds reports how far it is with :func:`report_progress` ``(done,
total)``; a caller that wants to show it runs the work inside :func:`reporting`, whose
callback receives the counts. The reporter is held in a :class:`~contextvars.ContextVar`,
not passed as a parameter: an estimator's parameters are recorded in every release's
metadata, and how a run is watched must not change what it publishes.

Guarantees: without a reporter :func:`report_progress` returns at once (one context-variable
read); with one, the callback is called when the count moved by 1 % of the total since the
last call, reached the total, or changed after ``interval`` seconds (so at most 100 times
plus 10 a second), and whenever ``total`` changes; under one ``total`` the counts it
receives never go backwards. An inner :func:`reporting` replaces an outer one until it
ends, and ``reporting(None)`` masks it: a run given no callback does not send its counts to
the callback of a caller around it. A part of the work can report its own counts inside
:func:`progress_part`, which maps them onto a range of the enclosing count, so a method
that runs several phases shows one bar. Reports come from the thread that set the reporter
(threads of a pool do not inherit it: their reports are no-ops).

Examples
--------
>>> seen = []
>>> with reporting(lambda done, total: seen.append((done, total)), interval=0):
...     for i in range(1, 4):
...         report_progress(i, 3)
>>> seen
[(1, 3), (2, 3), (3, 3)]
>>> report_progress(1, 3)  # no reporter: nothing happens
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["INTERVAL", "progress_part", "report_progress", "reporting"]

#: Seconds between two calls of a reporter's callback, unless the count moved by 1 % of the
#: total or reached it: ten updates a second move a bar smoothly at no measurable cost.
INTERVAL = 0.1


class _Reporter:
    """A callback, throttled, whose counts never go backwards under one total."""

    def __init__(self, callback: Callable[[int, int], None], interval: float) -> None:
        self.callback = callback
        self.interval = interval
        self.lock = threading.Lock()
        self.last = (-1, -1)  # (done, total) last delivered
        self.when = -float("inf")

    def __call__(self, done: int, total: int) -> None:
        with self.lock:
            last_done, last_total = self.last
            if total == last_total:
                done = max(done, last_done)  # never backwards
                if done == last_done:
                    return
            now = time.monotonic()
            if (total == last_total and done < total and 100 * (done - last_done) < total
                    and now - self.when < self.interval):  # fmt: skip
                return
            self.last, self.when = (done, total), now
            self.callback(done, total)


@dataclass(frozen=True)
class _Scope:
    """Where counts reported here land: ``[start, start + span)`` of the reporter's
    ``total`` (the whole count when ``total`` is None)."""

    reporter: _Reporter
    start: float = 0.0
    span: float = 0.0
    total: int | None = None


_SCOPE: ContextVar[_Scope | None] = ContextVar("incrowd_progress", default=None)


@contextlib.contextmanager
def reporting(
    callback: Callable[[int, int], None] | None, *, interval: float = INTERVAL
) -> Iterator[None]:
    """Within this block, :func:`report_progress` calls ``callback(done, total)`` (at most
    once per ``interval`` seconds, always at ``done == total``); None: to no one. An inner
    block replaces an outer one, or with None masks it, until it ends."""
    scope = None if callback is None else _Scope(_Reporter(callback, interval))
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def report_progress(done: int, total: int) -> None:
    """``done`` of ``total`` units of the current work are done (nothing without a
    reporter). Inside :func:`progress_part`, the units are the part's."""
    scope = _SCOPE.get()
    if scope is None or total <= 0:
        return
    if scope.total is None:
        scope.reporter(int(done), int(total))
    else:
        share = min(max(done / total, 0.0), 1.0)
        scope.reporter(int(scope.start + scope.span * share + 1e-9), scope.total)


@contextlib.contextmanager
def progress_part(start: int, stop: int, total: int) -> Iterator[None]:
    """Report ``start`` of ``total``, and map the counts reported within this block onto
    ``start..stop`` of ``total`` (in the enclosing part's units, if any); ``stop`` of
    ``total`` is reported when the block ends without an error."""
    scope = _SCOPE.get()
    if scope is None:
        yield
        return
    report_progress(start, total)
    if scope.total is None:
        inner = _Scope(scope.reporter, float(start), float(stop - start), int(total))
    else:  # a part of a part: its range within the enclosing one's
        unit = scope.span / total
        inner = _Scope(scope.reporter, scope.start + unit * start, unit * (stop - start),
                       scope.total)  # fmt: skip
    token = _SCOPE.set(inner)
    try:
        yield
    finally:
        _SCOPE.reset(token)
    report_progress(stop, total)
