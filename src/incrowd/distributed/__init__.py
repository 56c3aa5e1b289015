"""Blockwise anonymization: cut the table into blocks, anonymize each on a Dask worker.

Crowds never cross blocks, so the union of k-anonymous blocks is k-anonymous (and
distinct-l-diverse when every block is). Blocks come from the values of attributes the user
names (``by``: one state per block, say), then from cuts on the quasi-identifiers until no
block holds more than ``block_size`` records; no block holds fewer than ``floor`` (small
groups of ``by`` values are merged with their neighbours in value order, and a cut that
would leave fewer on one side is not made).

Where to cut. Mondrian cuts the widest attribute at its median, because its cuts *are* the
generalization. A blocking cut is the opposite: every crowd that would have spanned it is
lost, so the cut goes where crowds rarely span — between the most dissimilar adjacent values
(two sexes, two branches high in a hierarchy, a wide gap between numbers), among cuts that
leave at least a quarter of the part on each side; ties go to the most balanced. Hierarchy
leaves are ordered as in the tree, so that siblings stay together. ``benchmarks/blockwise.py``
measures the loss against the unblocked release.

Every block is coded, costed and scored against the whole table's domain
(:meth:`Schema.with_domain`): a block's NCP is its share of the whole release's NCP, and its
algorithm weighs attributes as the whole table would.

Certificates. The sum (or, for objectives that take the largest crowd, the maximum) of the
blocks' lower bounds bounds the optimum **of the blocked problem** — crowds confined to
blocks — not the optimum of the whole table, which may use crowds across block boundaries.
The metadata reports it as ``blocked_lower_bound`` and ``blocked_certified_ratio``. Where a
method's bound is a sum over records of distances to their nearest neighbours (``forest``,
``mu-approx``, and r-cellular's radius bound, not its dual:
:meth:`~incrowd.base.Algorithm.capped_lower_bound`; with outliers each record's term,
:meth:`~incrowd.base.Algorithm.capped_bound_terms`, and the largest ``⌊εN⌋`` terms of all
blocks are taken off, since the whole table's optimum may leave those records out), each
block also bounds
its share of the **whole** table's: any record of another block lies beyond one of the cuts
that made this block, so a record's neighbour distance in the whole table is at least its
distance in the block capped at its distance across those cuts (to its own copy with the
nearest value beyond the cut). The sum is a lower bound on the global optimum, reported as
``lower_bound`` and ``certified_ratio``; it needs no records from other blocks. Blocks made
by ``by`` values, which need not differ in any quasi-identifier, leave it empty.

Tables larger than memory. :func:`write_blocks` also takes a CSV or Parquet file (a path
or :class:`~incrowd.io.tables.TableFile`): it reads only the quasi-identifiers (and ``by``
columns) to plan the blocks, then — when the file is large against the memory available,
or ``spill=True`` — streams the file once, sorting its records into their blocks on disk
beside the output, and gives each worker its block from there. The driver holds the
quasi-identifiers compactly (a code per value) and a few blocks; a worker holds its block.

Verification. :func:`verify_release` checks a written dataset's files on the workers (each
reads and checks one file; the driver adds up the group sizes, 128-bit keys and a count per
group); :func:`incrowd.verify` reads any release part by part in one process.

Scheduler: ``"local"`` starts a ``distributed.LocalCluster`` of worker processes on this
machine; ``"tcp://HOST:PORT"`` uses a running cluster; ``"sync"`` runs the blocks one after
another in this process (no Dask needed). A single block is the single-machine release.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..data.schema import Schema
from ..errors import IncrowdWarning
from ..io.metadata import ReleaseMetadata
from ..io.release_format import (
    FormulaPolicy,
    PartWriter,
    changed_files,
    file_sha256,
    read_release_parts,
)
from ..io.tables import TableFile, as_dataframe
from ..io.targets import check_release_target
from ..params import check_k
from ..pipeline.record import input_record
from ..pipeline.settings import Settings
from ..privacy.verify import (
    PartCheck,
    VerificationReport,
    add_up,
    check_part,
    checked_request,
    finish_check,
    merge_checks,
    part_metadata,
    verify,
)
from ..release import Release
from ._bound import LeftOutTerms
from ._client import client, early_client, unused_cluster_options, warn_workers
from ._combine import combine, metadata
from ._cut import cut_blocks
from ._plan import Plan, make_plan
from ._run import Block, run_blocks
from ._source import FrameBlocks, SpilledBlocks

__all__ = ["WrittenRelease", "anonymize_blocks", "cut_blocks", "verify_release", "write_blocks"]


@dataclass(frozen=True)
class WrittenRelease:
    """A blockwise release written to disk: where its table and metadata are, and the
    metadata (record counts, loss, the blocking, certificates)."""

    path: Path
    metadata_path: Path
    metadata: ReleaseMetadata


def _settings(k: int, seed: int | None, scheduler: str, workers: int | None,
              block_size: int | None, blocks: int | None, by: Sequence[str],
              options: dict[str, Any]) -> Settings:  # fmt: skip
    """The run's settings, each checked once, before any work is done (``options``: the
    keywords of :func:`incrowd.anonymize`)."""
    return Settings.of_run(k, seed=seed, scheduler=scheduler, workers=workers,
                           block_size=block_size, blocks=blocks, block_by=tuple(by),
                           **options).check_run()  # fmt: skip


def _plan(table: object, schema: Schema, settings: Settings, floor: int | None) -> Plan:
    """The blocks of ``table`` as the run's checked settings cut them."""
    return make_plan(table, schema, int(settings.k or 0), settings.block_size, settings.blocks,
                     settings.block_by, floor, settings.scheduler or "local", settings.seed,
                     missing=settings.missing)  # fmt: skip


