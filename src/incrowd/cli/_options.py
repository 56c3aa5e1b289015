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


def original_and_release(
    input: Path,
    release: Path,
    *,
    config: Path | None = None,
    **flags: Any,
) -> tuple[Any, Any, Any]:
    """The original table (read and missing values handled as the release was made), its
    schema, and the written release.

    The settings start from what the release's metadata records (its schema and reading
    options: :mod:`incrowd.pipeline.record`), then ``config`` (a job file), then the
    ``flags`` given (``qi``, ``hierarchy``, ``categorical``, ``numeric``, ``sensitive``,
    ``sep``, ``missing``, ``encoding``: the command line's values, None when not given).
    """
    import dataclasses
    import warnings

    from ..data.columns import handle_missing
    from ..errors import IncrowdWarning, InputError
    from ..io.release_format import file_sha256
    from ..io.tables import read_table
    from ..pipeline.job import build_schema, split_list
    from ..pipeline.record import changed_hierarchies, settings_of_record
    from ..release import read_release

    files = read_release(release)
    meta = files.metadata
    job = Settings(**settings_of_record(meta.schema if meta is not None else None))
    if config is not None:
        given = Settings.from_toml(config)
        job = job.replace(
            **{
                name: value
                for name in Settings.names()
                if (value := getattr(given, name)) != Settings.option(name).default
            }
        )
    qi = split_list(flags.get("qi"))
    if qi:  # other quasi-identifiers than recorded: the recorded types of others go
        job = dataclasses.replace(
            job, qi=qi, hierarchy={c: s for c, s in job.hierarchy.items() if c in qi},
            **{kind: tuple(c for c in getattr(job, kind) if c in qi)
               for kind in ("categorical", "numeric", "code", "date")},
        )  # fmt: skip
    declared = {"categorical": split_list(flags.get("categorical")),
                "numeric": split_list(flags.get("numeric"))}  # fmt: skip
    flagged = {c for names in declared.values() for c in names}
    if flagged:  # a type given by a flag replaces the recorded one of that column
        job = dataclasses.replace(job, **{
            kind: tuple(c for c in getattr(job, kind) if c not in flagged)
            for kind in ("categorical", "numeric", "code", "date")})  # fmt: skip
    job = job.replace(
        sensitive=split_list(flags.get("sensitive")),
        hierarchy=parse_pairs(flags.get("hierarchy"), "--hierarchy"),
        categorical=declared["categorical"],
        numeric=declared["numeric"],
        sep=flags.get("sep"),
        missing=flags.get("missing"),
        encoding=flags.get("encoding"),
    )
    if not job.qi:
        msg = (f"no quasi-identifiers: give --qi (the metadata of {release} records none)"
               if meta is not None else f"no quasi-identifiers: give --qi ({release} has no "
               "metadata beside it)")  # fmt: skip
        raise InputError(msg)
    recorded = (meta.input or {}).get("sha256") if meta is not None else None
    if recorded is not None and Path(input).is_file() and file_sha256(Path(input)) != recorded:
        warnings.warn(f"{input} is not the input {release} was made from (its SHA-256 "
                      "differs): the figures compare another table", IncrowdWarning,
                      stacklevel=2)  # fmt: skip
    table = read_table(input, sep=job.sep, na_values=job.na_values, encoding=job.encoding)
    schema = build_schema(job, table)
    for line in changed_hierarchies(schema, meta.schema if meta is not None else None):
        warnings.warn(line, IncrowdWarning, stacklevel=2)
    table, _ = handle_missing(table, schema, job.missing)  # type: ignore[arg-type]
    return table, schema, files
