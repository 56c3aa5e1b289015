"""The metric space in which algorithms work: quasi-identifiers embedded as a float matrix.

Every attribute becomes a block of columns so that a plain norm of differences is the
attribute's distance:

- ``Numeric``: one column ``weight * (x - offset) / scale``.
- ``Categorical``: a one-hot block whose entries are ``weight * 2**(-1/p)``, so two different
  values are at distance ``weight`` under the L``p`` norm.
- ``Hierarchical`` with height ``l``: a one-hot block per level ``0 .. l-1`` (the top level is
  the same for every value and is left out). Under L1 each entry weighs ``weight / (2 l)``, so
  the distance between two values that meet at level ``h`` is exactly ``weight * h / l``, the
  generalization cost of Aggarwal et al.; under L2 each entry weighs ``weight / sqrt(2 l)``,
  so the *squared* distance is ``weight**2 * h / l`` and SSE adds generalization costs.

The matrix is built once and reused for every algorithm and every k. Neighbour queries go
through a KD-tree (scipy ``cKDTree``); no n×n matrix is built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ..errors import InputError, ParameterError
from .columns import (
    CategoricalColumn,
    HierarchicalColumn,
    NumericColumn,
    QIColumn,
    encode_qis,
)
from .neighbours import RecordIndex
from .schema import Schema

__all__ = ["Block", "MetricSpace"]

#: Above this many points, ``pairwise`` refuses to build a full distance matrix.
PAIRWISE_LIMIT = 4000


@dataclass(frozen=True)
class Block:
    """The columns ``start:stop`` of the embedding that encode one attribute.

    ``levels`` (hierarchical attributes only) holds the ``(start, stop)`` of each level's
    one-hot block, lowest level first.
    """

    name: str
    kind: Literal["numeric", "categorical", "hierarchical", "raw"]
    start: int
    stop: int
    offset: float = 0.0
    scale: float = 1.0
    levels: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, eq=False)
class MetricSpace:
    """Points (float64, C-contiguous) and the norm that measures distances between them.

    Build it with :meth:`from_table` (a table and its :class:`~incrowd.Schema`) or
    :meth:`from_array` (a plain matrix used as it is).
    """

    points: np.ndarray
    norm: Literal[1, 2] = 2
    blocks: tuple[Block, ...] = ()
    columns: tuple[QIColumn, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        pts = np.ascontiguousarray(self.points, dtype=np.float64)
        if pts.ndim != 2:
            msg = f"points must be a 2-d array, got shape {pts.shape}"
            raise InputError(msg)
        if not np.all(np.isfinite(pts)):
            msg = "points contain NaN or infinite values"
            raise InputError(msg)
        if self.norm not in (1, 2):
            msg = f"norm must be 1 or 2, got {self.norm!r}"
            raise ParameterError(msg)
        pts.setflags(write=False)
        object.__setattr__(self, "points", pts)
        if not self.blocks:
            raw = tuple(Block(f"x{j}", "raw", j, j + 1) for j in range(pts.shape[1]))
            object.__setattr__(self, "blocks", raw)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_array(cls, X: object, norm: Literal[1, 2] = 2) -> MetricSpace:
        """Use a numeric matrix as it is: no rescaling, distances are plain L1 / L2."""
        try:
            arr = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            msg = f"cannot use the input as a numeric matrix: {exc}"
            raise InputError(msg) from exc
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        return cls(arr, norm=norm)

    @classmethod
    def from_table(
        cls, table: pd.DataFrame, schema: Schema, norm: Literal[1, 2] = 2
    ) -> MetricSpace:
        """Embed the quasi-identifiers of ``table`` as described in the module docstring."""
        if norm not in (1, 2):
            msg = f"norm must be 1 or 2, got {norm!r}"
            raise ParameterError(msg)
        columns = encode_qis(table, schema)
        parts: list[np.ndarray] = []
        blocks: list[Block] = []
        start = 0
        for col in columns:
            block, part = _embed(col, norm, start)
            parts.append(part)
            blocks.append(block)
            start = block.stop
        n = len(table)
        points = np.hstack(parts) if parts else np.zeros((n, 0))
        return cls(points, norm=norm, blocks=tuple(blocks), columns=tuple(columns))

    # ------------------------------------------------------------------ shape
    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.points.shape[0])

    @property
    def dim(self) -> int:
        """Number of embedding columns."""
        return int(self.points.shape[1])

    # -------------------------------------------------------------- distances
    def distances_to(self, point: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """Distances from ``point`` (an embedded vector) to all points, or to ``points[idx]``."""
        pts = self.points if idx is None else self.points[idx]
        diff = pts - np.asarray(point, dtype=np.float64)
        if self.norm == 1:
            return np.abs(diff).sum(axis=1)
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))

    def pairwise(self, idx: np.ndarray | None = None) -> np.ndarray:
        """Full distance matrix of ``points[idx]``; refused above a few thousand points."""
        pts = self.points if idx is None else self.points[np.asarray(idx)]
        if pts.shape[0] > PAIRWISE_LIMIT:
            msg = f"refusing a {pts.shape[0]}x{pts.shape[0]} distance matrix; use neighbour queries"
            raise ParameterError(msg)
        diff = pts[:, None, :] - pts[None, :, :]
        if self.norm == 1:
            return np.abs(diff).sum(axis=2)
        return np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))

    @cached_property
    def records(self) -> RecordIndex:
        """Neighbour queries answered on the distinct points, expanded to records."""
        return RecordIndex(self.points, self.norm)

    @cached_property
    def tree(self) -> cKDTree:
        """KD-tree over the points (built on first use, then reused)."""
        return cKDTree(self.points)

    def knn(self, k: int, query: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indices of the ``k`` nearest points (a point is its own nearest)."""
        if not 1 <= k <= self.n:
            msg = f"k must be between 1 and {self.n}, got {k}"
            raise ParameterError(msg)
        q = self.points if query is None else np.atleast_2d(query)
        dist, idx = self.tree.query(q, k=k, p=self.norm, workers=-1)
        return np.asarray(dist).reshape(len(q), k), np.asarray(idx).reshape(len(q), k)

    def radius_count(self, r: float, query: np.ndarray | None = None) -> np.ndarray:
        """How many points lie within distance ``r`` (inclusive) of each query point."""
        q = self.points if query is None else np.atleast_2d(query)
        counts = self.tree.query_ball_point(q, r, p=self.norm, workers=-1, return_length=True)
        return np.asarray(counts, dtype=np.intp)


