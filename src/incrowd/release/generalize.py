"""Generalized release: one row per record, each quasi-identifier coarsened to its crowd.

- numeric: ``lo-hi`` (inclusive range of the crowd), or the exact value when the crowd agrees;
- hierarchical: the label of the lowest hierarchy level on which the crowd agrees;
- categorical without hierarchy: the value when the crowd agrees, else ``*``.

Every record of a crowd gets the same quasi-identifier values, so each published combination
occurs at least k times. Sensitive and insensitive columns are passed through; identifiers
and columns the schema does not mention are not published; suppressed records are left out
(and counted in the metadata).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.columns import QIColumn
from ..data.schema import Schema
from ..partition import Partition
from ._release import Release, format_number, record_release
from .crowds import CategoricalSummary, NumericSummary, Summary

__all__ = ["release_generalized", "SUPPRESSED_VALUE", "generalized_labels"]

#: What a categorical cell shows when its crowd disagrees.
SUPPRESSED_VALUE = "*"


def generalized_labels(summary: Summary) -> np.ndarray:
    """The published text of one quasi-identifier for each crowd (object array)."""
    if isinstance(summary, NumericSummary):
        lo = [format_number(v) for v in summary.lo]
        hi = [format_number(v) for v in summary.hi]
        return np.array(
            [a if a == b else f"{a}-{b}" for a, b in zip(lo, hi, strict=True)], dtype=object
        )
    if isinstance(summary, CategoricalSummary):
        cats = np.asarray(summary.column.categories, dtype=object)
        return np.where(summary.agrees, cats[summary.mode], SUPPRESSED_VALUE).astype(object)
    return summary.column.hierarchy.labels_of(summary.level, summary.node)


def release_generalized(
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    *,
    seed: int | None = None,
    columns: tuple[QIColumn, ...] | None = None,
) -> Release:
    """Publish ``table`` with every quasi-identifier generalized to its crowd (rows shuffled).

    ``columns`` may pass QI columns already coded (e.g. ``space.columns``) to skip re-parsing.
    """
    return record_release(
        "generalized", generalized_labels, table, partition, schema, seed, columns
    )
