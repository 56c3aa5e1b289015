"""The ``incrowd`` command line: anonymize, verify, evaluate, risk, report, methods, hierarchy.

Every anticipated problem (an :class:`IncrowdError`) is reported as one line on standard
error with exit code 2, and leaves no output file behind. ``incrowd verify`` exits 1 when a
release is not k-anonymous.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from .. import __version__
from ..errors import InputError
from ..pipeline.job import Job
from ._output import (
    TERMINATED,
    err_console,
    error,
    errors,
    literal,
    native_stdout_hidden,
    out_console,
    parse_pairs,
    progress,
    quiet_unraisable,
    terminate,
)

ListOpt = list[str] | None

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Publish tables of personal records so that everyone hides in a crowd of at least k.",
)
REQUIRED = "(required unless given in --config)"
QiOpt = Annotated[list[str], typer.Option("--qi", help="Quasi-identifier columns.")]
SepOpt = Annotated[str | None, typer.Option(help="Input separator (default: detected).")]


@app.command()
def anonymize(
    input: Annotated[
        Path | None, typer.Argument(help=f"CSV or Parquet table. {REQUIRED}", show_default=False)
    ] = None,
    qi: Annotated[
        ListOpt, typer.Option("--qi", help=f"Quasi-identifier columns (a,b,c). {REQUIRED}")
    ] = None,
    k: Annotated[int | None, typer.Option("--k", help=f"Minimum crowd size. {REQUIRED}")] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help=f"Release (.csv, .parquet; blockwise: a dataset); JSON beside it. {REQUIRED}",
        ),
    ] = None,
    sensitive: Annotated[ListOpt, typer.Option(help="Sensitive columns.")] = None,
    identifier: Annotated[ListOpt, typer.Option(help="Identifier columns (never output).")] = None,
    insensitive: Annotated[ListOpt, typer.Option(help="Columns passed through.")] = None,
    hierarchy: Annotated[
        ListOpt,
        typer.Option(help="COLUMN=FILE (ARX CSV), COLUMN=prefix or COLUMN=intervals:5,10,20."),
    ] = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    method: Annotated[
        str | None,
        typer.Option(
            help="See `incrowd methods`.",
            show_default="local-recoding (generalized release), mdav (the others)",
        ),
    ] = None,
    param: Annotated[ListOpt, typer.Option(help="Method parameter NAME=VALUE.")] = None,
    epsilon: Annotated[
        float | None, typer.Option(help="Fraction of records that may stay unclustered.")
    ] = None,
    max_clusters: Annotated[
        int | None, typer.Option(help="Largest number of crowds (kr-center methods).")
    ] = None,
    norm: Annotated[
        int | None,
        typer.Option(help="Distance: 1 (L1) or 2 (Euclidean).", show_default="the method's"),
    ] = None,
    release: Annotated[
        str | None,
        typer.Option(help="generalized | microaggregated | centers.", show_default=Job.release),
    ] = None,
    center: Annotated[
        str | None,
        typer.Option(help="centers release: centroid | medoid.", show_default="centroid"),
    ] = None,
    generalize: Annotated[
        str | None,
        typer.Option(
            help="generalized release: hierarchy levels | value sets {a|b}.",
            show_default=Job.generalize,
        ),
    ] = None,
    weights: Annotated[
        ListOpt, typer.Option(help="Attribute weights NAME=W (age=2,sex=1); default 1.")
    ] = None,
    allow_deletion: Annotated[
        bool,
        typer.Option(help="forest: delete a row (counted as suppressed) when that costs less."),
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed for the row shuffle and a method's random choices (>= 0).",
            show_default="drawn and recorded",
        ),
    ] = None,
    sep: SepOpt = None,
    na_values: Annotated[ListOpt, typer.Option(help="Extra tokens meaning missing.")] = None,
    missing: Annotated[
        str | None,
        typer.Option(
            help="Missing QI values: error | drop (leave the records out, counted as "
            "suppressed) | category (a value of its own).",
            show_default=Job.missing,
        ),
    ] = None,
    csv_formulas: Annotated[
        str | None,
        typer.Option(
            help="CSV cells a spreadsheet would run (=, +, -, @): escape with a leading ' "
            "| refuse.",
            show_default=Job.csv_formulas,
        ),
    ] = None,
    l: Annotated[  # noqa: E741 - the literature's name
        float | None,
        typer.Option("--l", help="l-diversity of every crowd on every sensitive column."),
    ] = None,
    l_kind: Annotated[
        str | None, typer.Option(help="distinct | entropy | recursive.", show_default="distinct")
    ] = None,
    c: Annotated[float | None, typer.Option("--c", help="recursive (c,l)-diversity: c.")] = None,
    t: Annotated[
        float | None, typer.Option("--t", help="t-closeness of every crowd (0-1).")
    ] = None,
    t_kind: Annotated[
        str | None,
        typer.Option(help="equal | ordered | auto (ordered for numbers).", show_default="auto"),
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Blockwise on Dask: local | tcp://HOST:PORT | sync (one process)."),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Local Dask workers.")] = None,
    block_size: Annotated[
        int | None, typer.Option(help="Largest block (records), by median cuts on the QIs.")
    ] = None,
    blocks: Annotated[
        int | None, typer.Option(help="Number of blocks (instead of --block-size).")
    ] = None,
    block_by: Annotated[ListOpt, typer.Option(help="Block by these columns' values.")] = None,
    spill: Annotated[
        str | None,
        typer.Option(
            help="Blockwise: stream INPUT into blocks on disk (auto | always | never; "
            "auto: when it is large against the memory available)."
        ),
    ] = None,
    config: Annotated[Path | None, typer.Option(help="TOML job file (flags override it).")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress display.")] = False,
) -> None:
    """Anonymize INPUT and write the release and its JSON metadata."""
    from ..io.release_format import check_release_target
    from ..io.tables import TableFile, check_sep, read_table
    from ..pipeline.job import build_schema, parse_weights, split_list
    from ..pipeline.run import anonymize as run
    from ..release import metadata_path

    with errors():
        job = Job.from_toml(config) if config else Job()
        job = job.merged(
            input=str(input) if input else None,
            out=str(out) if out else None,
            k=k,
            method=method,
            release=release,
            center=center,
            generalize=generalize,
            csv_formulas=csv_formulas,
            l=l,
            l_kind=l_kind,
            c=c,
            t=t,
            t_kind=t_kind,
            scheduler=scheduler,
            workers=workers,
            block_size=block_size,
            blocks=blocks,
            block_by=split_list(block_by),
            spill=spill,
            weights=parse_weights(parse_pairs(list(split_list(weights)), "--weights"), "--weights"),
            seed=seed,
            sep=sep,
            missing=missing,
            na_values=split_list(na_values),
            qi=split_list(qi),
            sensitive=split_list(sensitive),
            identifier=split_list(identifier),
            insensitive=split_list(insensitive),
            categorical=split_list(categorical),
            numeric=split_list(numeric),
            hierarchy=parse_pairs(hierarchy, "--hierarchy"),
            params={n: literal(v) for n, v in parse_pairs(param, "--param").items()}
            | ({"epsilon": epsilon} if epsilon is not None else {})
            | ({"max_clusters": max_clusters} if max_clusters is not None else {})
            | ({"allow_deletion": True} if allow_deletion else {}),
            norm=norm,
        )
        if job.input is None or job.out is None or job.k is None:
            lacking = [
                f
                for f, v in (("INPUT", job.input), ("--out", job.out), ("--k", job.k))
                if v is None
            ]
            msg = f"missing {', '.join(lacking)} (give them as flags or in --config)"
            raise InputError(msg)
        check_sep(job.sep)
        job.spilled  # noqa: B018 - checks the setting before any work is done
        if job.csv_formulas not in ("escape", "refuse"):
            msg = f"--csv-formulas must be 'escape' or 'refuse', got {job.csv_formulas!r}"
            raise InputError(msg)
        inputs = [job.input, *([config] if config else []), *_files(job.hierarchy.values())]
        check_release_target(job.out, protect=inputs)  # before any work is done
        # native libraries' console lines stay out of the summary (Dask's local worker
        # processes, started meanwhile, inherit the hidden descriptor too)
        with progress(not quiet and err_console.is_terminal) as stage, native_stdout_hidden():
            # blockwise, only the quasi-identifiers are read whole: the table may be larger
            # than memory (incrowd.distributed)
            table: Any = (TableFile(job.input, sep=job.sep, na_values=job.na_values)
                          if job.blocked else
                          read_table(job.input, sep=job.sep, na_values=job.na_values))  # fmt: skip
            schema = build_schema(job, table)
            options = {
                "method": job.method,
                "release": job.release,
                "params": job.params,
                "seed": job.seed,
                "missing": job.missing,
                "center": job.center,
                "norm": job.norm,
                "generalize": job.generalize,
                "diversity": job.diversity,
            }
            if job.blocked:
                from ..distributed import write_blocks

                stage("cutting blocks")
                result: Any = write_blocks(
                    table, schema, job.k, job.out, protect=inputs, formulas=job.csv_formulas,
                    block_size=job.block_size, blocks=job.blocks, by=job.block_by,
                    scheduler=job.scheduler or "local", workers=job.workers,
                    spill=job.spilled,
                    on_block=lambda done, total: stage("blocks", done, total), **options,
                )  # fmt: skip
            else:
                result = run(table, schema, job.k, on_stage=stage, **options)
                stage("writing the release")
                result.write(job.out, formulas=job.csv_formulas, protect=inputs)
        meta = result.metadata
        loss = meta["loss"]
        merged = meta["n_crowds"] - meta["n_groups"]
        groups = (
            f" (published as {meta['n_groups']} groups of identical quasi-identifiers: "
            f"{merged} crowds generalize to the same values as another)"
            if merged
            else ""
        )
        out_console.print(
            f"[bold green]released[/] {meta['n_released']} of {meta['n_input']} records "
            f"({meta['n_suppressed']} suppressed) in {meta['n_crowds']} crowds{groups}; "
            f"k achieved {meta['k_achieved']} (asked {meta['k']})"
        )
        ratio = meta["certified_ratio"]
        certified = f"; certified ratio {ratio:.3f}" if ratio is not None else ""
        if meta.get("blocked_certified_ratio") is not None:
            certified += f"; blocked certified ratio {meta['blocked_certified_ratio']:.3f}"
        l_sse = "—" if loss["l_sse"] is None else f"{loss['l_sse']:.3f} %"
        blocks = meta.get("blocking", {}).get("n_blocks")
        out_console.print(
            f"loss: NCP {loss['ncp']:.4f}, L_SSE {l_sse}, "
            f"discernibility {loss['discernibility']:.4g}{certified}; {meta['seconds']:.2f} s"
            + (f" ({blocks} blocks)" if blocks else "")
        )
        if meta["withheld_columns"]:
            out_console.print(f"not published: {escape(', '.join(meta['withheld_columns']))}")
        out_console.print(f"wrote {escape(job.out)} and {escape(str(metadata_path(job.out)))}")


def _files(specs: Iterable[str]) -> list[str]:
    """The hierarchy specs that name files (not ``prefix`` / ``intervals:``)."""
    return [s for s in specs if Path(s).is_file()]


@app.command()
def verify(
    release: Annotated[Path, typer.Argument(help="A written release (CSV, Parquet, dataset).")],
    qi: QiOpt,
    k: Annotated[int, typer.Option("--k", help="Required crowd size.")],
    sep: Annotated[str | None, typer.Option(help="Separator (default: detected).")] = None,
    sensitive: Annotated[
        ListOpt, typer.Option(help="Sensitive columns (default: the metadata's).")
    ] = None,
    l: Annotated[  # noqa: E741
        float | None, typer.Option("--l", help="Also check l-diversity.")
    ] = None,
    l_kind: Annotated[str, typer.Option(help="distinct | entropy | recursive.")] = "distinct",
    c: Annotated[float, typer.Option("--c", help="recursive (c,l)-diversity: c.")] = 1.0,
    t: Annotated[float | None, typer.Option("--t", help="Also check t-closeness.")] = None,
    t_kind: Annotated[str, typer.Option(help="equal | ordered | auto.")] = "auto",
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
    (and l-diverse / t-close when asked).

    Records whose published quasi-identifiers are identical form one group, so crowds that
    generalize to the same values count together. A release is read part by part (a
    dataset's files, a file's chunks), never whole, unless l / t are asked.
    """
    from ..pipeline.job import split_list
    from ..privacy.verify import verify as check

    with errors():
        job = Job(l=l, l_kind=l_kind, c=c, t=t, t_kind=t_kind)
        if (scheduler or workers is not None) and job.diversity is not None:
            import warnings

            from ..errors import IncrowdWarning

            warnings.warn("l-diversity / t-closeness are checked in this process: --scheduler "
                          "/ --workers have no effect", IncrowdWarning, stacklevel=1)  # fmt: skip
        if (scheduler or workers is not None) and job.diversity is None:
            from ..distributed import verify_release

            report = verify_release(release, split_list(qi), k, sep=sep,
                                    scheduler=scheduler or "local", workers=workers)  # fmt: skip
        else:
            report = check(release, split_list(qi), k, sep=sep, diversity=job.diversity,
                           sensitive=split_list(sensitive) or None)  # fmt: skip
    if report.ok:
        out_console.print(
            f"[bold green]OK[/]: {escape(str(release))} is {k}-anonymous ({report.form} release; "
            f"{report.n_records} records in {report.n_classes} groups of identical "
            f"quasi-identifiers, smallest {report.k_achieved})"
            + (f"; every group meets {job.diversity.describe()}" if job.diversity else "")
        )
        return
    for problem in report.problems:
        err_console.print(f"[bold red]FAILED[/]: {escape(problem)}", soft_wrap=True)
    raise typer.Exit(1)


