"""Exceptions raised by incrowd.

Every problem with the user's input or parameters is an :class:`IncrowdError`; the CLI turns
each into a one-line message and exit code 2. The subclasses also derive from the built-in
exception a Python user would expect (``ValueError``, ``FileNotFoundError``), so generic
handlers keep working.

A message that points the user to a setting names it with :func:`option`: ``str()`` of the
error or warning (what a Python caller sees) gives the keyword, the command line
(:func:`cli_text`) the flag.

>>> msg = f"leave them out ({option('missing', 'drop')})"
>>> str(InputError(msg)), cli_text(msg)
("leave them out (missing='drop')", 'leave them out (--missing drop)')
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = [
    "IncrowdError",
    "InputError",
    "OutputError",
    "SchemaError",
    "HierarchyError",
    "ParameterError",
    "InfeasibleError",
    "PrivacyViolation",
    "IncrowdWarning",
    "FLAGS",
    "cli_text",
    "one_line",
    "option",
    "problem",
    "python_text",
    "rendered",
]

#: Each setting a message may name: its Python keyword (of :func:`incrowd.anonymize`,
#: :meth:`Schema.infer <incrowd.data.schema.Schema.infer>`, ``read_table``, ``write_blocks``)
#: and the command line's flag for it (tests/test_errors.py checks each flag exists).
FLAGS: dict[str, str] = {
    "qi": "--qi", "sensitive": "--sensitive", "insensitive": "--insensitive",
    "identifiers": "--identifier", "hierarchies": "--hierarchy", "weights": "--weights",
    "categorical": "--categorical", "numeric": "--numeric", "code": "--code", "date": "--date",
    "thousands": "--thousands", "decimal": "--decimal", "date_format": "--date-format",
    "missing": "--missing", "na_values": "--na-values", "encoding": "--encoding", "sep": "--sep",
    "k": "--k", "method": "--method", "params": "--param", "release": "--release",
    "seed": "--seed", "center": "--center", "norm": "--norm", "generalize": "--generalize",
    "l": "--l", "l_kind": "--l-kind", "c": "--c", "t": "--t", "t_kind": "--t-kind",
    "scheduler": "--scheduler", "workers": "--workers", "block_size": "--block-size",
    "blocks": "--blocks", "block_by": "--block-by", "spill": "--spill",
    "csv_formulas": "--csv-formulas", "suppression_limit": "--suppression-limit",
    "suppressed": "--suppressed", "min_level": "--min-level", "max_level": "--max-level",
}  # fmt: skip
#: The settings a Python caller gives inside ``diversity=Diversity(...)``.
_DIVERSITY = ("l", "l_kind", "c", "t", "t_kind")
# private-use characters: no table, file name or Python value of the user's holds them
_START, _SPLIT, _END = "\ue000", "\ue001", "\ue002"
_PART = f"([^{_START}{_SPLIT}{_END}]*)"
_TOKEN = re.compile(f"{_START}{_PART}{_SPLIT}{_PART}{_END}")
#: Control characters: C0 (line breaks and tabs too), DEL and C1 (U+009B is CSI by itself).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def option(name: str, value: object = None) -> str:
    """The setting ``name`` (a key of :data:`FLAGS`, its Python keyword), given ``value``
    when not None, as a message shows it: ``missing='drop'`` (or ``missing`` alone) to a
    Python caller, ``--missing drop`` on the command line (``...`` is shown as it is:
    ``{'age': ...}``, ``age=...``). The text is marked up until :func:`python_text` or
    :func:`cli_text` renders it."""
    flag = FLAGS.get(name, "--" + name.replace("_", "-"))
    if value is None:
        python, cli = name, flag
    else:
        python, cli = f"{name}={_python(value)}", f"{flag} {_cli(value)}"
    if name in _DIVERSITY:
        python = f"diversity=Diversity({python}{'=...' if value is None else ''})"
    return f"{_START}{python}{_SPLIT}{cli}{_END}"


def python_text(text: str) -> str:
    """``text`` with each :func:`option` as a Python caller gives it (``missing='drop'``)."""
    return _TOKEN.sub(r"\1", text)


def cli_text(text: str) -> str:
    """``text`` with each :func:`option` as the command line's flag (``--missing drop``)."""
    return _TOKEN.sub(r"\2", text)


