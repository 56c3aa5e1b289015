"""Information loss of a release: NCP, SSE and discernibility, each defined once and measured
from the release's partition (the figures of its metadata) or from the published table alone.

Rows of a release are shuffled and carry no identifiers, so records cannot be matched one to
one: measured from a published table, every figure comes from the published cells and the
domains of the input columns (and the suppressed count in the metadata). The two agree on
every release (``tests/measures/test_evaluate.py``, ``tests/measures/test_ncp_definition.py``).

- **NCP**, the normalized certainty penalty of every cell as :mod:`incrowd.data.ncp` defines
  it (a range by its width over the input's range, ``*`` as the whole range, a label or a
  value set by the input values it covers), a suppressed record costing 1 per cell, averaged
  over the input's cells: :func:`ncp_loss` (a partition, at fixed ``levels`` if given, as
  the release publishes it), :func:`ncp_by_attribute` (a published table; ``ncp`` and
  ``ncp (name)`` per quasi-identifier of generalized releases).
- **SSE** of a partition is :class:`incrowd.costs.SSE`; of a published table
  (microaggregated and centers releases, whose numeric values are crowd means) it is
  SST − SSB, where SSB is the spread of the published means around the overall mean
  (``sse`` / ``l_sse``; scaling follows the schema's metrics).
- **discernibility**: Σ |E|² over the classes, plus ``n_input`` for every suppressed record
  (:func:`discernibility_of_sizes`); the classes are a partition's crowds
  (:func:`discernibility`) or the groups of identical published quasi-identifiers
  (:func:`published_discernibility`).

A suppressed record published as a row of ``*`` (``suppressed_rows``; the checker tells how
many a table shows, :mod:`incrowd.privacy.verify`) is priced as a suppressed record, not as
the cells or the class it shows.

:func:`evaluate_release` gathers a published table's figures, with ``max_radius`` (centers
releases: the largest published radius) and, per sensitive column
(:mod:`incrowd.privacy.models`), the smallest distinct and entropy l over the classes and the
largest t (equal and ordered distances).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..costs import SSE
from ..data.columns import (
    CategoricalColumn,
    HierarchicalColumn,
    NumericColumn,
    QIColumn,
    encode_qis,
)
from ..data.ncp import (
    domain_size,
    label_penalties,
    present_values,
    range_of_label,
    range_penalty,
    set_penalty,
)
from ..data.schema import Numeric, Schema
from ..errors import InputError, ParameterError, option
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT, RADIUS
from ..partition import Partition
from ..privacy.models import Diversity, published_figures
from ..privacy.verify import star_rows, verify
from ..release.crowds import (
    CategoricalSummary,
    CrowdIndex,
    Levels,
    NumericSummary,
    Summary,
    summarize,
)
from ..release.generalize import SUPPRESSED_VALUE, parse_value_set
from ..space.metric_space import MetricSpace

__all__ = [
    "category_code",
    "cell_penalties",
    "discernibility",
    "discernibility_of_sizes",
    "evaluate_release",
    "ncp_by_attribute",
    "ncp_loss",
    "parse_range",
    "published_discernibility",
    "without_suppressed_rows",
]


# ----------------------------------------------------------------------------- discernibility
def discernibility_of_sizes(sizes: Any, n_input: int = 0, n_suppressed: int = 0) -> float:
    """Σ |E|² over classes of ``sizes`` records, plus ``n_input`` per suppressed record."""
    squares = np.asarray(sizes, dtype=np.float64) ** 2
    return float(np.sum(squares)) + float(n_input * n_suppressed)


def discernibility(partition: Partition) -> float:
    """Discernibility of a partition: its crowds, a suppressed record costing ``n``."""
    return discernibility_of_sizes(partition.sizes, partition.n, partition.n_suppressed)


def published_discernibility(
    published: pd.DataFrame,
    schema: Schema,
    form: str,
    n_input: int = 0,
    n_suppressed: int = 0,
    *,
    suppressed_rows: int = 0,
) -> float:
    """Discernibility of a published table: its groups of identical published
    quasi-identifiers (a centers row counting its records), plus ``n_input`` per suppressed
    record (``suppressed_rows`` of the ``n_suppressed`` are rows of ``*`` in the table)."""
    published = without_suppressed_rows(published, schema.qi_names, form, suppressed_rows)
    if not len(published):
        return discernibility_of_sizes([], n_input, n_suppressed)
    keys = published[list(schema.qi_names)].astype(str)
    w = pd.Series(_weights(published, form), index=published.index)
    sizes = w.groupby([keys[c] for c in keys.columns], sort=False).sum().to_numpy()
    return discernibility_of_sizes(sizes, n_input, n_suppressed)


def _weights(published: pd.DataFrame, form: str) -> np.ndarray:
    if form == "centers":
        return pd.to_numeric(published[COUNT]).to_numpy(dtype=np.float64)
    return np.ones(len(published))


def without_suppressed_rows(
    published: pd.DataFrame, qi: Sequence[str], form: str, n: int
) -> pd.DataFrame:
    """``published`` without ``n`` records of its rows of ``*`` in every quasi-identifier
    (the first in row order: they are identical on the quasi-identifiers)."""
    if n <= 0 or not len(published):
        return published
    star = np.flatnonzero(star_rows(published, qi))
    weights = _weights(published, form)[star]
    whole = np.cumsum(weights) <= n
    out = published.drop(index=published.index[star[whole]])
    rest = n - float(weights[whole].sum())
    if rest > 0 and not whole.all():  # a centers row standing for more: its count lowered
        row = published.index[star[int(whole.sum())]]
        out = out.copy()
        out.loc[row, COUNT] = int(weights[int(whole.sum())] - rest)
    return out


# ----------------------------------------------------------------------------- NCP
def ncp_loss(
    columns: Sequence[QIColumn],
    partition: Partition,
    extra_suppressed: int = 0,
    generalize: str = "levels",
    levels: Levels = None,
) -> float:
    """NCP of the table a partition generalizes to, averaged over all cells.

    Per cell as :mod:`incrowd.data.ncp` defines it (the domain: the input's values), each
    crowd at the level :func:`~incrowd.release.generalize.release_generalized` publishes
    with the same ``levels``. A suppressed record (including ``extra_suppressed`` records
    left out before partitioning; dropped or published as ``*``) costs 1 per cell. 0 is the
    original table, 1 everything suppressed.
    """
    if generalize == "sets" and levels is not None:
        msg = "levels fix hierarchy labels: they apply to generalize='levels', not 'sets'"
        raise ParameterError(msg)
    n_total = partition.n + extra_suppressed
    n_cells = n_total * len(columns)
    if n_cells == 0:
        return 0.0
    index = CrowdIndex.from_partition(partition)
    sizes = index.sizes.astype(np.float64)
    penalty = float(partition.n_suppressed + extra_suppressed) * len(columns)
    for summary in summarize(columns, index, levels):
        penalty += float(np.dot(sizes, cell_penalties(summary, generalize == "sets")))
    return penalty / n_cells


def cell_penalties(summary: Summary, sets: bool = False) -> np.ndarray:
    """NCP of the generalized cell each crowd publishes for one quasi-identifier."""
    if isinstance(summary, NumericSummary):
        return range_penalty(summary.lo, summary.hi, summary.column.bounds)
    if sets:
        held = np.bincount(summary.present[0], minlength=summary.mode.size)
        return set_penalty(held, domain_size(summary.column))
    penalties = label_penalties(summary.column)
    if isinstance(summary, CategoricalSummary):  # a one-level hierarchy: the value, or *
        return np.where(summary.agrees, 0.0, penalties[1][0])
    out = np.zeros(summary.level.size)
    for level in np.unique(summary.level):
        at = summary.level == level
        out[at] = penalties[int(level)][summary.node[at]]
    return out


def ncp_by_attribute(
    published: pd.DataFrame, columns: list, n_suppressed: int, *, suppressed_rows: int = 0
) -> dict[str, float]:
    """NCP of each quasi-identifier of a published table over the input's records (a
    suppressed record costs 1; ``suppressed_rows`` of the ``n_suppressed`` are rows of ``*``
    in the table)."""
    names = [col.name for col in columns]
    published = without_suppressed_rows(published, names, "records", suppressed_rows)
    n_total = len(published) + n_suppressed
    out: dict[str, float] = {}
    for col in columns:
        if n_total == 0:
            out[col.name] = 0.0
            continue
        cells = published[col.name].astype(str).to_numpy()
        uniq, counts = np.unique(cells, return_counts=True)
        cost = np.array([_cell_penalty(col, cell) for cell in uniq])
        out[col.name] = (float(np.dot(cost, counts)) + n_suppressed) / n_total
    return out


def _cell_penalty(col: Any, cell: str) -> float:
    """NCP of one published cell, read from the cell's text alone."""
    if isinstance(col, NumericColumn):  # "*" is the whole range
        lo, hi = col.bounds if cell == SUPPRESSED_VALUE else parse_range(cell)
        return float(range_penalty(lo, hi, col.bounds))
    members = parse_value_set(cell)
    if members is not None:
        covered = np.unique(np.concatenate([_covered(col, v, cell) for v in members]))
        return float(set_penalty(covered.size, domain_size(col)))
    if isinstance(col, CategoricalColumn):  # a one-level hierarchy: the value, or *
        if category_code(col, cell) is not None:
            return 0.0
        if cell == SUPPRESSED_VALUE:
            return float(label_penalties(col)[1][0])
        msg = f"published value {cell!r} of {col.name!r} is neither a value of the data nor *"
        raise InputError(msg)
    assert isinstance(col, HierarchicalColumn)
    found = col.hierarchy.level_of_label(cell)
    if found is None:
        msg = f"published value {cell!r} of {col.name!r} is not a label of its hierarchy"
        raise InputError(msg)
    level, code = found
    return float(label_penalties(col)[level][code])