OriginalArg = Annotated[Path, typer.Argument(help="The original table.")]
ReleaseArg = Annotated[Path, typer.Argument(help="A written release of it.")]
HierarchyOpt = Annotated[ListOpt, typer.Option(help="COLUMN=FILE|prefix|intervals:...")]
LabelsOpt = Annotated[ListOpt, typer.Option(help="Treat these QIs as labels.")]
NumbersOpt = Annotated[ListOpt, typer.Option(help="Treat these QIs as numbers.")]
MissingOpt = Annotated[str, typer.Option(help="error | drop | category.")]


def _original_and_release(
    input: Path,
    release: Path,
    qi: list[str],
    hierarchy: ListOpt,
    categorical: ListOpt,
    numeric: ListOpt,
    sensitive: ListOpt,
    sep: str | None,
    missing: str,
) -> tuple[Any, Any, Any]:
    """The original table (missing values handled), its schema, and the written release."""
    from ..data.columns import handle_missing
    from ..io.tables import read_table
    from ..pipeline.job import build_schema, split_list
    from ..release import read_release

    table = read_table(input, sep=sep)
    job = Job(
        qi=split_list(qi),
        sensitive=split_list(sensitive),
        hierarchy=parse_pairs(hierarchy, "--hierarchy"),
        categorical=split_list(categorical),
        numeric=split_list(numeric),
    )
    schema = build_schema(job, table)
    table, _ = handle_missing(table, schema, missing)  # type: ignore[arg-type]
    return table, schema, read_release(release)


