"""The report's look at the data: the first published rows, each quasi-identifier before
and after, the loss per attribute, the class sizes, the risk distribution and the sensitive
values per class — each as a plot (:mod:`incrowd.report.plots`) or a small table.

Counts are of records: a centers row counts for its ``count``. Each quasi-identifier is
counted on the same bins before and after (:mod:`incrowd.report.before_after`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data.columns import MISSING_LABEL, shows_missing
from ..data.ranges import range_label
from ..data.schema import Schema
from ..errors import InputError
from ..io.release_format import COUNT
from ..measures.loss import parse_range
from ..measures.risk import RiskReport
from ..privacy.models import published_counts
from ..release.generalize import SUPPRESSED_VALUE
from . import plots
from .before_after import bin_column

__all__ = [
    "Plot",
    "class_sizes_plot",
    "distributions",
    "diversity_of_column",
    "loss_rows",
    "map_plot",
    "missing_cells",
    "preview",
    "risk_plot",
]

#: Rows of the release shown as they are published.
PREVIEW_ROWS = 10
#: Column names read as a place's longitude and latitude for the map.
LONGITUDE = ("lon", "lng", "long", "longitude")
LATITUDE = ("lat", "latitude")

Plot = dict[str, str]  # {"image": data URI, "alt": text, "caption": text}


def _plot(image: str, caption: str, alt: str | None = None) -> Plot:
    return {"image": image, "caption": caption, "alt": alt or caption}


def preview(published: pd.DataFrame) -> dict[str, Any]:
    """The first rows of the release as published (columns and cells as text)."""
    head = published.head(PREVIEW_ROWS)
    rows = [["" if pd.isna(v) else str(v) for v in row] for row in head.itertuples(index=False)]
    return {
        "columns": [str(c) for c in published.columns],
        "rows": rows,
        "shown": len(rows),
        "total": len(published),
    }


def _weights(published: pd.DataFrame, form: str) -> np.ndarray:
    if form == "centers" and COUNT in published.columns:
        return pd.to_numeric(published[COUNT], errors="coerce").fillna(0).to_numpy(np.int64)
    return np.ones(len(published), dtype=np.int64)


def distributions(
    original: pd.DataFrame, published: pd.DataFrame, qi: Sequence[str], form: str,
    schema: Schema | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Per quasi-identifier: its plots before and after, counted on the same bins
    (:mod:`incrowd.report.before_after`), the counts themselves (``bins``: ``labels``,
    ``before``, ``after``; then the grey bars) and the ``missing`` cells on each side."""
    weights = _weights(published, form)
    metrics = schema.quasi_identifiers if schema is not None else {}
    out = []
    for name in qi:
        binned = bin_column(name, original[name], published[name], weights, metrics.get(name))
        labels, before, after, grey = binned.bars()
        top = max([0.0, *before, *after])
        whole = all(float(v).is_integer() for v in after)
        drawn = {"labels": labels, "ylabel": "records", "top": top, "grey": grey}
        spread = "" if whole else ", spread over the bins they cover"
        extras = binned.extras_note()
        note = binned.note + (f". Grey bars: {extras}" if extras else "") + "."
        out.append({
            "column": name, "kind": binned.kind, "note": note,
            "bins": {"labels": labels, "before": before, "after": after, "grey": grey},
            "missing": {"before": binned.extra_before.get(MISSING_LABEL, 0.0),
                        "after": binned.extra_after.get(MISSING_LABEL, 0.0)},
            "before": _plot(plots.bars(values=before, title=f"{name}: input", **drawn),
                            f"{name} in the input", f"bar chart of {name} in the input"),
            "after": _plot(plots.bars(values=after, title=f"{name}: published", whole=whole,
                                      color=plots.RUST, outline=before, **drawn),
                           f"{name} as published, on the same bins{spread}; outlined: the "
                           "input", f"bar chart of {name} as published, the input outlined"),
        })  # fmt: skip
    return out


def loss_rows(
    published: pd.DataFrame, qi: Sequence[str], figures: dict[str, Any], form: str
) -> list[dict[str, Any]]:
    """Per quasi-identifier: its NCP (generalized releases) and the cells published as
    ``*`` — each once."""
    weights = _weights(published, form)
    rows = []
    for name in qi:
        ncp = figures.get(f"ncp ({name})")
        stars = int(weights[(published[name].astype(str) == SUPPRESSED_VALUE).to_numpy()].sum())
        rows.append({"column": name, "ncp": ncp, "stars": stars})
    return rows


