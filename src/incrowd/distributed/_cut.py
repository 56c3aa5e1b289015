"""Cutting a table into blocks whose crowds stay inside them (see :mod:`incrowd.distributed`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.hierarchy import distinct_values
from ..data.schema import Hierarchical, Numeric, Schema, parse_numbers
from ..errors import InfeasibleError, InputError, ParameterError

__all__ = ["Cut", "cut_blocks", "plan_blocks"]

#: A cut leaves at least this share of its part on either side (so cuts stay logarithmic).
MIN_BALANCE = 0.25


@dataclass(frozen=True)
class Cut:
    """One cut on a block's way down: attribute ``column`` separates the block from the
    records beyond it; ``across`` is the nearest value on the far side."""

    column: str
    across: object


@dataclass(frozen=True)
class _CutKeys:
    """Per quasi-identifier: each row's rank among the attribute's sortable keys (a small
    integer, so a part's values are counted in linear time), what separating two adjacent
    keys costs a crowd that would have held both (its cost of spanning them), and the data
    value of each key."""

    ranks: tuple[np.ndarray, ...]  # per attribute: int32 rank of each row
    points: tuple[np.ndarray, ...]  # per attribute: the key of each rank (ascending)
    kinds: tuple[str, ...]  # "numeric" | "labels" | "tree"
    spans: tuple[float, ...]  # numeric: the domain's width
    trees: tuple[np.ndarray | None, ...]  # tree: leaf codes per level, in rank order
    values: tuple[np.ndarray | None, ...]  # labels / tree: the data value of each rank
    names: tuple[str, ...]

    def separation(self, j: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cost of a crowd holding the adjacent ranks ``a < b`` of attribute ``j``."""
        if self.kinds[j] == "numeric":
            gap = self.points[j][b] - self.points[j][a]
            return gap / self.spans[j] if self.spans[j] > 0 else np.zeros(a.size)
        tree = self.trees[j]
        if tree is None:
            return np.ones(a.size)
        meet = np.argmax(tree[a] == tree[b], axis=1)  # the lowest level where leaves meet
        return meet / max(tree.shape[1] - 1, 1)

    def value(self, j: int, rank: int) -> object:
        """The data value of rank ``rank`` of attribute ``j``."""
        values = self.values[j]
        return float(self.points[j][rank]) if values is None else values[rank]


def _cut_keys(table: pd.DataFrame, schema: Schema) -> _CutKeys:
    ranks, points, kinds, spans, trees, values = [], [], [], [], [], []
    for name, metric in schema.quasi_identifiers.items():
        column = table[name]
        tree, value, span = None, None, 0.0
        if isinstance(metric, Hierarchical):  # the leaf's place in the tree: siblings adjacent
            codes = metric.hierarchy.codes  # (values, levels)
            order = np.lexsort(codes.T)
            place = np.empty(codes.shape[0], dtype=np.int32)
            place[order] = np.arange(codes.shape[0], dtype=np.int32)
            distinct, codes_of = distinct_values(column)
            rank = place[metric.hierarchy.encode(distinct, name)[:, 0]][codes_of]
            point = np.arange(codes.shape[0], dtype=np.float64)
            kind, tree = "tree", codes[order]
            value = np.asarray(metric.hierarchy.values, dtype=object)[order]
        elif isinstance(metric, Numeric):
            point, inverse = np.unique(parse_numbers(column), return_inverse=True)
            rank = inverse.ravel().astype(np.int32)
            kind = "numeric"
            lo, hi = metric.domain or ((point[0], point[-1]) if point.size else (0.0, 0.0))
            span = float(hi - lo)
        else:
            text = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype(str)
            codes, uniques = pd.factorize(text, sort=True)
            rank = codes.astype(np.int32)
            point = np.arange(len(uniques), dtype=np.float64)
            kind, value = "labels", np.asarray(uniques, dtype=object)
        ranks.append(np.ascontiguousarray(rank))
        points.append(point)
        kinds.append(kind)
        spans.append(span)
        trees.append(tree)
        values.append(value)
    return _CutKeys(tuple(ranks), tuple(points), tuple(kinds), tuple(spans), tuple(trees),
                    tuple(values), schema.qi_names)  # fmt: skip


def _best_cut(
    cut: _CutKeys, part: np.ndarray, floor: int
) -> tuple[np.ndarray, np.ndarray, int, int, int] | None:
    """The two sides of the cut of ``part`` that separates the most dissimilar adjacent
    values (crowds rarely span those, so blocking there costs little), among cuts that leave
    at least ``floor`` and ``MIN_BALANCE`` of the part on each side; ties go to the
    attribute with the fewest values in the part, then to the most balanced cut. Also the
    attribute and the ranks either side of the cut. None when no cut qualifies.

    Why fewest values: the more values an attribute has, the more often neighbouring
    records differ in it, so the more crowds would span even a top-level cut. Measured on
    the unblocked ``forest`` release of 200,000 census rows (``make_census``, zip code and
    seven Adult hierarchies, k = 5): no crowd spans the cut on sex, 0.01–0.02 % of the
    records are in crowds that span the top cuts of marital status, education or
    occupation, 1.9 % in crowds that span the best top cut of the zip code. Cutting the zip
    code first (the most balanced of those) lost 4.05 % NCP in 5 blocks; sex first, 0.06 %
    in 6 (``benchmarks/blockwise.py loss --qis zip``)."""
    size = part.size
    least = max(floor, int(np.ceil(MIN_BALANCE * size)))
    best: tuple[float, float, int, int, int] | None = None
    for j, ranks in enumerate(cut.ranks):
        counts = np.bincount(ranks[part], minlength=cut.points[j].size)
        present = np.flatnonzero(counts)
        if present.size < 2:
            continue
        left = np.cumsum(counts[present])[:-1]
        ok = (left >= least) & (size - left >= least)
        if not ok.any():
            continue
        at = np.flatnonzero(ok)
        sep = cut.separation(j, present[at], present[at + 1])
        balance = np.minimum(left[at], size - left[at]) / size
        i = int(np.lexsort((balance, sep))[-1])
        score = (float(sep[i]), -present.size, float(balance[i]))
        if best is None or score > best[:3]:
            best = (*score, j, int(present[at[i]]), int(present[at[i] + 1]))
    if best is None:
        return None
    _, _, _, j, below_rank, above_rank = best
    below = cut.ranks[j][part] <= below_rank
    return part[below], part[~below], j, below_rank, above_rank


def _cuts(
    cut: _CutKeys, rows: np.ndarray, block_size: int, floor: int
) -> list[tuple[np.ndarray, tuple[Cut, ...]]]:
    """Cut ``rows`` until every part holds at most ``block_size`` records; each part with
    the cuts that separate it from the rest."""
    out, stack = [], [(rows, ())]
    while stack:
        part, path = stack.pop()
        found = None if part.size <= block_size else _best_cut(cut, part, floor)
        if found is None:  # small enough, or no cut leaves floor on both sides
            out.append((part, path))
            continue
        low, high, j, a, b = found
        name = cut.names[j]
        stack.append((low, (*path, Cut(name, cut.value(j, b)))))
        stack.append((high, (*path, Cut(name, cut.value(j, a)))))
    return out


def cut_blocks(
    table: pd.DataFrame,
    schema: Schema,
    *,
    block_size: int,
    by: Sequence[str] = (),
    floor: int,
) -> list[np.ndarray]:
    """Row indices of each block (see :mod:`incrowd.distributed`)."""
    return [rows for rows, _ in plan_blocks(table, schema, block_size=block_size, by=by,
                                            floor=floor)[0]]  # fmt: skip


def plan_blocks(
    table: pd.DataFrame,
    schema: Schema,
    *,
    block_size: int,
    by: Sequence[str] = (),
    floor: int,
) -> tuple[list[tuple[np.ndarray, tuple[Cut, ...]]], bool]:
    """Each block's rows and the cuts that separate it from every other block; and whether
    those cuts are all that separate blocks (False when ``by`` values did as well, which
    need not differ in any quasi-identifier)."""
    n = len(table)
    if block_size < floor:
        msg = f"the block size ({block_size}) must be at least the block floor ({floor})"
        raise ParameterError(msg)
    if n < floor:
        msg = f"{n} records: fewer than a block's floor of {floor}"
        raise InfeasibleError(msg)
    missing = [c for c in by if c not in table.columns]
    if missing:
        msg = f"no column {missing[0]!r} to block by"
        raise InputError(msg)
    if by:
        groups = table.groupby(list(by), sort=True, observed=True, dropna=False).indices
        parts = [np.asarray(v, dtype=np.intp) for v in groups.values()]
        merged: list[np.ndarray] = []
        for part in parts:  # small groups join the next one in value order
            if merged and merged[-1].size < floor:
                merged[-1] = np.concatenate([merged[-1], part])
            else:
                merged.append(part)
        if len(merged) > 1 and merged[-1].size < floor:
            last = merged.pop()
            merged[-1] = np.concatenate([merged[-1], last])
    else:
        merged = [np.arange(n, dtype=np.intp)]
    keys = _cut_keys(table, schema)
    blocks: list[tuple[np.ndarray, tuple[Cut, ...]]] = []
    for part in merged:
        blocks += _cuts(keys, np.sort(part), block_size, floor)
    return [(np.sort(rows), path) for rows, path in blocks], len(merged) == 1
