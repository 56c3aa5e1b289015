"""One self-contained HTML page that a data steward can sign a release off with.

:func:`build_report` reads the original table and a written release (its table and JSON
metadata) and renders, from the published file and the original alone:

- the release's parameters, method, guarantee, cost, lower bound and certified ratio;
- the crowd-size histogram (groups of identical published quasi-identifiers);
- information loss per quasi-identifier (NCP for generalized releases) and suppressed
  cells (``*``) per quasi-identifier;
- re-identification risk (:mod:`incrowd.measures.risk`): prosecutor, journalist, marketer, the
  linkage attack and the distribution of its probabilities;
- l-diversity and t-closeness per class for each sensitive column
  (:mod:`incrowd.privacy.models`);
- for a release whose quasi-identifiers are a longitude / latitude pair, a map of the
  published boxes.

Plots are drawn with matplotlib and embedded as PNG data; the page is rendered by a Jinja2
template (``report.html.j2``) with no external resource, so it opens offline.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from .._runtime import prepare_matplotlib
from ..data.schema import Schema
from ..errors import InputError
from ..io.metadata import ReleaseMetadata
from ..io.release_format import COUNT
from ..measures.loss import evaluate_release, parse_range
from ..measures.risk import assess_risk
from ..privacy.models import published_counts
from ..release.generalize import SUPPRESSED_VALUE

__all__ = ["build_report"]

#: Column names read as a place's longitude and latitude for the map.
LONGITUDE = ("lon", "lng", "long", "longitude")
LATITUDE = ("lat", "latitude")


def _libraries() -> tuple[Any, Any]:
    prepare_matplotlib()
    try:
        import jinja2
        import matplotlib
    except ImportError as exc:
        msg = (
            f"the report needs {exc.name}: install incrowd with its report extra "
            "(pip install 'incrowd[report]')"
        )
        raise InputError(msg) from None
    matplotlib.use("Agg")
    return jinja2, matplotlib


def _png(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def _histogram(values: np.ndarray, title: str, xlabel: str, *, log: bool = False,
               bins: int | np.ndarray = 30) -> str:  # fmt: skip
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.hist(values, bins=bins, color="#3b6ea5", edgecolor="white")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    if log:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    return _png(fig)


def _bars(names: list[str], values: list[float], title: str, ylabel: str) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.bar(names, values, color="#a5563b")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", rotation=45)
    ax.grid(alpha=0.3, axis="y")
    return _png(fig)


def _map(published: pd.DataFrame, lon: str, lat: str) -> str | None:
    """The published boxes (ranges of longitude and latitude) drawn on the plane."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    cells = published[[lon, lat]].astype(str).drop_duplicates()
    try:
        boxes = [(parse_range(a), parse_range(b)) for a, b in cells.itertuples(index=False)]
    except InputError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    rng = np.random.default_rng(0)
    for (x0, x1), (y0, y1) in boxes:
        ax.add_patch(Rectangle((x0, y0), max(x1 - x0, 1e-6), max(y1 - y0, 1e-6),
                               facecolor=rng.random(3) * 0.8, alpha=0.5, linewidth=0.3,
                               edgecolor="black"))  # fmt: skip
    xs = [v for (x, _y) in boxes for v in x]
    ys = [v for (_x, y) in boxes for v in y]
    ax.set_xlim(min(xs), max(xs))
    ax.set_ylim(min(ys), max(ys))
    ax.set_xlabel(lon)
    ax.set_ylabel(lat)
    ax.set_title(f"{len(boxes)} published boxes")
    return _png(fig)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


