"""``incrowd hierarchy regions | rectangles | bins``: build a generalization hierarchy (ARX
format) for one attribute, one level per k."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from ._options import Command, Group, SepOpt
from ._output import errors, out_console

__all__ = ["hierarchy_app"]


hierarchy_app = typer.Typer(
    cls=Group,
    no_args_is_help=True,
    # plain click help: rich's help renderer costs ~0.1 s of every start (benchmarks/cold_start.py)
    rich_markup_mode=None,
    help="Build a generalization hierarchy (ARX format) for one attribute, one level per k.",
)

KList = Annotated[str, typer.Option("--k", help="Class sizes, comma-separated (20000,100000).")]
OutFile = Annotated[Path, typer.Option("--out", help="The hierarchy file to write (new).")]
CountOpt = Annotated[
    str | None,
    typer.Option(help="Column of records per value.", show_default="one record per row"),
]


def _k_list(text: str) -> list[int]:
    from ..pipeline.job import split_list

    out = []
    for part in split_list([text]):
        try:
            out.append(int(part))
        except ValueError:
            msg = f"--k must be whole numbers separated by commas, got {part!r}"
            raise InputError(msg) from None
    if not out:
        raise InputError("--k needs at least one class size")
    return out


def _build_hierarchy(
    input: Path, out: Path, sep: str | None, build: object, also: Sequence[Path] = ()
) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ..io.tables import check_sep, read_table
    from ..io.targets import check_new_file

    with errors():
        check_sep(sep)
        check_new_file(out, protect=[input, *also])
        table = read_table(input, sep=sep)
        built = build(table)  # type: ignore[operator]
        built.hierarchy  # noqa: B018 - validated before it is written
        built.write(out)
    grid = Table(show_header=True, title=f"hierarchy levels of {escape(str(out))}")
    for col in ("k", "classes", "largest", "lower bound", "certified ratio", "proven bound"):
        grid.add_column(col, justify="right")
    for level in built.levels:
        grid.add_row(
            str(level.k), str(level.n_classes), str(level.largest), str(level.lower_bound),
            f"{level.certified_ratio:.3f}", "—" if level.bound is None else str(level.bound),
        )  # fmt: skip
    out_console.print(grid)
    out_console.print(f"wrote {escape(str(out))} ({len(built.rows)} values)")


@hierarchy_app.command("regions", cls=Command)
def hierarchy_regions(
    input: Annotated[Path, typer.Argument(help="CSV or Parquet: a row per place or record.")],
    value: Annotated[str, typer.Option(help="The attribute (zip code) column.")],
    k: KList,
    out: OutFile,
    lat: Annotated[str | None, typer.Option(help="Latitude column.")] = None,
    lon: Annotated[str | None, typer.Option(help="Longitude column.")] = None,
    count: CountOpt = None,
    adjacency: Annotated[
        Path | None,
        typer.Option(
            help="CSV of neighbouring values (first two columns), instead of the "
            "Delaunay graph of --lon/--lat."
        ),
    ] = None,
    sep: SepOpt = None,
) -> None:
    """Connected regions of a planar graph of the places (Du et al., Thm 3): the Delaunay
    triangulation of their points, or the adjacency given."""
    from ..hierarchies import region_hierarchy
    from ..io.tables import read_table

    with errors():
        ks = _k_list(k)
        pairs = read_table(adjacency) if adjacency is not None else None
    _build_hierarchy(input, out, sep, lambda t: region_hierarchy(
        t, value=value, lon=lon, lat=lat, k=ks, count=count, adjacency=pairs),
        also=[adjacency] if adjacency else [])  # fmt: skip


@hierarchy_app.command("rectangles", cls=Command)
def hierarchy_rectangles(
    input: Annotated[Path, typer.Argument(help="CSV or Parquet: a row per place or record.")],
    value: Annotated[str, typer.Option(help="The attribute (place id) column.")],
    lat: Annotated[str, typer.Option(help="Latitude column.")],
    lon: Annotated[str, typer.Option(help="Longitude column.")],
    k: KList,
    out: OutFile,
    count: CountOpt = None,
    sep: SepOpt = None,
) -> None:
    """Boxes of a kd-tree over the places' points (Du et al., Thm 4)."""
    from ..hierarchies import rectangle_hierarchy

    with errors():
        ks = _k_list(k)
    _build_hierarchy(input, out, sep, lambda t: rectangle_hierarchy(
        t, value=value, lon=lon, lat=lat, k=ks, count=count))  # fmt: skip


@hierarchy_app.command("bins", cls=Command)
def hierarchy_bins(
    input: Annotated[Path, typer.Argument(help="CSV or Parquet: a row per label or record.")],
    value: Annotated[str, typer.Option(help="The label column.")],
    k: KList,
    out: OutFile,
    count: CountOpt = None,
    algorithm: Annotated[
        str, typer.Option(help="fold | spread | theorem9 | ptas | exact.")
    ] = "theorem9",
    order: Annotated[
        str, typer.Option(help="fold / spread: given | random | ascending | descending.")
    ] = "given",
    seed: Annotated[int | None, typer.Option(help="Seed of the random order.")] = None,
    epsilon: Annotated[float, typer.Option(help="ptas: its epsilon.")] = 0.5,
    sep: SepOpt = None,
) -> None:
    """Classes of labels by min-max bin covering (Du et al., Sec. 4)."""
    from ..hierarchies import label_hierarchy

    with errors():
        ks = _k_list(k)
        if order not in ("given", "random", "ascending", "descending"):
            msg = f"--order must be given, random, ascending or descending, got {order!r}"
            raise InputError(msg)
    _build_hierarchy(input, out, sep, lambda t: label_hierarchy(
        t, value=value, k=ks, count=count, algorithm=algorithm, order=order,  # type: ignore[arg-type]
        seed=seed, epsilon=epsilon))  # fmt: skip
