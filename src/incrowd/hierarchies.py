"""Data-driven generalization hierarchies for one attribute, one level per k.

ARX and incrowd's own methods generalize an attribute along a hierarchy; for zip codes,
places and labels the usual hierarchies are hand-made (zip prefixes). The builders here cut
the attribute's values into classes of at least ``k`` records with the algorithms of Du,
Eppstein, Goodrich and Lueker (WADS 2009), keeping the largest class small:

- :func:`region_hierarchy` — places (zip codes with a point each) into **connected regions**
  of the Delaunay graph of their points
  (:mod:`~incrowd.algorithms.single_attribute.planar_regions`);
- :func:`label_hierarchy` — labels into classes by **min-max bin covering**
  (:mod:`~incrowd.algorithms.single_attribute.bincover`);
- :func:`rectangle_hierarchy` — places into **boxes** of a kd-tree
  (:mod:`~incrowd.algorithms.single_attribute.kd_rectangles`).

Levels are nested by construction. Regions and label classes are built bottom-up: the level
of each ``k`` (in increasing order) groups the classes of the level below, as items with
their summed weights (the contracted graph of a planar graph is planar). Boxes are built
top-down — the largest ``k`` first, then each box cut again with the next smaller ``k`` —
because the union of boxes is not a box, while a box cut by kd lines is; every level then
keeps Theorem 4's bound.

A class is named by its level's ``k``, its first value and how many values it holds
(``k20000:02138+6``); a box by its ranges. Each level reports its classes, its largest class,
a proven lower bound on the largest class of *any* partition of the values into classes of
``k`` (:func:`~incrowd.costs.largest_lower_bound`, over the values themselves, so the
certified ratio holds against the unnested optimum too) and the algorithm's proven bound.

Weights: a count column the user names (records per value), or else the number of rows of
each value (a table with a record per person).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .algorithms.single_attribute.bincover import ALGORITHMS, Order, cover
from .algorithms.single_attribute.kd_rectangles import kd_rectangles
from .algorithms.single_attribute.planar_regions import delaunay_edges, planar_regions
from .costs import largest_lower_bound
from .data.hierarchy import Hierarchy
from .errors import InputError, ParameterError
from .io.hierarchy_csv import hierarchy_csv, write_hierarchy
from .io.tables import as_dataframe

__all__ = [
    "BuiltHierarchy",
    "Level",
    "label_hierarchy",
    "rectangle_hierarchy",
    "region_hierarchy",
]


@dataclass(frozen=True)
class Level:
    """One level of a built hierarchy: its ``k`` and what it achieved."""

    k: int
    n_classes: int
    largest: int
    lower_bound: int
    bound: int | None
    detail: dict[str, object] = field(default_factory=dict)

    @property
    def certified_ratio(self) -> float:
        """``largest / lower_bound``: no partition into classes of ``k`` does better than
        ``largest`` divided by this."""
        return self.largest / self.lower_bound


@dataclass(frozen=True)
class BuiltHierarchy:
    """Rows ``[value, level 1, level 2, …]`` (an ARX hierarchy) and each level's figures."""

    rows: list[list[str]]
    levels: list[Level]

    @property
    def hierarchy(self) -> Hierarchy:
        """The rows as a validated :class:`~incrowd.Hierarchy`."""
        return Hierarchy.from_rows(self.rows, source="built hierarchy")

    def to_csv(self, sep: str = ";") -> str:
        """The ARX file's text: no header, ``sep``-separated."""
        return hierarchy_csv(self.rows, sep)

    def write(self, path: str | os.PathLike[str], sep: str = ";") -> Path:
        """Write the ARX file (:func:`~incrowd.io.hierarchy_csv.write_hierarchy`); an existing
        file is never replaced."""
        return write_hierarchy(self.rows, path, sep)


# ----------------------------------------------------------------------------- input
def _ks(ks: int | Sequence[int]) -> list[int]:
    values = [ks] if isinstance(ks, int | np.integer) else list(ks)
    if not values:
        msg = "give at least one k"
        raise ParameterError(msg)
    for k in values:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            msg = f"every k must be a positive integer, got {k!r}"
            raise ParameterError(msg)
    return sorted({int(k) for k in values})


def _column(frame: pd.DataFrame, name: str, what: str) -> pd.Series:
    if name not in frame.columns:
        msg = f"no column {name!r} ({what}); the table has: {', '.join(map(str, frame.columns))}"
        raise InputError(msg)
    column = frame[name]
    if column.isna().any():
        row = int(np.flatnonzero(column.isna().to_numpy())[0])
        msg = f"column {name!r} ({what}) is missing a value in row {row + 1}"
        raise InputError(msg)
    return column


def _numbers(frame: pd.DataFrame, name: str, what: str) -> np.ndarray:
    column = _column(frame, name, what)
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        msg = f"column {name!r} ({what}) holds {column.iloc[row]!r} in row {row + 1}: not a number"
        raise InputError(msg)
    return values


