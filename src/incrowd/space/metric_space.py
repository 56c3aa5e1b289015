"""The metric space in which algorithms work: the quasi-identifiers as coordinates.

Every attribute becomes coordinates whose L1 or L2 distance is the attribute's distance
(:mod:`incrowd.space.geometry`):

- ``Numeric``: one coordinate ``weight * (x - offset) / scale``;
- ``Categorical``: a one-hot block with entries ``weight * 2**(-1/p)``, so two different
  values are at distance ``weight`` under the L``p`` norm;
- ``Hierarchical`` with height ``l``: a one-hot block per level ``0 .. l-1``, so two values
  that meet at level ``h`` are at L1 distance ``weight * h / l`` (the generalization cost of
  Aggarwal et al.), and at squared L2 distance ``weight**2 * h / l`` (so SSE adds
  generalization costs).

One-hot blocks are kept as codes, never as a dense records × values matrix. The space owns
its neighbour indexes (:meth:`MetricSpace.index`): built once per geometry and reused by
every algorithm and every k.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar

import numpy as np
import pandas as pd

from ..data.columns import CategoricalColumn, NumericColumn, QIColumn, encode_qis
from ..data.schema import Schema
from ..errors import InputError, ParameterError
from ..io.tables import as_dataframe
from ..params import check_norm
from .geometry import Geometry, numeric_offset_scale
from .neighbours.index import NeighbourIndex

__all__ = ["Block", "MetricSpace"]

#: Above this many points, ``pairwise`` refuses to build a full distance matrix.
PAIRWISE_LIMIT = 4000

T = TypeVar("T")


@dataclass(frozen=True)
class Block:
    """Where one attribute lives in the geometry.

    ``numeric`` is its column of ``geometry.numeric`` (numeric attributes), ``codes`` the
    range of its code columns (categorical and hierarchical); a published numeric value is
    ``offset + coordinate * scale``.
    """

    name: str
    kind: Literal["numeric", "categorical", "hierarchical", "raw"]
    numeric: int | None = None
    codes: tuple[int, int] = (0, 0)
    offset: float = 0.0
    scale: float = 1.0


@dataclass(frozen=True, eq=False)
class MetricSpace:
    """Records as coordinates under a norm; build with :meth:`from_table` or
    :meth:`from_array`.

    Attributes
    ----------
    geometry : Geometry, the coordinates (numeric part and coded one-hot blocks)
    norm : 1 or 2
    blocks : where each attribute lives
    columns : the typed quasi-identifier columns (empty for a plain matrix)
    """

    geometry: Geometry
    blocks: tuple[Block, ...] = ()
    columns: tuple[QIColumn, ...] = field(default=(), repr=False)
    _indexes: dict[Hashable, NeighbourIndex] = field(default_factory=dict, repr=False)
    _twins: dict[int, Geometry] = field(default_factory=dict, repr=False)
    _derived: dict[Hashable, object] = field(default_factory=dict, repr=False)

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
        if arr.ndim != 2:
            msg = f"points must be a 2-d array, got shape {arr.shape}"
            raise InputError(msg)
        if not np.all(np.isfinite(arr)):
            msg = "points contain NaN or infinite values"
            raise InputError(msg)
        check_norm(norm)
        blocks = tuple(Block(f"x{j}", "raw", numeric=j) for j in range(arr.shape[1]))
        return cls(Geometry.from_array(arr, norm), blocks)

    @classmethod
    def from_table(
        cls, table: pd.DataFrame, schema: Schema, norm: Literal[1, 2] = 2
    ) -> MetricSpace:
        """Embed the quasi-identifiers of ``table`` as described in the module docstring."""
        check_norm(norm)
        columns = tuple(encode_qis(as_dataframe(table), schema))
        geometry = Geometry.from_columns(columns, norm, key=("space", norm))
        blocks, num, code = [], 0, 0
        for col in columns:
            if isinstance(col, NumericColumn):
                offset, scale = numeric_offset_scale(col)
                blocks.append(Block(col.name, "numeric", num, (code, code), offset,
                                    scale / col.metric.weight))  # fmt: skip
                num += 1
                continue
            width = 1 if isinstance(col, CategoricalColumn) else col.hierarchy.height
            kind = "categorical" if isinstance(col, CategoricalColumn) else "hierarchical"
            blocks.append(Block(col.name, kind, None, (code, code + width)))
            code += width
        return cls(geometry, tuple(blocks), columns)

    # ------------------------------------------------------------ shape
    @property
    def norm(self) -> Literal[1, 2]:
        return self.geometry.norm

    @property
    def n(self) -> int:
        """Number of records."""
        return self.geometry.n

    @property
    def dim(self) -> int:
        """Number of dense coordinates (one-hot blocks counted over the values present)."""
        return self.geometry.dense_width()

    @cached_property
    def points(self) -> np.ndarray:
        """The dense coordinates (float64, C-contiguous, read-only), built on first use.

        Only methods that need a KD-tree or plain matrix arithmetic ask for it; it is refused
        (with the reason) when an attribute has so many values that the matrix would not fit.
        """
        pts = self.geometry.dense()
        pts.setflags(write=False)
        return pts

    def geometry_in(self, norm: Literal[1, 2]) -> Geometry:
        """This space's geometry under ``norm`` (itself, or its twin built once)."""
        if norm == self.norm:
            return self.geometry
        if norm not in self._twins:
            self._twins[norm] = (
                Geometry.from_columns(self.columns, norm, key=("space", norm))
                if self.columns
                else Geometry.from_array(self.geometry.numeric, norm)
            )
        return self._twins[norm]

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """What ``build()`` derives from this space's records (a cost's tables, say), built
        once per ``key`` and shared by everything that asks for it with that key."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]  # type: ignore[return-value]

    # ------------------------------------------------------------ neighbours
    def index(self, geometry: Geometry | None = None) -> NeighbourIndex:
        """The neighbour index of this space (or of another geometry of its records, such as
        a cost's pair geometry), built once and reused."""
        geometry = geometry or self.geometry
        if geometry.n != self.n:
            msg = "the geometry describes other records than this space"
            raise ParameterError(msg)
        key = geometry.key if geometry.key is not None else id(geometry)
        found = self._indexes.get(key)
        if found is None:
            found = self._indexes[key] = NeighbourIndex(geometry)
        return found

    def knn(self, k: int, query: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indices of the ``k`` nearest records of each record (a record is
        its own nearest), or of each row of ``query`` (dense coordinates)."""
        if not 1 <= k <= self.n:
            msg = f"k must be between 1 and {self.n}, got {k}"
            raise ParameterError(msg)
        index = self.index()
        if query is None:
            if k == 1:
                return np.zeros((self.n, 1)), np.arange(self.n).reshape(-1, 1)
            dist, idx = index.neighbours(k - 1)
            own = np.arange(self.n).reshape(-1, 1)
            return np.hstack([np.zeros((self.n, 1)), dist]), np.hstack([own, idx])
        return index.nearest_to_points(np.atleast_2d(query), k)

    def radius_count(self, r: float) -> np.ndarray:
        """How many records lie within distance ``r`` (inclusive) of each record."""
        return self.index().counts(np.arange(self.n), r)

    # ------------------------------------------------------------ distances
    def distances_to(self, point: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """Distances from ``point`` (dense coordinates) to all records, or to ``idx``."""
        pts = self.points if idx is None else self.points[idx]
        diff = pts - np.asarray(point, dtype=np.float64)
        if self.norm == 1:
            return np.abs(diff).sum(axis=1)
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))

    def pairwise(self, idx: np.ndarray | None = None) -> np.ndarray:
        """Full distance matrix of the records ``idx`` (all); refused above a few thousand."""
        rows = np.arange(self.n) if idx is None else np.asarray(idx, dtype=np.intp)
        if rows.size > PAIRWISE_LIMIT:
            msg = f"refusing a {rows.size}x{rows.size} distance matrix; use neighbour queries"
            raise ParameterError(msg)
        pts = self.geometry.take(rows).dense()
        out = np.empty((rows.size, rows.size))
        for lo in range(0, rows.size, 128):
            diff = pts[lo : lo + 128, None, :] - pts[None, :, :]
            if self.norm == 1:
                out[lo : lo + 128] = np.abs(diff).sum(axis=2)
            else:
                out[lo : lo + 128] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        return out
