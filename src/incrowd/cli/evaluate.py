"""``incrowd evaluate``: the information loss of a release relative to its original."""

from __future__ import annotations

from typing import Any

from ._options import (
    ConfigOpt,
    EncodingOpt,
    HierarchyOpt,
    LabelsOpt,
    MissingOpt,
    NumbersOpt,
    OriginalArg,
    QiOpt,
    ReleaseArg,
    SepOpt,
    read_options,
)
from ._output import errors, out_console

__all__ = ["evaluate"]


def evaluate(
    input: OriginalArg,
    release: ReleaseArg,
    qi: QiOpt = None,
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    sep: SepOpt = None,
    missing: MissingOpt = None,
    encoding: EncodingOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Print the information loss of RELEASE relative to INPUT."""
    from rich.markup import escape
    from rich.table import Table

    from ..measures.loss import evaluate_release
    from ..report.reading import load

    with errors():
        loaded = load(input, release, read_options(locals()))
        table, schema, files = loaded.table, loaded.schema, loaded.files
        meta = files.metadata
        figures = evaluate_release(table, files.table, schema, meta)
    grid = Table(title=f"information loss of {escape(str(release))}", show_header=True)
    grid.add_column("measure")
    grid.add_column("value", justify="right")
    grid.add_column("recorded at release", justify="right")
    recorded: dict[str, Any] = {}
    if meta is not None:
        recorded = dict(meta.loss) | {
            "n_input": meta.n_input, "n_released": meta.n_released,
            "n_suppressed": meta.n_suppressed, "n_groups": meta.n_groups,
            "k_achieved": meta.k_achieved,
        }  # fmt: skip
    for key, value in figures.items():
        shown = "—" if value is None else (f"{value:.6g}" if isinstance(value, float) else value)
        rec = recorded.get(key)
        rec_shown = "" if rec is None else (f"{rec:.6g}" if isinstance(rec, float) else str(rec))
        grid.add_row(key, str(shown), rec_shown)
    out_console.print(grid)
