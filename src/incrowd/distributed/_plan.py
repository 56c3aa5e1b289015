"""The plan of a blockwise run: its settings, the blocks and the cuts that made them (see
:mod:`incrowd.distributed`)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.columns import MISSING_LABEL, read_cells
from ..data.schema import Numeric, Schema, is_missing
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
    *, missing: str = "keep",
) -> Plan:  # fmt: skip
    """The blocks of ``table`` (the settings were checked by
    :class:`~incrowd.pipeline.settings.Settings`; here what depends on the table).
    ``missing`` is the run's missing-value policy: a missing label is cut on as a value of
    its own when it is kept, and as the column's commonest value otherwise (its record is
    left out in its block, so a block is never made of such records alone)."""
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
    # cut on the cells as the blocks will read them (numbers parsed, dates as ISO text); each
    # block reads its own rows again from the table as given
    named = [c for c in dict.fromkeys([*schema.qi_names, *by]) if c in frame.columns]
    cells = read_cells(frame[named], schema)  # an unknown column: plan_blocks names it
    for name, metric in schema.quasi_identifiers.items():
        if name not in cells.columns or isinstance(metric, Numeric):
            continue
        blank = is_missing(cells[name])
        if blank.any() and not blank.all():
            fill = MISSING_LABEL if missing in ("keep", "category") else (
                cells[name][~blank].mode().iloc[0])  # fmt: skip
            cells[name] = cells[name].astype(object).where(~blank, fill)
    planned, complete = plan_blocks(cells, schema, block_size=block_size, by=by, floor=floor)
    rows = [r for r, _ in planned]
    paths = [p for _, p in planned] if complete else None
    return Plan(frame, schema, k, seed, rows, paths, tuple(by), block_size, scheduler, start)
