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

import contextlib
import logging
import os
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..costs import certified_ratio
from ..data.schema import Schema
from ..errors import IncrowdError, IncrowdWarning, InputError, ParameterError
from ..io.release_format import (
    COUNT,
    FormulaPolicy,
    changed_files,
    check_release_target,
    file_sha256,
    read_release_parts,
)
from ..io.tables import TableFile, as_dataframe
from ..params import check_k, check_seed
from ..partition import Partition
from ..pipeline.run import anonymize
from ..privacy.verify import (
    PART_META,
    PartCheck,
    VerificationReport,
    add_up,
    check_part,
    checked_request,
    finish_check,
    group_sizes,
    merge_checks,
    verify,
)
from ..release import Release
from ._bound import LeftOutTerms, global_bound_part, whole_bound
from ._cut import Cut, cut_blocks, plan_blocks
from ._sink import BlockSink, EncodedPart, encode_part
from ._source import FrameBlocks, SpilledBlocks

__all__ = ["WrittenRelease", "anonymize_blocks", "cut_blocks", "verify_release", "write_blocks"]


@dataclass(frozen=True)
class WrittenRelease:
    """A blockwise release written to disk: where its table and metadata are, and the
    metadata (record counts, loss, the blocking, certificates)."""

    path: Path
    metadata_path: Path
    metadata: dict[str, Any]


@dataclass(frozen=True)
class _Plan:
    frame: pd.DataFrame  # the table, or of a table file the columns that plan the blocks
    schema: Schema
    k: int
    seed: int
    blocks: list[np.ndarray]
    paths: list[tuple[Cut, ...]] | None  # None: not only QI cuts separate the blocks
    by: tuple[str, ...]
    block_size: int
    scheduler: str
    start: float


