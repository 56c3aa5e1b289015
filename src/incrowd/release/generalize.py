"""Generalized release: one row per record, each quasi-identifier coarsened to its crowd.

- numeric: ``lo-hi`` (inclusive range of the crowd), or the exact value when the crowd agrees,
  written by :func:`incrowd.data.ranges.range_label` as every numeric label is (``104``,
  not ``104.0``);
- hierarchical: the label of the lowest hierarchy level on which the crowd agrees;
- categorical without hierarchy: the value when the crowd agrees, else ``*``;
- with ``generalize="sets"``, categorical and hierarchical attributes instead publish the set
  of values the crowd holds, ``{a|b}`` (sorted; a single value as itself).

With fixed ``levels`` (a global recoding's node of the generalization lattice), every crowd
publishes a hierarchical attribute at the higher of its agreed level and the fixed one, and
a categorical attribute at level 1 as ``*``: one set of categories for the whole table
(the metadata records ``levels`` and the ``categories`` with their counts).

Every record of a crowd gets the same quasi-identifier values, so each published combination
occurs at least k times. Sensitive and insensitive columns are passed through; identifiers
and columns the schema does not mention are not published; suppressed records are left out,
or published as rows of ``*`` (``suppressed="star"``), and counted in the metadata.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..costs import GeneralizeForm
from ..data.columns import QIColumn
from ..data.ranges import range_label
from ..data.schema import Schema
from ..errors import InputError, ParameterError
from ..io.metadata import STAR
from ..partition import Partition
from ._release import Release, SuppressedRows, record_release
from .crowds import CategoricalSummary, Levels, NumericSummary, Summary

__all__ = [
    "release_generalized",
    "SUPPRESSED_VALUE",
    "SET_OPEN",
    "SET_CLOSE",
    "SET_SEP",
    "generalized_labels",
    "value_set_labels",
    "parse_value_set",
]

#: What a categorical cell shows when its crowd disagrees (any value).
SUPPRESSED_VALUE = STAR
#: A value set is published as ``{a|b|c}``.
SET_OPEN, SET_CLOSE, SET_SEP = "{", "}", "|"


def parse_value_set(cell: str) -> list[str] | None:
    """The values of a published set ``{a|b}``; None when ``cell`` is not a set."""
    if len(cell) >= 2 and cell.startswith(SET_OPEN) and cell.endswith(SET_CLOSE):
        return cell[1:-1].split(SET_SEP)
    return None


def value_set_labels(summary: Summary) -> np.ndarray:
    """Per crowd: the set of values it holds, ``{a|b}``, or the value when it is alone."""
    if isinstance(summary, NumericSummary):
        return generalized_labels(summary)
    if isinstance(summary, CategoricalSummary):
        names = summary.column.categories
    else:
        names = summary.column.hierarchy.values
    bad = next(
        (v for v in names if SET_SEP in v or (v.startswith(SET_OPEN) and v.endswith(SET_CLOSE))),
        None,
    )
    if bad is not None:
        msg = (
            f"value {bad!r} of {summary.column.name!r} cannot be published in a value set "
            f"(it contains {SET_SEP!r} or is braced); use generalize='levels' or recode it"
        )
        raise InputError(msg)
    crowd, code = summary.present
    n_crowds = summary.mode.size
    members: list[list[str]] = [[] for _ in range(n_crowds)]
    for c, v in zip(crowd.tolist(), code.tolist(), strict=True):
        members[c].append(names[v])
    out = np.empty(n_crowds, dtype=object)
    for c, values in enumerate(members):
        joined = SET_OPEN + SET_SEP.join(sorted(values)) + SET_CLOSE
        out[c] = values[0] if len(values) == 1 else joined
    return out


def generalized_labels(summary: Summary) -> np.ndarray:
    """The published text of one quasi-identifier for each crowd (object array)."""
    if isinstance(summary, NumericSummary):  # the one style of numeric labels: 104, 18-39
        pairs = zip(summary.lo.tolist(), summary.hi.tolist(), strict=True)
        return np.array([range_label(lo, hi) for lo, hi in pairs], dtype=object)
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
    generalize: GeneralizeForm = "levels",
    levels: Levels = None,
    suppressed: SuppressedRows = "drop",
    floors: Levels = None,
) -> Release:
    """Publish ``table`` with every quasi-identifier generalized to its crowd (rows shuffled).

    ``generalize`` chooses hierarchy labels (``"levels"``) or value sets (``"sets"``) for
    categorical attributes. ``columns`` may pass QI columns already coded (e.g.
    ``space.columns``) to skip re-parsing. ``levels`` (one per quasi-identifier, in the
    schema's order; None: the crowd's own) fixes the level below which no crowd is published
    (a numeric column takes none). ``suppressed="star"`` publishes each suppressed record as
    a row of ``*`` instead of leaving it out. ``floors`` raises crowds as ``levels`` does (a
    local method's ``min_level``), without recording them as the table's one node.
    """
    if generalize not in ("levels", "sets"):
        msg = f"generalize must be 'levels' or 'sets', got {generalize!r}"
        raise ParameterError(msg)
    if generalize == "sets" and (levels is not None or floors is not None):
        msg = "levels fix hierarchy labels: they apply to generalize='levels', not 'sets'"
        raise ParameterError(msg)
    labels = value_set_labels if generalize == "sets" else generalized_labels
    out = record_release("generalized", labels, table, partition, schema, seed, columns,
                         levels=levels, floors=floors, suppressed=suppressed)  # fmt: skip
    return Release(out.table, out.form, out.partition, out.metadata.replace(generalize=generalize))
