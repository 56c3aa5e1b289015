"""The generalization cost of a crowd, and the distance that bounds it.

A crowd publishes each quasi-identifier generalized until its records agree. What that costs
per record, for attribute ``j`` with weight ``w_j``:

- numeric: the crowd's range, ``w_j * (max - min) / (column max - column min)``;
- ``"levels"`` (a hierarchy label): ``w_j * h / l_j``, where ``h`` is the lowest level on which
  the crowd agrees and ``l_j`` the hierarchy's height (a categorical attribute without a
  hierarchy has one level: its value, or ``*``) — the cost of Aggarwal et al.,
  *Approximation Algorithms for k-Anonymity*, Sec. 2 (``loss="height"``); or, with
  ``loss="ncp"``, ``w_j * (leaves under the label - 1) / (leaves - 1)``, the label's NCP;
- ``"sets"`` (the set of values present, ``{a|b}``): ``w_j * (distinct - 1) / (domain - 1)``,
  the normalized certainty penalty of a value set.

A crowd of ``|C|`` records costs ``|C|`` times the sum over attributes. Each per-attribute
cost ``c`` of a set of records has the two properties the k-anonymity analysis needs:

1. it is at least the cost of any two of its members, ``c(C) >= c({a, b})``;
2. it is at most the sum of pair costs along any tree spanning ``C`` (a tree may pass through
   extra Steiner points: adding points never lowers ``c``).

so the pair cost ``d(a, b) = sum_j c_j({a, b})`` is the edge weight of the paper's graph, and
both the lower bound of FOREST (Lemma 3) and the ``|C| * W(tree)`` upper bound hold for all
three kinds. ``d`` is an L1 distance of an embedding (:meth:`GeneralizationCost.embedding`),
so neighbours come from a KD-tree, not from an n×n matrix. Subsets never cost more per
record than their superset, so splitting a crowd never raises the total cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numba
import numpy as np

from ..errors import ParameterError
from .columns import CategoricalColumn, HierarchicalColumn, NumericColumn, QIColumn
from .neighbours import RecordIndex, _expand_lists

if TYPE_CHECKING:
    from .space import MetricSpace

__all__ = ["GeneralizationCost", "GeneralizeForm", "crowd_cost"]

#: Neighbour lists scan all pairs of distinct rows up to this many of them ...
SCAN_MAX_DISTINCT = 40_000
#: ... when no categorical domain is wider than this (the pair tables are D x D).
SCAN_MAX_DOMAIN = 1024
#: KD-tree leaf size: one-hot embeddings (wider than WIDE_DIM) query fastest with big leaves.
WIDE_LEAF_SIZE = 256
WIDE_DIM = 32

GeneralizeForm = Literal["levels", "sets"]
LevelLoss = Literal["height", "ncp"]


@dataclass(frozen=True, eq=False)
class GeneralizationCost:
    """Per-attribute cost tables of a table's quasi-identifiers, in a form numba can read.

    Build it with :meth:`from_columns` (the columns of a :class:`~incrowd.MetricSpace`) or
    :meth:`from_array` (every column numeric, scaled by its range).
    """

    names: tuple[str, ...]
    num: np.ndarray  # (n, a) numeric values divided by their range
    num_weight: np.ndarray  # (a,)
    codes: np.ndarray  # (n, b) leaf code of each categorical / hierarchical value
    ancestors: np.ndarray  # (b, L + 1, D): node of each leaf at each level
    node_cost: np.ndarray  # (b, L + 1, D): cost of generalizing to node (level, code)
    height: np.ndarray  # (b,) levels above the leaves (levels form)
    domain: np.ndarray  # (b,) number of leaves (sets form)
    sets: np.ndarray  # (b,) bool: published as a value set
    cat_weight: np.ndarray  # (b,)

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[QIColumn],
        form: GeneralizeForm = "levels",
        weights: Mapping[str, float] | None = None,
        loss: LevelLoss = "height",
    ) -> GeneralizationCost:
        """Cost tables for coded QI columns; ``weights`` override the schema's weights;
        ``loss`` prices a hierarchy label by its level (``"height"``) or by the leaves it
        covers (``"ncp"``)."""
        if form not in ("levels", "sets"):
            msg = f"generalize must be 'levels' or 'sets', got {form!r}"
            raise ParameterError(msg)
        if loss not in ("height", "ncp"):
            msg = f"loss must be 'height' or 'ncp', got {loss!r}"
            raise ParameterError(msg)
        names = tuple(c.name for c in columns)
        weights = dict(weights or {})
        unknown = sorted(set(weights) - set(names))
        if unknown:
            msg = f"weights name unknown quasi-identifier(s) {unknown}; they are {list(names)}"
            raise ParameterError(msg)
        for name, w in weights.items():
            if not (isinstance(w, int | float) and np.isfinite(w) and w >= 0):
                msg = f"weight of {name!r} must be a non-negative number, got {w!r}"
                raise ParameterError(msg)
        n = len(columns[0].codes if not isinstance(columns[0], NumericColumn)
                else columns[0].values) if columns else 0  # fmt: skip
        nums, num_w, cats, cat_w, tables, heights, domains, sets = [], [], [], [], [], [], [], []
        for col in columns:
            w = float(weights.get(col.name, col.metric.weight))
            if isinstance(col, NumericColumn):
                span = float(col.values.max() - col.values.min())
                nums.append(col.values / span if span > 0 else np.zeros_like(col.values))
                num_w.append(w)
                continue
            if isinstance(col, CategoricalColumn):
                leaves = col.codes
                size = len(col.categories)
                table = np.stack([np.arange(size), np.zeros(size, dtype=np.intp)])
            else:
                assert isinstance(col, HierarchicalColumn)
                leaves = col.codes[:, 0]
                table = col.hierarchy.codes.T
                size = table.shape[1]
            cats.append(leaves)
            cat_w.append(w)
            tables.append(table)
            heights.append(table.shape[0] - 1)
            domains.append(size)
            sets.append(form == "sets")
        levels = max((t.shape[0] for t in tables), default=1)
        width = max((t.shape[1] for t in tables), default=1)
        ancestors = np.zeros((len(tables), levels, width), dtype=np.intp)
        node_cost = np.zeros((len(tables), levels, width))
        for j, t in enumerate(tables):
            ancestors[j, : t.shape[0], : t.shape[1]] = t
            h, size = t.shape[0] - 1, t.shape[1]
            for level in range(h + 1):
                if loss == "height":
                    node_cost[j, level, :] = level / h if h else 0.0
                else:
                    leaves = np.bincount(t[level], minlength=width)
                    node_cost[j, level, :] = (leaves - 1) / (size - 1) if size > 1 else 0.0
        return cls(
            names=names,
            num=_matrix(nums, n, np.float64),
            num_weight=np.asarray(num_w, dtype=np.float64),
            codes=_matrix(cats, n, np.intp),
            ancestors=ancestors,
            node_cost=np.maximum(node_cost, 0.0),
            height=np.asarray(heights, dtype=np.intp),
            domain=np.asarray(domains, dtype=np.intp),
            sets=np.asarray(sets, dtype=np.bool_),
            cat_weight=np.asarray(cat_w, dtype=np.float64),
        )

    @classmethod
    def for_space(
        cls,
        space: MetricSpace,
        form: GeneralizeForm = "levels",
        weights: Mapping[str, float] | None = None,
        loss: LevelLoss = "height",
    ) -> GeneralizationCost:
        """The cost on a metric space: from its columns when built from a table, else every
        column of its matrix numeric (then ``weights`` cannot name attributes)."""
        if space.columns:
            return cls.from_columns(space.columns, form, weights, loss)
        if weights:
            msg = "weights name attributes; fit a MetricSpace built from a table to use them"
            raise ParameterError(msg)
        return cls.from_array(space.points)

    @classmethod
    def from_array(cls, X: np.ndarray) -> GeneralizationCost:
        """Every column of a plain matrix is numeric, generalized to ranges (weight 1)."""
        X = np.asarray(X, dtype=np.float64)
        span = X.max(axis=0) - X.min(axis=0) if X.shape[0] else np.ones(X.shape[1])
        num = np.where(span > 0, X / np.where(span > 0, span, 1.0), 0.0)
        return cls(
            names=tuple(f"x{j}" for j in range(X.shape[1])),
            num=np.ascontiguousarray(num),
            num_weight=np.ones(X.shape[1]),
            codes=np.zeros((X.shape[0], 0), dtype=np.intp),
            ancestors=np.zeros((0, 1, 1), dtype=np.intp),
            node_cost=np.zeros((0, 1, 1)),
            height=np.zeros(0, dtype=np.intp),
            domain=np.zeros(0, dtype=np.intp),
            sets=np.zeros(0, dtype=np.bool_),
            cat_weight=np.zeros(0),
        )

    @property
    def n(self) -> int:
        return int(self.num.shape[0])

    @property
    def row_cost(self) -> float:
        """Cost of deleting one record: every attribute suppressed (all costs at their top)."""
        return float(self.num_weight.sum() + self.cat_weight.sum())

    def embedding(self) -> np.ndarray:
        """Points whose L1 distances are the pair costs ``d(a, b)``.

        Numeric: ``w * x / range``. Levels: a one-hot block per level below the top; a node's
        entry is half the cost step to its parent, so two values differ by the cost of the
        node where they meet (``w / (2 l)`` per level under the height loss). Sets: a one-hot
        block of the value, entries ``w / (2 (domain - 1))``.
        """
        parts = [self.num * self.num_weight]
        for j in range(self.codes.shape[1]):
            w, leaves = self.cat_weight[j], self.codes[:, j]
            if self.sets[j]:
                if self.domain[j] > 1:
                    parts.append(_one_hot(leaves, w / (2.0 * (self.domain[j] - 1))))
                continue
            for level in range(int(self.height[j])):
                node = self.ancestors[j, level][leaves]
                up = self.ancestors[j, level + 1][leaves]
                step = self.node_cost[j, level + 1][up] - self.node_cost[j, level][node]
                parts.append(_one_hot(node, w * step / 2.0))
        return np.ascontiguousarray(np.hstack(parts)) if parts else np.zeros((self.n, 0))

    def keys(self) -> np.ndarray:
        """Integer rows equal exactly when two records' embeddings are equal."""
        bits = np.ascontiguousarray(self.num).view(np.int64)
        return np.ascontiguousarray(np.hstack([self.codes.astype(np.int64), bits]))

    def neighbour_lists(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per record: the pair costs and indices of its ``k`` nearest other records, nearest
        first (``k < n``).

        Exact either way. With categorical attributes and at most :data:`SCAN_MAX_DISTINCT`
        distinct rows: a compiled scan over the distinct rows with early exit, which on
        categorical data beats a KD-tree on the wide one-hot embedding many times over
        (Adult: 0.6–0.9 s against 1.3–24 s); ``O(m^2)`` pair tests for ``m`` distinct rows.
        Otherwise: a KD-tree on :meth:`embedding`.
        """
        keys = self.keys()
        _, first, inverse, counts = np.unique(
            keys, axis=0, return_index=True, return_inverse=True, return_counts=True
        )
        scan = (
            self.codes.shape[1] > 0
            and first.size <= SCAN_MAX_DISTINCT
            and self.ancestors.shape[2] <= SCAN_MAX_DOMAIN
        )
        if not scan:
            points = self.embedding()
            wide = points.shape[1] > WIDE_DIM
            index = RecordIndex(points, 1, keys=keys, leafsize=WIDE_LEAF_SIZE if wide else None)
            return index.neighbour_lists(k)
        inverse = inverse.ravel()
        q = min(k + 1, first.size)
        num = np.ascontiguousarray(self.num[first] * self.num_weight)
        codes = np.ascontiguousarray(self.codes[first])
        d_u, i_u = _knn_distinct(num, codes, self.pair_tables(), q)
        order = np.argsort(inverse, kind="stable")
        starts = np.concatenate(([0], np.cumsum(counts)))
        return _expand_lists(d_u, i_u, counts.astype(np.intp), starts, order, k)

    def pair_tables(self) -> np.ndarray:
        """``tables[j, x, y]``: weighted cost of a crowd holding values ``x`` and ``y`` of
        categorical attribute ``j`` (shape ``(b, D, D)``, ``D`` the widest domain)."""
        b, width = self.codes.shape[1], self.ancestors.shape[2]
        tables = np.zeros((b, width, width))
        for j in range(b):
            size = int(self.domain[j])
            x = np.arange(size)
            if self.sets[j]:
                if size > 1:
                    tables[j, :size, :size] = (x[:, None] != x[None, :]) / (size - 1)
            else:
                anc = self.ancestors[j, : self.height[j] + 1, :size]
                meet = np.full((size, size), self.height[j])
                for level in range(self.height[j], -1, -1):
                    same = anc[level][:, None] == anc[level][None, :]
                    meet[same] = level
                node = anc[meet, x[:, None]]
                tables[j, :size, :size] = self.node_cost[j][meet, node]
            tables[j] *= self.cat_weight[j]
        return tables

    def pair_cost(self, a: int, b: int) -> float:
        """``d(a, b)``: the cost per record of a crowd of the two records."""
        return crowd_cost(self, np.array([a, b], dtype=np.intp)) / 2.0

    def cost_of(self, labels: np.ndarray) -> float:
        """Total cost of a labelling: crowds at their cost, each label −1 record deleted."""
        labels = np.asarray(labels, dtype=np.intp)
        return float(
            _labelling_cost(labels, self.kernel_args())
            + self.row_cost * np.count_nonzero(labels < 0)
        )

    def kernel_args(self) -> tuple[np.ndarray, ...]:
        """The arrays the numba kernels take, in their order."""
        return (
            self.num,
            self.num_weight,
            self.codes,
            self.ancestors,
            self.node_cost,
            self.height,
            self.domain,
            self.sets,
            self.cat_weight,
        )


def crowd_cost(model: GeneralizationCost, members: np.ndarray) -> float:
    """Cost of one crowd: its size times the per-record cost of generalizing it."""
    members = np.asarray(members, dtype=np.intp)
    stamp = np.zeros(max(model.ancestors.shape[2], 1), dtype=np.intp)
    return float(members.size * _record_cost(members, model.kernel_args(), stamp, 1))


def _matrix(columns: list[np.ndarray], n: int, dtype: type) -> np.ndarray:
    if not columns:
        return np.zeros((n, 0), dtype=dtype)
    return np.ascontiguousarray(np.column_stack(columns).astype(dtype))


def _one_hot(codes: np.ndarray, value: float | np.ndarray) -> np.ndarray:
    present, local = np.unique(codes, return_inverse=True)
    out = np.zeros((codes.size, present.size))
    out[np.arange(codes.size), local.ravel()] = value
    return out


@numba.njit(cache=True, nogil=True)
def _record_cost(members, cm, stamp, tick):
    """Per-record generalization cost of the crowd ``members`` (``cm``: the arrays of
    :meth:`GeneralizationCost.kernel_args`).

    ``stamp`` is a scratch array (size ≥ the widest domain) holding no value equal to
    ``tick``; counting distinct values marks it with ``tick .. tick + b - 1``.
    """
    num, num_weight, codes, ancestors, node_cost, height, domain, sets, cat_weight = cm
    total = 0.0
    m = members.size
    for j in range(num.shape[1]):
        lo = num[members[0], j]
        hi = lo
        for i in range(1, m):
            v = num[members[i], j]
            if v < lo:
                lo = v
            elif v > hi:
                hi = v
        total += num_weight[j] * (hi - lo)
    for j in range(codes.shape[1]):
        if sets[j]:
            if domain[j] <= 1:
                continue
            mark = tick + j
            distinct = 0
            for i in range(m):
                c = codes[members[i], j]
                if stamp[c] != mark:
                    stamp[c] = mark
                    distinct += 1
            total += cat_weight[j] * (distinct - 1) / (domain[j] - 1)
            continue
        h = height[j]
        if h == 0:
            continue
        first = codes[members[0], j]
        level = 0
        for i in range(1, m):
            c = codes[members[i], j]
            while level < h and ancestors[j, level, c] != ancestors[j, level, first]:
                level += 1
            if level == h:
                break
        total += cat_weight[j] * node_cost[j, level, ancestors[j, level, first]]
    return total


@numba.njit(cache=True, nogil=True)
def n_crowds(labels):
    """One more than the largest crowd label (−1 labels ignored)."""
    m = 0
    for i in range(labels.size):
        if labels[i] + 1 > m:
            m = labels[i] + 1
    return m


@numba.njit(cache=True, nogil=True)
def _labelling_cost(labels, cm):
    codes, ancestors = cm[2], cm[3]
    n = labels.size
    m = n_crowds(labels)
    counts = np.zeros(m + 1, dtype=np.intp)
    for i in range(n):
        if labels[i] >= 0:
            counts[labels[i] + 1] += 1
    starts = np.cumsum(counts)
    order = np.empty(starts[-1], dtype=np.intp)
    fill = starts[:-1].copy()
    for i in range(n):
        if labels[i] >= 0:
            order[fill[labels[i]]] = i
            fill[labels[i]] += 1
    stamp = np.zeros(max(ancestors.shape[2], 1), dtype=np.intp)
    total = 0.0
    b = codes.shape[1]
    for c in range(m):
        members = order[starts[c] : starts[c + 1]]
        if members.size == 0:
            continue
        tick = 1 + c * b
        total += members.size * _record_cost(members, cm, stamp, tick)
    return total


@numba.njit(cache=True, parallel=True)
def _knn_distinct(num, codes, tables, q):
    """The ``q`` nearest distinct points of every distinct point (itself first).

    ``num`` holds weighted, range-scaled numeric values and ``codes`` the categorical codes of
    the distinct points; ``tables[j, x, y]`` is attribute ``j``'s pair cost. Each query scans
    outward from itself in key order (similar rows first, so the bound tightens early) and
    drops a candidate as soon as its partial sum passes the ``q``-th best: exact, and no
    matrix is kept.
    """
    m = num.shape[0]
    out_d = np.empty((m, q))
    out_i = np.empty((m, q), dtype=np.intp)
    a, b = num.shape[1], codes.shape[1]
    for u in numba.prange(m):
        best_d = np.full(q, np.inf)
        best_i = np.full(q, -1, dtype=np.intp)
        best_d[0], best_i[0] = 0.0, u
        for s in range(1, 2 * max(u, m - 1 - u) + 1):
            v = u + (s + 1) // 2 if s % 2 == 1 else u - s // 2
            if v < 0 or v >= m:
                continue
            bound = best_d[q - 1]
            d = 0.0
            for j in range(a):
                d += abs(num[u, j] - num[v, j])
            if d >= bound:
                continue
            for j in range(b):
                d += tables[j, codes[u, j], codes[v, j]]
                if d >= bound:
                    break
            if d >= bound:
                continue
            t = q - 1
            while t > 0 and best_d[t - 1] > d:
                best_d[t] = best_d[t - 1]
                best_i[t] = best_i[t - 1]
                t -= 1
            best_d[t] = d
            best_i[t] = v
        out_d[u] = best_d
        out_i[u] = best_i
    return out_d, out_i
