"""The page's form: which setting each control sets, the form's starting state (a job file's
settings, or what ``incrowd inspect`` proposes), and the form sent back as a run's settings.

Every control is a field of :class:`~incrowd.pipeline.settings.Settings`, named here once
(:data:`READ_OPTIONS`, :data:`MODEL`, :data:`LEVEL_BOUNDS`, the roles and types of the
column lists): its help, its rule and its check are the field's. The form the page sends is
a job file's table (the keys of ``incrowd.toml``), read by :meth:`Settings.from_mapping
<incrowd.pipeline.settings.Settings.from_mapping>`, so every value is checked where the
command line and the job file check it. The settings of a job file the page has no control
for (``missing``, ``weights``, ...) travel with the form as they are (``settings``); a key,
role or type the page never sends is refused, naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io.missing import na_values_text, parse_na_values
from ..params import OneOf
from ..pipeline.job_writer import COLUMN_LISTS
from ..pipeline.settings import Settings
from .hierarchies import resolve_specs, shown_spec
from .security import Folders

__all__ = ["LABELS", "LEVEL_BOUNDS", "MODEL", "READ_OPTIONS", "ROLES", "TYPES", "form_settings",
           "read_fields", "starting_form"]  # fmt: skip

#: The role of a column in the page → the job file's list (withheld: in no list).
ROLES = {"quasi-identifier": "qi", "sensitive": "sensitive", "insensitive": "insensitive",
         "identifier": "identifier", "withheld": None}  # fmt: skip
#: A quasi-identifier's declared type in the page → the job file's list (auto: inferred).
TYPES = {"auto": None, "category": "categorical", "number": "numeric", "code": "code",
         "date": "date"}  # fmt: skip
#: The Open form's options: the table is read and its columns inferred with them.
READ_OPTIONS = ("na_values", "sep", "decimal", "thousands", "date_format", "encoding")
#: The model form's settings.
MODEL = ("k", "l", "t", "suppression_limit", "method", "release", "seed")
#: A quasi-identifier's bounds on its generalization level (fields of its row).
LEVEL_BOUNDS = ("min_level", "max_level")
#: Each control as the page labels it, and as the page's warnings name it (:mod:`.wording`).
LABELS = {"na_values": "missing tokens", "sep": "separator", "decimal": "decimal mark",
          "thousands": "thousands mark", "date_format": "date format", "encoding": "encoding",
          "k": "k", "l": "l", "t": "t", "suppression_limit": "suppression limit",
          "method": "method", "release": "release", "seed": "seed",
          "min_level": "min level", "max_level": "max level"}  # fmt: skip
#: The settings a control of the page sets (a column's row, the Open and model forms).
CONTROLLED = frozenset({"input", "out", "hierarchy", *COLUMN_LISTS, *READ_OPTIONS, *MODEL,
                        *LEVEL_BOUNDS})  # fmt: skip
#: What a form holds, and what a column's row holds.
_FORM_KEYS = frozenset({"input", "columns", "settings", *MODEL, *READ_OPTIONS})
_COLUMN_KEYS = frozenset({"role", "type", "hierarchy", *LEVEL_BOUNDS})
_NUMBERS = ("k", "l", "t", "suppression_limit", "seed")


def read_fields() -> list[dict[str, Any]]:
    """The Open form's fields, one per :data:`READ_OPTIONS` setting, from its declaration:
    the label, the help, the default as ``--help`` shows it, and the values of a rule of a
    few values (a select)."""
    out = []
    for name in READ_OPTIONS:
        option = Settings.option(name)
        check = Settings.__dataclass_fields__[name].metadata["check"]
        values = [str(v) for v in check.values] if isinstance(check, OneOf) else []
        # no default: detected (the tooltip says how); no tokens: the usual ones (it lists them)
        placeholder = "detected" if option.default is None else option.shown or "the usual"
        out.append({"name": name, "label": LABELS[name], "help": option.help,
                    "shown": option.shown or placeholder, "placeholder": placeholder,
                    "values": values})  # fmt: skip
    return out


def starting_form(job: Settings, columns: list[dict[str, Any]], *,
                  from_job: bool) -> dict[str, Any]:  # fmt: skip
    """The form's starting state: a job file's settings (every one of them: those without
    a control of the page in ``settings``), or what inspect proposes of each column; the
    reading options the table was opened with."""
    base = Path(job.input).parent if job.input else Path()
    per_column: dict[str, Any] = {}
    for column in columns:
        name = column["column"]
        if from_job:
            role = next((r for r, key in ROLES.items() if key and name in getattr(job, key)),
                        "withheld")  # fmt: skip
            kind = next((t for t, key in TYPES.items() if key and name in getattr(job, key)),
                        "auto")  # fmt: skip
            spec = job.hierarchy.get(name)
        else:
            role, kind, spec = column["role"], "auto", column["hierarchy"]
        bounds = {b: str(getattr(job, b).get(name, "")) for b in LEVEL_BOUNDS}
        per_column[name] = {"role": role, "type": kind, "hierarchy": shown_spec(spec, base),
                            **bounds}  # fmt: skip
    model = {name: getattr(job, name) for name in MODEL}
    read = {name: _text(getattr(job, name)) for name in READ_OPTIONS}
    others = {
        name: _plain(getattr(job, name))
        for name in Settings.names()
        if name not in CONTROLLED and getattr(job, name) != Settings.option(name).default
    }
    return {"columns": per_column, **model, **read, "settings": others}


def form_settings(folders: Folders, form: dict[str, Any]) -> Settings:
    """The run's settings from the page's form: a job file's table built from it, read by
    :meth:`Settings.from_mapping` (hierarchy files relative to the table's folder), then
    checked as a run (:meth:`Settings.check_run`). Every file it names must lie inside
    ``folders`` (:class:`~incrowd.ui.security.Forbidden`); a form of the wrong shape, a key,
    role or type the page never sends, or no table is an :class:`~incrowd.InputError`."""
    check_shape(form)
    text = str(form.get("input") or "")
    if not text.strip():  # the opened folder itself would be read: "is a directory"
        raise InputError("no input table given")
    table = folders.resolve(text)
    lists: dict[str, list[str]] = {key: [] for key in COLUMN_LISTS}
    hierarchy: dict[str, str] = {}
    bounds: dict[str, dict[str, str]] = {bound: {} for bound in LEVEL_BOUNDS}
    for name, column in (form.get("columns") or {}).items():
        key, kind = _column(name, column)
        if key is not None:
            lists[key].append(name)
        if key != "qi":  # a type, hierarchy and levels are a quasi-identifier's
            continue
        if kind:
            lists[kind].append(name)
        if (column.get("hierarchy") or "").strip():
            hierarchy[name] = column["hierarchy"].strip()
        for bound in LEVEL_BOUNDS:
            if (column.get(bound) or "").strip():
                bounds[bound][name] = column[bound].strip()
    data: dict[str, Any] = {**_kept(form.get("settings") or {}), "input": str(table),
                            "columns": lists, "hierarchy": hierarchy, **bounds}  # fmt: skip
    for name in (*MODEL, *READ_OPTIONS):
        value = form.get(name)
        if name == "na_values":  # '' in it: the default tokens off, as on the command line
            data[name] = list(parse_na_values(str(value or "")))
        elif value not in (None, ""):
            data[name] = _number(value) if name in _NUMBERS else str(value)
    job = Settings.from_mapping(data, "the form", base=table.parent)
    if job.blocked:  # the worker runs the table in one piece: not what the job file asks
        msg = ("the app runs a table in one piece, not blockwise: run this job file with "
               "incrowd anonymize --config FILE, or leave out its blockwise settings")  # fmt: skip
        raise InputError(msg)
    return resolve_specs(folders, job, table.parent).check_run()


def check_shape(form: dict[str, Any]) -> None:
    """Refuse (:class:`~incrowd.InputError`) a form the page never sends: a key it does not
    have, ``columns`` not an object of objects of texts, ``settings`` not an object, a
    setting that is neither text nor a number."""
    unknown = sorted(set(form) - _FORM_KEYS)
    if unknown:  # the job file's words for a key that is no setting
        raise InputError(f"the form: unknown setting {unknown[0]!r}")
    columns = form.get("columns") or {}
    if not isinstance(columns, dict) or not all(
        isinstance(c, dict) and all(isinstance(v, str | None) for v in c.values())
        for c in columns.values()
    ):
        raise InputError("the form's columns must be an object of objects of texts")
    if not isinstance(form.get("settings") or {}, dict):
        raise InputError("the form's settings must be an object")
    for name, value in form.items():
        if name not in ("columns", "settings") and not isinstance(value, str | int | float | None):
            raise InputError(f"the form's {name} must be a text or a number")


def _column(name: str, column: dict[str, Any]) -> tuple[str | None, str | None]:
    """A column's row as the job file's role list and type list (None: none), its keys,
    role and type checked against what the page offers."""
    unknown = sorted(set(column) - _COLUMN_KEYS)
    if unknown:
        raise InputError(f"the form: unknown setting {unknown[0]!r} of column {name!r}")
    where = f"the form: the {{}} of column {name!r}"
    role = OneOf(*ROLES).check(where.format("role"), column.get("role") or "withheld", 0)
    kind = OneOf(*TYPES).check(where.format("type"), column.get("type") or "auto", 0)
    return ROLES[str(role)], TYPES[str(kind)]


def _kept(settings: dict[str, Any]) -> dict[str, Any]:
    """A job file's settings the page has no control for, as the form carries them back;
    one that is no setting, or that a control of the page sets, is refused."""
    for name in settings:
        if name not in Settings.names():
            raise InputError(f"the form's settings: unknown setting {name!r}")
        if name in CONTROLLED:
            raise InputError(f"the form's settings: {name!r} is set by the page's own control")
    return dict(settings)


def _text(value: Any) -> str:
    """A reading option as its field shows it (missing tokens: comma-separated, the default
    tokens off spelled ``''``)."""
    if isinstance(value, tuple):
        return na_values_text(value)
    return "" if value is None else str(value)


def _plain(value: Any) -> Any:
    """A setting's value as JSON carries it (the job file's TOML kinds)."""
    if isinstance(value, tuple):
        return list(value)
    return dict(value) if isinstance(value, Mapping) else value


def _number(value: Any) -> Any:
    """A number the page sent as text, as an int when whole (the job file's kinds)."""
    if isinstance(value, int | float):
        return value
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text  # the settings' check names it
