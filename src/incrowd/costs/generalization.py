"""The generalization cost of a crowd, and the distance that bounds it.

A crowd publishes each quasi-identifier generalized until its records agree. What that costs
per record, for attribute ``j`` with weight ``w_j``:

- numeric: the crowd's range, ``w_j * (max - min) / (column max - column min)``;
- ``"levels"`` (a hierarchy label): ``w_j * h / l_j``, where ``h`` is the lowest level on which
  the crowd agrees and ``l_j`` the hierarchy's height (a categorical attribute without a
  hierarchy has one level: its value, or ``*``) — the cost of Aggarwal et al.,
  *Approximation Algorithms for k-Anonymity*, Sec. 2 (``loss="height"``); or, with
  ``loss="ncp"`` (the default), ``w_j`` times the label's NCP (:mod:`incrowd.data.ncp`:
  the input values it covers);
- ``"sets"`` (the set of values present, ``{a|b}``): ``w_j * (distinct - 1) / (domain - 1)``,
  the normalized certainty penalty of a value set (domain: the distinct input values).

A crowd of ``|C|`` records costs ``|C|`` times the sum over attributes. Each per-attribute
cost ``c`` of a set of records has the two properties the k-anonymity analysis needs:

1. it is at least the cost of any two of its members, ``c(C) >= c({a, b})``;
2. it is at most the sum of pair costs along any tree spanning ``C`` (a tree may pass through
   extra Steiner points: adding points never lowers ``c``).

so the pair cost ``d(a, b) = sum_j c_j({a, b})`` is the edge weight of the paper's graph, and
both the lower bound of FOREST (Lemma 3) and the ``|C| * W(tree)`` upper bound hold for all
three kinds. ``d`` is the L1 distance of a geometry of the records
(:attr:`GeneralizationCost.geometry`), so neighbours come from the space's neighbour index,
not from an n×n matrix. Subsets never cost more per record than their superset, so
splitting a crowd never raises the total cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np

from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn, QIColumn
from ..data.ncp import domain_size, set_penalty
from ..errors import ParameterError
from ..params import check_weights
from ..space.geometry import Geometry, node_costs
from .base import Cost
from .kernels import record_cost, subset_generalization

if TYPE_CHECKING:
    from ..space.metric_space import MetricSpace

__all__ = ["GeneralizationCost", "GeneralizeForm", "LevelLoss"]

GeneralizeForm = Literal["levels", "sets"]
LevelLoss = Literal["height", "ncp"]


@dataclass(frozen=True, eq=False)
class GeneralizationCost(Cost):
    """The generalization cost of crowds: per-attribute cost tables in a form numba reads.

    Build it with :meth:`on` (a space: its typed columns, or its plain matrix as numeric
    columns). ``geometry`` is the L1 geometry of the pair costs, whose neighbour index the
    space keeps.
    """

    name: ClassVar[str] = "generalization"
    combine: ClassVar[str] = "sum"

    names: tuple[str, ...]
    num: np.ndarray  # (n, a) numeric values divided by their range
    num_weight: np.ndarray  # (a,)
    codes: np.ndarray  # (n, b) leaf code of each categorical / hierarchical value
    ancestors: np.ndarray  # (b, L + 1, D): node of each leaf at each level
    node_cost: np.ndarray  # (b, L + 1, D): cost of generalizing to node (level, code)
    height: np.ndarray  # (b,) levels above the leaves (levels form)
    domain: np.ndarray  # (b,) number of distinct input values (sets form)
    sets: np.ndarray  # (b,) bool: published as a value set
    cat_weight: np.ndarray  # (b,)
    numeric: np.ndarray  # (a + b,) bool: attribute ``names[i]`` is numeric (in ``num``)
    geometry: Geometry = field(repr=False)

    @classmethod
    def on(
        cls,
        space: MetricSpace,
        form: GeneralizeForm = "levels",
        weights: Mapping[str, float] | None = None,
        loss: LevelLoss = "ncp",
    ) -> GeneralizationCost:
        """The cost on a space: from its columns when built from a table, else every column
        of its matrix numeric (then ``weights`` cannot name attributes)."""
        if space.columns:
            # one method's fit, the pipeline's scoring and a blockwise run's bound all ask for
            # it: built once per space (weights that cannot be a key are built each time,
            # and from_columns refuses the invalid ones)
            try:
                key = (cls, form, loss, tuple(sorted((weights or {}).items())))
                hash(key)
            except (TypeError, AttributeError):
                return cls.from_columns(space.columns, form, weights, loss)
            return space.derived(key, lambda: cls.from_columns(space.columns, form, weights, loss))
        if weights:
            msg = "weights name attributes; fit a MetricSpace built from a table to use them"
            raise ParameterError(msg)
        return cls.from_array(space.geometry.numeric)

    @classmethod
    def from_columns(
        cls,
        columns: Sequence[QIColumn],
        form: GeneralizeForm = "levels",
        weights: Mapping[str, float] | None = None,
        loss: LevelLoss = "ncp",
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
        check_weights(weights)
        n = len(columns[0].codes if not isinstance(columns[0], NumericColumn)
                else columns[0].values) if columns else 0  # fmt: skip
        nums, num_w, cats, cat_w, tables, heights, domains, sets = [], [], [], [], [], [], [], []
        coded: list[CategoricalColumn | HierarchicalColumn] = []
        for col in columns:
            w = float(weights.get(col.name, col.metric.weight))
            if isinstance(col, NumericColumn):
                lo, hi = col.bounds
                nums.append(col.values / (hi - lo) if hi > lo else np.zeros_like(col.values))
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
            cats.append(leaves)
            coded.append(col)
            cat_w.append(w)
            tables.append(table)
            heights.append(table.shape[0] - 1)
            domains.append(domain_size(col))
            sets.append(form == "sets")
        levels = max((t.shape[0] for t in tables), default=1)
        width = max((t.shape[1] for t in tables), default=1)
        ancestors = np.zeros((len(tables), levels, width), dtype=np.intp)
        node_cost = np.zeros((len(tables), levels, width))
        for j, (t, col) in enumerate(zip(tables, coded, strict=True)):
            ancestors[j, : t.shape[0], : t.shape[1]] = t
            for level, cost in enumerate(node_costs(col, loss)):
                node_cost[j, level, : cost.size] = cost
        all_weights = [float(weights.get(c.name, c.metric.weight)) for c in columns]
        geometry = Geometry.from_columns(
            columns, 1, weights=all_weights, numeric_scale="range",
            loss="flat" if form == "sets" else loss, flat_scale=form == "sets",
            key=("generalization", form, loss, tuple(all_weights)),
        )  # fmt: skip
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
            numeric=np.array([isinstance(c, NumericColumn) for c in columns], dtype=np.bool_),
            geometry=geometry,
        )

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
            numeric=np.ones(X.shape[1], dtype=np.bool_),
            geometry=Geometry.from_array(num, 1, key=("generalization", "array")),
        )

    @property
    def n(self) -> int:
        return int(self.num.shape[0])

    @property
    def labels_only(self) -> bool:
        """Every attribute published as a hierarchy label (none a range or a value set)."""
        return self.num.shape[1] == 0 and not bool(np.asarray(self.sets).any())

    @property
    def star_price(self) -> np.ndarray:
        """What ``*`` costs a kept record in each numeric attribute: its weight, or 0 when
        the input holds one value (:func:`incrowd.data.ncp.range_penalty`)."""
        if self.n == 0:
            return self.num_weight.copy()
        spread = self.num.max(axis=0) > self.num.min(axis=0)
        return np.where(spread, self.num_weight, 0.0)

    @property
    def row_cost(self) -> float:
        """Cost of deleting one record: every attribute suppressed (all costs at their top)."""
        return float(self.num_weight.sum() + self.cat_weight.sum())

    def pair(self, a: int, b: int) -> float:
        """``d(a, b)``: the cost per record of a crowd of the two records."""
        return self.crowd(np.array([a, b], dtype=np.intp)) / 2.0

    def crowd(self, members: np.ndarray) -> float:
        """Cost of one crowd: its size times the per-record cost of generalizing it."""
        members = np.asarray(members, dtype=np.intp)
        stamp = np.zeros(max(self.ancestors.shape[2], 1), dtype=np.intp)
        return float(members.size * record_cost(members, self.kernel_args(), stamp, 1))

    def of(self, labels: np.ndarray) -> float:
        """Total cost of a labelling: crowds at their cost, each label −1 record deleted."""
        labels = np.asarray(labels, dtype=np.intp)
        kept = np.flatnonzero(labels >= 0)
        total = self.row_cost * (labels.size - kept.size)
        if kept.size == 0:
            return float(total)
        order = kept[np.argsort(labels[kept], kind="stable")]
        crowd = labels[order]
        starts = np.flatnonzero(np.r_[True, crowd[1:] != crowd[:-1]])
        sizes = np.diff(np.r_[starts, order.size]).astype(np.float64)
        for j in range(self.num.shape[1]):
            v = self.num[order, j]
            spread = np.maximum.reduceat(v, starts) - np.minimum.reduceat(v, starts)
            total += self.num_weight[j] * float(np.dot(sizes, spread))
        local = np.repeat(np.arange(starts.size), sizes.astype(np.intp))
        for j in range(self.codes.shape[1]):
            leaves = self.codes[order, j]
            if self.sets[j]:
                if self.domain[j] > 1:
                    radix = int(self.ancestors.shape[2])  # codes may pass the domain's size
                    pairs = np.unique(local.astype(np.int64) * radix + leaves)
                    distinct = np.bincount(pairs // radix, minlength=starts.size)
                    share = set_penalty(distinct, int(self.domain[j]))
                    total += self.cat_weight[j] * float(np.dot(sizes, share))
                continue
            level = self._agreed_level(j, leaves, starts)
            node = self.ancestors[j][level, leaves[starts]]
            total += self.cat_weight[j] * float(np.dot(sizes, self.node_cost[j][level, node]))
        return float(total)

    def at_levels(self, labels: np.ndarray, levels: Sequence[int]) -> float:
        """Total cost of a labelling whose crowds publish each attribute at least at a
        level of ``levels`` (one per attribute of :attr:`names`): a hierarchy label at the
        higher of that level and the lowest on which the crowd agrees; a number as its
        crowd's range at level 0 and as ``*`` (cost 1) at level 1. Each label −1 record
        costs a full row. A full-domain generalization (global recoding) is priced so."""
        labels = np.asarray(labels, dtype=np.intp)
        levels = [int(v) for v in levels]
        if bool(np.asarray(self.sets).any()):
            msg = "a full-domain generalization publishes hierarchy levels, not value sets"
            raise ParameterError(msg)
        if len(levels) != len(self.names):
            msg = f"levels has {len(levels)} entries for {len(self.names)} attributes"
            raise ParameterError(msg)
        numeric = [levels[i] for i in np.flatnonzero(self.numeric)]
        coded = [levels[i] for i in np.flatnonzero(~self.numeric)]
        stars = np.array([v > 0 for v in numeric], dtype=np.bool_)
        # a numeric attribute at level 1 costs a kept record its star price; at level 0 its
        # range, as `of`; a suppressed record pays its weight (a full row) either way
        base = replace(self, num=self.num[:, ~stars], num_weight=self.num_weight[~stars])
        kept = np.flatnonzero(labels >= 0)
        total = (base.of(labels) + float(self.star_price[stars].sum()) * kept.size
                 + float(self.num_weight[stars].sum()) * (labels.size - kept.size))  # fmt: skip
        if kept.size == 0 or not any(coded):
            return float(total)
        # each crowd's hierarchy labels raised to the floor: the difference to its price
        order = kept[np.argsort(labels[kept], kind="stable")]
        starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
        sizes = np.diff(np.r_[starts, order.size]).astype(np.float64)
        for j, floor in enumerate(coded):
            leaves = self.codes[order, j]
            agreed = self._agreed_level(j, leaves, starts)
            raised = np.maximum(agreed, floor)
            now = self.node_cost[j][agreed, self.ancestors[j][agreed, leaves[starts]]]
            then = self.node_cost[j][raised, self.ancestors[j][raised, leaves[starts]]]
            total += self.cat_weight[j] * float(np.dot(sizes, then - now))
        return float(total)

    def agreed_levels(self, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per crowd of ``labels`` (numbered from 0, every record in one): the lowest level
        of each hierarchy on which its records agree (its labels' node of the lattice), and
        one member's leaf codes; two arrays of one line per crowd."""
        labels = np.asarray(labels, dtype=np.intp)
        order = np.argsort(labels, kind="stable")
        starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
        levels = np.zeros((starts.size, self.codes.shape[1]), dtype=np.intp)
        for j in range(self.codes.shape[1]):
            levels[:, j] = self._agreed_level(j, self.codes[order, j], starts)
        return levels, self.codes[order[starts]].astype(np.intp)

    def level_price(self, levels: np.ndarray, anchor: np.ndarray) -> np.ndarray:
        """Per line of ``levels`` (a level of each hierarchy) and ``anchor`` (one member's leaf
        codes): what each record pays in a crowd that publishes its labels at those levels
        (every attribute a hierarchy label)."""
        price = np.zeros(levels.shape[0])
        for j in range(levels.shape[1]):
            node = self.ancestors[j, levels[:, j], anchor[:, j]]
            price += self.cat_weight[j] * self.node_cost[j, levels[:, j], node]
        return price

    def _agreed_level(self, j: int, leaves: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Per run of ``leaves`` (attribute ``j``'s, one run per crowd from each of
        ``starts``), the lowest level of its hierarchy on which the run agrees."""
        height = int(self.height[j])
        level = np.full(starts.size, height, dtype=np.intp)
        for t in range(height - 1, -1, -1):
            node = self.ancestors[j, t][leaves]
            agree = np.minimum.reduceat(node, starts) == np.maximum.reduceat(node, starts)
            level[agree] = t
        return level

    def subset_costs(self, n: int, k: int) -> np.ndarray:
        stamp = np.zeros(max(self.ancestors.shape[2], 1), dtype=np.int64)
        return subset_generalization(np.arange(n), k, self.kernel_args(), stamp, 1)[0]

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


def _matrix(columns: list[np.ndarray], n: int, dtype: type) -> np.ndarray:
    if not columns:
        return np.zeros((n, 0), dtype=dtype)
    return np.ascontiguousarray(np.column_stack(columns).astype(dtype))
