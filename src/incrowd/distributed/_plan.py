"""The plan of a blockwise run: its settings, the blocks and the cuts that made them (see
:mod:`incrowd.distributed`)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.schema import Schema
from ..errors import ParameterError
from ..io.tables import as_dataframe
from ..params import check_k
from ._cut import Cut, plan_blocks

__all__ = ["Plan", "make_plan"]


@dataclass(frozen=True)
class Plan:
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


def make_plan(
    table: object, schema: Schema, k: int, block_size: int | None, blocks: int | None,
    by: Sequence[str], floor: int | None, scheduler: str, seed: int | None,
) -> Plan:  # fmt: skip
    """The blocks of ``table`` (the settings were checked by
    :class:`~incrowd.pipeline.settings.Settings`; here what depends on the table)."""
    start = time.perf_counter()
    frame = as_dataframe(table)
    schema = schema.with_domain(frame)  # every block is costed and scored as part of the whole
    k = check_k(k, len(frame))
    seed = secrets.randbits(31) if seed is None else int(seed)
    floor = min(max(2 * k, 1000), len(frame)) if floor is None else int(floor)
    if floor < k:
        msg = f"the block floor ({floor}) must be at least k ({k})"
        raise ParameterError(msg)
    if blocks is not None:
        block_size = max(-(-len(frame) // blocks), floor)
    block_size = 100_000 if block_size is None else int(block_size)
    planned, complete = plan_blocks(frame, schema, block_size=block_size, by=by, floor=floor)
    rows = [r for r, _ in planned]
    paths = [p for _, p in planned] if complete else None
    return Plan(frame, schema, k, seed, rows, paths, tuple(by), block_size, scheduler, start)
