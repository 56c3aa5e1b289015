"""The report's look at the data: the first published rows, each quasi-identifier before
and after, the loss per attribute, the class sizes, the risk distribution and the sensitive
values per class — each as a plot (:mod:`incrowd.report.plots`) or a small table.

Counts are of records: a centers row counts for its ``count``. A quasi-identifier published
as numbers (a microaggregated release) is drawn on the bins of the original; one published
as intervals is shown by its most common published intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data.columns import shows_missing
from ..errors import InputError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT
from ..measures.loss import parse_range
from ..measures.risk import RiskReport
from ..privacy.models import published_counts
from ..release.generalize import SUPPRESSED_VALUE
from . import plots

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

#: Bars per category plot: the most common values, the rest as one bar.
TOP = 12
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


def _top(counts: pd.Series) -> tuple[list[str], list[float]]:
    counts = counts[counts > 0].sort_values(ascending=False, kind="stable")
    shown = TOP if len(counts) > TOP + 1 else TOP + 1  # one more value rather than "1 other"
    labels = [str(v) for v in counts.index[:shown]]
    values = [float(v) for v in counts.iloc[:shown]]
    if len(counts) > shown:
        labels.append(f"{len(counts) - TOP} others")
        values.append(float(counts.iloc[TOP:].sum()))
    return labels, values


def _edges(values: np.ndarray) -> np.ndarray:
    """At most 20 bins on the values' range, of whole width for whole numbers."""
    lo, hi = float(values.min()), float(values.max())
    if np.all(values == np.round(values)):
        width = max(1.0, np.ceil((hi - lo + 1) / 20))
        return np.arange(lo, hi + width + 1, width)
    return np.histogram_bin_edges(values, bins=20)


def distributions(
    original: pd.DataFrame,
    published: pd.DataFrame,
    qi: Sequence[str],
    form: str,
    meta: ReleaseMetadata,
) -> list[dict[str, Any]]:
    """Per quasi-identifier: a plot of the input's values and one of the published."""
    weights = _weights(published, form)
    out = []
    for name in qi:
        before_col, after_col = original[name], published[name]
        entry: dict[str, Any] = {"column": name, "note": ""}
        # the column's type, not a parse of every cell (to_numeric on text took 1.4 s on Adult)
        numeric = bool(
            pd.api.types.is_numeric_dtype(before_col)
            and len(before_col)
            and before_col.notna().all()
        )
        if numeric:
            numbers = before_col.to_numpy(dtype=float)
            edges = _edges(numbers)
            counts, _ = np.histogram(numbers, bins=edges)
            labels = [f"{a:g}–{b:g}" for a, b in zip(edges[:-1], edges[1:], strict=True)]
            entry["before"] = _plot(
                plots.bars(
                    labels, counts.tolist(), title=f"{name}: input", ylabel="records", xlabel=name
                ),
                f"{name} in the input",
            )
        else:
            labels, values = _top(before_col.astype(str).value_counts())
            entry["before"] = _plot(
                plots.bars(labels, values, title=f"{name}: input", ylabel="records"),
                f"{name} in the input",
            )
        if numeric and pd.api.types.is_numeric_dtype(after_col) and after_col.notna().all():
            counts, _ = np.histogram(after_col.to_numpy(dtype=float), bins=edges, weights=weights)
            after = plots.bars(
                labels,
                counts.tolist(),
                title=f"{name}: published",
                ylabel="records",
                xlabel=name,
                color=plots.RUST,
            )
        else:
            if meta.categories and name in meta.categories:  # a global recoding: every label
                pairs = meta.categories[name]
                series = pd.Series([c for _, c in pairs], index=[a for a, _ in pairs])
            else:
                series = pd.Series(weights).groupby(after_col.astype(str).to_numpy()).sum()
            if numeric:  # intervals, each spread evenly over the input's bins
                values, entry["note"] = _spread(series, edges)
                after = plots.bars(
                    labels,
                    values,
                    title=f"{name}: published, spread",
                    ylabel="records",
                    xlabel=name,
                    color=plots.RUST,
                    whole=False,
                )
            else:
                top_labels, top_values = _top(series)
                after = plots.bars(
                    top_labels,
                    top_values,
                    title=f"{name}: published",
                    ylabel="records",
                    color=plots.RUST,
                )
        entry["after"] = _plot(after, f"{name} as published")
        out.append(entry)
    return out


def _spread(series: pd.Series, edges: np.ndarray) -> tuple[list[float], str]:
    """Records per bin of ``edges`` when each published interval's records are spread
    evenly over it (a whole-number interval ``a-b`` covers ``[a, b + 1)``, as its bins do),
    and a sentence on the intervals."""
    whole = bool(np.all(edges == np.round(edges)))
    out = np.zeros(len(edges) - 1)
    widths, stars, other = [], 0, 0
    for label, count in series.items():
        text = str(label)
        if text == SUPPRESSED_VALUE:
            stars += int(count)
            continue
        try:
            lo, hi = parse_range(text)
        except InputError:
            other += int(count)
            continue
        widths.append((hi - lo, int(count)))
        top = hi + 1 if whole else hi
        if top <= lo:  # a single number
            i = int(np.clip(np.searchsorted(edges, lo, side="right") - 1, 0, len(out) - 1))
            out[i] += count
            continue
        overlap = np.clip(np.minimum(edges[1:], top) - np.maximum(edges[:-1], lo), 0, None)
        out += count * overlap / (top - lo)
    note = f"{len(series):,} distinct published values, drawn with each interval's records "
    note += "spread evenly over it"
    if widths:
        spans = np.repeat([w for w, _ in widths], [c for _, c in widths])
        note += f"; the median interval spans {float(np.median(spans)):g}"
    if stars:
        note += f"; {stars:,} records published as * are not drawn"
    if other:
        note += f"; {other:,} records with another published value are not drawn"
    return out.round(6).tolist(), note + "."


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
    labels = [str(a) if width == 1 else f"{a}–{a + width - 1}" for a in edges[:-1]]
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
    return _plot(
        plots.boxes(boxes, xlabel=lon, ylabel=lat), f"map of the {len(boxes):,} published boxes"
    )


def missing_cells(published: pd.DataFrame) -> int:
    """Published cells that hold no value: ``(missing)`` (a missing value kept, in a
    quasi-identifier or a sensitive column) or empty (:func:`~incrowd.data.columns.
    shows_missing`)."""
    return sum(int(shows_missing(published[name]).sum()) for name in published.columns)