def parse_range(text: str) -> tuple[float, float]:
    """Read a published numeric cell: ``"39"`` or ``"35-39"`` (also ``"-5--3"``, ``"1e-05-2"``)."""
    bounds = range_of_label(str(text))
    if bounds is None:
        msg = f"cannot read {str(text).strip()!r} as a number or a range lo-hi"
        raise InputError(msg)
    return bounds


def category_code(col: CategoricalColumn, value: str) -> int | None:
    """Code of a categorical value (categories are sorted: a binary search, not a scan of
    what may be a million values), or None."""
    i = bisect_left(col.categories, value)
    return i if i < len(col.categories) and col.categories[i] == value else None


def _covered(col: Any, member: str, cell: str) -> np.ndarray:
    """Input values (leaf codes) a member of a published set stands for."""
    present = present_values(col)
    if isinstance(col, CategoricalColumn):
        code = category_code(col, member)
        if code is not None:
            return np.array([code])
    else:
        found = col.hierarchy.level_of_label(member)
        if found is not None:
            level, code = found
            return present[col.hierarchy.codes[present, level] == code]
    msg = f"published set {cell!r} of {col.name!r} holds {member!r}, not in the data"
    raise InputError(msg)


# ----------------------------------------------------------------------------- SSE
def _numeric_sse(
    original: pd.DataFrame, published: pd.DataFrame, schema: Schema, form: str
) -> tuple[float | None, float | None]:
    """SSE over the numeric QIs from published crowd means: SST − SSB, where SSB is the
    spread of the published means (each standing for its records) around the overall mean."""
    numeric = {n: m for n, m in schema.quasi_identifiers.items() if isinstance(m, Numeric)}
    if not numeric or not len(published):
        return None, None
    space = MetricSpace.from_table(original, Schema(numeric))
    released = np.empty((len(published), len(numeric)))
    for block in space.blocks:
        values = pd.to_numeric(published[block.name], errors="coerce").to_numpy(dtype=float)
        if np.isnan(values).any():
            msg = f"published column {block.name!r} is not numeric; cannot measure SSE"
            raise InputError(msg)
        released[:, block.numeric] = (values - block.offset) / block.scale
    weights = _weights(published, form).astype(np.int64)
    means = np.repeat(released, weights, axis=0)  # each published mean, once per record
    sst = SSE.on(space).total()
    # spread of the means around the overall mean: around their own mean, plus the shift
    shift = means.mean(axis=0) - space.geometry.numeric.mean(axis=0)
    ssb = SSE.on(MetricSpace.from_array(means)).total() + len(means) * float(shift @ shift)
    sse = max(sst - ssb, 0.0)
    return sse, (100.0 * sse / sst if sst > 0 else 0.0)