def anonymize_blocks(
    table: object,
    schema: Schema,
    k: int,
    *,
    block_size: int | None = None,
    blocks: int | None = None,
    by: Sequence[str] = (),
    floor: int | None = None,
    scheduler: str = "local",
    workers: int | None = None,
    seed: int | None = None,
    on_block: Callable[[int, int], None] | None = None,
    **options: Any,
) -> Release:
    """Anonymize ``table`` block by block (each block by :func:`incrowd.anonymize` with
    ``options``: method, release, params, ...), and publish the union as one release, in
    memory (:func:`write_blocks` writes it block by block instead).

    ``block_size`` (default 100,000) is the largest block, or ``blocks`` the number of
    blocks wanted (the size is then ``⌈n / blocks⌉``; cuts give up to about twice as many);
    ``floor`` (default ``max(2k, 1000)`` capped by the table) is the smallest block;
    ``on_block(done, total)`` is called as blocks finish. Rows are shuffled across blocks.
    """
    settings = _settings(k, seed, scheduler, workers, block_size, blocks, by, options)
    frame = as_dataframe(table)
    check_k(k, len(frame))  # before the workers are reached
    with early_client(scheduler, workers, len(frame), block_size, blocks) as reached:
        plan = _plan(frame, schema, settings, floor)
        results: dict[int, Block] = {}
        parts = FrameBlocks(plan.frame, plan.blocks)
        for i, result in run_blocks(plan, parts.part, settings, reached, workers, on_block):
            results[i] = result
    return combine(plan, [results[i] for i in range(len(plan.blocks))])


