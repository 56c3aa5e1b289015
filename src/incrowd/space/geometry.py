"""Distances between records, kept as codes instead of a dense one-hot matrix.

Every attribute of a record is a few numbers whose L1 or L2 distance is the attribute's
distance:

- a **numeric** attribute is one coordinate, ``w (x − offset) / scale``;
- a **categorical** or **hierarchical** attribute is a one-hot block per hierarchy level
  below the top (a categorical attribute has one level: its value). The entry of a node is
  set from the *cost* of the nodes on the way up: if ``cost[t][node]`` is what publishing a
  value generalized to ``node`` at level ``t`` costs (0 for a leaf, 1 at the top), the node
  at level ``t`` steps up by ``step = cost[t+1][parent] − cost[t][node]``, and its entry is
  ``w·step/2`` under L1 (``w·sqrt(step/2)`` under L2). Two values that meet at node ``m``
  then lie at L1 distance ``w·cost(m)`` (squared L2 ``w²·cost(m)``): the telescoping steps
  below ``m`` are paid once from each side. With ``cost = level / height`` this is the
  generalization cost ``h / l`` of Aggarwal et al.; with the share of leaves covered it is
  the NCP of the label.

A dense one-hot matrix has a column per distinct node, which is 298 GiB for 200,000 names
in 200,000 records. Here each one-hot block is one integer code per record and a table of
entries per code: memory and distance computations grow with the records, never with
records × distinct values. :meth:`Geometry.dense` builds the dense matrix only where a
KD-tree needs it and it is small.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn, QIColumn
from ..data.ncp import domain_size, label_penalties
from ..errors import ParameterError

__all__ = ["Geometry", "LevelCost", "DENSE_LIMIT_BYTES", "node_costs"]

#: The largest dense embedding built for KD-trees and plain-matrix code (bytes).
DENSE_LIMIT_BYTES = 512 * 2**20
LevelCost = Literal["height", "ncp", "flat"]


def node_costs(column: CategoricalColumn | HierarchicalColumn, loss: LevelCost) -> list[np.ndarray]:
    """Cost of publishing each node, per level (0 = the values, last = the top, cost 1; with
    ``"ncp"``, 0 when the input holds one value).

    ``"height"``: a node at level ``t`` costs ``t / l`` (the paper's ``h / l``); ``"ncp"``:
    its NCP (:func:`incrowd.data.ncp.label_penalties`: the input values it covers);
    ``"flat"``: a categorical view of the values (0 for a value, 1 for the top), which is
    what a value set costs per pair, in units of ``1 / (domain − 1)``. A categorical column
    is a one-level hierarchy.
    """
    if isinstance(column, CategoricalColumn) and loss == "ncp":
        return label_penalties(column)  # * costs 0 on a column of one value
    if isinstance(column, CategoricalColumn) or loss == "flat":
        size = (
            len(column.categories)
            if isinstance(column, CategoricalColumn)
            else len(column.hierarchy.values)
        )
        return [np.zeros(size), np.ones(1)]
    if loss == "ncp":
        return label_penalties(column)
    height = column.hierarchy.height
    widths = [len(labels) for labels in column.hierarchy.labels]
    return [np.full(w, level / height if height else 0.0) for level, w in enumerate(widths)]


def _parents(column: CategoricalColumn | HierarchicalColumn, level: int, flat: bool) -> np.ndarray:
    """Parent (at ``level + 1``) of every node at ``level``."""
    if isinstance(column, CategoricalColumn) or flat:
        size = (
            len(column.categories)
            if isinstance(column, CategoricalColumn)
            else len(column.hierarchy.values)
        )
        return np.zeros(size, dtype=np.intp)
    table = column.hierarchy.codes
    parent = np.zeros(int(table[:, level].max()) + 1, dtype=np.intp)
    parent[table[:, level]] = table[:, level + 1]
    return parent


@dataclass(frozen=True, eq=False)
class Geometry:
    """Coordinates of ``n`` records under a norm, with one-hot blocks kept as codes.

    ``numeric`` holds the plain coordinates; code column ``j`` stands for a one-hot block
    whose entry for code ``c`` is ``entries[offsets[j] + c]``; ``attribute[j]`` and
    ``level[j]`` say which attribute and hierarchy level it encodes (agreeing at a level
    implies agreeing at every level above it). ``key`` names the geometry, so that an index
    built for it can be reused.
    """

    numeric: np.ndarray  # (n, a) float64
    codes: np.ndarray  # (n, b) intp
    entries: np.ndarray  # (sum of widths,) float64
    offsets: np.ndarray  # (b + 1,) intp
    attribute: np.ndarray  # (b,) intp
    level: np.ndarray  # (b,) intp
    norm: Literal[1, 2]
    key: Hashable

    def __post_init__(self) -> None:
        for name in ("numeric", "codes", "entries", "offsets"):
            getattr(self, name).setflags(write=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_array(cls, X: np.ndarray, norm: Literal[1, 2], key: Hashable = None) -> Geometry:
        """Plain coordinates, used as they are."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        n = X.shape[0]
        return cls(
            numeric=X,
            codes=np.zeros((n, 0), dtype=np.intp),
            entries=np.zeros(0),
            offsets=np.zeros(1, dtype=np.intp),
            attribute=np.zeros(0, dtype=np.intp),
            level=np.zeros(0, dtype=np.intp),
            norm=norm,
            key=("array", norm) if key is None else key,
        )

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[QIColumn],
        norm: Literal[1, 2],
        *,
        weights: Sequence[float] | None = None,
        numeric_scale: Literal["metric", "range"] = "metric",
        loss: LevelCost = "height",
        flat_scale: bool = False,
        key: Hashable = None,
    ) -> Geometry:
        """The geometry of coded QI columns.

        ``weights`` replace the metrics' weights (one per column). ``numeric_scale``:
        ``"metric"`` scales each numeric column as its :class:`~incrowd.Numeric` says,
        ``"range"`` by the column's range (what a published range costs). ``loss`` prices
        hierarchy nodes (:func:`node_costs`); ``"flat"`` treats every categorical and
        hierarchical value as a label of its own, and ``flat_scale`` divides its entries by
        ``domain − 1`` (the pair cost of a value set).
        """
        if norm not in (1, 2):
            msg = f"norm must be 1 or 2, got {norm!r}"
            raise ParameterError(msg)
        n = _rows(columns)
        weights = [c.metric.weight for c in columns] if weights is None else list(weights)
        nums, codes, entries, attribute, level, offsets = [], [], [], [], [], [0]
        for a, (col, w) in enumerate(zip(columns, weights, strict=True)):
            if isinstance(col, NumericColumn):
                offset, scale = numeric_offset_scale(col, numeric_scale)
                nums.append(w * (col.values - offset) / scale)
                continue
            flat = loss == "flat"
            costs = node_costs(col, loss)
            if isinstance(col, CategoricalColumn):
                leaves = col.codes.reshape(-1, 1)
            else:
                leaves = col.codes[:, :1] if flat else col.codes[:, :-1]
            per_unit = 1.0
            if flat and flat_scale:
                size = domain_size(col)
                per_unit = 1.0 / (size - 1) if size > 1 else 0.0
            for t in range(leaves.shape[1]):
                up = costs[t + 1][_parents(col, t, flat)]
                step = np.maximum(up - costs[t], 0.0) * per_unit
                entry = w * step / 2.0 if norm == 1 else w * np.sqrt(step / 2.0)
                codes.append(leaves[:, t])
                entries.append(entry)
                attribute.append(a)
                level.append(t)
                offsets.append(offsets[-1] + entry.size)
        return cls(
            numeric=_stack(nums, n, np.float64),
            codes=_stack(codes, n, np.intp),
            entries=np.concatenate(entries) if entries else np.zeros(0),
            offsets=np.asarray(offsets, dtype=np.intp),
            attribute=np.asarray(attribute, dtype=np.intp),
            level=np.asarray(level, dtype=np.intp),
            norm=norm,
            key=key,
        )

    # ------------------------------------------------------------------ shape
    @property
    def n(self) -> int:
        return int(self.numeric.shape[0])

    @property
    def widths(self) -> np.ndarray:
        """Number of codes of each code column."""
        return np.diff(self.offsets)

    def entry_table(self) -> np.ndarray:
        """``(n, b)``: the entry of each record's code in each code column."""
        return (
            self.entries[self.codes + self.offsets[:-1]]
            if self.codes.size
            else np.zeros((self.n, 0))
        )

    def dense_width(self) -> int:
        """Columns of the dense matrix: numeric, plus the codes present in each column."""
        present = sum(int(np.unique(self.codes[:, j]).size) for j in range(self.codes.shape[1]))
        return int(self.numeric.shape[1]) + present

    def dense_bytes(self) -> int:
        return 8 * self.n * self.dense_width()

    def dense(self, rows: np.ndarray | None = None) -> np.ndarray:
        """The dense coordinates (one-hot blocks written out over the codes present).

        Raises :class:`~incrowd.ParameterError` above :data:`DENSE_LIMIT_BYTES`, naming the
        widest attribute; the methods that work on codes (MDAV, forest, neighbour lists) do
        not need it.
        """
        if self.dense_bytes() > DENSE_LIMIT_BYTES:
            widest = int(np.argmax(self.widths)) if self.widths.size else 0
            msg = (
                f"this needs the records as a dense {self.n:,} x {self.dense_width():,} matrix "
                f"({self.dense_bytes() / 2**30:.1f} GiB): a quasi-identifier has "
                f"{int(self.widths[widest]):,} values; use a method that works on codes "
                "(mdav, forest) or generalize that attribute with a hierarchy first"
            )
            raise ParameterError(msg)
        take = slice(None) if rows is None else np.asarray(rows)
        parts = [self.numeric[take]]
        for j in range(self.codes.shape[1]):
            column = self.codes[:, j]
            present, local = np.unique(column, return_inverse=True)
            block = np.zeros((self.n, present.size))
            block[np.arange(self.n), local.ravel()] = self.entries[self.offsets[j] + column]
            parts.append(block[take])
        return np.ascontiguousarray(np.hstack(parts))

    def row_keys(self) -> np.ndarray:
        """Integer rows equal exactly when two records' coordinates are equal."""
        bits = np.ascontiguousarray(self.numeric).view(np.int64)
        return np.ascontiguousarray(np.hstack([self.codes.astype(np.int64), bits]))

    # ------------------------------------------------------------------ distances
    def distance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Distances between records ``a[i]`` and ``b[i]`` (elementwise)."""
        a, b = np.asarray(a, dtype=np.intp), np.asarray(b, dtype=np.intp)
        diff = np.abs(self.numeric[a] - self.numeric[b])
        ea, eb = self.entry_table_rows(a), self.entry_table_rows(b)
        differ = self.codes[a] != self.codes[b]
        if self.norm == 1:
            return diff.sum(axis=1) + np.where(differ, ea + eb, 0.0).sum(axis=1)
        sq = (diff**2).sum(axis=1) + np.where(differ, ea**2 + eb**2, 0.0).sum(axis=1)
        return np.sqrt(sq)

    def entry_table_rows(self, rows: np.ndarray) -> np.ndarray:
        """The entries of the given records' codes, ``(len(rows), b)``."""
        return self.entries[self.codes[rows] + self.offsets[:-1]]

    def take(self, rows: np.ndarray, key: Hashable = None) -> Geometry:
        """The geometry of a subset of the records (numbered 0.. in that order)."""
        rows = np.asarray(rows, dtype=np.intp)
        return Geometry(
            numeric=np.ascontiguousarray(self.numeric[rows]),
            codes=np.ascontiguousarray(self.codes[rows]),
            entries=self.entries,
            offsets=self.offsets,
            attribute=self.attribute,
            level=self.level,
            norm=self.norm,
            key=key,
        )


def numeric_offset_scale(
    column: NumericColumn, how: Literal["metric", "range"] = "metric"
) -> tuple[float, float]:
    """The offset and (positive) scale a numeric column is divided by."""
    v = column.values
    option = "range" if how == "range" else column.metric.scale
    if option == "range":
        lo, hi = column.bounds
        offset, scale = lo, hi - lo
    elif option == "std":
        offset, scale = float(v.mean()), float(v.std())
    else:
        offset, scale = 0.0, float(option)
    return offset, (scale if scale > 0 else 1.0)


def _rows(columns: Sequence[QIColumn]) -> int:
    if not columns:
        return 0
    col = columns[0]
    return int(col.values.size if isinstance(col, NumericColumn) else col.codes.shape[0])


def _stack(parts: list[np.ndarray], n: int, dtype: type) -> np.ndarray:
    if not parts:
        return np.zeros((n, 0), dtype=dtype)
    return np.ascontiguousarray(np.column_stack(parts).astype(dtype))
