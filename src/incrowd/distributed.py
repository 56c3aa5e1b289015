"""Blockwise anonymization: cut the table into blocks, anonymize each on a Dask worker.

Crowds never cross blocks, so the union of k-anonymous blocks is k-anonymous (and l-diverse
when every block is). Blocks come from the values of attributes the user names (``by``:
one state per block, say), or from median cuts on the quasi-identifiers — Mondrian's top
cuts: the block is halved at the median of the attribute with the most distinct values —
until no block holds more than ``block_size`` records; no block holds fewer than ``floor``
(small groups of ``by`` values are merged with their neighbours in value order, and a cut
that would leave fewer on one side is not made).

Certificates. The sum (or, for objectives that take the largest crowd, the maximum) of the
blocks' lower bounds bounds the optimum **of the blocked problem** — crowds confined to
blocks — not the optimum of the whole table, which may use crowds across block boundaries.
The metadata reports it under ``blocked_lower_bound`` and ``blocked_certified_ratio``, and
leaves the global ``lower_bound`` and ``certified_ratio`` empty.

Scheduler: ``"local"`` starts a ``distributed.LocalCluster`` of worker processes on this
machine; ``"tcp://HOST:PORT"`` uses a running cluster; ``"sync"`` runs the blocks one after
another in this process (no Dask needed). A single block is the single-machine release.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import __version__
from .data.io import as_dataframe
from .data.schema import Schema
from .errors import IncrowdError, InfeasibleError, InputError, ParameterError
from .evaluate import published_discernibility
from .params import check_k, check_seed
from .partition import Partition
from .pipeline import anonymize
from .privacy import verify
from .release import Release

__all__ = ["anonymize_blocks", "cut_blocks"]


def _order_keys(column: pd.Series) -> np.ndarray:
    """A sortable number per row: the value, or the rank of the label among the labels."""
    numbers = pd.to_numeric(column, errors="coerce")
    if numbers.notna().all():
        return numbers.to_numpy(dtype=np.float64)
    codes, _ = pd.factorize(column.astype(str), sort=True)
    return codes.astype(np.float64)


def _median_cuts(
    keys: np.ndarray, rows: np.ndarray, block_size: int, floor: int
) -> list[np.ndarray]:
    """Halve ``rows`` at medians until every part holds at most ``block_size`` records."""
    out, stack = [], [rows]
    while stack:
        part = stack.pop()
        if part.size <= block_size:
            out.append(part)
            continue
        local = keys[part]
        spread = [np.unique(local[:, j]).size for j in range(local.shape[1])]
        done = False
        for j in np.argsort(spread)[::-1]:
            if spread[j] < 2:
                break
            order = part[np.argsort(local[:, j], kind="stable")]
            values = keys[order, j]
            cut = order.size // 2
            # move the cut to a change of value, the nearest to the median
            left = np.flatnonzero(values[1:] != values[:-1]) + 1
            if left.size == 0:
                continue
            cut = int(left[np.argmin(np.abs(left - cut))])
            if cut < floor or order.size - cut < floor:
                continue
            stack += [order[:cut], order[cut:]]
            done = True
            break
        if not done:
            out.append(part)  # no cut leaves floor on both sides: a block above the size
    return out


def cut_blocks(
    table: pd.DataFrame,
    schema: Schema,
    *,
    block_size: int,
    by: Sequence[str] = (),
    floor: int,
) -> list[np.ndarray]:
    """Row indices of each block (see the module docstring)."""
    n = len(table)
    if block_size < floor:
        msg = f"the block size ({block_size}) must be at least the block floor ({floor})"
        raise ParameterError(msg)
    if n < floor:
        msg = f"{n} records: fewer than a block's floor of {floor}"
        raise InfeasibleError(msg)
    missing = [c for c in by if c not in table.columns]
    if missing:
        msg = f"no column {missing[0]!r} to block by"
        raise InputError(msg)
    if by:
        groups = table.groupby(list(by), sort=True, observed=True, dropna=False).indices
        parts = [np.asarray(v, dtype=np.intp) for v in groups.values()]
        merged: list[np.ndarray] = []
        for part in parts:  # small groups join the next one in value order
            if merged and merged[-1].size < floor:
                merged[-1] = np.concatenate([merged[-1], part])
            else:
                merged.append(part)
        if len(merged) > 1 and merged[-1].size < floor:
            last = merged.pop()
            merged[-1] = np.concatenate([merged[-1], last])
    else:
        merged = [np.arange(n, dtype=np.intp)]
    keys = np.column_stack([_order_keys(table[c]) for c in schema.qi_names])
    blocks: list[np.ndarray] = []
    for part in merged:
        blocks += _median_cuts(keys, np.sort(part), block_size, floor)
    return [np.sort(b) for b in blocks]


def _run_block(
    table: pd.DataFrame, schema: Schema, k: int, options: Mapping[str, Any], index: int
) -> Release:
    """One block's release; an error names the block (its number and records)."""
    try:
        return anonymize(table, schema, k, **options)
    except IncrowdError as exc:
        raise type(exc)(f"block {index + 1} ({len(table)} records): {exc}") from None


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
    ``options``: method, release, params, ...), and publish the union as one release.

    ``block_size`` (default 100,000) is the largest block, or ``blocks`` the number of
    blocks wanted (the size is then ``⌈n / blocks⌉``; median cuts give up to the next power
    of two); ``floor`` (default ``max(2k, 1000)`` capped by the table) is the smallest block;
    ``on_block(done, total)`` is called as blocks finish.
    """
    import secrets

    frame = as_dataframe(table)
    schema.check_columns(frame.columns)
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
    start = time.perf_counter()
    parts_rows = cut_blocks(frame, schema, block_size=block_size, by=by, floor=floor)
    parts = [frame.iloc[b].reset_index(drop=True) for b in parts_rows]
    tasks = [dict(options, seed=seed + i) for i in range(len(parts))]
    results = _map(parts, schema, k, tasks, scheduler, workers, on_block)
    return _combine(frame, schema, k, parts_rows, results, seed, start, by, block_size,
                    scheduler)  # fmt: skip


def _map(
    parts: list[pd.DataFrame],
    schema: Schema,
    k: int,
    tasks: list[dict[str, Any]],
    scheduler: str,
    workers: int | None,
    on_block: Callable[[int, int], None] | None,
) -> list[Release]:
    report = on_block or (lambda _done, _total: None)
    if scheduler == "sync" or len(parts) == 1:
        out = []
        for i, (part, task) in enumerate(zip(parts, tasks, strict=True)):
            out.append(_run_block(part, schema, k, task, i))
            report(i + 1, len(parts))
        return out
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        msg = "a Dask scheduler needs dask[distributed]: pip install 'incrowd[dask]'"
        raise InputError(msg) from None
    from ._runtime import available_cpus

    if scheduler == "local":
        cluster = LocalCluster(n_workers=workers or available_cpus(), threads_per_worker=1,
                               processes=True, dashboard_address=None)  # fmt: skip
        client = Client(cluster)
    elif scheduler.startswith(("tcp://", "tls://")):
        cluster, client = None, Client(scheduler)
    else:
        msg = f"--scheduler must be local, sync or tcp://HOST:PORT, got {scheduler!r}"
        raise ParameterError(msg)
    try:
        futures = [client.submit(_run_block, part, schema, k, task, i, pure=False)
                   for i, (part, task) in enumerate(zip(parts, tasks, strict=True))]  # fmt: skip
        for done, _ in enumerate(as_completed(futures), start=1):
            report(done, len(parts))
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _combine(
    frame: pd.DataFrame,
    schema: Schema,
    k: int,
    blocks: list[np.ndarray],
    results: list[Release],
    seed: int,
    start: float,
    by: Sequence[str],
    block_size: int,
    scheduler: str,
) -> Release:
    first = results[0].metadata
    if len(results) == 1:  # the single-machine release, with the blocking recorded
        meta = dict(first) | {"blocking": _blocking(blocks, results, by, block_size, scheduler)}
        return Release(results[0].table, results[0].form, results[0].partition, meta)
    labels = np.full(len(frame), -1, dtype=np.intp)
    offset = 0
    for rows, result in zip(blocks, results, strict=True):
        own = result.partition.labels
        labels[rows] = np.where(own >= 0, own + offset, -1)
        offset += result.partition.n_clusters
    table = pd.concat([r.table for r in results], ignore_index=True)
    table = table.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    metas = [r.metadata for r in results]
    combine = "max" if first.get("objective") in ("max_radius", "largest_crowd") else "sum"
    total = max if combine == "max" else sum
    cost = float(total(m["cost"] for m in metas))
    bounds = [m.get("lower_bound") for m in metas]
    blocked = None if any(b is None for b in bounds) else float(total(bounds))  # type: ignore[type-var]
    n_released = sum(m["n_released"] for m in metas)
    n_suppressed = sum(m["n_suppressed"] for m in metas)
    loss = {
        "ncp": sum(m["loss"]["ncp"] * m["n_input"] for m in metas) / len(frame),
        "sse": sum(m["loss"]["sse"] for m in metas),
        "l_sse": None,  # each block's SSE is over its own spread: no global share
        "discernibility": published_discernibility(table, schema, results[0].form)
        + float(len(frame) * n_suppressed),
    }
    kept = ("release", "form", "qi", "sensitive", "method", "parameters", "objective",
            "guarantee_text", "reference", "approximation_ratio")  # fmt: skip
    meta = {key: first[key] for key in kept if key in first}
    meta |= {
        "seed": seed,
        "version": __version__,
        "k": k,
        "n_input": len(frame),
        "n_released": n_released,
        "n_suppressed": n_suppressed,
        "n_dropped_missing": sum(m.get("n_dropped_missing", 0) for m in metas),
        "n_crowds": offset,
        "loss": loss,
        "cost": cost,
        "lower_bound": None,
        "certified_ratio": None,
        "blocked_lower_bound": blocked,
        "blocked_certified_ratio": (cost / blocked) if blocked else None,
        "blocking": _blocking(blocks, results, by, block_size, scheduler),
        "withheld_columns": first.get("withheld_columns", []),
        "diversity": first.get("diversity"),
    }
    report = verify(table, schema.qi_names, k, metadata=meta)
    report.raise_if_failed()
    meta["n_groups"] = report.n_classes
    meta["k_achieved"] = report.k_achieved
    meta["seconds"] = round(time.perf_counter() - start, 4)
    return Release(table, results[0].form, Partition(labels), meta)


def _blocking(
    blocks: list[np.ndarray], results: list[Release], by: Sequence[str], block_size: int,
    scheduler: str,
) -> dict[str, Any]:  # fmt: skip
    return {
        "by": list(by),
        "block_size": int(block_size),
        "scheduler": scheduler if scheduler in ("local", "sync") else "cluster",
        "n_blocks": len(blocks),
        "blocks": [
            {
                "records": int(b.size),
                "cost": r.metadata["cost"],
                "lower_bound": r.metadata.get("lower_bound"),
                "certified_ratio": r.metadata.get("certified_ratio"),
            }  # fmt: skip
            for b, r in zip(blocks, results, strict=True)
        ],
    }
