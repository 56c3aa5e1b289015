"""``incrowd inspect``: what incrowd infers of each column of a table — its type, distinct
values, missing cells, a proposed role and hierarchy — and, with ``--write``, the job file
(``incrowd.toml``) that makes every guess explicit for the steward to edit.

The types are :func:`incrowd.data.types.infer_types`'s, the proposals
:func:`~incrowd.data.types.propose_role`'s and :func:`~incrowd.data.types.propose_hierarchy`'s,
each column's row :func:`incrowd.data.inspection.column_row`'s (the browser app shows the
same), and the file :func:`incrowd.pipeline.job_writer.render_job`'s. The job file is a new file:
an existing one is refused, like every output of a command that is not a release
(:func:`incrowd.io.targets.check_new_file`), so a steward's edits are never overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..pipeline.settings import Settings
from ._options import ListOpt, SepOpt, na_values_list
from ._output import errors, out_console, out_json, warn

if TYPE_CHECKING:
    import pandas as pd

    from ..data.types import Inference

__all__ = ["inspect"]

#: The job file's list of each role ``propose_role`` names (withheld: in no list).
_ROLE_LISTS = {"quasi-identifier": "qi", "sensitive": "sensitive", "identifier": "identifier",
               "insensitive": "insensitive", "withheld": "withheld"}  # fmt: skip
#: The job file's list of each column kind (declared kinds, on the command line too).
_KIND_LISTS = {"category": "categorical", "number": "numeric", "code": "code", "date": "date"}
#: Examples shown per column in the table (the JSON has all the inference's).
_EXAMPLES = 3


def _help(name: str) -> str:
    return Settings.option(name).help


def inspect(
    input: Annotated[Path, typer.Argument(help="CSV or Parquet table.")],
    sep: SepOpt = None,
    encoding: Annotated[str | None, typer.Option(help=_help("encoding"))] = None,
    thousands: Annotated[str | None, typer.Option(help=_help("thousands"))] = None,
    decimal: Annotated[str | None, typer.Option(help=_help("decimal"))] = None,
    date_format: Annotated[str | None, typer.Option(help=_help("date_format"))] = None,
    na_values: Annotated[ListOpt, typer.Option(help=_help("na_values"))] = None,
    categorical: Annotated[ListOpt, typer.Option(help="Declare these columns categories.")] = None,
    numeric: Annotated[ListOpt, typer.Option(help="Declare these columns numbers.")] = None,
    code: Annotated[ListOpt, typer.Option(help="Declare these columns codes.")] = None,
    date: Annotated[ListOpt, typer.Option(help="Declare these columns dates.")] = None,
    write: Annotated[
        Path | None,
        typer.Option(help="Write the proposed job file here (a new file, e.g. incrowd.toml)."),
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Show the type, distinct values, missing cells and proposed role and hierarchy of each
    column of INPUT; --write the proposed job file (incrowd anonymize --config FILE)."""
    from ..pipeline.job import split_list

    with errors():
        flags = Settings(
            sep=sep, encoding=encoding, thousands=thousands, decimal=decimal,
            date_format=date_format, na_values=na_values_list(na_values),
            categorical=split_list(categorical), numeric=split_list(numeric),
            code=split_list(code), date=split_list(date),
        )  # fmt: skip
        found, n_rows, marker_lines = _inspect(input, flags, write)
    from ..data.inspection import column_row

    rows = [column_row(inference, n_rows) for inference in found.values()]
    if json_out:
        figures = {"input": str(input), "rows": n_rows, "columns": rows,
                   "job_file": str(write) if write else None}  # fmt: skip
        out_json(figures)
    else:
        _print(rows, input, n_rows)
    for line in dict.fromkeys([*(w for row in rows for w in row["warnings"]), *marker_lines]):
        warn(line)
    if write is not None and not json_out:
        from rich.markup import escape

        out_console.print(f"wrote {escape(str(write))}: edit it, then incrowd anonymize "
                          f"--config {escape(str(write))} --k K --out RELEASE")  # fmt: skip


def _inspect(
    input: Path, flags: Settings, write: Path | None
) -> tuple[dict[str, Any], int, list[str]]:
    """The inferences of every column of ``input``, its rows, and a line per missing-value
    marker (proposed in the job file written, when asked)."""
    from ..data.inspection import proposed_na_values
    from ..data.types import infer_types
    from ..io.atomic import write_new
    from ..io.tables import read_table
    from ..io.targets import check_new_file
    from ..pipeline.job_writer import render_job

    declared = _declared(flags)
    if write is not None:
        check_new_file(write, protect=[input])  # before any work is done
    table = read_table(input, sep=flags.sep, na_values=flags.na_values, encoding=flags.encoding)
    columns = list(table.columns)
    found = infer_types(table, columns, declared=declared, thousands=flags.thousands,
                        decimal=flags.decimal, date_format=flags.date_format)  # fmt: skip
    job_file = None if write is None else str(write)
    na_values, lines = proposed_na_values(table, found, flags.na_values, job_file=job_file)
    if write is not None:
        job = _job(input, flags.replace(na_values=na_values), table, found, declared)
        comments = {name: _comment(inf, len(table)) for name, inf in found.items()}
        write_new(write, render_job(job, comments=comments, base=write.parent).encode())
    return found, len(table), lines


