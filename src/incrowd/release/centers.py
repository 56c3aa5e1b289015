"""Cluster-center release (Aggarwal et al., *Achieving Anonymity via Clustering*, Sec. 1).

One row per crowd: the center's quasi-identifier values, ``count`` (records in the crowd),
``radius`` (largest distance, in the metric space, from a member to the published center)
and, for each sensitive column, the multiset of the crowd's values as a JSON object
``{"value": count, ...}`` (a missing value counted under ``"(missing)"``). Insensitive columns
are per-record and not published here.

Centers:

- ``"centroid"`` (default): numeric mean, categorical mode, hierarchical lowest common
  ancestor. In the space, a lowest common ancestor at level ``h`` is the one-hot of its
  ancestors at levels ``≥ h`` and zero below ``h``: "any value under this node".
- ``"medoid"``: the member whose farthest fellow member is nearest (the paper's choice of a
  cluster center among the input points). It publishes one input record's exact values as
  the center, which discloses that record; use it only when that is acceptable.

With ``suppressed="star"``, each suppressed record is a row of its own: ``*`` in every
quasi-identifier, ``count`` 1 (the row stands for one record, as every row stands for its
count), ``radius`` empty (no center, so no distance; NaN in the table) and its sensitive
values as a multiset of one.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Literal

import numpy as np
import pandas as pd

from ..costs import best_centers, radii_from
from ..data.columns import sensitive_cells
from ..data.schema import Schema
from ..errors import ParameterError
from ..io.release_format import COUNT, RADIUS
from ..partition import Partition
from ..space.metric_space import MetricSpace
from ._release import (
    Release,
    SuppressedRows,
    base_metadata,
    check_reserved,
    check_suppressed,
    prepare,
    shuffled,
    with_stars,
)
from .crowds import CategoricalSummary, CrowdIndex, HierarchySummary, summarize
from .generalize import generalized_labels
from .microaggregate import centroid_values

__all__ = ["release_centers", "check_center", "COUNT", "RADIUS"]


def check_center(center: object) -> None:
    """Raise :class:`~incrowd.ParameterError` unless ``center`` is a center kind."""
    if center not in ("centroid", "medoid"):
        msg = f"center must be 'centroid' or 'medoid', got {center!r}"
        raise ParameterError(msg)


def release_centers(
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    *,
    space: MetricSpace | None = None,
    center: Literal["centroid", "medoid"] = "centroid",
    seed: int | None = None,
    center_records: np.ndarray | None = None,
    suppressed: SuppressedRows = "drop",
) -> Release:
    """Publish one row per crowd: center, count, radius and sensitive multisets (rows shuffled).

    ``space`` is the metric space the radii are measured in (built from ``table`` and
    ``schema`` with the L2 norm when not given). With ``center="medoid"``,
    ``center_records`` may give the record to publish as each crowd's center (an
    algorithm's own centers, e.g. ``RGather.center_records_``, whose radius it guarantees).
    ``suppressed="star"`` publishes each suppressed record as a row of ``*`` (module
    docstring) instead of leaving it out.
    """
    check_center(center)
    check_suppressed(suppressed)
    check_reserved(schema.qi_names + tuple(schema.sensitive), (COUNT, RADIUS), "centers")
    space = space if space is not None else MetricSpace.from_table(table, schema)
    prep = prepare(table, partition, schema, space.columns or None)
    index = prep.index
    summaries = summarize(prep.columns, index)
    geometry = space.geometry
    if center == "medoid":
        medoids, radii = best_centers(geometry, partition.labels, center_records)
        out = {s.column.name: table[s.column.name].to_numpy()[medoids] for s in summaries}
    else:
        out = {
            s.column.name: (
                generalized_labels(s) if isinstance(s, HierarchySummary) else centroid_values(s)
            )
            for s in summaries
        }
        center_num, center_codes = _centroid_codes(space, index, summaries)
        radii = radii_from(geometry, partition.labels, center_num, center_codes)
    out[COUNT] = index.sizes
    out[RADIUS] = radii
    for name in schema.sensitive:
        values = sensitive_cells(table[name]).astype(str).to_numpy()[index.order]
        out[name] = [
            json.dumps(dict(sorted(Counter(values[a:b]).items())), ensure_ascii=False)
            for a, b in zip(index.starts[:-1], index.starts[1:], strict=True)
        ]
    starred = np.flatnonzero(partition.labels < 0) if suppressed == "star" else []
    if len(starred):
        for s in summaries:
            out[s.column.name] = with_stars(np.asarray(out[s.column.name]), len(starred))
        out[COUNT] = np.concatenate((out[COUNT], np.ones(len(starred), dtype=out[COUNT].dtype)))
        out[RADIUS] = np.concatenate((np.asarray(radii, dtype=np.float64),
                                      np.full(len(starred), np.nan)))  # fmt: skip
        for name in schema.sensitive:
            values = sensitive_cells(table[name]).astype(str).to_numpy()[starred]
            out[name] = list(out[name]) + [json.dumps({v: 1}, ensure_ascii=False) for v in values]
    frame = shuffled(pd.DataFrame(out), seed)
    meta = base_metadata("centers", schema, partition, suppressed).replace(center=center)
    return Release(frame, "centers", partition, meta)


def _centroid_codes(
    space: MetricSpace, index: CrowdIndex, summaries: list
) -> tuple[np.ndarray, np.ndarray]:
    """Each crowd's published centroid in the space's coordinates: numeric means; the mode's
    code of a categorical attribute; for a hierarchy, the ancestor's code at its level and
    above, and −1 ("any value under it") below."""
    geometry = space.geometry
    m = index.sizes.size
    sizes = np.maximum(index.sizes, 1).astype(np.float64)
    center_num = np.zeros((m, geometry.numeric.shape[1]))
    center_codes = np.full((m, geometry.codes.shape[1]), -1, dtype=np.intp)
    by_name = {s.column.name: s for s in summaries}
    first = index.order[index.starts[:-1]] if m else np.zeros(0, dtype=np.intp)
    for block in space.blocks:
        summary = by_name.get(block.name)
        if block.numeric is not None:  # numeric, or a raw column of a plain array
            column = geometry.numeric[:, block.numeric]
            center_num[:, block.numeric] = index.reduce(np.add, column) / sizes
        elif isinstance(summary, CategoricalSummary):
            center_codes[:, block.codes[0]] = summary.mode
        elif isinstance(summary, HierarchySummary):
            # members agree on every level from the common ancestor's up: copy those
            for level, j in enumerate(range(*block.codes)):
                keep = summary.level <= level
                center_codes[keep, j] = geometry.codes[first[keep], j]
    return center_num, center_codes