@app.command()
def evaluate(
    input: OriginalArg,
    release: ReleaseArg,
    qi: QiOpt,
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    sep: SepOpt = None,
    missing: MissingOpt = "error",
) -> None:
    """Print the information loss of RELEASE relative to INPUT."""
    from ..measures.evaluate import evaluate_release

    with errors():
        table, schema, files = _original_and_release(
            input, release, qi, hierarchy, categorical, numeric, None, sep, missing
        )
        meta = files.metadata
        figures = evaluate_release(table, files.table, schema, meta)
    grid = Table(title=f"information loss of {escape(str(release))}", show_header=True)
    grid.add_column("measure")
    grid.add_column("value", justify="right")
    grid.add_column("recorded at release", justify="right")
    recorded = dict((meta or {}).get("loss", {})) | {
        k: (meta or {}).get(k)
        for k in ("n_input", "n_released", "n_suppressed", "n_groups", "k_achieved")
    }
    for key, value in figures.items():
        shown = "—" if value is None else (f"{value:.6g}" if isinstance(value, float) else value)
        rec = recorded.get(key)
        rec_shown = "" if rec is None else (f"{rec:.6g}" if isinstance(rec, float) else str(rec))
        grid.add_row(key, str(shown), rec_shown)
    out_console.print(grid)


