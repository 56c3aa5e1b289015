"""Opening a table (or a job file) for the page, and the page's form as the run's settings.

What the page shows of each column is what ``incrowd inspect`` infers —
:func:`incrowd.data.types.infer_types` with :func:`~incrowd.data.types.propose_role` and
:func:`~incrowd.data.types.propose_hierarchy` — and the form it sends back is a job file's
table (the keys of ``incrowd.toml``), read by :meth:`Settings.from_mapping
<incrowd.pipeline.settings.Settings.from_mapping>`: every setting is checked in the one
place the command line and the job file check it.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ..errors import IncrowdWarning, cli_text
from ..pipeline.job_writer import COLUMN_LISTS
from ..pipeline.settings import Settings
from .security import Folders

__all__ = ["ROLES", "TYPES", "choices", "form_settings", "open_path", "preview_hierarchy",
           "shown_warning"]  # fmt: skip

#: The role of a column in the page → the job file's list (withheld: in no list).
ROLES = {"quasi-identifier": "qi", "sensitive": "sensitive", "insensitive": "insensitive",
         "identifier": "identifier", "withheld": None}  # fmt: skip
#: A quasi-identifier's declared type in the page → the job file's list (auto: inferred).
TYPES = {"auto": None, "category": "categorical", "number": "numeric", "code": "code",
         "date": "date"}  # fmt: skip
#: Rows of the table shown in the page.
PREVIEW_ROWS = 20
#: Values shown in a hierarchy's preview.
PREVIEW_VALUES = 8


def choices() -> dict[str, Any]:
    """What the page's selects offer: methods, release forms, roles, types; and each
    setting's help, as ``incrowd anonymize --help`` shows it."""
    from ..algorithms.catalogue import CATALOGUE

    helps = {name: Settings.option(name).help for name in Settings.names()}
    return {"methods": sorted(CATALOGUE), "releases": ["generalized", "microaggregated",
            "centers"], "roles": list(ROLES), "types": list(TYPES), "help": helps}  # fmt: skip


