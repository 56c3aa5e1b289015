"""Writing a job file: the TOML text of :class:`~.settings.Settings` that :mod:`.job` reads
back to the same settings (:func:`render_job`).

The rules of the text:

- **What is written.** Only the settings that differ from their default, except the keys a
  steward edits: ``k`` and the role lists ``qi``, ``sensitive``, ``identifier`` and
  ``insensitive``, which always appear, each after a comment line saying what it means (an
  unset ``k`` as a commented-out line: TOML has no null).
- **Where.** Top-level keys first, in the order :class:`Settings` declares them; then
  ``[columns]`` (the column lists: roles, then the declared kinds ``categorical``,
  ``numeric``, ``code``, ``date``), ``[hierarchy]``, ``[weights]`` and ``[params]``.
- **Strings** are TOML basic strings: ``"`` and ``\\`` escaped, control characters as
  ``\\t``, ``\\n``, … or ``\\uXXXX``, every other character as it is (the file is UTF-8).
  A key (a column name in ``[hierarchy]``) is bare when it is ASCII letters, digits, ``-``
  and ``_``, else a quoted string. Lists are arrays, never comma-separated text.
- **Numbers.** A float setting is written as a float in Python's shortest round-trip form
  (``0.1``, ``1e-07``; ``inf`` and ``nan`` by TOML's names), an integer as an integer.
- **Paths** (``input``, ``out``, hierarchy files) are written relative to ``base`` (the
  folder the file goes to, as :mod:`.job` reads them relative to the file) when they lie
  under it, else absolute; with no ``base``, as they are. Hierarchy specs (``prefix``,
  ``intervals:…``, ``dates:…``) are kept as written.
- **Comments.** ``comments`` maps a column name to one line written beside its first entry
  in ``[columns]`` (a list with a commented column is written one entry per line), or, for a
  column no list names, as a comment line at the end of ``[columns]``. Line breaks and
  control characters in a comment become spaces.
- ``[params]`` holds strings, numbers, booleans, and arrays or inline tables of them; any
  other value (None) is a :class:`~incrowd.ParameterError` naming the parameter. An array
  reads back as a list.

Guarantee: for settings whose paths are absolute and normalized (or relative with no
``base``), ``read_job`` of the text saved in ``base`` returns equal settings.

>>> print(render_job(Settings(k=5, qi=("age", "zip code"), hierarchy={"zip code": "prefix"})))
... # doctest: +NORMALIZE_WHITESPACE
# An incrowd job file: incrowd anonymize --config FILE (flags override it).
# Paths are relative to this file.
<BLANKLINE>
# k: the smallest crowd; every record shares its quasi-identifiers with at least k - 1 others
k = 5
<BLANKLINE>
[columns]
# quasi-identifiers: what could be linked to another source; generalized until crowds of k
qi = ["age", "zip code"]
# sensitive: published as they are (--l and --t protect them)
sensitive = []
# identifiers: never published
identifier = []
# insensitive: published as they are; a column in no list is not published
insensitive = []
<BLANKLINE>
[hierarchy]
"zip code" = "prefix"
<BLANKLINE>
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError, cli_text
from .settings import Settings

__all__ = ["COLUMN_LISTS", "STEWARD_KEYS", "render_job", "toml_key", "toml_value"]

#: The lists written in ``[columns]``, in this order (other lists stay top-level).
COLUMN_LISTS = ("qi", "sensitive", "identifier", "insensitive", "categorical", "numeric",
                "code", "date")  # fmt: skip
#: The keys a steward edits, written even when unset, each after this comment line.
STEWARD_KEYS = {
    "k": "k: the smallest crowd; every record shares its quasi-identifiers with at least "
    "k - 1 others",
    "qi": "quasi-identifiers: what could be linked to another source; generalized until "
    "crowds of k",
    "sensitive": "sensitive: published as they are (--l and --t protect them)",
    "identifier": "identifiers: never published",
    "insensitive": "insensitive: published as they are; a column in no list is not published",
}
_TABLES = ("hierarchy", "weights", "params")
_PATHS = ("input", "out")
_HEADER = (
    "# An incrowd job file: incrowd anonymize --config FILE (flags override it).\n"
    "# Paths are relative to this file.\n"
)
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}  # fmt: skip
_CONTROL = re.compile(r'["\\\x00-\x1f\x7f]')


def render_job(
    settings: Settings,
    *,
    comments: Mapping[str, str] | None = None,
    base: str | os.PathLike[str] | None = None,
) -> str:
    """The TOML text of a job file holding ``settings`` (the module's rules); ``comments``:
    a one-line comment per column name; ``base``: the folder the file is written to."""
    comments = {str(k): _one_line(v) for k, v in (comments or {}).items()}
    base_path = Path(base) if base is not None else None
    top: list[str] = []
    for name in Settings.names():
        if name in COLUMN_LISTS or name in _TABLES:
            continue
        value = getattr(settings, name)
        if name == "k":
            top += ["", f"# {STEWARD_KEYS['k']}"]
            top.append("# k = 5  <- not set: choose it here or give --k" if value is None
                       else f"k = {toml_value(value)}")  # fmt: skip
            continue
        if value == Settings.option(name).default:
            continue
        if name in _PATHS:
            value = _relative(value, base_path)
        elif _kind(name) is float:
            value = float(value)
        top.append(f"{toml_key(name)} = {toml_value(value, name)}")
    lines = [_HEADER.rstrip("\n"), *top]
    lines += ["", "[columns]", *_columns(settings, comments)]
    hierarchy = {col: spec if _is_spec(spec) else _relative(spec, base_path)
                 for col, spec in settings.hierarchy.items()}  # fmt: skip
    weights = {col: float(w) for col, w in settings.weights.items()}
    for table, values in (("hierarchy", hierarchy), ("weights", weights),
                          ("params", settings.params)):  # fmt: skip
        if values:
            lines += ["", f"[{table}]"]
            lines += [f"{toml_key(str(k))} = {toml_value(v, f'{table}.{k}')}"
                      for k, v in values.items()]  # fmt: skip
    return "\n".join(lines) + "\n"


def _columns(settings: Settings, comments: dict[str, str]) -> list[str]:
    """The ``[columns]`` lines; each comment beside the first entry of its column."""
    lines: list[str] = []
    pending = dict(comments)
    for name in COLUMN_LISTS:
        columns = getattr(settings, name)
        if name in STEWARD_KEYS:
            lines.append(f"# {STEWARD_KEYS[name]}")
        elif not columns:
            continue
        notes = [pending.pop(c, None) for c in columns]
        if not any(notes):
            lines.append(f"{name} = {toml_value(list(columns))}")
            continue
        lines.append(f"{name} = [")
        entries = [f"{toml_value(column)}," for column in columns]
        width = max(len(entry) for entry in entries)
        for entry, note in zip(entries, notes, strict=True):
            lines.append(f"    {entry.ljust(width)}  # {note}" if note else f"    {entry}")
        lines.append("]")
    for column, note in pending.items():
        lines.append(f"# {toml_value(column)} (not published: no list names it): {note}")
    return lines


def toml_key(key: str) -> str:
    """A TOML key: bare when it can be, else a basic string.

    >>> toml_key("age"), toml_key("zip code"), toml_key("")
    ('age', '"zip code"', '""')
    """
    return key if _BARE.fullmatch(key) else _string(key)


def toml_value(value: Any, name: str = "value") -> str:
    """``value`` as TOML: a string, integer, float, boolean, array or inline table
    (``name`` is in the error for anything else).

    >>> toml_value(['a "b"', "c#d"]), toml_value(0.1), toml_value(float("-inf"))
    ('["a \\\\"b\\\\"", "c#d"]', '0.1', '-inf')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        items = [f"{toml_key(str(k))} = {toml_value(v, f'{name}.{k}')}" for k, v in value.items()]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_value(v, name) for v in value) + "]"
    msg = f"{name}: {value!r} cannot be written in a TOML job file"
    raise ParameterError(msg)


