"""The TOML job file: the settings of ``incrowd anonymize`` (:class:`~.settings.Settings`)
in a file, and the schema they describe.

A job file names the same things as the command-line flags (every key is a field of
:class:`~.settings.Settings`, which declares its type, default and rule)::

    input = "adult.csv"          # paths are relative to the job file
    out = "adult-k5.csv"
    k = 5
    method = "mdav"              # see `incrowd methods`; default: local-recoding for the
                                 # generalized release, mdav for the others
    release = "generalized"      # or "microaggregated", "centers"
    seed = 1
    sep = ";"
    missing = "error"            # or "drop", "category"
    norm = 2                     # distance: 1 (L1) or 2 (Euclidean); default: the method's
    generalize = "levels"        # generalized release: hierarchy "levels" or value "sets"
    suppression_limit = 0.05     # largest share of records suppressed (local methods: deleted)
    suppressed = "star"          # suppressed records: a row of "*" each, or "drop"
    csv_formulas = "escape"      # CSV cells a spreadsheet would run: "escape" or "refuse"

    [columns]
    qi = ["age", "sex", "zip"]
    sensitive = ["salary-class"]
    identifier = ["name"]
    insensitive = []
    categorical = []
    numeric = []

    [hierarchy]                  # a file, "prefix", "intervals:5,10,20",
                                 # "intervals:0-17,18-64,65-120" or "dates:month,year"
    sex = "adult_hierarchy_sex.csv"
    zip = "prefix"

    [weights]                    # attribute weights of the distance / cost (default 1)
    age = 2

    [min_level]                  # lowest level a column is published at (0: the values)
    age = 1

    [max_level]                  # highest level (records that cannot fit are suppressed
    sex = 0                      # within the suppression limit)

    [params]                     # extra parameters of the method
    variant = "classic"

Flags given on the command line override the file.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IncrowdError, InputError, SchemaError, option
from ..params import parse_levels
from .settings import Settings

if TYPE_CHECKING:  # imported where used: ``incrowd --help`` reads the defaults only
    import pandas as pd

    from ..data.schema import Schema
    from ..io.tables import TableFile

__all__ = [
    "MAX_NESTING",
    "NestedTooDeep",
    "build_schema",
    "job_from_mapping",
    "loads_bounded",
    "parse_json_job",
    "parse_weights",
    "read_job",
    "with_weights",
]

#: The deepest nesting of tables and lists a job is read with. A job file's own is three
#: (the file, a table such as ``[params]``, a list), a parameter's list of lists four; deeper
#: is no job, and Python's recursion (the parser's, a message's repr) would give out.
MAX_NESTING = 32


def __getattr__(name: str) -> Any:
    """``build_hierarchy`` and ``HIERARCHY_SPECS``, which moved to
    :mod:`incrowd.data.hierarchy_specs`, loaded on first use (PEP 562: pandas stays unloaded
    for ``incrowd --help``)."""
    if name in ("build_hierarchy", "HIERARCHY_SPECS"):
        from ..data import hierarchy_specs

        return getattr(hierarchy_specs, name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def read_job(path: str | Path) -> Settings:
    """Read a job file; relative paths in it are taken relative to the file.

    Every setting is checked for its type (``seed = 1.5`` or ``columns = 5`` is an
    :class:`~incrowd.InputError` naming the setting), so nothing is silently converted.
    """
    from ..io.tables import check_input_file

    path = check_input_file(path, "job file", table=False)  # absent, a folder, a device
    # utf-8-sig: a byte order mark (Windows editors write one) is not part of the file's text
    data = _parsed(tomllib.loads, lambda: path.read_text(encoding="utf-8-sig"), str(path))
    return job_from_mapping(data, str(path), path.parent)


def parse_json_job(raw: bytes | str, where: str) -> dict[str, Any]:
    """The JSON object ``raw`` holds (a job sent as JSON; empty: ``{}``), refused
    as a job file is — not JSON, not an object, nested deeper than :data:`MAX_NESTING` —
    with an :class:`~incrowd.InputError` naming ``where``."""
    data = _parsed(json.loads, lambda: raw or b"{}", where)
    if not isinstance(data, dict):
        msg = f"{where}: not a valid job file: not a JSON object"
        raise InputError(msg)
    return data


def _parsed(parse: Callable[[Any], Any], text: Callable[[], Any], where: str) -> Any:
    """``parse(text())``, its errors one :class:`~incrowd.InputError` each."""
    try:
        return loads_bounded(parse, text())
    except NestedTooDeep:
        msg = f"{where}: not a valid job file: nested deeper than {MAX_NESTING} levels"
        raise InputError(msg) from None
    except ValueError as exc:  # TOMLDecodeError, JSONDecodeError, UnicodeDecodeError
        msg = f"{where}: not a valid job file: {exc}"
        raise InputError(msg) from None


class NestedTooDeep(ValueError):
    """Tables and lists nested deeper than :data:`MAX_NESTING` (each caller words it)."""


def loads_bounded(parse: Callable[[Any], Any], text: Any) -> Any:
    """``parse(text)`` (``json.loads``, ``tomllib.loads``), :class:`NestedTooDeep` when it
    nests deeper than :data:`MAX_NESTING`: a parser that recurses per level gives out on
    deep nesting (a RecursionError), and what reads the value could too. The parser's own
    errors (ValueError) pass through. The job file, a job as JSON and the browser app's
    request bodies are read with it."""
    try:
        data = parse(text)
    except RecursionError:
        raise NestedTooDeep from None
    if _depth_over(data, MAX_NESTING):
        raise NestedTooDeep
    return data


def _depth_over(data: Any, limit: int) -> bool:
    """Whether tables and lists nest in ``data`` deeper than ``limit`` (level by level, not
    recursively: a depth past Python's recursion limit is counted too)."""
    level, depth = [data], 0
    while level:
        containers = [v for v in level if isinstance(v, dict | list)]
        if not containers:
            return False
        depth += 1
        if depth > limit:
            return True
        level = [x for c in containers for x in (c.values() if isinstance(c, dict) else c)]
    return False


def _kind(name: str) -> Any:
    """What the TOML value of setting ``name`` is: a type, "list" or "table" (read from
    the declaration of :class:`Settings`)."""
    declared = Settings.option(name).type
    if declared.startswith("tuple["):
        return "list"
    if declared.startswith("Mapping["):
        return "table"
    return {"int": int, "float": float, "str": str}[declared.split(" | ")[0]]


def job_from_mapping(data: Mapping[str, Any], where: str, base: Path | None) -> Settings:
    """The settings of a job file's TOML table (``where`` names it in errors; paths are
    taken relative to ``base``)."""
    from ..data.hierarchy_specs import HIERARCHY_SPECS, is_builder, kind_named

    data = dict(data)
    kinds = {name: _kind(name) for name in Settings.names()}
    lists = [name for name, kind in kinds.items() if kind == "list"]
    tables = {
        key: _table(data.pop(key, {}), f"{where}: [{key}]")
        for key in ("columns", *(name for name, kind in kinds.items() if kind == "table"))
    }
    columns = tables["columns"]
    known = {name for name, kind in kinds.items() if kind != "table"}
    unknown = sorted((set(data) | set(columns)) - known)
    if unknown:
        msg = f"{where}: unknown setting {unknown[0]!r}"
        raise InputError(msg)
    values: dict[str, Any] = {}
    for key, val in data.items():
        if key in lists:
            values[key] = tuple(_as_list(val, f"{where}: {key}"))
        else:
            values[key] = _scalar(key, kinds[key], val, where)
    for key, val in columns.items():
        if key not in lists:
            msg = f"{where}: [columns] {key} is not a list of columns (put it above [columns])"
            raise InputError(msg)
        values[key] = tuple(_as_list(val, f"{where}: columns.{key}"))
    base = base or Path()
    for key, what in (("input", "no input table given"), ("out", "no output file given")):
        if key in values:
            if not str(values[key]).strip():  # else it would name the job file's folder
                msg = f"{where}: {what} ({key} is empty)"
                raise InputError(msg)
            values[key] = str(base / str(values[key]))
    hierarchy = {}
    for col, spec in tables["hierarchy"].items():
        if not isinstance(spec, str):
            msg = f"{where}: hierarchy.{col} must be a file name or a spec: {HIERARCHY_SPECS}"
            raise InputError(msg)
        builder = is_builder(spec) or (kind_named(spec) is not None and not (base / spec).exists())
        hierarchy[str(col)] = spec if builder else str(base / spec)
    values["hierarchy"] = hierarchy
    values["params"] = dict(tables["params"])
    values["weights"] = parse_weights(tables["weights"])
    for key in ("min_level", "max_level"):  # levels read as Settings checks them
        values[key] = parse_levels(tables[key])
    try:
        return Settings(**values)
    except IncrowdError as exc:
        raise type(exc)(f"{where}: {exc.marked()}") from None


def _scalar(key: str, kind: type, value: Any, where: str) -> Any:
    accepted = (int, float) if kind is float else kind
    if isinstance(value, bool) or not isinstance(value, accepted):
        name = {int: "an integer", float: "a number"}.get(kind, "a string")
        msg = f"{where}: {key} must be {name}, got {value!r}"
        raise InputError(msg)
    return value


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        msg = f"{where} must be a table of settings, got {value!r}"
        raise InputError(msg)
    return value


def _as_list(value: Any, where: str) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    msg = f"{where} must be a list of column names"
    raise InputError(msg)


def build_schema(job: Settings, source: pd.DataFrame | TableFile) -> Schema:
    """The schema a job describes, with hierarchies resolved against the table (of a
    :class:`TableFile`, only the quasi-identifiers are read)."""
    from ..data.schema import Schema
    from ..io.tables import TableFile

    if not job.qi:
        msg = f"no quasi-identifiers given ({option('qi', ['a', 'b', 'c'])})"
        raise SchemaError(msg)
    columns = list(source.columns)
    known = [name for name in job.qi if name in columns]
    table = source.read(known) if isinstance(source, TableFile) else source
    for name in job.hierarchy:
        if name not in columns:
            msg = f"unknown column {name!r} (given a hierarchy)"
            raise SchemaError(msg)
        if name not in job.qi:
            msg = f"column {name!r} has a hierarchy but is not a quasi-identifier ({option('qi')})"
            raise SchemaError(msg)
    # the hierarchies are built from the cells as their types read them (Schema.infer)
    schema = Schema.infer(
        table,
        job.qi,
        sensitive=job.sensitive,
        insensitive=job.insensitive,
        identifiers=job.identifier,
        hierarchies=dict(job.hierarchy),
        categorical=job.categorical,
        numeric=job.numeric,
        code=job.code,
        date=job.date,
        thousands=job.thousands,
        decimal=job.decimal,
        date_format=job.date_format,
        missing=job.missing,
        columns=columns,
    )
    return with_weights(schema, job.weights)


#: What a job says of each quasi-identifier by name: lists of names, or tables by name.
PER_QUASI_IDENTIFIER = ("hierarchy", "weights", "min_level", "max_level", "categorical",
                        "numeric", "code", "date")  # fmt: skip


def for_quasi_identifiers(job: Settings, qi: Sequence[str]) -> tuple[Settings, list[str]]:
    """``job`` with ``qi`` as its quasi-identifiers and what it says of the other columns —
    types, hierarchies, weights, level bounds — left out, and those columns: flags that
    choose other quasi-identifiers than a job file (``inspect --write`` describes every
    column it proposed) or a release's record need not undo it column by column."""
    changes: dict[str, Any] = {"qi": tuple(qi)}
    dropped: dict[str, None] = {}
    for key in PER_QUASI_IDENTIFIER:
        said = getattr(job, key)
        if others := [name for name in said if name not in qi]:
            dropped.update(dict.fromkeys(others))
            kept = [name for name in said if name in qi]
            changes[key] = {n: said[n] for n in kept} if isinstance(said, Mapping) else tuple(kept)
    return replace(job, **changes), list(dropped)


def parse_weights(items: Mapping[str, Any]) -> dict[str, float]:
    """Attribute weights from ``{name: number or text}``, as numbers where they read as
    numbers (:class:`Settings` checks them: :func:`incrowd.params.check_weights`)."""
    out: dict[str, Any] = {}
    for name, value in items.items():
        try:
            out[str(name)] = value if isinstance(value, bool) else float(value)
        except (TypeError, ValueError):
            out[str(name)] = value
    return out


def with_weights(schema: Schema, weights: Mapping[str, float]) -> Schema:
    """``schema`` with the given quasi-identifiers' metrics re-weighted."""
    if not weights:
        return schema
    unknown = sorted(set(weights) - set(schema.qi_names))
    if unknown:
        msg = f"weights given for {unknown[0]!r}, which is not a quasi-identifier"
        raise SchemaError(msg)
    qis = {
        name: replace(metric, weight=weights[name]) if name in weights else metric
        for name, metric in schema.quasi_identifiers.items()
    }
    return replace(schema, quasi_identifiers=qis)


def split_list(values: Sequence[str] | None) -> tuple[str, ...]:
    """Flatten repeated and comma-separated option values: ``["a,b", "c"] → ("a", "b", "c")``."""
    out: list[str] = []
    for v in values or ():
        out.extend(p.strip() for p in v.split(",") if p.strip())
    return tuple(out)