def _values_and_weights(
    frame: pd.DataFrame, value: str, count: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, weights, first row of each value)``, values in order of first appearance."""
    labels = _column(frame, value, "the value").astype(str).to_numpy()
    codes, values = pd.factorize(labels)
    if count is None:
        weights = np.bincount(codes, minlength=values.size).astype(np.int64)
    else:
        c = _numbers(frame, count, "the count")
        if (c < 0).any() or (c != np.round(c)).any():
            row = int(np.flatnonzero((c < 0) | (c != np.round(c)))[0])
            msg = f"column {count!r} must hold whole numbers >= 0; row {row + 1} holds {c[row]}"
            raise InputError(msg)
        weights = np.bincount(codes, weights=c, minlength=values.size).astype(np.int64)
    first = np.full(values.size, -1, dtype=np.intp)
    first[codes[::-1]] = np.arange(codes.size)[::-1]
    return np.asarray(values, dtype=object), weights, first


def _points(frame: pd.DataFrame, lon: str, lat: str, first: np.ndarray) -> np.ndarray:
    """The (longitude, latitude) of each value (at its first row)."""
    x, y = _numbers(frame, lon, "the longitude"), _numbers(frame, lat, "the latitude")
    return np.column_stack([x, y])[first]


def _check_points(frame: pd.DataFrame, value: str, lon: str, lat: str) -> None:
    both = frame[[value, lon, lat]].drop_duplicates()
    twice = both[value].duplicated()
    if twice.any():
        name = both[value][twice].iloc[0]
        msg = f"value {name!r} of {value!r} is given two different points ({lon}, {lat})"
        raise InputError(msg)


def _name(k: int, first: str, size: int) -> str:
    return f"k{k}:{first}" + (f"+{size - 1}" if size > 1 else "")


def _class_names(k: int, values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per class: ``k…:first value+others`` (first in value order)."""
    n = int(labels.max()) + 1
    order = np.lexsort((values.astype(str), labels))
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    sizes = np.bincount(labels, minlength=n)
    names = np.empty(n, dtype=object)
    for s in starts:
        c = labels[order[s]]
        names[c] = _name(k, str(values[order[s]]), int(sizes[c]))
    return names


def _rows(values: np.ndarray, columns: list[np.ndarray]) -> list[list[str]]:
    return [[str(v), *(str(col[i]) for col in columns)] for i, v in enumerate(values)]


def _level(k: int, weights: np.ndarray, labels: np.ndarray, bound: int | None, **detail) -> Level:
    loads = np.bincount(labels, weights=weights).astype(np.int64)
    lower = largest_lower_bound(weights[weights > 0], k)
    return Level(k, int(loads.size), int(loads.max()), lower, bound, dict(detail))


# ----------------------------------------------------------------------------- builders
def region_hierarchy(
    table: object,
    *,
    value: str,
    k: int | Sequence[int],
    lon: str | None = None,
    lat: str | None = None,
    count: str | None = None,
    adjacency: object = None,
) -> BuiltHierarchy:
    """Connected regions of places, one level per ``k``, nested bottom-up.

    The graph is the Delaunay triangulation of the places' (``lon``, ``lat``) points as
    given (places at one point are merged first), or ``adjacency``: pairs of neighbouring
    values (a table whose first two columns name them, or a list of pairs), for example
    from boundary files.
    """
    frame = as_dataframe(table)
    ks = _ks(k)
    values, weights, first = _values_and_weights(frame, value, count)
    if adjacency is None:
        if lon is None or lat is None:
            msg = "give the longitude and latitude columns, or the adjacency of the values"
            raise InputError(msg)
        _check_points(frame, value, lon, lat)
        points = _points(frame, lon, lat, first)
        distinct, place = np.unique(points, axis=0, return_inverse=True)
        place = place.reshape(-1)
        node_edges = delaunay_edges(distinct)
        node_of = place
        n_nodes = distinct.shape[0]
    else:
        node_edges = _adjacency_edges(adjacency, values)
        node_of = np.arange(values.size, dtype=np.intp)
        n_nodes = values.size
    node_weight = np.bincount(node_of, weights=weights, minlength=n_nodes).astype(np.int64)
    columns, levels = [], []
    group = np.arange(n_nodes, dtype=np.intp)  # the class (at the level below) of each node
    current_edges, current_weight = node_edges, node_weight
    for kk in ks:
        found = planar_regions(None, current_weight, kk, edges=current_edges,
                               n=current_weight.size)  # fmt: skip
        group = found.labels[group]
        labels = group[node_of]
        columns.append(_class_names(kk, values, labels))
        columns[-1] = columns[-1][labels]
        levels.append(_level(kk, weights, labels, found.bound, tree_degree=found.degree))
        contracted = found.labels[current_edges]
        contracted = contracted[contracted[:, 0] != contracted[:, 1]]
        current_edges = np.unique(np.sort(contracted, axis=1), axis=0)
        current_weight = found.loads
    return BuiltHierarchy(_rows(values, columns), levels)