@app.command()
def risk(
    input: OriginalArg,
    release: ReleaseArg,
    qi: QiOpt,
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    k: Annotated[
        int | None, typer.Option("--k", help="Crowd size to check.", show_default="the release's")
    ] = None,
    threshold: Annotated[float, typer.Option(help="Risk above which a record is at risk.")] = 0.2,
    sep: SepOpt = None,
    missing: MissingOpt = "error",
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Re-identification risk of RELEASE: prosecutor, journalist, marketer, and a linkage
    attack with every original record's quasi-identifiers."""
    import json

    from ..io.release_format import strict_json
    from ..measures.risk import assess_risk

    with errors():
        table, schema, files = _original_and_release(
            input, release, qi, hierarchy, categorical, numeric, None, sep, missing
        )
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


@app.command()
def report(
    input: OriginalArg,
    release: ReleaseArg,
    qi: QiOpt,
    out: Annotated[Path, typer.Option("--out", help="The HTML file to write (new).")],
    hierarchy: HierarchyOpt = None,
    categorical: LabelsOpt = None,
    numeric: NumbersOpt = None,
    sensitive: Annotated[
        ListOpt, typer.Option(help="Sensitive columns (default: the metadata's).")
    ] = None,
    sep: SepOpt = None,
    missing: MissingOpt = "error",
) -> None:
    """Write one self-contained HTML page on RELEASE: guarantee, loss, risk, diversity."""
    from ..hierarchies import check_output
    from ..io.atomic import Output, commit
    from ..report import build_report

    with errors():
        if out.suffix.lower() not in (".html", ".htm"):
            raise InputError(f"--out must end in .html, got {out}")
        check_output(out, protect=[input, release])
        table, schema, files = _original_and_release(
            input, release, qi, hierarchy, categorical, numeric, sensitive, sep, missing
        )
        page = build_report(table, files.table, schema, files.metadata,
                            title=f"incrowd report: {release.name}").encode()  # fmt: skip
        commit([Output(out, lambda fh: fh.write(page), replaceable=lambda _p: False)])
    out_console.print(f"wrote {escape(str(out))} ({len(page) / 1024:.0f} KiB)")


@app.command()
def methods() -> None:
    """List the methods with their guarantees and references."""
    from ..algorithms.catalogue import CATALOGUE  # no algorithm imported to list them

    grid = Table(show_header=True)
    for col in ("method", "guarantee", "objective", "reference"):
        grid.add_column(col)
    for name, (guarantee, objective, reference) in sorted(CATALOGUE.items()):
        grid.add_row(name, guarantee, objective, reference)
    out_console.print(grid)


@app.command()
def precompile(
    parallel: Annotated[
        bool, typer.Option(help="Also MDAV's multi-threaded kernels (50,000+ records).")
    ] = False,
) -> None:
    """Compile the kernels now (into the kernel cache), so the first run is fast."""
    from ..precompile import precompile as run_all

    with errors():
        seconds = run_all(parallel=parallel)
    out_console.print(f"compiled incrowd's kernels in {seconds:.1f} s")


hierarchy_app = typer.Typer(
    no_args_is_help=True,
    help="Build a generalization hierarchy (ARX format) for one attribute, one level per k.",
)
app.add_typer(hierarchy_app, name="hierarchy")

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
    from ..hierarchies import check_output
    from ..io.tables import check_sep, read_table

    with errors():
        check_sep(sep)
        check_output(out, protect=[input, *also])
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


@hierarchy_app.command("regions")
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


@hierarchy_app.command("rectangles")
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


@hierarchy_app.command("bins")
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


@app.callback(invoke_without_command=True)
def _root(
    version: Annotated[bool, typer.Option("--version", help="Show the version.")] = False,
) -> None:
    if version:
        out_console.print(f"incrowd {__version__}")
        raise typer.Exit(0)


def run(argv: Sequence[str]) -> int:
    """Run the command line on ``argv``; return the exit code.

    A usage error (an unknown option, a value of the wrong type) is one line on standard
    error and exit code 2, like every other user error.
    """
    try:
        code = app(args=list(argv), prog_name="incrowd", standalone_mode=False)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not TERMINATED:
            return _usage_error(exc)
        code = None  # the kill arrived inside an import or a C extension: just stop
    # a kill seen at all (also one put off in an unsafe frame as the work ended) is a kill
    if TERMINATED:
        return 128 + TERMINATED[0]
    return code if isinstance(code, int) else 0


def _usage_error(exc: Exception) -> int:
    """One line and exit code 2 for a usage error; anything else is raised again."""
    format_message = getattr(exc, "format_message", None)
    if not callable(format_message):  # not a usage error: the command's own handler
        raise exc
    context = getattr(exc, "ctx", None)
    where = f" (see {context.command_path} --help)" if context is not None else ""
    message = " ".join(str(format_message()).split())
    error(message + where)
    return int(getattr(exc, "exit_code", 2) or 2)


def main() -> None:
    """Console-script entry point."""
    # A polite kill (SIGTERM) unwinds like Ctrl-C, so no temporary file is left behind.
    signal.signal(signal.SIGTERM, terminate)
    sys.unraisablehook = quiet_unraisable
    code = run(sys.argv[1:])
    # The work is done (or undone): a kill from here on stops the process at once. Raised
    # while the interpreter shuts down, SystemExit would crash it in native teardown code.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
