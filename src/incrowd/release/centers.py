"""Cluster-center release (Aggarwal et al., *Achieving Anonymity via Clustering*, Sec. 1).

One row per crowd: the center's quasi-identifier values, ``count`` (records in the crowd),
``radius`` (largest distance, in the metric space, from a member to the published center)
and, for each sensitive column, the multiset of the crowd's values as a JSON object
``{"value": count, ...}``. Insensitive columns are per-record and not published here.

Centers:

- ``"centroid"`` (default): numeric mean, categorical mode, hierarchical lowest common
  ancestor. In the space, a lowest common ancestor at level ``h`` is the one-hot of its
  ancestors at levels ``≥ h`` and zero below ``h``: "any value under this node".
- ``"medoid"``: the member whose farthest fellow member is nearest (the paper's choice of a
  cluster center among the input points). It publishes one input record's exact values as
  the center, which discloses that record; use it only when that is acceptable.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Literal

import numpy as np
import pandas as pd

from ..data.recenter import CANDIDATES, recenter
from ..data.schema import Schema
from ..data.space import MetricSpace
from ..errors import ParameterError
from ..partition import Partition
from ._release import Release, base_metadata, check_reserved, prepare, shuffled
from .crowds import CategoricalSummary, CrowdIndex, HierarchySummary, NumericSummary, summarize
from .generalize import generalized_labels
from .microaggregate import centroid_values

__all__ = ["release_centers", "COUNT", "RADIUS"]

COUNT = "count"
RADIUS = "radius"


def release_centers(
    table: pd.DataFrame,
    partition: Partition,
    schema: Schema,
    *,
    space: MetricSpace | None = None,
    center: Literal["centroid", "medoid"] = "centroid",
    seed: int | None = None,
    center_records: np.ndarray | None = None,
) -> Release:
    """Publish one row per crowd: center, count, radius and sensitive multisets (rows shuffled).

    ``space`` is the metric space the radii are measured in (built from ``table`` and
    ``schema`` with the L2 norm when not given). With ``center="medoid"``,
    ``center_records`` may give the record to publish as each crowd's center (an
    algorithm's own centers, e.g. ``RGather.center_records_``, whose radius it guarantees).
    """
    if center not in ("centroid", "medoid"):
        msg = f"center must be 'centroid' or 'medoid', got {center!r}"
        raise ParameterError(msg)
    check_reserved(schema.qi_names + tuple(schema.sensitive), (COUNT, RADIUS), "centers")
    space = space if space is not None else MetricSpace.from_table(table, schema)
    prep = prepare(table, partition, schema, space.columns or None)
    index = prep.index
    summaries = summarize(prep.columns, index)
    if center == "medoid":
        medoids = _medoids(space, index, center_records)
        out = {s.column.name: table[s.column.name].to_numpy()[medoids] for s in summaries}
        center_points = space.points[medoids]
    else:
        out = {
            s.column.name: (
                generalized_labels(s) if isinstance(s, HierarchySummary) else centroid_values(s)
            )
            for s in summaries
        }
        center_points = _centroid_embedding(space, index, summaries)
    out[COUNT] = index.sizes
    out[RADIUS] = _radii(space, index, center_points)
    for name in schema.sensitive:
        values = table[name].astype(str).to_numpy()[index.order]
        out[name] = [
            json.dumps(dict(sorted(Counter(values[a:b]).items())), ensure_ascii=False)
            for a, b in zip(index.starts[:-1], index.starts[1:], strict=True)
        ]
    frame = shuffled(pd.DataFrame(out), seed)
    meta = base_metadata("centers", schema, partition) | {"center": center}
    return Release(frame, "centers", partition, meta)


def _centroid_embedding(space: MetricSpace, index: CrowdIndex, summaries: list) -> np.ndarray:
    m = index.sizes.size
    sizes = np.maximum(index.sizes, 1).astype(np.float64)
    first = space.points[index.order[index.starts[:-1]]] if m else np.zeros((0, space.dim))
    emb = np.zeros((m, space.dim))
    by_name = {s.column.name: s for s in summaries}
    for block in space.blocks:
        sl = slice(block.start, block.stop)
        summary = by_name.get(block.name)
        if isinstance(summary, CategoricalSummary):
            entry = summary.column.metric.weight * 2.0 ** (-1.0 / space.norm)
            emb[np.arange(m), block.start + summary.mode] = entry
        elif isinstance(summary, HierarchySummary):
            # Members agree on every level from the ancestor's up: copy those, zero below.
            for j, (a, b) in enumerate(block.levels):
                keep = summary.level <= j
                emb[keep, a:b] = first[keep, a:b]
        else:  # numeric, or a raw column of a plain array: the mean is the center
            assert summary is None or isinstance(summary, NumericSummary)
            emb[:, sl] = index.reduce(np.add, space.points[:, sl]) / sizes[:, None]
    return emb


def _radii(space: MetricSpace, index: CrowdIndex, centers: np.ndarray) -> np.ndarray:
    if index.order.size == 0:
        return np.zeros(0)
    diff = space.points[index.order] - centers[index.labels]
    d = np.abs(diff).sum(axis=1) if space.norm == 1 else np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return np.maximum.reduceat(d, index.starts[:-1])


def _medoids(space: MetricSpace, index: CrowdIndex, start: np.ndarray | None = None) -> np.ndarray:
    """Record index of each crowd's center among input records: the member (or the given
    start record) with the smallest radius, searched as in the algorithms' re-centering."""
    first = index.order[index.starts[:-1]] if start is None else np.asarray(start, np.intp)
    best, _ = recenter(space.points, index.order, index.starts, first, space.norm, CANDIDATES)
    return best
