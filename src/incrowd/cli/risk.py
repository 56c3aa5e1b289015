"""``incrowd risk``: the re-identification risk of a release."""

from __future__ import annotations

from typing import Annotated

import typer

from ._options import (
    RISK_THRESHOLD_DEFAULT,
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
    ThresholdOpt,
    check_risk_threshold,
    read_options,
)
from ._output import errors, out_console

__all__ = ["risk"]


def risk(
    input: OriginalArg,
    release: ReleaseArg,
    qi: QiOpt = None,
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    k: Annotated[
        int | None, typer.Option("--k", help="Crowd size to check.", show_default="the release's")
    ] = None,
    threshold: ThresholdOpt = RISK_THRESHOLD_DEFAULT,
    sep: SepOpt = None,
    missing: MissingOpt = None,
    encoding: EncodingOpt = None,
    config: ConfigOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Re-identification risk of RELEASE: prosecutor, journalist, marketer, and a linkage
    attack with every original record's quasi-identifiers."""
    import json

    from rich.markup import escape
    from rich.table import Table

    from ..io.release_format import strict_json
    from ..measures.risk import assess_risk
    from ..report.reading import load

    with errors():
        check_risk_threshold("--threshold", threshold)
        loaded = load(input, release, read_options(locals()))
        table, schema, files = loaded.table, loaded.schema, loaded.files
        report = assess_risk(table, files.table, schema, k=k, metadata=files.metadata,
                             threshold=threshold)  # fmt: skip
    figures = report.to_dict()
    if json_out:
        typer.echo(json.dumps(strict_json(figures), indent=2, allow_nan=False))
        return
    grid = Table(title=f"re-identification risk of {escape(str(release))}", show_header=True)
    for col in ("model", "highest", "average", f"records above {threshold:g}"):
        grid.add_column(col, justify="right")

    def shown(v: object) -> str:
        return "—" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))

    for name in ("prosecutor", "journalist"):
        f = figures[name]
        grid.add_row(name, shown(f["highest"]), shown(f["average"]), shown(f["records_at_risk"]))
    grid.add_row("marketer", "", shown(figures["marketer"]), "")
    out_console.print(grid)
    link = figures["linkage"]
    out_console.print(
        f"linkage attack ({report.n_input} original records against {report.n_classes} "
        f"published classes): highest re-identification probability "
        f"{shown(link['max_reidentification_probability'])}, "
        f"{shown(link['records_below_k'])} records with fewer than k={report.k} consistent "
        f"records, {shown(link['records_unmatched'])} consistent with none"
    )
    for name, f in report.attribute_disclosure.items():
        out_console.print(
            f"attribute disclosure of {escape(repr(name))}: {f['records']} records in "
            f"{f['classes']} classes that hold a single value of it (at risk whatever k is; "
            "--l 2 when anonymizing prevents it)"
        )
