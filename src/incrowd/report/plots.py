"""The report's plots, drawn as small SVG images embedded as ``data:`` URIs.

Each plot is a handful of rectangles and labels, written directly: no plotting library to
import (matplotlib's import and one PNG per plot took longer than the whole 3 s budget of
an Adult report), sharp at any zoom and in print, and byte-identical for the same input.
Counts get whole-number ticks; every bar is at least a few pixels wide. The title is the
image's ``<title>`` (read aloud, shown on hover), not drawn: the page's caption says it.

>>> uri = bars(["a", "b"], [3, 5], title="t", ylabel="records")
>>> uri.startswith("data:image/svg+xml;base64,")
True
>>> ticks(7)
[0, 2, 4, 6, 8]
>>> ticks(0.37, whole=False)
[0.0, 0.1, 0.2, 0.3, 0.4]
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from xml.sax.saxutils import escape

__all__ = ["bars", "boxes", "ticks"]

BLUE, RUST, GREY, RED = "#3b6ea5", "#a5563b", "#888", "#b3261e"
#: Plot size in CSS pixels: two fit side by side in the page's 1100 px.
WIDTH, HEIGHT = 520, 250
LEFT, RIGHT, TOP, BOTTOM = 52, 12, 12, 80


def ticks(top: float, *, whole: bool = True, count: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2 or 5 × 10ⁿ; whole numbers
    when ``whole``)."""
    if top <= 0:
        return [0, 1] if whole else [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(1, round(step))
    n = math.ceil(top / step - 1e-9)
    return [i * step if whole else round(i * step, 12) for i in range(n + 1)]


def _label(value: float) -> str:
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:.3g}"


def _uri(body: list[str], width: int, height: int, title: str) -> str:
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
        f"<title>{escape(title)}</title>"
        f'<rect width="{width}" height="{height}" fill="white"/>' + "".join(body) + "</svg>"
    )
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def bars(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    ylabel: str,
    xlabel: str = "",
    whole: bool = True,
    color: str = BLUE,
    marks: Sequence[tuple[int, str]] = (),
    top: float | None = None,
    grey: int = 0,
    outline: Sequence[float] = (),
) -> str:
    """A bar chart (one bar per label, in order) as a ``data:`` URI. ``whole``: the values
    are counts (whole-number ticks); ``marks``: (bar index, text) drawn as a red line at the
    left edge of that bar (a threshold); ``top``: the scale's least top (two plots drawn to
    one scale); ``grey``: the last bars drawn grey (counts beside the bins); ``outline``:
    other values drawn as unfilled bars over them (the input behind the release)."""
    n = max(len(values), 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max([float(v) for v in (*values, *outline)] + [0.0, top or 0.0])
    grid = ticks(top, whole=whole)
    scale = plot_h / grid[-1] if grid[-1] else 0.0
    slot = plot_w / n
    gap = min(slot * 0.15, 3.0) if slot > 4 else 0.0
    body = []
    for t in grid:
        y = TOP + plot_h - t * scale
        body.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#ddd"/><text x="{LEFT - 4}" y="{y + 4:.1f}" '
            f'text-anchor="end">{_label(t)}</text>'
        )
    for i, v in enumerate(values):
        h = float(v) * scale
        if 0 < h < 1:  # a non-zero count stays visible
            h = 1.0
        x = LEFT + i * slot + gap / 2
        fill = GREY if i >= len(values) - grey else color
        body.append(
            f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{max(slot - gap, 1):.1f}"'
            f' height="{h:.1f}" fill="{fill}"/>'
        )
    for i, v in enumerate(outline):
        h, x = float(v) * scale, LEFT + i * slot + gap / 2
        body.append(
            f'<rect x="{x:.1f}" y="{TOP + plot_h - h:.1f}" width="{max(slot - gap, 1):.1f}"'
            f' height="{h:.1f}" fill="none" stroke="#222" stroke-width="1"/>'
        )
    every = max(1, math.ceil(n / 24))  # at most 24 labels under the axis
    rotate = n > 6 or max((len(s) for s in labels), default=0) > 8
    for i, text in enumerate(labels):
        if i % every:
            continue
        x, y = LEFT + (i + 0.5) * slot, TOP + plot_h + 12
        short = escape(text if len(text) <= 14 else text[:13] + "…")
        turn = (
            f' transform="rotate(-45 {x:.1f} {y:.1f})" text-anchor="end"'
            if rotate
            else (' text-anchor="middle"')
        )
        body.append(f'<text x="{x:.1f}" y="{y:.1f}"{turn}>{short}</text>')
    for index, text in marks:
        x = LEFT + index * slot
        body.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
            f'stroke="{RED}" stroke-width="2" stroke-dasharray="4 3"/>'
            f'<text x="{x + 4:.1f}" y="{TOP + 11}" fill="{RED}">{escape(text)}</text>'
        )
    body.append(
        f'<line x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + plot_h}" stroke="{GREY}"/>'
        f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{TOP + plot_h}" '
        f'y2="{TOP + plot_h}" stroke="{GREY}"/>'
    )
    body.append(
        f'<text transform="rotate(-90 12 {TOP + plot_h / 2:.0f})" x="12" '
        f'y="{TOP + plot_h / 2:.0f}" text-anchor="middle">{escape(ylabel)}</text>'
    )
    if xlabel:
        body.append(
            f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 4}" '
            f'text-anchor="middle">{escape(xlabel)}</text>'
        )
    return _uri(body, WIDTH, HEIGHT, title)


def boxes(
    rectangles: Sequence[tuple[float, float, float, float]], *, xlabel: str, ylabel: str
) -> str:
    """Published boxes ``(x0, x1, y0, y1)`` drawn on the plane, as a ``data:`` URI."""
    width, height = 640, 420
    x0 = min(r[0] for r in rectangles)
    x1 = max(r[1] for r in rectangles)
    y0 = min(r[2] for r in rectangles)
    y1 = max(r[3] for r in rectangles)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - 40
    sx = plot_w / ((x1 - x0) or 1.0)
    sy = plot_h / ((y1 - y0) or 1.0)
    body = []
    palette = (BLUE, RUST, "#5a8f3b", "#7b4fa0", "#c08a1e", "#2e8b8b")
    for i, (a, b, c, d) in enumerate(rectangles):
        body.append(
            f'<rect x="{LEFT + (a - x0) * sx:.1f}" y="{TOP + (y1 - d) * sy:.1f}" '
            f'width="{max((b - a) * sx, 1):.1f}" height="{max((d - c) * sy, 1):.1f}" '
            f'fill="{palette[i % len(palette)]}" fill-opacity="0.45" stroke="black" '
            f'stroke-width="0.3"/>'
        )
    body.append(
        f'<text x="{LEFT}" y="{height - 22}">{_label(x0)}</text>'
        f'<text x="{LEFT + plot_w}" y="{height - 22}" text-anchor="end">{_label(x1)}</text>'
        f'<text x="{LEFT - 4}" y="{TOP + plot_h}" text-anchor="end">{_label(y0)}</text>'
        f'<text x="{LEFT - 4}" y="{TOP + 10}" text-anchor="end">{_label(y1)}</text>'
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{height - 6}" text-anchor="middle">'
        f"{escape(xlabel)}</text>"
        f'<text transform="rotate(-90 12 {TOP + plot_h / 2:.0f})" x="12" '
        f'y="{TOP + plot_h / 2:.0f}" text-anchor="middle">{escape(ylabel)}</text>'
    )
    return _uri(body, width, height, f"{len(rectangles):,} published boxes")