def open_path(folders: Folders, text: str, encoding: str | None = None) -> dict[str, Any]:
    """The page's view of a table (CSV or Parquet) or of a job file (``.toml``: its table,
    with its settings as the form): rows, columns, what is inferred of each, warnings.

    Raises :class:`~incrowd.ui.security.Forbidden` for a path outside ``folders`` (also the
    table a job file names), :class:`~incrowd.IncrowdError` when it cannot be read.
    """
    from ..pipeline.job import read_job

    path = folders.resolve(text)
    if path.suffix.lower() == ".toml":
        job = read_job(path)
        if job.input is None:
            from ..errors import InputError

            msg = f"{path}: the job file names no input table"
            raise InputError(msg)
        folders.resolve(job.input)
    else:
        job = Settings(input=str(path), encoding=encoding or None)
    for spec in job.hierarchy.values():
        _check_file(folders, spec)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IncrowdWarning)
        view = _inspect(job)
    view["warnings"] = list(dict.fromkeys(
        [shown_warning(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]
        + [w for column in view["columns"] for w in column["warnings"]]))  # fmt: skip
    view["form"] = _form(job, view["columns"], from_job=path.suffix.lower() == ".toml")
    view["opened"] = str(path)
    return view


def shown_warning(message: Warning | str) -> str:
    """A warning as the command line words it (a setting named by its flag)."""
    return cli_text(message.marked() if isinstance(message, IncrowdWarning) else str(message))


def _inspect(job: Settings) -> dict[str, Any]:
    from ..data.types import infer_types, propose_hierarchy, propose_role
    from ..io.tables import read_table

    assert job.input is not None
    table = read_table(job.input, sep=job.sep, na_values=job.na_values, encoding=job.encoding)
    declared = {name: kind for kind, key in TYPES.items() if key for name in getattr(job, key)}
    found = infer_types(table, list(table.columns), declared=declared, thousands=job.thousands,
                        decimal=job.decimal, date_format=job.date_format)  # fmt: skip
    n_rows = len(table)
    columns = []
    for inference in found.values():
        role, why = propose_role(inference, n_rows)
        columns.append({
            "column": inference.name, "type": inference.type.kind,
            "distinct": inference.n_distinct, "missing": inference.n_missing,
            "role": role, "role_reason": cli_text(why),
            "hierarchy": propose_hierarchy(inference), "examples": list(inference.examples[:3]),
            "warnings": [cli_text(w) for w in inference.warnings],
        })  # fmt: skip
    head = table.head(PREVIEW_ROWS).astype(object).where(table.head(PREVIEW_ROWS).notna(), "")
    return {"input": job.input, "n_rows": n_rows, "columns": columns,
            "header": [str(c) for c in table.columns],
            "rows": [[str(v) for v in row] for row in head.itertuples(index=False)]}  # fmt: skip


def _form(job: Settings, columns: list[dict[str, Any]], *, from_job: bool) -> dict[str, Any]:
    """The form's starting state: a job file's settings, or what inspect proposes."""
    base = Path(job.input).parent if job.input else Path()
    per_column = {}
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
        if spec and Path(spec).is_absolute() and Path(spec).is_relative_to(base):
            spec = str(Path(spec).relative_to(base))
        per_column[name] = {"role": role, "type": kind, "hierarchy": spec or ""}
    model = {name: getattr(job, name) for name in
             ("k", "l", "t", "suppression_limit", "method", "release", "seed", "encoding",
              "sep")}  # fmt: skip
    return {"columns": per_column, **model}


def form_settings(folders: Folders, form: dict[str, Any]) -> Settings:
    """The run's settings from the page's form: a job file's table built from it, read by
    :meth:`Settings.from_mapping` (hierarchy files relative to the table's folder), then
    checked as a run (:meth:`Settings.check_run`). Every file it names must lie inside
    ``folders`` (:class:`~incrowd.ui.security.Forbidden`)."""
    table = folders.resolve(str(form.get("input") or ""))
    lists: dict[str, list[str]] = {key: [] for key in COLUMN_LISTS}
    hierarchy = {}
    for name, column in (form.get("columns") or {}).items():
        key = ROLES.get(column.get("role"), None)
        if key is None:
            continue
        lists[key].append(name)
        kind = TYPES.get(column.get("type") or "auto")
        if key == "qi" and kind:
            lists[kind].append(name)
        if key == "qi" and (column.get("hierarchy") or "").strip():
            hierarchy[name] = column["hierarchy"].strip()
    data: dict[str, Any] = {"input": str(table), "columns": lists, "hierarchy": hierarchy}
    for name in ("k", "l", "t", "suppression_limit", "seed"):
        value = form.get(name)
        if value not in (None, ""):
            data[name] = _number(value)
    for name in ("method", "release", "encoding", "sep"):
        if form.get(name):
            data[name] = str(form[name])
    job = Settings.from_mapping(data, "the form", base=table.parent)
    for spec in job.hierarchy.values():
        _check_file(folders, spec)
    return job.check_run()


def preview_hierarchy(folders: Folders, form: dict[str, Any], column: str) -> dict[str, Any]:
    """The levels of ``column``'s hierarchy as the form spells it, built from the data as a
    run builds it (:func:`~incrowd.pipeline.job.build_schema`): per level its number of
    labels, and what each level makes of a few of the column's values."""
    from ..data.columns import encode_qis, handle_missing
    from ..data.schema import Hierarchical
    from ..io.tables import read_table
    from ..pipeline.job import build_schema

    settings = dict(form.get("columns") or {}).get(column)
    if settings is None:
        from ..errors import SchemaError

        raise SchemaError(f"unknown column {column!r}")
    one = {"input": form.get("input"), "encoding": form.get("encoding"), "sep": form.get("sep"),
           "columns": {column: dict(settings, role="quasi-identifier")}}  # fmt: skip
    job = form_settings(folders, one)  # k is not needed to build a hierarchy
    assert job.input is not None
    table = read_table(job.input, sep=job.sep, na_values=job.na_values, encoding=job.encoding)
    schema = build_schema(job, table)
    kept, _ = handle_missing(table, schema, job.missing)  # type: ignore[arg-type]
    encode_qis(kept, schema)  # every value placed, as a run places them (else its error)
    metric = schema.quasi_identifiers[column]
    if not isinstance(metric, Hierarchical):
        shown = type(metric).__name__.lower()
        return {"column": column, "levels": [], "rows": [],
                "note": f"no hierarchy: published as {shown} ranges"}  # fmt: skip
    tree = metric.hierarchy
    picked = range(0, len(tree.values), max(1, len(tree.values) // PREVIEW_VALUES))
    rows = [[tree.label(level, int(tree.codes[i, level])) for level in range(tree.height + 1)]
            for i in list(picked)[:PREVIEW_VALUES]]  # fmt: skip
    return {"column": column, "levels": [len(labels) for labels in tree.labels], "rows": rows,
            "note": f"{tree.height} levels above the values ({tree.source})"}  # fmt: skip


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


def _check_file(folders: Folders, spec: str) -> None:
    """A hierarchy spelled as a file must lie inside the folders (a builder spec is no
    file)."""
    from ..data.hierarchy_specs import is_builder

    if not is_builder(spec):
        folders.resolve(spec)
