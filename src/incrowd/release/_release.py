"""The Release value object and what the three release forms share."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from ..data.columns import QIColumn, encode_qis
from ..data.schema import Schema
from ..errors import InputError, SchemaError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import FormulaPolicy, write_release
from ..params import check_seed
from ..partition import Partition
from .crowds import CrowdIndex, Summary, summarize

__all__ = ["Release", "ReleaseForm", "RELEASE_FORMS", "format_number"]

ReleaseForm = Literal["generalized", "microaggregated", "centers"]
RELEASE_FORMS: tuple[str, ...] = ("generalized", "microaggregated", "centers")


@dataclass(frozen=True, eq=False)
class Release:
    """A published table with the partition behind it and its provenance.

    ``table`` is what gets written; ``partition`` is kept for the publisher's own reports and
    is never written. ``metadata`` holds the provenance and loss figures written as JSON beside
    the table.
    """

    table: pd.DataFrame
    form: ReleaseForm
    partition: Partition
    metadata: ReleaseMetadata = field(default_factory=ReleaseMetadata)

    def write(
        self,
        path: str | os.PathLike[str],
        sep: str = ",",
        *,
        formulas: FormulaPolicy = "escape",
        protect: Sequence[str | os.PathLike[str]] = (),
    ) -> tuple[Path, Path]:
        """Write the table (CSV or Parquet, by suffix) and its JSON metadata beside it.

        Both change together, or neither does (:mod:`incrowd.io.release_format`); an existing
        file is replaced only when it belongs to an earlier release, never when it is one
        of the paths in ``protect``. ``formulas`` neutralizes (``"escape"``) or refuses
        CSV cells a spreadsheet would execute. Returns the table and metadata paths.
        """
        return write_release(
            self.table, self.metadata, path, sep=sep, formulas=formulas, protect=protect
        )


def format_number(x: float) -> str:
    """Shortest text that reads back as exactly ``x``; whole numbers without a decimal point."""
    x = float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every release form needs: coded QIs, crowd index and the published columns."""

    columns: tuple[QIColumn, ...]
    index: CrowdIndex
    passthrough: tuple[str, ...]  # sensitive and insensitive columns, in table order


def prepare(
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    columns: tuple[QIColumn, ...] | None = None,
) -> Prepared:
    """Validate that table, partition and schema fit together; code the QIs once."""
    if partition.n != len(table):
        msg = f"the partition covers {partition.n} records but the table has {len(table)}"
        raise InputError(msg)
    coded = tuple(columns) if columns else tuple(encode_qis(table, schema))
    keep = set(schema.sensitive) | set(schema.insensitive)
    passthrough = tuple(str(c) for c in table.columns if str(c) in keep)
    return Prepared(coded, CrowdIndex.from_partition(partition), passthrough)


def record_release(
    form: ReleaseForm,
    crowd_value: Callable[[Summary], np.ndarray],
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    seed: int | None,
    columns: tuple[QIColumn, ...] | None,
) -> Release:
    """A one-row-per-record release whose QIs take ``crowd_value`` of their crowd's summary."""
    prep = prepare(table, partition, schema, columns)
    values = {s.column.name: crowd_value(s) for s in summarize(prep.columns, prep.index)}
    frame = record_table(table, prep, values, seed)
    return Release(frame, form, partition, base_metadata(form, schema, partition))


def record_table(
    table: pd.DataFrame, prep: Prepared, crowd_values: Mapping[str, np.ndarray], seed: int | None
) -> pd.DataFrame:
    """One shuffled row per published record: QIs from ``crowd_values`` (one entry per crowd),
    sensitive and insensitive columns passed through, everything else left out."""
    index = prep.index
    out = {}
    for col in table.columns:
        name = str(col)
        if name in crowd_values:
            out[name] = np.asarray(crowd_values[name])[index.labels]
        elif name in prep.passthrough:
            out[name] = table[col].to_numpy()[index.order]
    return shuffled(pd.DataFrame(out), seed)


def shuffled(frame: pd.DataFrame, seed: int | None) -> pd.DataFrame:
    """Rows in a random order, so that row position cannot link a release row to a record."""
    perm = np.random.default_rng(None if seed is None else check_seed(seed)).permutation(len(frame))
    return frame.iloc[perm].reset_index(drop=True)


def check_reserved(names: tuple[str, ...], reserved: tuple[str, ...], form: str) -> None:
    clash = sorted(set(names) & set(reserved))
    if clash:
        msg = f"column name {clash[0]!r} is reserved in the {form} release; rename the column"
        raise SchemaError(msg)


def base_metadata(form: str, schema: Schema, partition: Partition) -> ReleaseMetadata:
    return ReleaseMetadata(
        release=form,
        qi=tuple(schema.qi_names),
        sensitive=tuple(schema.sensitive),
        n_crowds=partition.n_clusters,
        n_released=partition.n_assigned,
        n_suppressed=partition.n_suppressed,
        k_achieved=partition.min_size,
    )
