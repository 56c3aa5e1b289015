"""Opening a table (or a job file) for the page, and the page's form as the run's settings.

What the page shows of each column is what ``incrowd inspect`` infers —
:func:`incrowd.data.types.infer_types` with :func:`~incrowd.data.types.propose_role` and
:func:`~incrowd.data.types.propose_hierarchy` — and the form it sends back is a job file's
table (the keys of ``incrowd.toml``), read by :meth:`Settings.from_mapping
<incrowd.pipeline.settings.Settings.from_mapping>`: every setting is checked in the one
place the command line and the job file check it.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IncrowdWarning
from ..io.missing import parse_na_values
from ..pipeline.settings import Settings
from .form import READ_OPTIONS, ROLES, TYPES, check_shape, form_settings, read_fields, starting_form
from .hierarchies import hierarchy_files, hierarchy_options, resolve_specs
from .security import Folders
from .wording import app_text

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["choices", "open_path", "preview_hierarchy", "shown_warning", "shown_warnings"]

#: Rows of the table shown in the page.
PREVIEW_ROWS = 20
#: Values shown in a hierarchy's preview.
PREVIEW_VALUES = 8
#: What the page shows of inspect's row of a column.
_SHOWN = ("column", "type", "distinct", "missing", "role", "hierarchy", "warnings")
#: Tables read and views inferred, the last few (a table is read once for the preview).
_TABLES: OrderedDict[Any, Any] = OrderedDict()
_VIEWS: OrderedDict[Any, Any] = OrderedDict()
_KEEP = 3
_LOCK = threading.Lock()


@functools.cache
def choices() -> dict[str, Any]:
    """What the page's selects offer: methods, release forms, roles, types; and each
    setting's help, as ``incrowd anonymize --help`` shows it."""
    from ..algorithms.catalogue import CATALOGUE

    helps = {name: Settings.option(name).help for name in Settings.names()}
    return {"methods": sorted(CATALOGUE), "releases": ["generalized", "microaggregated",
            "centers"], "roles": list(ROLES), "types": list(TYPES), "help": helps,
            "read": read_fields()}  # fmt: skip


@functools.cache
def warm() -> None:
    """Import and run once what opening a table or a job file needs (pandas, the readers,
    the inference, the schema, the inspect row, the job file's reader), on a job file and
    its table of two rows, not kept: the app calls it as it starts (once per process), so
    that the first table opened does not wait for a second of imports."""
    import tempfile

    from ..data.inspection import column_row
    from ..data.types import infer_types
    from ..io.tables import read_table
    from ..pipeline.job import build_schema, read_job

    choices()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(folder) / "warm.csv"
        path.write_text("age,zip,day,job\n30,02142,2024-03-05,clerk\n41,60615,2023-12-01,x\n")
        (Path(folder) / "warm.toml").write_text('input = "warm.csv"\n[columns]\nqi = ["zip"]\n'
                                                '[hierarchy]\nzip = "prefix"\n')  # fmt: skip
        job = read_job(Path(folder) / "warm.toml")
        table = read_table(path)
        found = infer_types(table, list(table.columns))
        for inference in found.values():
            column_row(inference, len(table))
        hierarchy_options(table, found)
        build_schema(job, table)


def open_path(folders: Folders, text: str,
              options: Mapping[str, str | None] | None = None) -> dict[str, Any]:  # fmt: skip
    """The page's view of a table (CSV or Parquet) or of a job file (``.toml``: its table,
    with all its settings as the form): rows, columns, what is inferred of each, warnings.
    The table is read with the Open form's ``options`` (:data:`~.form.READ_OPTIONS`, as
    texts; empty: detected), which override a job file's as flags do.

    Raises :class:`~incrowd.ui.security.Forbidden` for a path outside ``folders`` (also the
    table a job file names), :class:`~incrowd.IncrowdError` when it cannot be read.
    """
    from ..pipeline.job import read_job

    given: dict[str, Any] = {name: value for name, value in (options or {}).items() if value}
    if "na_values" in given:  # '' in it: the default tokens off, as on the command line
        given["na_values"] = list(parse_na_values(given["na_values"]))
    unknown = sorted(set(given) - set(READ_OPTIONS))
    if unknown:
        from ..errors import InputError

        raise InputError(f"the Open form: unknown setting {unknown[0]!r}")
    reading = Settings.from_mapping(given, "the Open form")  # each checked as the CLI does
    path = folders.resolve(text)
    if path.suffix.lower() == ".toml":
        job = read_job(path)
        if job.input is None:
            from ..errors import InputError

            msg = f"{path}: the job file names no input table"
            raise InputError(msg)
        # its hierarchy files are already taken from the job file's folder
        job = resolve_specs(folders, job, path.parent)
        job = dataclasses.replace(job, input=str(folders.resolve(job.input)))
        job = job.replace(**{name: getattr(reading, name) for name in READ_OPTIONS})
    else:
        job = dataclasses.replace(reading, input=str(path))
    view = dict(_view(job))
    from_job = path.suffix.lower() == ".toml"
    if not from_job:  # a column's marker proposed as missing, as inspect --write proposes it
        job = job.replace(na_values=view["proposed_na_values"])
        view["warnings"] = list(dict.fromkeys(view["warnings"] + view["marker_lines"]))
    view["form"] = starting_form(job, view["columns"], from_job=from_job)
    view["opened"] = str(path)
    return view


