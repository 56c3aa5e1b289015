"""``incrowd methods``: the methods with their guarantees and references."""

from __future__ import annotations

from ._output import out_console

__all__ = ["methods"]


def methods() -> None:
    """List the methods with their guarantees and references."""
    from rich.table import Table

    from ..algorithms.catalogue import CATALOGUE  # no algorithm imported to list them

    grid = Table(show_header=True)
    for col in ("method", "guarantee", "objective", "reference"):
        grid.add_column(col)
    for name, (guarantee, objective, reference) in sorted(CATALOGUE.items()):
        grid.add_row(name, guarantee, objective, reference)
    out_console.print(grid)
