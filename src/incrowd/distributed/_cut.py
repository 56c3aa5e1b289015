"""Cutting a table into blocks whose crowds stay inside them (see :mod:`incrowd.distributed`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.schema import Hierarchical, Numeric, Schema, parse_numbers
from ..errors import InfeasibleError, InputError, ParameterError

__all__ = ["Cut", "cut_blocks", "plan_blocks"]

#: A cut leaves at least this share of its part on either side (so cuts stay logarithmic).
MIN_BALANCE = 0.25


@dataclass(frozen=True)
class Cut:
    """One cut on a block's way down: attribute ``column`` (``attribute``-th QI) separates
    the block from the records beyond it; ``across`` is the nearest value on the far side."""

    attribute: int
    column: str
    across: object


@dataclass(frozen=True)
class _CutKeys:
    """Per quasi-identifier: a sortable number per row, what separating two adjacent values
    costs a crowd that would have held both (its cost of spanning them), and the data value
    of each key."""

    keys: np.ndarray  # (n, attributes) float64
    kinds: tuple[str, ...]  # "numeric" | "labels" | "tree"
    spans: tuple[float, ...]  # numeric: the domain's width
    trees: tuple[np.ndarray | None, ...]  # tree: leaf codes per level, in rank order
    values: tuple[np.ndarray | None, ...]  # labels / tree: the data value of each key
    names: tuple[str, ...]

    def separation(self, j: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Cost of a crowd holding the adjacent key values ``a < b`` of attribute ``j``."""
        if self.kinds[j] == "numeric":
            return (b - a) / self.spans[j] if self.spans[j] > 0 else np.zeros(a.size)
        tree = self.trees[j]
        if tree is None:
            return np.ones(a.size)
        ta, tb = tree[a.astype(np.intp)], tree[b.astype(np.intp)]
        meet = np.argmax(ta == tb, axis=1)  # the lowest level where the two leaves meet
        return meet / max(tree.shape[1] - 1, 1)

    def value(self, j: int, key: float) -> object:
        """The data value of key ``key`` of attribute ``j``."""
        values = self.values[j]
        return key if values is None else values[int(key)]


def _cut_keys(table: pd.DataFrame, schema: Schema) -> _CutKeys:
    keys, kinds, spans, trees, values = [], [], [], [], []
    for name, metric in schema.quasi_identifiers.items():
        column = table[name]
        tree, value = None, None
        if isinstance(metric, Hierarchical):  # the leaf's place in the tree: siblings adjacent
            codes = metric.hierarchy.codes  # (values, levels)
            order = np.lexsort(codes.T)
            rank = np.empty(codes.shape[0], dtype=np.float64)
            rank[order] = np.arange(codes.shape[0])
            keys.append(rank[metric.hierarchy.encode(column.to_numpy(), name)[:, 0]])
            kind, tree = "tree", codes[order]
            value = np.asarray(metric.hierarchy.values, dtype=object)[order]
        elif isinstance(metric, Numeric):
            keys.append(parse_numbers(column))
            kind = "numeric"
        else:
            text = column if isinstance(column.dtype, pd.CategoricalDtype) else column.astype(str)
            codes, uniques = pd.factorize(text, sort=True)
            keys.append(codes.astype(np.float64))
            kind, value = "labels", np.asarray(uniques, dtype=object)
        kinds.append(kind)
        trees.append(tree)
        values.append(value)
        lo_hi = metric.domain if isinstance(metric, Numeric) else None
        width = float(np.ptp(keys[-1])) if keys[-1].size else 0.0
        spans.append(float(lo_hi[1] - lo_hi[0]) if lo_hi else width)
    return _CutKeys(np.column_stack(keys), tuple(kinds), tuple(spans), tuple(trees),
                    tuple(values), schema.qi_names)  # fmt: skip


def _best_cut(
    cut: _CutKeys, part: np.ndarray, floor: int
) -> tuple[np.ndarray, np.ndarray, int, float, float] | None:
    """The two sides of the cut of ``part`` that separates the most dissimilar adjacent
    values (crowds rarely span those, so blocking there costs little), among cuts that leave
    at least ``floor`` and ``MIN_BALANCE`` of the part on each side; ties go to the most
    balanced. Also the attribute and the two values either side of the cut. None when no
    cut qualifies."""
    size = part.size
    least = max(floor, int(np.ceil(MIN_BALANCE * size)))
    best: tuple[float, float, int, float, float] | None = None
    for j in range(cut.keys.shape[1]):
        values, counts = np.unique(cut.keys[part, j], return_counts=True)
        if values.size < 2:
            continue
        left = np.cumsum(counts)[:-1]
        ok = (left >= least) & (size - left >= least)
        if not ok.any():
            continue
        at = np.flatnonzero(ok)
        sep = cut.separation(j, values[at], values[at + 1])
        balance = np.minimum(left[at], size - left[at]) / size
        i = int(np.lexsort((balance, sep))[-1])
        score = (float(sep[i]), float(balance[i]))
        if best is None or score > best[:2]:
            best = (*score, j, float(values[at[i]]), float(values[at[i] + 1]))
    if best is None:
        return None
    _, _, j, below_value, above_value = best
    below = cut.keys[part, j] <= below_value
    return part[below], part[~below], j, below_value, above_value


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
        stack.append((low, (*path, Cut(j, name, cut.value(j, b)))))
        stack.append((high, (*path, Cut(j, name, cut.value(j, a)))))
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
