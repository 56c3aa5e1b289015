"""``incrowd verify``: check a written release from the published file alone."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from ._options import ListOpt, QiOpt
from ._output import err_console, errors, out_console

__all__ = ["verify"]


def verify(
    release: Annotated[Path, typer.Argument(help="A written release (CSV, Parquet, dataset).")],
    qi: QiOpt = None,
    k: Annotated[
        int | None, typer.Option("--k", help="Required crowd size.", show_default="the release's")
    ] = None,
    sep: Annotated[str | None, typer.Option(help="Separator (default: detected).")] = None,
    sensitive: Annotated[
        ListOpt, typer.Option(help="Sensitive columns (default: the metadata's).")
    ] = None,
    l: Annotated[  # noqa: E741
        float | None,
        typer.Option(
            "--l",
            help="Check l-diversity with this l (1 with --t 1: k alone).",
            show_default="the release's",
        ),
    ] = None,
    l_kind: Annotated[
        str | None,
        typer.Option(help="distinct | entropy | recursive.", show_default="the release's"),
    ] = None,
    c: Annotated[
        float | None,
        typer.Option("--c", help="recursive (c,l)-diversity: c.", show_default="the release's"),
    ] = None,
    t: Annotated[
        float | None,
        typer.Option("--t", help="Check t-closeness with this t.", show_default="the release's"),
    ] = None,
    t_kind: Annotated[
        str | None,
        typer.Option(help="equal | ordered | auto.", show_default="the release's"),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Check a dataset's files on Dask: local | tcp://HOST:PORT "
            "(k-anonymity and counts; l / t are checked in this process)."
        ),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Local Dask workers.")] = None,
) -> None:
    """Check a release from the published file alone; exit 0 only if it is k-anonymous
    and l-diverse / t-close as its metadata records (or as asked).

    Records whose published quasi-identifiers are identical form one group, so crowds that
    generalize to the same values count together. The quasi-identifiers, k, the sensitive
    columns and the l and t checked are those the release's metadata records, unless told
    otherwise: each of --qi, --k, --sensitive, --l, --l-kind, --c, --t and --t-kind given
    replaces the metadata's value of it, the others stay as recorded (--l 1 --t 1 checks k
    alone). A missing sensitive value counts as one more value. A release is read part by
    part (a dataset's files, a file's chunks), never whole, unless l / t are checked.
    """
    from rich.markup import escape

    from ..pipeline.job import split_list
    from ..privacy.models import Diversity
    from ..privacy.verify import verify as check

    with errors():
        meta, names, k = _recorded(release, qi, k, sep)
        job = _diversity(meta, l=l, l_kind=l_kind, c=c, t=t, t_kind=t_kind)
        if (scheduler or workers is not None) and job.diversity is not None:
            import warnings

            from ..errors import IncrowdWarning

            warnings.warn("l-diversity / t-closeness are checked in this process: --scheduler "
                          "/ --workers have no effect", IncrowdWarning, stacklevel=1)  # fmt: skip
        if (scheduler or workers is not None) and job.diversity is None:
            from ..distributed import verify_release

            report = verify_release(release, list(names), k, sep=sep,
                                    scheduler=scheduler or "local", workers=workers)  # fmt: skip
        else:
            report = check(release, list(names), k, sep=sep, diversity=job.diversity or
                           Diversity(), sensitive=split_list(sensitive) or None)  # fmt: skip
    if report.ok:
        out_console.print(
            f"[bold green]OK[/]: {escape(str(release))} is {k}-anonymous ({report.form} release; "
            f"{report.n_records} records in {report.n_classes} groups of identical "
            f"quasi-identifiers, smallest {report.k_achieved}"
            + (
                f"; {report.n_suppressed_rows} suppressed records published as rows of *"
                if report.n_suppressed_rows
                else ""
            )
            + ")"
            + (f"; every group meets {job.diversity.describe()}" if job.diversity else "")
            + (" (as its metadata records)" if job.diversity and job.recorded else "")
        )
        return
    for problem in report.problems:
        err_console.print(f"[bold red]FAILED[/]: {escape(problem)}", soft_wrap=True)
    raise typer.Exit(1)


def _recorded(release: Path, qi: ListOpt, k: int | None,
              sep: str | None) -> tuple[Any, Sequence[str], int]:  # fmt: skip
    """The release's metadata (None: none beside it), the quasi-identifiers and k checked:
    --qi and --k where given, else the metadata's; an InputError when either is lacking."""
    from ..errors import InputError
    from ..io.release_format import read_release_parts
    from ..pipeline.job import split_list

    if qi is not None and not split_list(qi):
        msg = "no quasi-identifiers in --qi (leave it out to check the release's own)"
        raise InputError(msg)
    meta = read_release_parts(release, sep=sep).metadata
    names = split_list(qi) or (meta.qi if meta is not None else ())
    k = k if k is not None else (meta.k if meta is not None else None)
    if not names or k is None:
        lacking = " and ".join(f for f, v in (("--qi", names), ("--k", k)) if not v)
        msg = (f"give {lacking}: " + (f"the metadata of {release} does not record it"
               if meta is not None else f"{release} has no metadata beside it"))  # fmt: skip
        raise InputError(msg)
    return meta, names, k


class _Checked(NamedTuple):
    diversity: Any  # the Diversity checked, or None: k alone
    recorded: bool  # all of it as the metadata records it


def _diversity(meta: Any, **asked: Any) -> _Checked:
    """The l / t to check: the metadata's (:func:`~incrowd.privacy.verify.diversity_of`),
    each option given replacing its value; checked as a run's settings are."""
    from dataclasses import fields

    from ..pipeline.settings import Settings
    from ..privacy.verify import diversity_of

    recorded = diversity_of(meta) if meta is not None else None
    given = {name: value for name, value in asked.items() if value is not None}
    base = {f.name: getattr(recorded, f.name) for f in fields(recorded)} if recorded else {}
    return _Checked(Settings(**(base | given)).diversity, not given)