def _plan(
    table: object, schema: Schema, k: int, block_size: int | None, blocks: int | None,
    by: Sequence[str], floor: int | None, scheduler: str, seed: int | None,
) -> _Plan:  # fmt: skip
    import secrets

    start = time.perf_counter()
    frame = as_dataframe(table)
    schema = schema.with_domain(frame)  # every block is costed and scored as part of the whole
    k = check_k(k, len(frame))
    seed = secrets.randbits(31) if seed is None else check_seed(seed)
    floor = min(max(2 * k, 1000), len(frame)) if floor is None else int(floor)
    if floor < k:
        msg = f"the block floor ({floor}) must be at least k ({k})"
        raise ParameterError(msg)
    if blocks is not None:
        if isinstance(blocks, bool) or not isinstance(blocks, int) or blocks < 1:
            msg = f"blocks must be a positive integer, got {blocks!r}"
            raise ParameterError(msg)
        block_size = max(-(-len(frame) // blocks), floor)
    block_size = 100_000 if block_size is None else int(block_size)
    _checked_scheduler(scheduler)
    planned, complete = plan_blocks(frame, schema, block_size=block_size, by=by, floor=floor)
    rows = [r for r, _ in planned]
    paths = [p for _, p in planned] if complete else None
    return _Plan(frame, schema, k, seed, rows, paths, tuple(by), block_size, scheduler, start)


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
    frame = as_dataframe(table)
    check_k(k, len(frame))  # before the workers are reached
    with _early_client(scheduler, workers, len(frame), block_size, blocks) as client:
        plan = _plan(frame, schema, k, block_size, blocks, by, floor, scheduler, seed)
        results: dict[int, _Block] = {}
        parts = FrameBlocks(plan.frame, plan.blocks)
        for i, result in _run(plan, parts.part, options, client, workers, on_block):
            results[i] = result
    return _combine(plan, [results[i] for i in range(len(plan.blocks))])


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
    with _early_client(scheduler, workers, rows, block_size, blocks) as client:
        plan = _plan(table, schema, k, block_size, blocks, by, floor, scheduler, seed)
        spilled = source is not None and len(plan.blocks) > 1 and _spills(source, spill)
        if source is not None and not spilled:
            plan = replace(plan, frame=source.read(source.columns))
        if len(plan.blocks) == 1:  # the single-machine release, byte for byte
            unused = _unused_cluster_options(scheduler, workers)
            if unused:
                warnings.warn(f"the table fits one block ({rows} records): it is anonymized in "
                              f"this process, and {unused} has no effect",
                              IncrowdWarning, stacklevel=2)  # fmt: skip
            whole = FrameBlocks(plan.frame, plan.blocks)
            [(_, result)] = list(_run(plan, whole.part, options, client, workers, on_block))
            release = _combine(plan, [result])
            paths = release.write(out, sep, formulas=formulas, protect=protect)
            return WrittenRelease(paths[0], paths[1], dict(release.metadata))
        sink = BlockSink(out, protect=protect, sep=sep, formulas=formulas)
        parts: FrameBlocks | SpilledBlocks | None = None
        try:
            parts = (SpilledBlocks(source, plan.blocks, len(plan.frame), out)  # type: ignore[arg-type]
                     if spilled else FrameBlocks(plan.frame, plan.blocks))  # fmt: skip
            metas: dict[int, dict[str, Any]] = {}
            bounds: dict[int, float | LeftOutTerms | None] = {}
            classes = []
            blocks = _run(plan, parts.part, options, client, workers, on_block, sink.encoding)
            for i, block in blocks:
                # each block's table was verified where it was made (incrowd.anonymize), and
                # a union of k-anonymous tables is k-anonymous
                assert block.encoded is not None
                sink.add(i, block.encoded)
                metas[i], bounds[i] = dict(block.metadata), block.bound
                classes.append(block.sizes)
            order = range(len(plan.blocks))
            meta = _metadata(plan, [metas[i] for i in order], [bounds[i] for i in order],
                             add_up(classes))  # fmt: skip
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
    _checked_scheduler(scheduler, workers)
    files = read_release_parts(path, sep=sep)
    if not files.dataset or scheduler == "sync":
        unused = _unused_cluster_options(scheduler, workers)
        if unused:
            warnings.warn(f"{path} is one file, checked in this process: {unused} has no "
                          "effect", IncrowdWarning, stacklevel=2)  # fmt: skip
        return verify(path, qi, k, sep=sep)
    meta = dict(files.metadata or {})
    slim = {key: meta[key] for key in PART_META if key in meta}  # not a line per part to each
    with _client(scheduler, workers) as client:
        from distributed import as_completed

        futures = [client.submit(_check_file, path, qi, slim, pure=False, retries=1)
                   for path in files.paths]  # fmt: skip
        checks: dict[str, PartCheck] = {}
        digests: dict[str, str] = {}
        for future in as_completed(futures, loop=client.loop):
            name, digest, checked = future.result()
            checks[name], digests[name] = checked, digest
            future.release()
    merged = merge_checks(checks[p.name] for p in files.paths)
    return finish_check(merged, k, meta, changed_files(meta, digests), path)


def _check_file(path: Path, qi: list[str], meta: dict[str, Any]) -> tuple[str, str, PartCheck]:
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


@dataclass(frozen=True)
class _Block:
    """What a worker sends back for one block: its release (or, when the release is written
    block by block, its part file's bytes and its metadata), its share of the global lower
    bound (None without one), and its group sizes."""

    release: Release | None
    metadata: Mapping[str, Any]
    bound: float | LeftOutTerms | None
    sizes: pd.Series
    encoded: EncodedPart | None = None


def _run_block(
    table: pd.DataFrame,
    schema: Schema,
    k: int,
    options: Mapping[str, Any],
    index: int,
    path: tuple[Cut, ...] | None,
    encoding: tuple[bool, str, FormulaPolicy] | None = None,
) -> _Block:
    """One block, made where it runs: its release (encoded as its part file with
    ``encoding``), its share of the global lower bound (no ``path`` when other than QI cuts
    separate the blocks) and its group sizes, so that the process gathering the blocks only
    adds them up and writes bytes. An error names the block."""
    fitted: dict[str, Any] = {}
    try:
        release = anonymize(table, schema, k, **options,
                            on_fitted=lambda m, s: fitted.update(method=m, space=s))  # fmt: skip
    except IncrowdError as exc:
        raise type(exc)(f"block {index + 1} ({len(table)} records): {exc}") from None
    bound = None if path is None else global_bound_part(table, schema, fitted, path)
    sizes = _class_sizes(release.table, schema.qi_names)
    if encoding is None:
        return _Block(release, release.metadata, bound, sizes)
    return _Block(None, release.metadata, bound, sizes, encode_part(release.table, *encoding))


#: Blocks in flight per worker: enough to keep a worker busy, few enough to bound memory.
IN_FLIGHT = 2


def _run(
    plan: _Plan,
    part: Callable[[int], pd.DataFrame],
    options: Mapping[str, Any],
    client: Any,
    workers: int | None,
    on_block: Callable[[int, int], None] | None,
    encoding: tuple[bool, str, FormulaPolicy] | None = None,
) -> Iterator[tuple[int, _Block]]:
    """``(block, what it gave)`` as blocks finish (``part(i)``: block ``i``'s records;
    ``encoding``: see :func:`_run_block`); at most ``IN_FLIGHT`` blocks per worker are
    submitted at a time, the largest first, so that the last to finish are small (median
    cuts on tied values leave blocks of a third to the whole ``block_size``, and a block's
    time follows its size). A task lost with a worker is run again on another (once).
    ``client``: the workers, reached already (:func:`_early_client`), or None to reach them
    here."""
    report = on_block or (lambda _done, _total: None)
    total = len(plan.blocks)
    task = [dict(options, seed=plan.seed + i) for i in range(total)]

    def path(i: int) -> tuple[Cut, ...] | None:
        return None if plan.paths is None else plan.paths[i]

    if plan.scheduler == "sync" or total == 1:
        for i in range(total):
            yield i, _run_block(part(i), plan.schema, plan.k, task[i], i, path(i), encoding)
            report(i + 1, total)
        return
    with _reached(client, plan.scheduler, workers) as client:
        from distributed import as_completed

        # the schema travels with each task: scattered data dies with the worker holding it
        schema = plan.schema
        width = IN_FLIGHT * max(len(client.scheduler_info().get("workers", {})), 1)

        def submit(i: int) -> Any:
            return client.submit(_run_block, part(i), schema, plan.k, task[i], i,
                                 path(i), encoding, pure=False, retries=1)  # fmt: skip

        queue = _largest_first(plan.blocks)
        index = {}
        # on this client's loop: by default Dask takes the process's current client, which
        # may be another (the user's own): its loop then sees the results a second late
        pending = as_completed(loop=client.loop)
        for i in queue[:width]:
            future = submit(i)
            index[future.key] = i
            pending.add(future)
        following, done = min(width, total), 0
        for future in pending:
            result = future.result()
            done += 1
            i = index.pop(future.key)
            future.release()
            if following < total:
                nxt = submit(queue[following])
                index[nxt.key] = queue[following]
                pending.add(nxt)
                following += 1
            yield i, result
            report(done, total)


def _largest_first(blocks: Sequence[np.ndarray]) -> list[int]:
    """Block numbers by decreasing size, equal sizes in block order."""
    return sorted(range(len(blocks)), key=lambda i: -len(blocks[i]))


def _checked_scheduler(scheduler: str, workers: int | None = None) -> str:
    """``scheduler``, checked with ``workers`` (a warning when they have no effect)."""
    if scheduler not in ("local", "sync") and not scheduler.startswith(("tcp://", "tls://")):
        msg = f"--scheduler must be local, sync or tcp://HOST:PORT, got {scheduler!r}"
        raise ParameterError(msg)
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):  # fmt: skip
        msg = f"--workers must be a positive integer, got {workers!r}"
        raise ParameterError(msg)
    if workers is not None and scheduler != "local":
        warnings.warn(f"--workers has no effect with --scheduler {scheduler}: it sizes the local "
                      "cluster only", IncrowdWarning, stacklevel=2)  # fmt: skip
    return scheduler


def _unused_cluster_options(scheduler: str, workers: int | None) -> str:
    """The options a run in this process leaves unused, as the user gave them ("" when
    none; --workers with another scheduler than local was warned of already)."""
    unused = ["--scheduler"] if scheduler not in ("local", "sync") else []
    if workers is not None and scheduler == "local":
        unused.append("--workers")
    return " / ".join(unused)


@contextlib.contextmanager
def _client(scheduler: str, workers: int | None) -> Iterator[Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        msg = "a Dask scheduler needs dask[distributed]: pip install 'incrowd[dask]'"
        raise InputError(msg) from None
    from .._runtime import available_cpus

    cluster = None
    if scheduler == "local":
        # one thread per worker process, and the compiled kernels told so: n workers use
        # n cores, not n × n
        single = {"INCROWD_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        with warnings.catch_warnings():
            # the scheduler's HTTP server falls back to a free port when 8787 is taken, as it
            # often is on a shared server; no dashboard is offered, so the notice is noise
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            # silent logs: a kill during the work left the workers logging their lost
            # scheduler with tracebacks (3 kills in at most 75); a task's error or a
            # worker's death reaches the client as an exception all the same
            cluster = LocalCluster(n_workers=workers or available_cpus(), threads_per_worker=1,
                                   processes=True, dashboard_address=None, env=single,
                                   silence_logs=logging.CRITICAL)  # fmt: skip
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler, timeout=10)
        except OSError as exc:
            msg = f"cannot reach the Dask scheduler at {scheduler}: {exc}"
            raise InputError(msg) from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@contextlib.contextmanager
def _early_client(
    scheduler: str, workers: int | None, rows: int, block_size: int | None, blocks: int | None
) -> Iterator[Any]:
    """The workers reached before the blocks are planned, when there will be more than one
    block, and each told to load incrowd meanwhile: the planning then overlaps the workers'
    imports (about a second each) instead of preceding them. None otherwise."""
    _checked_scheduler(scheduler, workers)
    size = block_size if isinstance(block_size, int) else 100_000  # (checked in planning)
    several = blocks > 1 if isinstance(blocks, int) else rows > size
    if scheduler == "sync" or not several:
        yield None
        return
    with _client(scheduler, workers) as client:
        loading = [client.submit(_loaded, workers=[address], pure=False)
                   for address in client.scheduler_info().get("workers", {})]  # fmt: skip
        yield client
        del loading  # held so far: a released task may be forgotten before it runs


def _loaded() -> bool:
    """A task whose unpickling loads incrowd on the worker it runs on (this module imports
    the pipeline and every method)."""
    return True


@contextlib.contextmanager
def _reached(client: Any, scheduler: str, workers: int | None) -> Iterator[Any]:
    if client is not None:
        yield client
        return
    with _client(scheduler, workers) as opened:
        yield opened


def _class_sizes(table: pd.DataFrame, qi: Sequence[str]) -> pd.Series:
    """Records per group of identical published quasi-identifiers (for the counts and
    discernibility only: each block's k-anonymity is checked by :func:`incrowd.verify`)."""
    weights = pd.to_numeric(table[COUNT]) if COUNT in table.columns else None
    return group_sizes(table, qi, weights)


def _combine(plan: _Plan, done: list[_Block]) -> Release:
    """The blocks' releases as one release in memory (rows shuffled across blocks)."""
    frame = plan.frame
    results = [b.release for b in done if b.release is not None]
    assert len(results) == len(done), "blocks encoded for a file have no release to combine"
    if len(results) == 1:  # the single-machine release, with the blocking recorded
        meta = dict(results[0].metadata) | {"blocking": _blocking(plan, [results[0].metadata])}
        return Release(results[0].table, results[0].form, results[0].partition, meta)
    labels = np.full(len(frame), -1, dtype=np.intp)
    offset = 0
    for rows, result in zip(plan.blocks, results, strict=True):
        own = result.partition.labels
        labels[rows] = np.where(own >= 0, own + offset, -1)
        offset += result.partition.n_clusters
    table = pd.concat([r.table for r in results], ignore_index=True)
    table = table.sample(frac=1.0, random_state=plan.seed).reset_index(drop=True)
    meta = _metadata(plan, [r.metadata for r in results], [b.bound for b in done],
                     add_up([b.sizes for b in done]))  # fmt: skip
    verify(table, plan.schema.qi_names, plan.k, metadata=meta).raise_if_failed()
    return Release(table, results[0].form, Partition(labels), meta)


def _metadata(
    plan: _Plan,
    metas: list[Mapping[str, Any]],
    parts: list[float | LeftOutTerms | None],
    sizes: pd.Series,
) -> dict[str, Any]:
    """The whole release's metadata from its blocks' (metadata and shares of the global
    bound) and its group sizes."""
    first = metas[0]
    combine = "max" if first.get("objective") in ("max_radius", "largest_crowd") else "sum"
    total = max if combine == "max" else sum
    cost = float(total(m["cost"] for m in metas))
    bounds = [m.get("lower_bound") for m in metas]
    blocked = None if any(b is None for b in bounds) else float(total(bounds))  # type: ignore[type-var]
    n_input = len(plan.frame)
    whole = whole_bound(parts, n_input) if combine == "sum" else None
    n_suppressed = sum(m["n_suppressed"] for m in metas)
    loss = {
        "ncp": sum(m["loss"]["ncp"] * m["n_input"] for m in metas) / n_input,
        "sse": sum(m["loss"]["sse"] for m in metas),
        "l_sse": None,  # each block's SSE is over its own spread: no global share
        "discernibility": float((sizes.astype(np.float64) ** 2).sum())
        + float(n_input * n_suppressed),
    }
    kept = ("release", "form", "qi", "sensitive", "method", "parameters", "objective",
            "guarantee_text", "reference", "approximation_ratio")  # fmt: skip
    meta = {key: first[key] for key in kept if key in first}
    return meta | {
        "seed": plan.seed,
        "version": __version__,
        "k": plan.k,
        "n_input": n_input,
        "n_released": sum(m["n_released"] for m in metas),
        "n_suppressed": n_suppressed,
        "n_dropped_missing": sum(m.get("n_dropped_missing", 0) for m in metas),
        "n_crowds": sum(m["n_crowds"] for m in metas),
        "n_groups": int(sizes.size),
        "k_achieved": int(sizes.min()) if sizes.size else 0,
        "loss": loss,
        "cost": cost,
        "lower_bound": whole,
        "certified_ratio": certified_ratio(cost, whole),
        "blocked_lower_bound": blocked,
        "blocked_certified_ratio": certified_ratio(cost, blocked),
        "blocking": _blocking(plan, metas),
        "withheld_columns": first.get("withheld_columns", []),
        "diversity": first.get("diversity"),
        "seconds": round(time.perf_counter() - plan.start, 4),
    }


def _blocking(plan: _Plan, metas: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "by": list(plan.by),
        "block_size": int(plan.block_size),
        "scheduler": plan.scheduler if plan.scheduler in ("local", "sync") else "cluster",
        "n_blocks": len(plan.blocks),
        "blocks": [
            {
                "records": int(rows.size),
                "cost": m["cost"],
                "lower_bound": m.get("lower_bound"),
                "certified_ratio": m.get("certified_ratio"),
            }  # fmt: skip
            for rows, m in zip(plan.blocks, metas, strict=True)
        ],
    }