def _string(text: str) -> str:
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _ESCAPES.get(char, f"\\u{ord(char):04X}")

    return '"' + _CONTROL.sub(escape, text) + '"'


def _one_line(text: str) -> str:
    """A comment's text on one line, with no character a TOML comment refuses (a setting it
    names, :func:`~incrowd.errors.option`, as the flag: the file goes with the command line)."""
    flat = " ".join(cli_text(str(text)).split())
    return "".join(" " if ord(c) < 0x20 or ord(c) == 0x7F else c for c in flat)


def _relative(path: str, base: Path | None) -> str:
    """``path`` as the job file in ``base`` names it: relative when under ``base``."""
    if base is None:
        return path
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(os.path.abspath(base)))
    except ValueError:
        return str(absolute)


def _is_spec(spec: str) -> bool:
    """Whether a hierarchy is a spec (kept as written) rather than a file (the reader's
    rule: a builder, or ``KIND:…`` of any kind)."""
    from ..data.hierarchy_specs import is_builder, kind_named

    return is_builder(spec) or kind_named(spec) is not None


def _kind(name: str) -> type | str:
    declared = Settings.option(name).type
    if declared.startswith(("tuple[", "Mapping[")):
        return "collection"
    return {"int": int, "float": float, "str": str}[declared.split(" | ")[0]]
