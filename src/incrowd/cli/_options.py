"""The options and arguments several commands share, declared once, reading the tables they
name, and the command classes every command uses.

The declarations are ``Annotated`` aliases: typer reads them from a command module's
globals, so a command module imports the ones its signature names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ..pipeline.settings import Settings
from ._output import parse_pairs

__all__ = [
    "REQUIRED",
    "Command",
    "Group",
    "HierarchyOpt",
    "LabelsOpt",
    "ListOpt",
    "MissingOpt",
    "NumbersOpt",
    "OriginalArg",
    "QiOpt",
    "ReleaseArg",
    "SepOpt",
    "original_and_release",
]

ListOpt = list[str] | None


def _help_flag(option: Any) -> Any:
    """The ``--help`` flag, off by default rather than unset: typer takes a flag's boolean
    as it is, but builds a pydantic validator for an unset one, and importing pydantic was
    the largest part of starting ``incrowd methods``."""
    if option is not None and option.default is None:
        option.default = False
    return option


class Command(TyperCommand):
    """A command whose ``--help`` flag starts fast (:func:`_help_flag`)."""

    def get_help_option(self, ctx: Any) -> Any:
        return _help_flag(super().get_help_option(ctx))


class Group(TyperGroup):
    """A group of commands whose ``--help`` flag starts fast (:func:`_help_flag`)."""

    def get_help_option(self, ctx: Any) -> Any:
        return _help_flag(super().get_help_option(ctx))


REQUIRED = "(required unless given in --config)"
QiOpt = Annotated[list[str], typer.Option("--qi", help="Quasi-identifier columns.")]
SepOpt = Annotated[str | None, typer.Option(help=Settings.option("sep").help)]
OriginalArg = Annotated[Path, typer.Argument(help="The original table.")]
ReleaseArg = Annotated[Path, typer.Argument(help="A written release of it.")]
HierarchyOpt = Annotated[ListOpt, typer.Option(help="COLUMN=FILE|prefix|intervals:...")]
LabelsOpt = Annotated[ListOpt, typer.Option(help=Settings.option("categorical").help)]
NumbersOpt = Annotated[ListOpt, typer.Option(help=Settings.option("numeric").help)]
MissingOpt = Annotated[str, typer.Option(help="error | drop | category.")]


def original_and_release(
    input: Path,
    release: Path,
    qi: list[str],
    hierarchy: ListOpt,
    categorical: ListOpt,
    numeric: ListOpt,
    sensitive: ListOpt,
    sep: str | None,
    missing: str,
) -> tuple[Any, Any, Any]:
    """The original table (missing values handled), its schema, and the written release."""
    from ..data.columns import handle_missing
    from ..io.tables import read_table
    from ..pipeline.job import build_schema, split_list
    from ..release import read_release

    table = read_table(input, sep=sep)
    job = Settings(
        qi=split_list(qi),
        sensitive=split_list(sensitive),
        hierarchy=parse_pairs(hierarchy, "--hierarchy"),
        categorical=split_list(categorical),
        numeric=split_list(numeric),
    )
    schema = build_schema(job, table)
    table, _ = handle_missing(table, schema, missing)  # type: ignore[arg-type]
    return table, schema, read_release(release)
