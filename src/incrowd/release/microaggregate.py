"""Microaggregated release: one row per record, quasi-identifiers replaced by the crowd's
centroid — the mean of a numeric attribute, the mode of a categorical or hierarchical one
(ties to the smallest value). Domingo-Ferrer & Sebé's release form.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.columns import QIColumn
from ..data.schema import Schema
from ..partition import Partition
from ._release import Release, SuppressedRows, record_release
from .crowds import CategoricalSummary, NumericSummary, Summary

__all__ = ["release_microaggregated", "centroid_values"]


def centroid_values(summary: Summary) -> np.ndarray:
    """Each crowd's centroid value of one quasi-identifier: mean, or mode as text."""
    if isinstance(summary, NumericSummary):
        return summary.mean
    if isinstance(summary, CategoricalSummary):
        return np.asarray(summary.column.categories, dtype=object)[summary.mode]
    return np.asarray(summary.column.hierarchy.values, dtype=object)[summary.mode]


def release_microaggregated(
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    *,
    seed: int | None = None,
    columns: tuple[QIColumn, ...] | None = None,
    suppressed: SuppressedRows = "drop",
) -> Release:
    """Publish ``table`` with quasi-identifiers replaced by their crowd's centroid (shuffled).

    ``suppressed="star"`` publishes each suppressed record as a row of ``*`` (a numeric
    quasi-identifier is then text) instead of leaving it out."""
    return record_release(
        "microaggregated", centroid_values, table, partition, schema, seed, columns,
        suppressed=suppressed,
    )  # fmt: skip