# ----------------------------------------------------------------------------- a published table
def evaluate_release(
    original: pd.DataFrame,
    published: pd.DataFrame,
    schema: Schema,
    metadata: ReleaseMetadata | Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Loss figures of ``published`` (a release of ``original`` under ``schema``)."""
    meta = ReleaseMetadata.of(metadata)
    recorded = meta.qi
    if recorded and set(recorded) != set(schema.qi_names):
        msg = (
            f"the release was made with quasi-identifiers {', '.join(map(str, recorded))}, "
            f"not {', '.join(schema.qi_names)}; evaluate it with the same {option('qi')}"
        )
        raise InputError(msg)
    form = meta.release or ("centers" if COUNT in published.columns else "records")
    report = verify(published, schema.qi_names, 1, metadata=meta, diversity=Diversity())  # counts
    if report.problems and report.n_records == 0:
        raise InputError(report.problems[0])
    # rows of * that are suppressed records are priced as suppressed, not as rows
    published = without_suppressed_rows(published, schema.qi_names, form,
                                        report.n_suppressed_rows)  # fmt: skip
    columns = encode_qis(original, schema)
    n_input = len(original) if meta.n_input is None else meta.n_input
    # every input record not published costs as suppressed (left out for a missing value too)
    unpublished = meta.n_unpublished
    n_suppressed = max(n_input - report.n_records, 0) if unpublished is None else unpublished
    out: dict[str, Any] = {
        "form": form,
        "n_input": n_input,
        "n_released": report.n_records,
        "n_suppressed": n_suppressed - (meta.n_dropped_missing or 0),
        "n_dropped_missing": meta.n_dropped_missing or 0,
        "n_groups": report.n_classes,
        "k_achieved": report.k_achieved,
        "avg_group_size": report.n_records / report.n_classes if report.n_classes else 0.0,
        "discernibility": published_discernibility(published, schema, form, n_input, n_suppressed),
        "ncp": None,
        "sse": None,
        "l_sse": None,
        "max_radius": None,
    }
    if form in ("generalized", "records"):
        by_attribute = ncp_by_attribute(published, columns, n_suppressed)
        out["ncp"] = float(np.mean(list(by_attribute.values()))) if by_attribute else 0.0
        out |= {f"ncp ({name})": value for name, value in by_attribute.items()}
    if form in ("microaggregated", "centers"):
        out["sse"], out["l_sse"] = _numeric_sse(original, published, schema, form)
    if form == "centers" and RADIUS in published.columns and len(published):
        out["max_radius"] = float(pd.to_numeric(published[RADIUS]).max())
    names = [c for c in (schema.sensitive or meta.sensitive) if c in published]
    if names and len(published):
        figures = published_figures(published, schema.qi_names, names, form == "centers")
        for name, values in figures.items():
            for key, value in values.items():
                out[f"{key} ({name})"] = value
    return out