def rendered(text: str, how: Callable[[str, str], str]) -> str:
    """``text`` with each :func:`option` as ``how(python, cli)`` words it, given the Python
    caller's and the command line's text (the browser app names its own controls).

    >>> rendered(f"set {option('k', 5)}", lambda python, cli: f"<{python}|{cli}>")
    'set <k=5|--k 5>'
    """
    return _TOKEN.sub(lambda found: how(found[1], found[2]), text)


def _python(value: object) -> str:
    if value is Ellipsis:
        return "..."
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python(k)}: {_python(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    return repr(value)


def _cli(value: object) -> str:
    import shlex  # only when a message is made

    if value is Ellipsis:
        return "..."
    if isinstance(value, dict):
        return " ".join(shlex.quote(f"{k}={_cli(v)}") for k, v in value.items())
    if isinstance(value, list | tuple):
        return shlex.quote(",".join(map(str, value)))
    return shlex.quote(str(value))


def printable(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\n``): a
    column name or cell of a hostile file must not clear the terminal, set its title or
    hide a line. Everything the command line prints passes here (its consoles, the one-line
    errors); the rest of ``text`` is unchanged, so escaping twice changes nothing.

    >>> printable("age\\x1b[2J\\nnext")
    'age\\\\x1b[2J\\\\nnext'
    """
    return _CONTROL.sub(lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


class _Marked:
    """An error or warning whose message may hold :func:`option` marks: ``str()`` shows the
    Python keywords, :meth:`marked` the text as given (for :func:`cli_text`)."""

    def __str__(self) -> str:
        return python_text(self.marked())

    def marked(self) -> str:
        """The message with its :func:`option` marks."""
        return super().__str__()


class IncrowdError(_Marked, Exception):
    """Base class of every error incrowd raises on purpose."""


class InputError(IncrowdError, ValueError):
    """The input table cannot be read or contains values the schema does not allow."""


class OutputError(IncrowdError, OSError):
    """An output cannot be written where asked (a directory, an existing file that is not a
    release, no permission, a full disk); nothing was changed."""


class SchemaError(IncrowdError, ValueError):
    """Column roles are inconsistent with each other or with the table."""


class HierarchyError(SchemaError):
    """A generalization hierarchy is malformed or does not cover the data."""


class ParameterError(IncrowdError, ValueError):
    """An algorithm or release parameter is out of its allowed range."""


class InfeasibleError(IncrowdError, ValueError):
    """The requested anonymity cannot be achieved on this input (e.g. fewer records than k)."""


class PrivacyViolation(IncrowdError):
    """A published table fails an independent privacy check."""


class IncrowdWarning(_Marked, UserWarning):
    """Something the user asked for has no effect, or a guess about their data could be
    wrong; the command line prints each as one ``warning:`` line (issued with
    :func:`warnings.warn`, so Python callers can filter or raise them)."""


def problem(exc: BaseException) -> str | None:
    """What is wrong with the input or the files, in the command line's words (its flags);
    None for an exception that is neither an :class:`IncrowdError` nor an ``OSError``."""
    if isinstance(exc, IncrowdError):
        return printable(cli_text(exc.marked()))
    if isinstance(exc, OSError):
        return printable(f"{exc.strerror or exc}: {exc.filename or ''}")
    return None


def one_line(exc: BaseException) -> str:
    """The command line's one line for ``exc``: ``error: …`` for a :func:`problem`,
    ``internal error: Type: …`` for anything else (a bug); :func:`printable`.

    >>> one_line(InputError(f"no rows ({option('missing', 'drop')})"))
    'error: no rows (--missing drop)'
    >>> one_line(KeyError("k"))
    "internal error: KeyError: 'k'"
    """
    said = problem(exc)
    if said is not None:
        return f"error: {said}"
    return printable(f"internal error: {type(exc).__name__}: {exc}")
