"""Running the blocks: each anonymized where it runs, at most a few in flight per worker
(see :mod:`incrowd.distributed`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..data.schema import Schema
from ..errors import IncrowdError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT, EncodedPart, FormulaPolicy, encode_part
from ..pipeline.run import anonymize_with
from ..pipeline.settings import Settings
from ..privacy.verify import group_sizes
from ..release import Release
from ._bound import LeftOutTerms, global_bound_part
from ._client import reached
from ._cut import Cut
from ._plan import Plan

__all__ = ["IN_FLIGHT", "Block", "largest_first", "run_block", "run_blocks"]


@dataclass(frozen=True)
class Block:
    """What a worker sends back for one block: its release (or, when the release is written
    block by block, its part file's bytes and its metadata), its share of the global lower
    bound (None without one), and its group sizes."""

    release: Release | None
    metadata: ReleaseMetadata
    bound: float | LeftOutTerms | None
    sizes: pd.Series
    encoded: EncodedPart | None = None


def run_block(
    table: pd.DataFrame,
    schema: Schema,
    settings: Settings,
    index: int,
    path: tuple[Cut, ...] | None,
    encoding: tuple[bool, str, FormulaPolicy] | None = None,
) -> Block:
    """One block, made where it runs: its release (encoded as its part file with
    ``encoding``), its share of the global lower bound (no ``path`` when other than QI cuts
    separate the blocks) and its group sizes, so that the process gathering the blocks only
    adds them up and writes bytes. An error names the block."""
    fitted: dict[str, Any] = {}
    try:
        release = anonymize_with(
            table, schema, settings, on_fitted=lambda m, s: fitted.update(method=m, space=s)
        )
    except IncrowdError as exc:
        raise type(exc)(f"block {index + 1} ({len(table)} records): {exc.marked()}") from None
    bound = None if path is None else global_bound_part(table, schema, fitted, path)
    sizes = class_sizes(release.table, schema.qi_names)
    if encoding is None:
        return Block(release, release.metadata, bound, sizes)
    return Block(None, release.metadata, bound, sizes, encode_part(release.table, *encoding))


#: Blocks in flight per worker: enough to keep a worker busy, few enough to bound memory.
IN_FLIGHT = 2


def run_blocks(
    plan: Plan,
    part: Callable[[int], pd.DataFrame],
    settings: Settings,
    client: Any,
    workers: int | None,
    on_block: Callable[[int, int], None] | None,
    encoding: tuple[bool, str, FormulaPolicy] | None = None,
) -> Iterator[tuple[int, Block]]:
    """``(block, what it gave)`` as blocks finish (``part(i)``: block ``i``'s records;
    ``encoding``: see :func:`run_block`); block ``i`` is seeded ``plan.seed + i``; at most
    ``IN_FLIGHT`` blocks per worker are submitted at a time, the largest first, so that the
    last to finish are small (median cuts on tied values leave blocks of a third to the
    whole ``block_size``, and a block's time follows its size). A task lost with a worker is
    run again on another (once). ``client``: the workers, reached already
    (:func:`~._client.early_client`), or None to reach them here."""
    report = on_block or (lambda _done, _total: None)
    total = len(plan.blocks)
    task = [dataclasses.replace(settings, seed=plan.seed + i) for i in range(total)]

    def path(i: int) -> tuple[Cut, ...] | None:
        return None if plan.paths is None else plan.paths[i]

    if plan.scheduler == "sync" or total == 1:
        for i in range(total):
            yield i, run_block(part(i), plan.schema, task[i], i, path(i), encoding)
            report(i + 1, total)
        return
    with reached(client, plan.scheduler, workers) as client:
        from distributed import as_completed

        # the schema travels with each task: scattered data dies with the worker holding it
        schema = plan.schema
        width = IN_FLIGHT * max(len(client.scheduler_info().get("workers", {})), 1)

        def submit(i: int) -> Any:
            return client.submit(run_block, part(i), schema, task[i], i, path(i), encoding,
                                 pure=False, retries=1)  # fmt: skip

        queue = largest_first(plan.blocks)
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


def largest_first(blocks: Sequence[np.ndarray]) -> list[int]:
    """Block numbers by decreasing size, equal sizes in block order."""
    return sorted(range(len(blocks)), key=lambda i: -len(blocks[i]))


def class_sizes(table: pd.DataFrame, qi: Sequence[str]) -> pd.Series:
    """Records per group of identical published quasi-identifiers (for the counts and
    discernibility only: each block's k-anonymity is checked by :func:`incrowd.verify`)."""
    weights = pd.to_numeric(table[COUNT]) if COUNT in table.columns else None
    return group_sizes(table, qi, weights)
