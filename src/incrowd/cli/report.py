"""``incrowd report``: one self-contained HTML page on a release, its verdict, and a PDF.

Exit codes: 0 when the report is written and the verdict passes ``--fail-on``; 1 when the
report is written but the verdict fails (with ``--fail-on warning``: or has any warning),
as ``incrowd verify`` exits 1 on a release that fails its check; 2 for a user error (a
stale release, a file it may not replace, no browser engine for ``--pdf``: one line).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from ..params import Interval, OneOf
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
from ._output import errors, out_console, warn

__all__ = ["FAIL_ON", "RISK_THRESHOLD", "report"]

#: ``--fail-on``: the verdicts that give exit code 1.
FAIL_ON = OneOf("warning", "failure")
#: ``--risk-threshold``: a re-identification probability (as ``incrowd risk --threshold``).
RISK_THRESHOLD = Interval(0.0, 1.0, open_low=True, closed_high=True)


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
    risk_threshold: Annotated[
        float,
        typer.Option(
            "--risk-threshold",
            help=f"Re-identification probability above which a record is at risk, in "
            f"{RISK_THRESHOLD.describe()}.",
        ),
    ] = 0.2,
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

    from ..io.release_format import file_sha256
    from ..io.targets import check_report_target
    from ..report import build_report

    with errors():
        if out.suffix.lower() not in (".html", ".htm"):
            raise InputError(f"--out must end in .html, got {out}")
        RISK_THRESHOLD.check("--risk-threshold", risk_threshold, 0)
        FAIL_ON.check("--fail-on", fail_on, 0)
        printed = out.with_suffix(".pdf")
        for target in (out, printed) if pdf else (out,):
            check_report_target(target, protect=[input, release])
        with warnings.catch_warnings():
            # the page compares the input's SHA-256 itself, and its warning is printed below
            warnings.filterwarnings("ignore", f"{re.escape(str(input))} is not the input")
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
        refuse_stale(release, files)
        sources: dict[str, tuple[str, str]] = {}
        if input.is_file():
            sources["input"] = (input.name, file_sha256(input))
        if isinstance(files.sha256, str):  # a dataset's parts are each checked above
            sources["release"] = (release.name, files.sha256)
        result = build_report(table, files.table, schema, files.metadata,
                              title=f"incrowd report: {release.name}", sources=sources,
                              risk_threshold=risk_threshold)  # fmt: skip
        page = result.html.encode()
        write_report(out, page)
    out_console.print(f"wrote {_shown(out)} ({len(page) / 1024:.0f} KiB)")
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


def refuse_stale(release: Path, files: Any) -> None:
    """An :class:`~incrowd.InputError` when the release's table no longer matches the SHA-256
    its metadata records (edited or replaced after it was written)."""
    from ..io.release_format import changed_files
    from ..io.targets import metadata_path

    if files.metadata is None:
        return
    altered = changed_files(files.metadata, files.sha256)
    if altered:
        msg = (f"{release} no longer matches its metadata {metadata_path(release).name} (the "
               f"SHA-256 of {', '.join(altered)} differs from the one recorded): it was edited "
               "or replaced after it was written; no report written")  # fmt: skip
        raise InputError(msg)


def write_report(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` by the commit protocol, replacing only a report incrowd
    wrote (checked again under the commit's lock)."""
    from ..io.atomic import Output, commit
    from ..io.targets import is_report, report_refusal

    commit([Output(path, lambda fh: fh.write(data), replaceable=is_report)],
           refuse_message=report_refusal)  # fmt: skip


def _shown(text: object) -> str:
    from rich.markup import escape

    return escape(str(text))