def class_sizes_plot(sizes: np.ndarray) -> Plot | None:
    """Classes by their number of records: one bar per size (whole-number bins when many)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    sizes = sizes[sizes > 0]
    if not sizes.size:
        return None
    lo, hi = int(sizes.min()), int(sizes.max())
    width = max(1, int(np.ceil((hi - lo + 1) / 60)))
    edges = np.arange(lo, hi + width + 1, width)
    counts, _ = np.histogram(sizes, bins=edges)
    labels = [range_label(a, a + width - 1) for a in edges[:-1].tolist()]
    image = plots.bars(
        labels,
        counts.tolist(),
        title="classes by size",
        ylabel="classes",
        xlabel="records in the class",
    )
    return _plot(
        image,
        "classes by size: how many records share each published row",
        "bar chart of the number of classes of each size",
    )


def risk_plot(risk: RiskReport) -> Plot | None:
    """Original records by their linkage re-identification probability, the threshold
    marked."""
    if not risk.consistent.size:
        return None
    probability = np.where(risk.consistent > 0, 1.0 / np.maximum(risk.consistent, 1), 0.0)
    # bins (a, b]: a probability equal to the threshold is drawn left of its mark
    index = np.clip(np.ceil(probability / 0.05 - 1e-9).astype(np.int64) - 1, 0, 19)
    counts = np.bincount(index, minlength=20)
    labels = [f"≤{b:.2f}" for b in np.linspace(0.05, 1, 20)]
    mark = int(round(risk.threshold / 0.05))
    image = plots.bars(
        labels,
        counts.tolist(),
        title="re-identification probability",
        ylabel="input records",
        xlabel="probability (linkage attack)",
        marks=[(mark, f"threshold {risk.threshold:g}")],
    )
    return _plot(
        image,
        "risk distribution: input records by their re-identification probability",
        "bar chart of input records by re-identification probability",
    )


def diversity_of_column(
    published: pd.DataFrame, qi: Sequence[str], name: str, form: str
) -> tuple[Plot | None, bool]:
    """Classes by their number of distinct values of sensitive column ``name``, and whether
    its values are numbers (so that t with the ordered distance applies)."""
    counts, numeric = published_counts(published, list(qi), name, form == "centers")
    if not counts.shape[0]:
        return None, numeric
    distinct = (counts > 0).sum(axis=1)
    top = int(distinct.max())
    per = np.bincount(distinct, minlength=top + 1)[1:]
    image = plots.bars(
        [str(i) for i in range(1, top + 1)],
        per.tolist(),
        title=f"distinct values of {name} per class",
        ylabel="classes",
        xlabel=f"distinct values of {name}",
    )
    return _plot(
        image,
        f"sensitive values per class: classes by their distinct values of {name}",
        f"bar chart of classes by distinct values of {name}",
    ), numeric


def map_plot(published: pd.DataFrame, qi: Sequence[str], form: str) -> Plot | None:
    """For a longitude / latitude pair published as ranges, the published boxes."""
    lon = next((c for c in qi if c.lower() in LONGITUDE), None)
    lat = next((c for c in qi if c.lower() in LATITUDE), None)
    if not (lon and lat) or form not in ("generalized", "records") or not len(published):
        return None
    cells = published[[lon, lat]].astype(str).drop_duplicates()
    try:
        boxes = [(*parse_range(a), *parse_range(b)) for a, b in cells.itertuples(index=False)]
    except InputError:
        return None
    finite = np.array(boxes, dtype=float)  # an open band (65+, <18) ends at the others' edges
    if not np.isfinite(finite).all():
        ends = np.where(np.isfinite(finite), finite, np.nan)
        lows = np.array([np.nanmin(ends[:, :2]), np.nanmin(ends[:, 2:])])
        highs = np.array([np.nanmax(ends[:, :2]), np.nanmax(ends[:, 2:])])
        if not np.isfinite([*lows, *highs]).all():
            return None
        finite = np.clip(finite, np.repeat(lows, 2), np.repeat(highs, 2))
        boxes = [tuple(row) for row in finite.tolist()]
    return _plot(
        plots.boxes(boxes, xlabel=lon, ylabel=lat), f"map of the {len(boxes):,} published boxes"
    )


def missing_cells(published: pd.DataFrame) -> int:
    """Published cells that hold no value: ``(missing)`` (a missing value kept, in a
    quasi-identifier or a sensitive column) or empty (:func:`~incrowd.data.columns.
    shows_missing`)."""
    return sum(int(shows_missing(published[name]).sum()) for name in published.columns)
