"""The blocks' releases as one: the table in memory, and the whole release's metadata from
its blocks' (see :mod:`incrowd.distributed`, "Certificates")."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import __version__
from ..costs import certified_ratio
from ..data.schema import is_missing
from ..io.metadata import ReleaseMetadata
from ..measures.loss import discernibility_of_sizes, without_suppressed_rows
from ..partition import Partition
from ..pipeline.homogeneity import homogeneous_classes
from ..privacy.verify import add_up, verify
from ..release import Release
from ._bound import LeftOutTerms, whole_bound
from ._plan import Plan
from ._run import Block

__all__ = ["combine", "metadata"]


def combine(plan: Plan, done: list[Block]) -> Release:
    """The blocks' releases as one release in memory (rows shuffled across blocks)."""
    frame = plan.frame
    results = [b.release for b in done if b.release is not None]
    assert len(results) == len(done), "blocks encoded for a file have no release to combine"
    if len(results) == 1:  # the single-machine release, with the blocking recorded
        meta = results[0].metadata.replace(blocking=_blocking(plan, [results[0].metadata]))
        return Release(results[0].table, results[0].form, results[0].partition, meta)
    labels = np.full(len(frame), -1, dtype=np.intp)
    offset = 0
    for rows, result in zip(plan.blocks, results, strict=True):
        own = result.partition.labels
        if own.size != rows.size:  # records left out for a missing value have no crowd
            block = frame.iloc[rows]
            rows = rows[~np.logical_or.reduce([is_missing(block[q]).astype(bool)
                                               for q in plan.schema.qi_names])]  # fmt: skip
            assert rows.size == own.size, "a block's kept records are its complete ones"
        labels[rows] = np.where(own >= 0, own + offset, -1)
        offset += result.partition.n_clusters
    table = pd.concat([r.table for r in results], ignore_index=True)
    table = table.sample(frac=1.0, random_state=plan.seed).reset_index(drop=True)
    meta = metadata(plan, [r.metadata for r in results], [b.bound for b in done],
                    add_up([b.sizes for b in done]))  # fmt: skip
    verify(table, plan.schema.qi_names, plan.k, metadata=meta).raise_if_failed()
    # classes of several blocks may share published values: counted on the whole table
    form = results[0].form
    groups = int(meta.n_groups or 0)
    kept = without_suppressed_rows(table, plan.schema.qi_names, form,
                                   int(meta.n_suppressed or 0) if meta.suppressed_form == "star"
                                   else 0)  # fmt: skip
    meta = meta.replace(homogeneous=homogeneous_classes(kept, plan.schema, form, groups))
    return Release(table, results[0].form, Partition(labels), meta)


def metadata(
    plan: Plan,
    metas: list[ReleaseMetadata],
    parts: list[float | LeftOutTerms | None],
    sizes: pd.Series,
) -> ReleaseMetadata:
    """The whole release's metadata from its blocks' (metadata and shares of the global
    bound) and its group sizes."""
    first = metas[0]
    combine = "max" if first.objective in ("max_radius", "largest_crowd") else "sum"
    total = max if combine == "max" else sum
    cost = float(total(_number(m.cost) for m in metas))
    bounds = [m.lower_bound for m in metas]
    blocked = None if any(b is None for b in bounds) else float(total(bounds))  # type: ignore[type-var]
    n_input = len(plan.frame)
    whole = whole_bound(parts, n_input) if combine == "sum" else None
    n_suppressed = sum(_count(m.n_suppressed) for m in metas)
    n_dropped = sum(_count(m.n_dropped_missing) for m in metas)
    loss = {
        "ncp": sum(_number(m.loss["ncp"]) * _count(m.n_input) for m in metas) / n_input,
        "sse": sum(_number(m.loss["sse"]) for m in metas),
        "l_sse": None,  # each block's SSE is over its own spread: no global share
        "discernibility": discernibility_of_sizes(sizes, n_input, n_suppressed + n_dropped),
    }
    # what the blocks share (their method, form and columns) is the first block's
    return ReleaseMetadata(
        release=first.release,
        generalize=first.generalize,
        center=first.center,
        qi=first.qi,
        sensitive=first.sensitive,
        method=first.method,
        parameters=first.parameters,
        objective=first.objective,
        guarantee_text=first.guarantee_text,
        reference=first.reference,
        approximation_ratio=first.approximation_ratio,
        withheld_columns=first.withheld_columns,
        schema=first.schema,
        created=first.created,
        diversity=first.diversity,
        suppressed_rows=first.suppressed_rows,
        seed=plan.seed,
        version=__version__,
        k=plan.k,
        n_input=n_input,
        n_released=sum(_count(m.n_released) for m in metas),
        n_suppressed=n_suppressed,
        n_dropped_missing=n_dropped,
        n_crowds=sum(_count(m.n_crowds) for m in metas),
        n_groups=int(sizes.size),
        k_achieved=int(sizes.min()) if sizes.size else 0,
        loss=loss,
        cost=cost,
        lower_bound=whole,
        certified_ratio=certified_ratio(cost, whole),
        blocked_lower_bound=blocked,
        blocked_certified_ratio=certified_ratio(cost, blocked),
        blocking=_blocking(plan, metas),
        seconds=round(time.perf_counter() - plan.start, 4),
    )


def _count(value: int | None) -> int:
    assert value is not None, "a block's release always counts its records"
    return value


def _number(value: float | None) -> float:
    assert value is not None, "a block's release always has its cost and loss"
    return value


def _blocking(plan: Plan, metas: Sequence[ReleaseMetadata]) -> dict[str, Any]:
    return {
        "by": list(plan.by),
        "block_size": int(plan.block_size),
        "scheduler": plan.scheduler if plan.scheduler in ("local", "sync") else "cluster",
        "n_blocks": len(plan.blocks),
        "blocks": [
            {
                "records": int(rows.size),
                "cost": m.cost,
                "lower_bound": m.lower_bound,
                "certified_ratio": m.certified_ratio,
            }  # fmt: skip
            for rows, m in zip(plan.blocks, metas, strict=True)
        ],
    }
