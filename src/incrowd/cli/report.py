"""``incrowd report``: one self-contained HTML page on a release."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from ._options import (
    ConfigOpt,
    EncodingOpt,
    HierarchyOpt,
    LabelsOpt,
    ListOpt,
    MissingOpt,
    NumbersOpt,
    OriginalArg,
    QiOpt,
    ReleaseArg,
    SepOpt,
    original_and_release,
)
from ._output import errors, out_console

__all__ = ["report"]


def report(
    input: OriginalArg,
    release: ReleaseArg,
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write (new).")],
    qi: QiOpt = None,
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    sensitive: Annotated[
        ListOpt, typer.Option(help="Sensitive columns (default: the metadata's).")
    ] = None,
    sep: SepOpt = None,
    missing: MissingOpt = None,
    encoding: EncodingOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Write one self-contained HTML page on RELEASE: guarantee, loss, risk, diversity."""
    from rich.markup import escape

    from ..io.atomic import write_new
    from ..io.targets import check_new_file
    from ..report import build_report

    with errors():
        if out.suffix.lower() not in (".html", ".htm"):
            raise InputError(f"--out must end in .html, got {out}")
        check_new_file(out, protect=[input, release])
        table, schema, files = original_and_release(
            input,
            release,
            config=config,
            qi=qi,
            hierarchy=hierarchy,
            categorical=categorical,
            numeric=numeric,
            sensitive=sensitive,
            sep=sep,
            missing=missing,
            encoding=encoding,
        )
        page = build_report(table, files.table, schema, files.metadata,
                            title=f"incrowd report: {release.name}").encode()  # fmt: skip
        write_new(out, page)
    out_console.print(f"wrote {escape(str(out))} ({len(page) / 1024:.0f} KiB)")