def build_report(
    original: pd.DataFrame,
    published: pd.DataFrame,
    schema: Schema,
    metadata: ReleaseMetadata | Mapping[str, Any] | None = None,
    *,
    title: str = "incrowd release report",
) -> str:
    """The HTML page (a string) for ``published``, a release of ``original``."""
    jinja2, _ = _libraries()
    meta = ReleaseMetadata.of(metadata)
    qi = list(schema.qi_names)
    form = meta.release or ("centers" if COUNT in published.columns else "records")
    figures = evaluate_release(original, published, schema, meta)
    risk = assess_risk(original, published, schema, metadata=meta)
    weights = (
        pd.to_numeric(published[COUNT]).to_numpy() if form == "centers" else np.ones(len(published))
    )
    keys = published[qi].astype(str)
    sizes = (
        pd.Series(weights).groupby([keys[c].to_numpy() for c in qi], sort=False).sum().to_numpy()
        if len(published)
        else np.zeros(0)
    )
    plots: dict[str, str] = {}
    if sizes.size:
        plots["crowd sizes"] = _histogram(sizes, "records per group of identical QIs",
                                          "records", log=True)  # fmt: skip
    per_attribute: dict[str, dict[str, Any]] = {name: {} for name in qi}
    if form in ("generalized", "records"):
        ncp = {name: figures[f"ncp ({name})"] for name in qi}  # evaluate_release's, per attribute
        for name, value in ncp.items():
            per_attribute[name]["NCP"] = value
        plots["loss per attribute"] = _bars(list(ncp), list(ncp.values()),
                                            "information loss per attribute", "NCP")  # fmt: skip
    for name in qi:
        per_attribute[name]["cells published as *"] = int(
            (published[name].astype(str) == SUPPRESSED_VALUE).sum()
        )
    if risk.consistent.size:
        probability = np.where(risk.consistent > 0, 1.0 / np.maximum(risk.consistent, 1), 0.0)
        plots["risk distribution"] = _histogram(
            probability, "linkage attack: re-identification probability per original record",
            "probability", log=True, bins=np.linspace(0, max(probability.max(), 1e-9), 30),
        )  # fmt: skip
    diversity: dict[str, dict[str, Any]] = {}
    sensitive = [c for c in (schema.sensitive or meta.sensitive) if c in published]
    for name in sensitive:
        counts, _numeric = published_counts(published, qi, name, form == "centers")
        if not counts.shape[0]:
            continue
        distinct = (counts > 0).sum(axis=1)
        diversity[name] = {  # the smallest l and largest t as evaluate_release measured them
            "classes": int(counts.shape[0]),
            "classes with a single value": int((distinct == 1).sum()),
            "smallest distinct l": _fmt(figures.get(f"distinct_l ({name})")),
            "smallest entropy l": _fmt(figures.get(f"entropy_l ({name})")),
            "largest t (equal distance)": _fmt(figures.get(f"t_equal ({name})")),
            "largest t (ordered distance)": _fmt(figures.get(f"t_ordered ({name})")),
        }
        plots[f"diversity of {name}"] = _histogram(
            distinct, f"distinct values of {name} per class", "distinct values",
            bins=np.arange(0.5, distinct.max() + 1.5),
        )  # fmt: skip
    lon = next((c for c in qi if c.lower() in LONGITUDE), None)
    lat = next((c for c in qi if c.lower() in LATITUDE), None)
    if lon and lat and form in ("generalized", "records"):
        drawn = _map(published, lon, lat)
        if drawn:
            plots["map of the published boxes"] = drawn
    settings = {
        key: getattr(meta, key)
        for key in (
            "release",
            "method",
            "k",
            "parameters",
            "seed",
            "version",
            "objective",
            "diversity",
            "reference",
        )  # fmt: skip
        if getattr(meta, key) not in (None, {})
    }
    guarantee = {
        "guarantee": meta.guarantee_text,
        "approximation ratio (proven for every input)": meta.approximation_ratio,
        "cost": meta.cost,
        "lower bound (at most the optimum)": meta.lower_bound,
        "certified ratio (cost / lower bound)": meta.certified_ratio,
        "certificate": meta.certificate,
    }
    template = jinja2.Environment(
        loader=jinja2.FunctionLoader(
            lambda name: files(__package__).joinpath(name).read_text(encoding="utf-8")
        ),
        autoescape=True,
    ).get_template("report.html.j2")
    return template.render(
        title=title,
        settings={k: _fmt(v) for k, v in settings.items()},
        guarantee={k: _fmt(v) for k, v in guarantee.items()},
        figures={k: _fmt(v) for k, v in figures.items()},
        per_attribute={n: {k: _fmt(v) for k, v in d.items()} for n, d in per_attribute.items()},
        risk=risk.to_dict(),
        fmt=_fmt,
        diversity=diversity,
        plots=plots,
    )
