"""``incrowd anonymize``: read a table, anonymize it, write the release and its metadata."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer

# its help and defaults are shown in --help
from ..pipeline.settings import Settings
from ._options import REQUIRED, ListOpt, na_values_list
from ._output import (
    err_console,
    errors,
    literal,
    native_stdout_hidden,
    out_console,
    parse_pairs,
    progress,
    warn,
)

__all__ = ["anonymize"]


def _setting(name: str, *flags: str, required: bool = False) -> Any:
    """The option of setting ``name``, with the help and the shown default its declaration
    gives (:meth:`Settings.option`), so that each is written once."""
    option = Settings.option(name)
    return typer.Option(
        *flags,
        help=f"{option.help} {REQUIRED}" if required else option.help,
        show_default=True if option.shown is None else option.shown,
    )


def anonymize(
    input: Annotated[
        Path | None,
        typer.Argument(help=f"{Settings.option('input').help} {REQUIRED}", show_default=False),
    ] = None,
    qi: Annotated[ListOpt, _setting("qi", "--qi", required=True)] = None,
    k: Annotated[int | None, _setting("k", "--k", required=True)] = None,
    out: Annotated[Path | None, _setting("out", "--out", required=True)] = None,
    sensitive: Annotated[ListOpt, _setting("sensitive")] = None,
    identifier: Annotated[ListOpt, _setting("identifier")] = None,
    insensitive: Annotated[ListOpt, _setting("insensitive")] = None,
    hierarchy: Annotated[ListOpt, _setting("hierarchy")] = None,
    categorical: Annotated[ListOpt, _setting("categorical")] = None,
    numeric: Annotated[ListOpt, _setting("numeric")] = None,
    code: Annotated[ListOpt, _setting("code")] = None,
    date: Annotated[ListOpt, _setting("date")] = None,
    date_format: Annotated[str | None, _setting("date_format")] = None,
    thousands: Annotated[str | None, _setting("thousands")] = None,
    decimal: Annotated[str | None, _setting("decimal")] = None,
    encoding: Annotated[str | None, _setting("encoding")] = None,
    method: Annotated[str | None, _setting("method")] = None,
    param: Annotated[ListOpt, _setting("params")] = None,
    epsilon: Annotated[
        float | None, typer.Option(help="Fraction of records that may stay unclustered.")
    ] = None,
    max_clusters: Annotated[
        int | None, typer.Option(help="Largest number of crowds (kr-center methods).")
    ] = None,
    norm: Annotated[int | None, _setting("norm")] = None,
    release: Annotated[str | None, _setting("release")] = None,
    center: Annotated[str | None, _setting("center")] = None,
    generalize: Annotated[str | None, _setting("generalize")] = None,
    suppression_limit: Annotated[float | None, _setting("suppression_limit")] = None,
    suppressed: Annotated[str | None, _setting("suppressed")] = None,
    weights: Annotated[ListOpt, _setting("weights")] = None,
    min_level: Annotated[ListOpt, _setting("min_level")] = None,
    max_level: Annotated[ListOpt, _setting("max_level")] = None,
    allow_deletion: Annotated[
        bool,
        typer.Option(help="forest: delete a row (counted as suppressed) when that costs less."),
    ] = False,
    seed: Annotated[int | None, _setting("seed")] = None,
    sep: Annotated[str | None, _setting("sep")] = None,
    na_values: Annotated[ListOpt, _setting("na_values")] = None,
    missing: Annotated[str | None, _setting("missing")] = None,
    csv_formulas: Annotated[str | None, _setting("csv_formulas")] = None,
    l: Annotated[float | None, _setting("l", "--l")] = None,  # noqa: E741 - the literature's name
    l_kind: Annotated[str | None, _setting("l_kind")] = None,
    c: Annotated[float | None, _setting("c", "--c")] = None,
    t: Annotated[float | None, _setting("t", "--t")] = None,
    t_kind: Annotated[str | None, _setting("t_kind")] = None,
    scheduler: Annotated[str | None, _setting("scheduler")] = None,
    workers: Annotated[int | None, _setting("workers")] = None,
    block_size: Annotated[int | None, _setting("block_size")] = None,
    blocks: Annotated[int | None, _setting("blocks")] = None,
    block_by: Annotated[ListOpt, _setting("block_by")] = None,
    spill: Annotated[str | None, _setting("spill")] = None,
    config: Annotated[Path | None, typer.Option(help="TOML job file (flags override it).")] = None,
    quiet: Annotated[bool, typer.Option(help="No progress display.")] = False,
) -> None:
    """Anonymize INPUT and write the release and its JSON metadata."""
    from rich.markup import escape

    from ..errors import InputError
    from ..io.tables import TableFile, read_table, table_separator
    from ..io.targets import check_release_target
    from ..params import parse_levels
    from ..pipeline.cautions import run_warnings
    from ..pipeline.job import build_schema, for_quasi_identifiers, parse_weights, split_list
    from ..pipeline.run import PIPELINE_STAGES, anonymize_with
    from ..release import metadata_path

    with errors():
        job = Settings.from_toml(config) if config else Settings()
        if config and qi:
            job, unused = for_quasi_identifiers(job, split_list(qi))
            if unused:  # the file's types of them would stop the run: said, not used
                names = ", ".join(map(repr, unused))
                warn(f"{config} describes {names}, not quasi-identifiers given by --qi: their "
                     "types, hierarchies and bounds are not used")  # fmt: skip
        job = job.replace(
            input=str(input) if input else None,
            out=str(out) if out else None,
            k=k,
            method=method,
            release=release,
            center=center,
            generalize=generalize,
            suppression_limit=suppression_limit,
            suppressed=suppressed,
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
            weights=parse_weights(parse_pairs(list(split_list(weights)), "--weights")),
            min_level=parse_levels(parse_pairs(list(split_list(min_level)), "--min-level")),
            max_level=parse_levels(parse_pairs(list(split_list(max_level)), "--max-level")),
            seed=seed,
            sep=sep,
            missing=missing,
            na_values=na_values_list(na_values),
            qi=split_list(qi),
            sensitive=split_list(sensitive),
            identifier=split_list(identifier),
            insensitive=split_list(insensitive),
            categorical=split_list(categorical),
            numeric=split_list(numeric),
            code=split_list(code),
            date=split_list(date),
            date_format=date_format,
            thousands=thousands,
            decimal=decimal,
            encoding=encoding,
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
        job.check_run()  # blockwise too: the options below do not carry every setting
        inputs = [job.input, *([config] if config else []), *_files(job.hierarchy.values())]
        check_release_target(job.out, protect=inputs)  # before any work is done
        shown = not quiet and err_console.is_terminal
        # the bar's stages: reading the input, the pipeline's, writing the release; native
        # libraries' console lines stay out of the summary (Dask's local worker processes,
        # started meanwhile, inherit the hidden descriptor too)
        with progress(shown, PIPELINE_STAGES + 2) as stage, native_stdout_hidden():
            # blockwise, only the quasi-identifiers are read whole: the table may be larger
            # than memory (incrowd.distributed)
            reading = {"sep": job.sep, "na_values": job.na_values, "encoding": job.encoding}
            table: Any = (TableFile(job.input, **reading) if job.blocked
                          else read_table(job.input, **reading))  # fmt: skip
            schema = build_schema(job, table)
            # a CSV release keeps the input's separator
            out_sep = table_separator(job.input, job.sep, job.encoding)
            if job.blocked:
                from ..distributed import write_blocks

                options = {
                    "method": job.method,
                    "release": job.release,
                    "params": job.params,
                    "seed": job.seed,
                    "missing": job.missing,
                    "center": job.center,
                    "norm": job.norm,
                    "generalize": job.generalize,
                    "suppression_limit": job.suppression_limit,
                    "suppressed": job.suppressed,
                    "diversity": job.diversity,
                }
                stage("cutting blocks")
                result: Any = write_blocks(
                    table, schema, job.k, job.out, protect=inputs, formulas=job.csv_formulas,
                    block_size=job.block_size, blocks=job.blocks, by=job.block_by,
                    scheduler=job.scheduler or "local", workers=job.workers,
                    spill=job.spilled, sep=out_sep,
                    on_block=stage.blocks, **options,
                )  # fmt: skip
            else:
                result = anonymize_with(table, schema, job, on_stage=stage,
                                        on_progress=stage.count)  # fmt: skip
                stage("writing the release")
                result.write(job.out, out_sep, formulas=job.csv_formulas, protect=inputs)
        meta = result.metadata
        loss = meta.loss
        merged = (meta.n_crowds or 0) - (meta.n_groups or 0)
        groups = (
            f" (published as {meta.n_groups} groups of identical quasi-identifiers: "
            f"{merged} crowds generalize to the same values as another)"
            if merged
            else ""
        )
        out_console.print(
            f"[bold green]released[/] {meta.n_released} of {meta.n_input} records "
            f"({meta.n_suppressed} suppressed"
            + (
                f", {meta.n_dropped_missing} left out for a missing value"
                if meta.n_dropped_missing
                else ""
            )
            + f") in {meta.n_crowds} crowds{groups}; "
            f"k achieved {meta.k_achieved} (asked {meta.k})"
        )
        ratio = meta.certified_ratio
        certified = f"; certified ratio {ratio:.3f}" if ratio is not None else ""
        if meta.blocked_certified_ratio is not None:
            certified += f"; blocked certified ratio {meta.blocked_certified_ratio:.3f}"
        l_sse = "—" if loss.get("l_sse") is None else f"{loss['l_sse']:.3f} %"
        blocks = (meta.blocking or {}).get("n_blocks")
        out_console.print(
            f"loss: NCP {loss['ncp']:.4f}, L_SSE {l_sse}, "
            f"discernibility {loss['discernibility']:.4g}{certified}; {meta.seconds or 0:.2f} s"
            + (f" ({blocks} blocks)" if blocks else "")
        )
        if meta.levels:  # a global recoding: its categories and how far its search proved
            cert = meta.certificate or {}
            proof = (f"proven optimal ({cert.get('nodes_evaluated')} of "
                     f"{cert.get('lattice_nodes')} lattice nodes evaluated)"
                     if cert.get("optimal") else
                     f"best found within the time limit (gap {cert.get('gap')})")  # fmt: skip
            levels = ", ".join(f"{name} {level}" for name, level in meta.levels.items())
            out_console.print(f"levels: {escape(levels)}; {proof}")
        if meta.withheld_columns:
            out_console.print(f"not published: {escape(', '.join(meta.withheld_columns))}")
        # attribute disclosure, a published name or note, a QI generalized away
        for line in run_warnings(result, table, schema):
            warn(line)
        kept = f" (separator {out_sep!r}, as the input's)" if out_sep != "," and not (
            job.out.lower().endswith((".parquet", ".pq"))) else ""  # fmt: skip
        out_console.print(
            f"wrote {escape(job.out)}{escape(kept)} and {escape(str(metadata_path(job.out)))}"
        )


def _files(specs: Iterable[str]) -> list[str]:
    """The hierarchy specs that name files (not ``prefix`` / ``intervals:``)."""
    return [s for s in specs if Path(s).is_file()]
