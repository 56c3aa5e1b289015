"""``incrowd report``: one self-contained HTML page on a release, its verdict, and a PDF.

Exit codes: 0 when the report is written and the verdict passes ``--fail-on``; 1 when the
report is written but the verdict fails (with ``--fail-on warning``: or has any warning),
as ``incrowd verify`` exits 1 on a release that fails its check; 2 for a user error (a
stale release, a file it may not replace, no browser engine for ``--pdf``: one line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import InputError
from ..params import OneOf
from ._options import (
    RISK_THRESHOLD_DEFAULT,
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
    RiskThresholdOpt,
    SepOpt,
    check_risk_threshold,
    read_options,
)
from ._output import errors, out_console, warn

__all__ = ["FAIL_ON", "report"]

#: ``--fail-on``: the verdicts that give exit code 1.
FAIL_ON = OneOf("warning", "failure")


def report(
    input: OriginalArg,
    release: ReleaseArg,
    out: Annotated[
        Path,
        typer.Option("--out", help="The HTML file to write (new, or a report incrowd wrote)."),
    ],
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
    fail_on: Annotated[
        str,
        typer.Option(
            "--fail-on",
            help="Exit 1 when the verdict fails (failure) or has any warning (warning); "
            "the report is written either way.",
        ),
    ] = "failure",
    risk_threshold: RiskThresholdOpt = RISK_THRESHOLD_DEFAULT,
    pdf: Annotated[
        bool,
        typer.Option(
            "--pdf", help="Also print the page to a PDF beside it (.pdf) with headless Chromium."
        ),
    ] = False,
) -> None:
    """Write one self-contained HTML page on RELEASE: verdict, provenance, loss, risk,
    diversity; exit 1 when the verdict fails (--fail-on)."""
    import re
    import warnings

    from ..io.targets import check_report_target
    from ..report.reading import load, refuse_stale, report_on_files, write_report

    with errors():
        if out.suffix.lower() not in (".html", ".htm"):
            raise InputError(f"--out must end in .html, got {out}")
        check_risk_threshold("--risk-threshold", risk_threshold)
        FAIL_ON.check("--fail-on", fail_on, 0)
        printed = out.with_suffix(".pdf")
        for target in (out, printed) if pdf else (out,):
            check_report_target(target, protect=[input, release])
        with warnings.catch_warnings():
            # the page compares the input's SHA-256 itself, and its warning is printed below
            warnings.filterwarnings("ignore", f"{re.escape(str(input))} is not the input")
            loaded = load(input, release, read_options(locals()))
        refuse_stale(release, loaded.files)
        result = report_on_files(input, release, loaded, risk_threshold=risk_threshold)
        size = write_report(out, result.html.encode())  # sealed as it is written
    out_console.print(f"wrote {_shown(out)} ({size / 1024:.0f} KiB)")
    out_console.print(f"verdict: {result.verdict}")
    for line in result.warnings:
        warn(line)
    if pdf:
        from ..report.pdf import find_engine, print_pdf

        with errors():
            engine = find_engine()
            data = print_pdf(out, engine)
            write_report(printed, data)
        out_console.print(f"wrote {_shown(printed)} ({len(data) / 1024:.0f} KiB) with "
                          f"{_shown(engine.version)}")  # fmt: skip
    warned = result.verdict != "holds" or bool(result.warnings)
    if result.verdict == "fails" or (fail_on == "warning" and warned):
        raise typer.Exit(1)


def _shown(text: object) -> str:
    from rich.markup import escape

    return escape(str(text))
