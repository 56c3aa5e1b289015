"""The page's words for a setting a warning names: the app's own control, not the command
line's flag (``set the type of 'zip' to code``, not ``--code zip``).

A message names a setting with :func:`~incrowd.errors.option`, which keeps its Python and
its command-line spelling; :func:`app_text` reads the setting's name and value from the
Python one (``code=['zip']``) and words it as the page's control that sets it
(:mod:`.form`: a column's role, type, hierarchy and level bounds, the Open form's reading
options, the model form). A setting the page has no control for is shown as the job file's
line that sets it (the page opens job files).

>>> from incrowd.errors import option
>>> app_text(f"read as numbers; {option('code', ['zip'])} if they are codes")
"read as numbers; set the type of 'zip' to code if they are codes"
>>> app_text(f"name it with {option('encoding', 'latin-1')}")
"name it with set the Open form's encoding to 'latin-1'"
>>> app_text(f"leave them out ({option('missing', 'drop')})")
'leave them out (missing = "drop" in a job file)'
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ..errors import FLAGS, rendered
from ..io.missing import na_values_text
from .form import LABELS, LEVEL_BOUNDS, READ_OPTIONS, ROLES, TYPES

__all__ = ["app_text", "app_words"]

#: A flag in a text, the number given it, or another value (which is left as it is).
_FLAG = re.compile(
    r"(--[a-z][a-z-]*)(?: (?:(?P<number>[0-9]+(?:\.[0-9]+)?)|(?P<column>"
    r"[A-Za-z_][\w.-]*)=(?P<level>[0-9]+|\.\.\.|…))(?![^\s,;).])|(?P<other> [^\s(]\S*))?"
)
#: A setting's Python keyword (the name a message gives) → its field of Settings.
_FIELD = {"identifiers": "identifier", "hierarchies": "hierarchy"}
#: A role list or type list → the page's choice in a column's row.
_ROLE = {key: role for role, key in ROLES.items() if key}
_TYPE = {key: kind for kind, key in TYPES.items() if key}


def app_text(text: str) -> str:
    """``text`` (a message with :func:`~incrowd.errors.option` marks) with each setting
    named by the page's control that sets it."""
    return rendered(text, _control)


def app_words(text: str) -> str:
    """``text`` already worded for the command line (a report's warning: ``publish with
    --l 2 to ...``) with each flag of a setting, given a number or ``COLUMN=NUMBER`` (a
    level bound), named by the page's control; a flag given another value is left as it is.

    >>> app_words("publish with --l 2 to make every class hold at least 2 values")
    'publish with l = 2 to make every class hold at least 2 values'
    >>> app_words("the release says nothing of it; --max-level age=... bounds how far")
    "the release says nothing of it; the max level of 'age' bounds how far"
    """
    settings = {flag: name for name, flag in FLAGS.items()}

    def named(found: re.Match[str]) -> str:
        name = settings.get(found[1])
        if name is None or found["other"]:
            return found[0]
        python = name
        if found["number"]:
            python = f"{name}={found['number']}"
        elif found["column"]:
            level = "..." if found["level"] in ("...", "…") else found["level"]
            python = f"{name}={{{found['column']!r}: {level}}}"
        return _control(python, found[0])

    return _FLAG.sub(named, text)


def _control(python: str, cli: str) -> str:
    """One setting, given as a Python caller spells it, as the page's control names it."""
    name, value = _setting(python)
    if name in _ROLE or name in _TYPE:
        what, choice = ("role", _ROLE[name]) if name in _ROLE else ("type", _TYPE[name])
        if not value:
            return f"the {what} {choice!r}"
        return f"set the {what} of {_columns(value)} to {choice}"
    if name == "hierarchy" or name in LEVEL_BOUNDS:
        label = "hierarchy" if name == "hierarchy" else LABELS[name]
        if not isinstance(value, dict):
            return f"the {label} of a column"
        # a bound left open is the field itself ("the max level of 'age' bounds ...")
        return "; ".join(f"set the {label} of {column!r} to {v}" if v is not ... else
                         f"{'set the' if name == 'hierarchy' else 'the'} {label} of {column!r}"
                         for column, v in value.items())  # fmt: skip
    if name in READ_OPTIONS:
        label = f"the Open form's {LABELS[name]}"
        if value is None:
            return label
        if name == "na_values" and isinstance(value, list | tuple):  # as the field spells it
            return f"set {label} to {na_values_text(value)}"
        return f"set {label}" + ("" if value is ... else f" to {value!r}")
    if name in LABELS:  # the model form's fields, as the form shows them: k = 5
        if value is None or value is ...:
            return LABELS[name] if len(LABELS[name]) == 1 else f"the {LABELS[name]}"
        return f"{LABELS[name]} = {value!r}"
    from ..pipeline.job_writer import toml_value

    if value is None or value is ...:
        return f"{name} in a job file"
    return f"{name} = {toml_value(value)} in a job file"


def _setting(python: str) -> tuple[str, Any]:
    """The setting's field name and value (None: not given; ``...``: left open) in an
    :func:`~incrowd.errors.option`'s Python text (``code=['zip']``, ``missing``,
    ``diversity=Diversity(l=2)``)."""
    if python.startswith("diversity=Diversity(") and python.endswith(")"):
        python = python.removeprefix("diversity=Diversity(")[:-1]
        if python.endswith("=..."):
            python = python[:-4]
    name, given, text = python.partition("=")
    value: Any = None
    if given:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):  # a value of no literal form: shown as written
            value = text
    return _FIELD.get(name, name), value


def _columns(value: Any) -> str:
    """Column names as a message lists them: ``'a'``, ``'a', 'b'``."""
    names = value if isinstance(value, list | tuple) else [value]
    return ", ".join(repr(str(n)) for n in names)