def shown_warning(message: Warning | str) -> str:
    """A warning as the page words it: a setting named by the page's control that sets it
    (:func:`~.wording.app_text`), not by the command line's flag."""
    return app_text(message.marked() if isinstance(message, IncrowdWarning) else str(message))


def read_cached(job: Settings) -> pd.DataFrame:
    """``job``'s table, read once per version of its file (path, size, time) and reading
    options: the page's preview and a second opening reuse it (it must not be changed)."""
    return _read(job)[0]


def _read(job: Settings) -> tuple[pd.DataFrame, list[str]]:
    """``job``'s table (cached) and the warnings reading it gave, as the page shows them."""
    from ..io.tables import read_table

    assert job.input is not None

    def read() -> tuple[pd.DataFrame, list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IncrowdWarning)
            table = read_table(job.input, sep=job.sep, na_values=job.na_values,
                               encoding=job.encoding)  # fmt: skip
        return table, shown_warnings(caught)

    return _cached(_TABLES, _version(job), read)


def _version(job: Settings) -> tuple[Any, ...]:
    """The table's file by its path, size and time, with the options it is read with."""
    assert job.input is not None
    stat = Path(job.input).stat()
    return (job.input, stat.st_size, stat.st_mtime_ns, job.sep, tuple(job.na_values),
            job.encoding)  # fmt: skip


def _cached(cache: OrderedDict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
    """``cache[key]``, made when missing; the :data:`_KEEP` last used are kept."""
    with _LOCK:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
    value = make()  # outside the lock: another table is not kept waiting
    with _LOCK:
        cache[key] = value
        while len(cache) > _KEEP:
            cache.popitem(last=False)
    return value


def shown_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The incrowd warnings among ``caught``, as the page shows them (:func:`shown_warning`)."""
    return [shown_warning(w.message) for w in caught if issubclass(w.category, IncrowdWarning)]


def _view(job: Settings) -> dict[str, Any]:
    """What the page shows of ``job``'s table: read and inferred once per version of the
    file and options, with the warnings both gave."""
    table, read_warnings = _read(job)
    declared = {name: kind for kind, key in TYPES.items() if key for name in getattr(job, key)}
    key = (_version(job), tuple(sorted(declared.items())), job.thousands, job.decimal,
           job.date_format)  # fmt: skip
    view = _cached(_VIEWS, key, lambda: _inspect(job, table, declared))
    return view | {"warnings": list(dict.fromkeys(read_warnings + view["warnings"])),
                   "hierarchy_files": hierarchy_files(Path(job.input).parent)}  # fmt: skip


def _inspect(job: Settings, table: pd.DataFrame, declared: dict[str, Any]) -> dict[str, Any]:
    from ..data.inspection import column_row, proposed_na_values
    from ..data.types import infer_types

    assert job.input is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IncrowdWarning)
        found = infer_types(table, list(table.columns), declared=declared,
                            thousands=job.thousands, decimal=job.decimal,
                            date_format=job.date_format)  # fmt: skip
    n_rows = len(table)
    columns = []
    for inference in found.values():
        row = column_row(inference, n_rows)
        columns.append(
            {key: row[key] for key in _SHOWN}
            | {
                "role_reason": app_text(row["role_reason"]),
                "examples": row["examples"][:3],
                "marker_cells": row["marker_cells"],
                "warnings": [app_text(w) for w in inference.warnings],
            }
        )
    # the form's missing tokens name the proposal: the line says where to take it back
    proposed, lines = proposed_na_values(table, found, job.na_values,
                                         job_file="the Open form")  # fmt: skip
    head = table.head(PREVIEW_ROWS).astype(object).where(table.head(PREVIEW_ROWS).notna(), "")
    return {"input": job.input, "n_rows": n_rows, "columns": columns,
            "header": [str(c) for c in table.columns],
            "rows": [[str(v) for v in row] for row in head.itertuples(index=False)],
            "warnings": shown_warnings(caught) + [w for c in columns for w in c["warnings"]],
            "hierarchies": hierarchy_options(table, found), "proposed_na_values": proposed,
            "marker_lines": [app_text(line) for line in lines]}  # fmt: skip


def preview_hierarchy(folders: Folders, form: dict[str, Any], column: str) -> dict[str, Any]:
    """The levels of ``column``'s hierarchy as the form spells it, built from the data as a
    run builds it (:func:`~incrowd.pipeline.job.build_schema`): per level its number of
    labels, and what each level makes of a few of the column's values."""
    from ..data.columns import encode_qis, handle_missing
    from ..data.schema import Hierarchical
    from ..pipeline.job import build_schema

    check_shape(form)
    settings = dict(form.get("columns") or {}).get(column)
    if settings is None:
        from ..errors import SchemaError

        raise SchemaError(f"unknown column {column!r}")
    # the table read as it was opened, with the job file's other settings (missing, ...)
    one = {"input": form.get("input"), "settings": form.get("settings"),
           **{name: form.get(name) for name in READ_OPTIONS},
           "columns": {column: dict(settings, role="quasi-identifier")}}  # fmt: skip
    job = form_settings(folders, one)  # k is not needed to build a hierarchy
    table = read_cached(job)  # the table opened, not read again
    if column in table.columns:  # the one column the hierarchy is built from, a copy
        table = table[[column]].copy()
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
