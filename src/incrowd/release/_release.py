"""The Release value object and what the three release forms share.

Suppressed records (label −1) are left out of a release (``suppressed="drop"``), or
published as one row each with ``*`` in every quasi-identifier (``"star"``), their sensitive
and insensitive values kept, shuffled in with the other rows. Either way the metadata counts
them in ``n_suppressed``, never in ``n_released`` (records in crowds), and records the form
in ``suppressed_rows`` (set only for ``"star"``; absent reads as ``"drop"``): a star release
has ``n_released + n_suppressed`` rows (records, for the centers form). A numeric
quasi-identifier of a star release is text (:func:`format_number`), so that ``*`` fits.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..data.columns import QIColumn, encode_qis, sensitive_cells
from ..data.ranges import format_number
from ..data.schema import Schema
from ..errors import InputError, ParameterError, SchemaError
from ..io.metadata import STAR, SUPPRESSED_ROWS, ReleaseMetadata
from ..io.release_format import FormulaPolicy, write_release
from ..params import check_seed
from ..partition import Partition
from .crowds import CrowdIndex, HierarchySummary, Levels, Summary, check_levels, summarize

__all__ = ["Release", "ReleaseForm", "RELEASE_FORMS", "format_number", "SuppressedRows"]

ReleaseForm = Literal["generalized", "microaggregated", "centers"]
RELEASE_FORMS: tuple[str, ...] = ("generalized", "microaggregated", "centers")
#: How suppressed records are published: a row of ``*`` each, or left out.
SuppressedRows = Literal["star", "drop"]


@dataclass(frozen=True, eq=False)
class Release:
    """A published table with the partition behind it and its provenance.

    ``table`` is what gets written (a pandas frame, or a polars frame when the input was
    one); ``partition`` is kept for the publisher's own reports and is never written.
    ``metadata`` holds the provenance and loss figures written as JSON beside the table.
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
        also: Sequence[Any] = (),
        also_refusal: Callable[[Path], str] | None = None,
    ) -> tuple[Path, Path]:
        """Write the table (CSV or Parquet, by suffix) and its JSON metadata beside it.

        Both change together, or neither does (:mod:`incrowd.io.release_format`); an existing
        file is replaced only when it belongs to an earlier release, never when it is one
        of the paths in ``protect``. ``formulas`` neutralizes (``"escape"``) or refuses
        CSV cells a spreadsheet would execute. ``also``: other files
        (:class:`~incrowd.io.atomic.Output`) written in the same group, refused in the words
        of ``also_refusal``. Returns the table and metadata paths.
        """
        from ..io.tables import as_dataframe

        return write_release(
            as_dataframe(self.table), self.metadata, path, sep=sep, formulas=formulas,
            protect=protect, also=also, also_refusal=also_refusal,
        )  # fmt: skip


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every release form needs: coded QIs, crowd index and the published columns."""

    columns: tuple[QIColumn, ...]
    index: CrowdIndex
    passthrough: tuple[str, ...]  # sensitive and insensitive columns, in table order
    sensitive: tuple[str, ...] = ()  # published by sensitive_cells: "(missing)" for a gap


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
    sensitive = tuple(str(c) for c in schema.sensitive)
    return Prepared(coded, CrowdIndex.from_partition(partition), passthrough, sensitive)


def check_suppressed(suppressed: object) -> None:
    """Raise :class:`~incrowd.ParameterError` unless ``suppressed`` is a form of suppressed
    rows."""
    if suppressed not in SUPPRESSED_ROWS:
        msg = f"suppressed must be 'star' or 'drop', got {suppressed!r}"
        raise ParameterError(msg)


def record_release(
    form: ReleaseForm,
    crowd_value: Callable[[Summary], np.ndarray],
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    seed: int | None,
    columns: tuple[QIColumn, ...] | None,
    *,
    levels: Levels = None,
    floors: Levels = None,
    suppressed: SuppressedRows = "drop",
) -> Release:
    """A one-row-per-record release whose QIs take ``crowd_value`` of their crowd's summary,
    at the fixed ``levels`` (recorded in the metadata with the published categories)."""
    check_suppressed(suppressed)
    prep = prepare(table, partition, schema, columns)
    # floors (a local method's min_level) raise crowds as levels do, not recorded as a node
    summaries = summarize(prep.columns, prep.index, levels if levels is not None else floors)
    values = {s.column.name: crowd_value(s) for s in summaries}
    stars = partition.labels < 0 if suppressed == "star" else None
    frame = record_table(table, prep, values, seed, stars)
    meta = base_metadata(form, schema, partition, suppressed)
    if levels is not None:
        fixed = dict(zip(prep.columns, check_levels(prep.columns, levels), strict=True))
        given = [s for s, level in zip(summaries, levels, strict=True) if level is not None]
        meta = meta.replace(
            levels={s.column.name: fixed[s.column] for s in given},
            categories={s.column.name: _categories(s, values[s.column.name], prep.index)
                        for s in given},
        )  # fmt: skip
    return Release(frame, form, partition, meta)


def _categories(
    summary: Summary, labels: np.ndarray, index: CrowdIndex
) -> tuple[tuple[str, int], ...]:
    """Each label the crowds publish and its records, in the hierarchy's order (by level,
    then node), else by label with ``*`` last."""
    counts: dict[str, int] = {}
    keys: dict[str, tuple] = {}
    for c, (label, size) in enumerate(zip(labels.tolist(), index.sizes.tolist(), strict=True)):
        text = str(label)
        counts[text] = counts.get(text, 0) + int(size)
        if isinstance(summary, HierarchySummary):
            keys[text] = (int(summary.level[c]), int(summary.node[c]), "")
        else:
            keys[text] = (int(text == STAR), 0, text)
    return tuple((text, counts[text]) for text in sorted(counts, key=keys.__getitem__))


def record_table(
    table: pd.DataFrame,
    prep: Prepared,
    crowd_values: Mapping[str, np.ndarray],
    seed: int | None,
    stars: np.ndarray | None = None,
) -> pd.DataFrame:
    """One shuffled row per published record: QIs from ``crowd_values`` (one entry per crowd),
    sensitive and insensitive columns passed through (a missing sensitive value spelled
    ``(missing)``: :func:`~incrowd.data.columns.sensitive_cells`), everything else left out;
    with ``stars`` (a mask of records), those records too, as rows of ``*``."""
    index = prep.index
    starred = np.flatnonzero(stars) if stars is not None else np.zeros(0, dtype=np.intp)
    rows = np.concatenate((index.order, starred)) if starred.size else index.order
    out = {}
    for col in table.columns:
        name = str(col)
        if name in crowd_values:
            out[name] = np.asarray(crowd_values[name])[index.labels]
            if starred.size:
                out[name] = with_stars(out[name], starred.size)
        elif name in prep.passthrough:
            cells = sensitive_cells(table[col]) if name in prep.sensitive else table[col]
            out[name] = cells.to_numpy()[rows]
    return shuffled(pd.DataFrame(out), seed)


def with_stars(values: np.ndarray, n: int) -> np.ndarray:
    """``values`` followed by ``n`` cells of ``*``; numbers as text (:func:`format_number`),
    so that the column is text throughout."""
    if values.dtype.kind in "iuf":
        values = np.array([format_number(v) for v in values.tolist()], dtype=object)
    return np.concatenate((values.astype(object), np.full(n, STAR, dtype=object)))


def shuffled(frame: pd.DataFrame, seed: int | None) -> pd.DataFrame:
    """Rows in a random order, so that row position cannot link a release row to a record."""
    perm = np.random.default_rng(None if seed is None else check_seed(seed)).permutation(len(frame))
    return frame.iloc[perm].reset_index(drop=True)


def check_reserved(names: tuple[str, ...], reserved: tuple[str, ...], form: str) -> None:
    clash = sorted(set(names) & set(reserved))
    if clash:
        msg = f"column name {clash[0]!r} is reserved in the {form} release; rename the column"
        raise SchemaError(msg)


def base_metadata(
    form: str, schema: Schema, partition: Partition, suppressed: SuppressedRows = "drop"
) -> ReleaseMetadata:
    return ReleaseMetadata(
        suppressed_rows="star" if suppressed == "star" else None,
        release=form,
        qi=tuple(schema.qi_names),
        sensitive=tuple(schema.sensitive),
        n_crowds=partition.n_clusters,
        n_released=partition.n_assigned,
        n_suppressed=partition.n_suppressed,
        k_achieved=partition.min_size,
    )