def _embed(col: QIColumn, norm: int, start: int) -> tuple[Block, np.ndarray]:
    w = col.metric.weight
    if isinstance(col, NumericColumn):
        v = col.values
        scale_opt = col.metric.scale
        if scale_opt == "range":
            offset, scale = float(v.min()), float(v.max() - v.min())
        elif scale_opt == "std":
            offset, scale = float(v.mean()), float(v.std())
        else:
            offset, scale = 0.0, float(scale_opt)
        scale = scale if scale > 0 else 1.0
        part = (w * (v - offset) / scale).reshape(-1, 1)
        return Block(col.name, "numeric", start, start + 1, offset, scale / w), part
    if isinstance(col, CategoricalColumn):
        m = len(col.categories)
        part = np.zeros((col.codes.size, m))
        part[np.arange(col.codes.size), col.codes] = w * 2.0 ** (-1.0 / norm)
        return Block(col.name, "categorical", start, start + m), part
    assert isinstance(col, HierarchicalColumn)
    height = col.hierarchy.height
    entry = w / (2 * height) if norm == 1 else w / np.sqrt(2 * height)
    pieces, levels, pos = [], [], start
    for j in range(height):
        present, codes = np.unique(col.codes[:, j], return_inverse=True)
        piece = np.zeros((col.codes.shape[0], present.size))
        piece[np.arange(codes.size), codes] = entry
        pieces.append(piece)
        levels.append((pos, pos + present.size))
        pos += present.size
    part = np.hstack(pieces) if pieces else np.zeros((col.codes.shape[0], 0))
    return Block(col.name, "hierarchical", start, pos, levels=tuple(levels)), part
