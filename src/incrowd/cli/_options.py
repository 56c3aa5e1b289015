"""The options and arguments several commands share, declared once, reading the tables they
name, and the command classes every command uses.

The declarations are ``Annotated`` aliases: typer reads them from a command module's
globals, so a command module imports the ones its signature names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from ..params import RISK_THRESHOLD, RISK_THRESHOLD_DEFAULT
from ..pipeline.settings import Settings
from ._output import parse_pairs

__all__ = [
    "REQUIRED",
    "RISK_THRESHOLD",
    "RISK_THRESHOLD_DEFAULT",
    "Command",
    "ConfigOpt",
    "EncodingOpt",
    "Group",
    "HierarchyOpt",
    "LabelsOpt",
    "ListOpt",
    "MissingOpt",
    "NumbersOpt",
    "OriginalArg",
    "QiOpt",
    "ReleaseArg",
    "RiskThresholdOpt",
    "SepOpt",
    "ThresholdOpt",
    "check_risk_threshold",
    "na_values_list",
    "read_options",
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
QiOpt = Annotated[
    ListOpt, typer.Option("--qi", help="Quasi-identifier columns (default: the release's).")
]
ConfigOpt = Annotated[
    Path | None, typer.Option(help="TOML job file (the release's metadata, then it, then flags).")
]
EncodingOpt = Annotated[str | None, typer.Option(help=Settings.option("encoding").help)]
SepOpt = Annotated[str | None, typer.Option(help=Settings.option("sep").help)]
OriginalArg = Annotated[Path, typer.Argument(help="The original table.")]
ReleaseArg = Annotated[Path, typer.Argument(help="A written release of it.")]
HierarchyOpt = Annotated[ListOpt, typer.Option(help=Settings.option("hierarchy").help)]
LabelsOpt = Annotated[ListOpt, typer.Option(help=Settings.option("categorical").help)]
NumbersOpt = Annotated[ListOpt, typer.Option(help=Settings.option("numeric").help)]
MissingOpt = Annotated[
    str | None,
    typer.Option(help=Settings.option("missing").help, show_default="the release's, else keep"),
]


def _threshold_option(flag: str) -> Any:
    return Annotated[
        float,
        typer.Option(
            flag,
            help="Re-identification probability above which a "
            f"record is at risk, in {RISK_THRESHOLD.describe()}.",
        ),
    ]


RiskThresholdOpt = _threshold_option("--risk-threshold")
ThresholdOpt = _threshold_option("--threshold")


def read_options(given: Mapping[str, Any]) -> Any:
    """The :class:`~incrowd.report.reading.ReadOptions` among a command's arguments
    (``locals()`` at its start: the options above it names), ``--hierarchy``'s pairs
    parsed."""
    from ..report.reading import ReadOptions

    names = [f.name for f in dataclasses.fields(ReadOptions)]
    found = {name: given[name] for name in names if name in given}
    found["hierarchy"] = parse_pairs(given.get("hierarchy"), "--hierarchy")
    return ReadOptions(**found)


def na_values_list(values: list[str] | None) -> tuple[str, ...]:
    """``--na-values`` as tokens (:func:`incrowd.io.missing.parse_na_values`: a value given
    empty, ``--na-values ''``, turns the default missing tokens off)."""
    from ..io.missing import parse_na_values

    return parse_na_values(values)


def check_risk_threshold(flag: str, value: float) -> None:
    """The one check of a risk threshold given on the command line (a
    :class:`~incrowd.ParameterError` naming ``flag``)."""
    RISK_THRESHOLD.check(flag, value, 0)