def _declared(flags: Settings) -> dict[str, Any]:
    declared: dict[str, Any] = {}
    for kind, key in _KIND_LISTS.items():
        for name in getattr(flags, key):
            if declared.setdefault(name, kind) != kind:
                from ..errors import SchemaError

                msg = (f"column {name!r} is declared both {_KIND_LISTS[declared[name]]} and "
                       f"{key}")  # fmt: skip
                raise SchemaError(msg)
    return declared


def _job(input: Path, flags: Settings, table: pd.DataFrame, found: dict[str, Inference],
         declared: dict[str, Any]) -> Settings:  # fmt: skip
    """The proposed job: the reading options, each column's role, each QI's kind and
    hierarchy, and a number or date format every column agrees on."""
    import dataclasses

    from ..data.inspection import proposed_role
    from ..data.types import propose_hierarchy

    n_rows = len(table)
    roles: dict[str, list[str]] = {key: [] for key in _ROLE_LISTS.values() if key != "withheld"}
    kinds: dict[str, list[str]] = {key: [] for key in _KIND_LISTS.values()}
    hierarchy: dict[str, str] = {}
    for name, inference in found.items():
        role = _ROLE_LISTS[proposed_role(inference, n_rows)[0]]
        if role == "withheld":  # in no list: the file says so beside a comment line
            continue
        roles[role].append(name)
        # the metric options are the quasi-identifiers' (Schema refuses others); a column no
        # kind reads gets none, so that anonymize names its problem again
        if role == "qi" and inference.problem is None:
            kinds[_KIND_LISTS[inference.type.kind]].append(name)
            spec = propose_hierarchy(inference)
            if spec is not None:
                hierarchy[name] = spec
    formats = _formats(input, flags, table, found, declared)
    lists = {key: tuple(names) for key, names in (roles | kinds).items()}
    # every list replaced, empty ones too (a kind declared for a column that is no QI)
    return dataclasses.replace(flags, input=str(input.absolute()), hierarchy=hierarchy,
                               **formats, **lists)  # fmt: skip


def _formats(input: Path, flags: Settings, table: pd.DataFrame, found: dict[str, Inference],
             declared: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """The number and date format to write: the flags', else the one format the columns
    use, when reading every column with it gives the same kinds (else none: detected again);
    the encoding a CSV file was read with, when it is not UTF-8."""
    from ..data.types import infer_types
    from ..errors import IncrowdError
    from ..io.tables import is_parquet
    from ..io.text_encoding import shown, text_encoding

    out: dict[str, Any] = {}
    types = [inference.type for inference in found.values()]
    numbers = {(t.thousands, t.decimal) for t in types if t.kind == "number"}
    dates = {t.date_format for t in types if t.kind == "date"}
    numbers -= {(None, ".")}
    if flags.thousands is None and flags.decimal is None and len(numbers) == 1:
        out["thousands"], out["decimal"] = numbers.pop()
    if flags.date_format is None and len(dates) == 1 and None not in dates:
        (out["date_format"],) = dates
    if out:
        given = {"thousands": flags.thousands, "decimal": flags.decimal,
                 "date_format": flags.date_format} | out  # fmt: skip
        try:
            again = infer_types(table, list(found), declared=declared, **given)
        except IncrowdError:
            out = {}
        else:
            if any((again[n].type, again[n].problem) != (found[n].type, found[n].problem)
                   for n in found):  # fmt: skip
                out = {}
    if input.is_file() and not is_parquet(input):
        codec = shown(text_encoding(input, flags.encoding))
        if codec != "utf-8":
            out["encoding"] = codec
    return out


def _comment(inference: Inference, n_rows: int) -> str:
    """The one-line comment beside a column in the job file: its type and counts, why it got
    its role, its warnings."""
    from ..data.inspection import proposed_role, shown_type

    role, why = proposed_role(inference, n_rows)
    parts = [f"{shown_type(inference)}, {inference.n_distinct} distinct, "
             f"{_missing(inference.n_missing, inference.marker_cells)} missing",
             f"{role}: {why}",
             *inference.warnings]  # fmt: skip
    return "; ".join(parts)


def _print(rows: list[dict[str, Any]], input: Path, n_rows: int) -> None:
    """The table, as plain aligned text (whole lines, never folded cells): a row per column,
    the role as the job file's list names it, a few examples."""
    from rich.markup import escape

    from ..errors import printable

    header = ("column", "type", "distinct", "missing", "role", "hierarchy", "examples")
    cells = [header] + [(
        row["column"], row["shown_type"], str(row["distinct"]),
        _missing(row["missing"], row["marker_cells"]),
        _ROLE_LISTS[row["role"]], row["hierarchy"] or "-",
        _cut(" | ".join(row["examples"][:_EXAMPLES]))) for row in rows]  # fmt: skip
    cells = [tuple(map(printable, line)) for line in cells]  # aligned as they will show
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    out_console.print(f"{escape(str(input))}: {n_rows} rows, {len(rows)} columns")
    for line in cells:
        text = "  ".join(cell.rjust(w) if i in (2, 3) else cell.ljust(w)
                         for i, (cell, w) in enumerate(zip(line, widths, strict=True)))  # fmt: skip
        out_console.print(escape(text.rstrip()), overflow="ignore", crop=False)


def _missing(cells: int, marker_cells: int) -> str:
    """Missing cells, with a proposed marker's beside them: ``12+37``."""
    return f"{cells}+{marker_cells}" if marker_cells else str(cells)


def _cut(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