def write_blocks(
    table: object,
    schema: Schema,
    k: int,
    out: str | os.PathLike[str],
    *,
    protect: Sequence[str | os.PathLike[str]] = (),
    sep: str = ",",
    formulas: FormulaPolicy = "escape",
    block_size: int | None = None,
    blocks: int | None = None,
    by: Sequence[str] = (),
    floor: int | None = None,
    scheduler: str = "local",
    workers: int | None = None,
    seed: int | None = None,
    on_block: Callable[[int, int], None] | None = None,
    spill: bool | None = None,
    **options: Any,
) -> WrittenRelease:
    """:func:`anonymize_blocks`, writing each block as it finishes, so that no process holds
    more than a few blocks of the release: ``out.parquet`` becomes a Parquet dataset (one
    file per block), ``out.csv`` one CSV file (blocks in block order), and ``out.json`` the
    metadata. Nothing appears at ``out`` until the whole release is complete and checked;
    an error or a kill leaves the destination as it was. One block is written exactly as
    the single-machine release. The rows of a block stay together in the output, so the
    blocking (by ``by`` values, for instance) can be read from it.

    ``table`` may be a CSV or Parquet file (a path, or a :class:`~incrowd.io.tables.TableFile`
    to choose its separator and missing-value markers), larger than memory: ``spill``
    (default: when the file is larger than a quarter of the memory available) streams it
    once into its blocks on disk instead of reading it whole; the release is the same.
    """
    settings = _settings(k, seed, scheduler, workers, block_size, blocks, by, options)
    if isinstance(table, str | os.PathLike):
        table = TableFile(table)
    if isinstance(table, TableFile):
        protect = [*protect, table.path]  # the input is never the output
    check_release_target(out, protect, directory=True)  # before any work is done
    if isinstance(table, TableFile):
        schema.check_columns(table.columns)
        planning = [*schema.qi_names, *(b for b in by if b not in schema.qi_names)]
        source: TableFile | None = table
        table = table.read(planning)
    else:
        source = None
    rows = len(as_dataframe(table))
    check_k(k, rows)  # before the workers are reached
    read_from = None if source is None else input_record(source.path)
    with early_client(scheduler, workers, rows, block_size, blocks) as reached:
        plan = _plan(table, schema, settings, floor)
        spilled = source is not None and len(plan.blocks) > 1 and _spills(source, spill)
        if source is not None and not spilled:
            plan = replace(plan, frame=source.read(source.columns))
        if len(plan.blocks) == 1:  # the single-machine release, byte for byte
            unused = unused_cluster_options(scheduler, workers)
            if unused:
                warnings.warn(f"the table fits one block ({rows} records): it is anonymized in "
                              f"this process, and {unused} has no effect",
                              IncrowdWarning, stacklevel=2)  # fmt: skip
            whole = FrameBlocks(plan.frame, plan.blocks)
            [(_, result)] = list(run_blocks(plan, whole.part, settings, reached, workers, on_block))
            release = combine(plan, [result])
            release = replace(release, metadata=release.metadata.replace(input=read_from))
            paths = release.write(out, sep, formulas=formulas, protect=protect)
            return WrittenRelease(paths[0], paths[1], release.metadata)
        sink = PartWriter(out, protect=protect, sep=sep, formulas=formulas)
        parts: FrameBlocks | SpilledBlocks | None = None
        try:
            parts = (SpilledBlocks(source, plan.blocks, len(plan.frame), out)  # type: ignore[arg-type]
                     if spilled else FrameBlocks(plan.frame, plan.blocks))  # fmt: skip
            metas: dict[int, ReleaseMetadata] = {}
            bounds: dict[int, float | LeftOutTerms | None] = {}
            classes = []
            done = run_blocks(plan, parts.part, settings, reached, workers, on_block, sink.encoding)
            for i, block in done:
                # each block's table was verified where it was made (incrowd.anonymize), and
                # a union of k-anonymous tables is k-anonymous
                assert block.encoded is not None
                sink.add(i, block.encoded)
                metas[i], bounds[i] = block.metadata, block.bound
                classes.append(block.sizes)
            order = range(len(plan.blocks))
            meta = metadata(plan, [metas[i] for i in order], [bounds[i] for i in order],
                            add_up(classes)).replace(input=read_from)  # fmt: skip
            path, meta_path, meta = sink.commit(meta)
        except BaseException:
            sink.discard()
            raise
        finally:
            if parts is not None:
                parts.close()
        return WrittenRelease(path, meta_path, meta)


def verify_release(
    path: str | os.PathLike[str],
    qi: Sequence[str],
    k: int,
    *,
    scheduler: str = "local",
    workers: int | None = None,
    sep: str | None = None,
) -> VerificationReport:
    """:func:`incrowd.verify` of a written release, its parts checked on Dask workers: each
    file of a Parquet dataset is read and checked on a worker (which must see ``path``, as
    on one machine or a shared file system), and the group sizes are added up here. Any
    other release (one CSV or Parquet file) is checked here, chunk by chunk.
    """
    qi, k = checked_request(qi, k)
    Settings(scheduler=scheduler, workers=workers)  # checks both
    warn_workers(scheduler, workers)
    files = read_release_parts(path, sep=sep)
    if not files.dataset or scheduler == "sync":
        unused = unused_cluster_options(scheduler, workers)
        if unused:
            warnings.warn(f"{path} is one file, checked in this process: {unused} has no "
                          "effect", IncrowdWarning, stacklevel=2)  # fmt: skip
        return verify(path, qi, k, sep=sep)
    meta = ReleaseMetadata.of(files.metadata)
    slim = part_metadata(meta)  # not a line per part to each worker
    with client(scheduler, workers) as reached:
        from distributed import as_completed

        futures = [reached.submit(_check_file, path, qi, slim, pure=False, retries=1)
                   for path in files.paths]  # fmt: skip
        checks: dict[str, PartCheck] = {}
        digests: dict[str, str] = {}
        for future in as_completed(futures, loop=reached.loop):
            name, digest, checked = future.result()
            checks[name], digests[name] = checked, digest
            future.release()
    merged = merge_checks(checks[p.name] for p in files.paths)
    return finish_check(merged, k, meta, changed_files(meta, digests), path)


def _check_file(path: Path, qi: list[str],
                meta: ReleaseMetadata) -> tuple[str, str, PartCheck]:  # fmt: skip
    from ..io.tables import read_parquet_file

    digest = file_sha256(path)
    return path.name, digest, check_part(read_parquet_file(path), qi, meta)


#: A table file larger than this share of the memory available is spilled (``spill=None``).
SPILL_SHARE = 0.25


def _spills(source: TableFile, spill: bool | None) -> bool:
    if spill is not None:
        return bool(spill)
    from .._runtime import available_memory

    return source.nbytes > SPILL_SHARE * available_memory()