def _adjacency_edges(adjacency: object, values: np.ndarray) -> np.ndarray:
    """Pairs of neighbouring values as pairs of value indices."""
    if isinstance(adjacency, pd.DataFrame):
        if adjacency.shape[1] < 2:
            msg = "the adjacency table needs two columns: a value and its neighbour"
            raise InputError(msg)
        pairs = adjacency.iloc[:, :2].astype(str).to_numpy()
    else:
        pairs = np.asarray([[str(a), str(b)] for a, b in adjacency], dtype=object)  # type: ignore[attr-defined]
    index = {str(v): i for i, v in enumerate(values)}
    unknown = next((v for v in pairs.ravel() if v not in index), None)
    if unknown is not None:
        msg = f"the adjacency names {unknown!r}, which is not a value of the table"
        raise InputError(msg)
    return np.array([[index[a], index[b]] for a, b in pairs], dtype=np.intp).reshape(-1, 2)


def label_hierarchy(
    table: object,
    *,
    value: str,
    k: int | Sequence[int],
    count: str | None = None,
    algorithm: str = "theorem9",
    order: Order = "given",
    seed: int | None = None,
    epsilon: float = 0.5,
) -> BuiltHierarchy:
    """Classes of labels by min-max bin covering, one level per ``k``, nested bottom-up.

    ``algorithm`` is one of ``fold``, ``spread``, ``theorem9``, ``ptas``, ``exact``;
    ``order`` (``given``, ``ascending``, ``descending``, ``random`` with ``seed``) is the
    order Fold and Spread take the items in. Values with no records join the lightest class.
    """
    if algorithm not in ALGORITHMS:
        msg = f"unknown covering algorithm {algorithm!r}; choose one of: {', '.join(ALGORITHMS)}"
        raise ParameterError(msg)
    frame = as_dataframe(table)
    ks = _ks(k)
    values, weights, _ = _values_and_weights(frame, value, count)
    columns, levels = [], []
    group = np.arange(values.size, dtype=np.intp)
    items = weights
    for kk in ks:
        heavy = np.flatnonzero(items > 0)
        found = cover(items[heavy], kk, algorithm, order=order, seed=seed, epsilon=epsilon)
        classes = np.empty(items.size, dtype=np.intp)
        classes[heavy] = found.labels
        classes[items == 0] = int(np.argmin(found.loads))
        group = classes[group]
        columns.append(_class_names(kk, values, group)[group])
        levels.append(_level(kk, weights, group, _covering_bound(found, kk, items[heavy]),
                             algorithm=found.algorithm))  # fmt: skip
        items = np.bincount(classes, weights=items, minlength=found.loads.size).astype(np.int64)
    return BuiltHierarchy(_rows(values, columns), levels)


def _covering_bound(found: object, k: int, items: np.ndarray) -> int | None:
    """The proven largest class of the covering algorithm used, on these items."""
    name = getattr(found, "algorithm", "")
    if name == "fold":
        return max(k - 1 + int(items.max()), 3 * k - 3)
    return None


def rectangle_hierarchy(
    table: object,
    *,
    value: str,
    lon: str,
    lat: str,
    k: int | Sequence[int],
    count: str | None = None,
) -> BuiltHierarchy:
    """Boxes of places by kd cuts, one level per ``k``, nested top-down (see the module
    docstring). A box is named by its ranges, ``k…:[lon lo,hi]x[lat lo,hi]``."""
    frame = as_dataframe(table)
    ks = _ks(k)
    values, weights, first = _values_and_weights(frame, value, count)
    _check_points(frame, value, lon, lat)
    points = _points(frame, lon, lat, first)
    cells = np.zeros(values.size, dtype=np.intp)
    columns: list[np.ndarray] = []
    levels: list[Level] = []
    for kk in reversed(ks):
        labels = np.empty(values.size, dtype=np.intp)
        bound, offset = 0, 0
        for c in np.unique(cells):
            inside = np.flatnonzero(cells == c)
            found = kd_rectangles(points[inside], weights[inside], kk)
            labels[inside] = offset + found.labels
            offset += found.loads.size
            bound = max(bound, found.bound)
        cells = labels
        lows = np.full((offset, 2), np.inf)
        highs = np.full((offset, 2), -np.inf)
        np.minimum.at(lows, labels, points)
        np.maximum.at(highs, labels, points)
        names = np.array(
            [_box_name(kk, lo, hi) for lo, hi in zip(lows, highs, strict=True)],
            dtype=object,
        )
        columns.insert(0, names[labels])
        levels.insert(0, _level(kk, weights, labels, bound))
    return BuiltHierarchy(_rows(values, columns), levels)


def _box_name(k: int, lo: np.ndarray, hi: np.ndarray) -> str:
    return f"k{k}:[{lo[0]:.10g},{hi[0]:.10g}]x[{lo[1]:.10g},{hi[1]:.10g}]"
