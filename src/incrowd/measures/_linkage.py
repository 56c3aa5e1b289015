"""Linkage by consistency (:mod:`incrowd.measures.risk`): which original records each class
of a generalized table admits, and how many records of consistent classes each original
record meets.

A published cell admits an original value when it could have been published for it: ``*``,
a numeric range holding it, or a label (the value itself, a hierarchy label above it, a set
holding it or a label above it).

Speed: rows are grouped into classes and records into distinct quasi-identifier
combinations first; the classes are bucketed by the published cells of the attribute with
the most distinct cells, so a combination is compared only with the classes whose cell of
that attribute it matches (compiled; no Python loop over pairs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._runtime import jit
from ..data.columns import CategoricalColumn, HierarchicalColumn, NumericColumn
from ..errors import InputError, option
from ..release.generalize import SUPPRESSED_VALUE, parse_value_set
from .loss import category_code, parse_range

__all__ = ["link_by_cells"]

#: Largest cells × values table built to bucket classes by one attribute.
MAX_BUCKET_TABLE = 50_000_000


def link_by_cells(
    columns: list[Any], keys: pd.DataFrame, first_row: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(records consistent per combination, per class; combination of each record)``, for
    the original quasi-identifier ``columns`` and the published ``keys`` (``first_row``: a
    row of each class; ``sizes``: its records)."""
    attrs = [_attribute(c) for c in columns]
    b = len(attrs)
    values = np.column_stack([a.values for a in attrs]).astype(np.int64)
    combos, combo_of, combo_counts = np.unique(values, axis=0, return_inverse=True,
                                               return_counts=True)  # fmt: skip
    combo_of = combo_of.reshape(-1)
    n_classes = first_row.size
    cell_of = np.empty((n_classes, b), dtype=np.int64)
    tables: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    all_levels: list[int] = []
    all_nodes: list[int] = []
    n_cells = []
    for j, attr in enumerate(attrs):
        texts = keys.iloc[first_row, j].to_numpy()
        uniq, inverse = np.unique(texts.astype(str), return_inverse=True)
        cell_of[:, j] = inverse.reshape(-1)
        kinds = np.empty(uniq.size, np.int64)
        los, his = np.zeros(uniq.size), np.zeros(uniq.size)
        starts = np.empty(uniq.size + 1, np.int64)
        for c, text in enumerate(uniq):
            kinds[c], los[c], his[c], members = _read_cell(attr, text)
            starts[c] = len(all_levels)
            all_levels.extend(m[0] for m in members)
            all_nodes.extend(m[1] for m in members)
        starts[uniq.size] = len(all_levels)
        tables.append((kinds, los, his, starts))
        n_cells.append(uniq.size)
    width = max(n_cells)
    kinds = np.zeros((b, width), np.int64)
    los, his = np.zeros((b, width)), np.zeros((b, width))
    starts = np.zeros((b, width + 1), np.int64)
    for j, (kj, lj, hj, sj) in enumerate(tables):
        m = kj.size
        kinds[j, :m], los[j, :m], his[j, :m], starts[j, : m + 1] = kj, lj, hj, sj
    levels = np.asarray(all_levels, dtype=np.int64)
    nodes = np.asarray(all_nodes, dtype=np.int64)
    numeric = _pad([a.numeric.reshape(-1, 1) for a in attrs], 0.0, np.float64)[:, :, 0].T.copy()
    anc = _pad([a.ancestors for a in attrs], -1, np.int64)
    # the key attribute: the one with the most distinct published cells
    sizes_of = [max(a.numeric.size, a.ancestors.shape[0]) for a in attrs]
    affordable = [j for j in range(b) if sizes_of[j] * n_cells[j] <= MAX_BUCKET_TABLE]
    if affordable:  # the most selective attribute whose table is affordable
        key = max(affordable, key=lambda j: n_cells[j])
    else:
        key = min(range(b), key=lambda j: sizes_of[j] * n_cells[j])
    n_values = sizes_of[key]
    cells_start, cells = _admitting_cells(key, n_values, n_cells[key], kinds, los, his, starts,
                                          levels, nodes, numeric, anc)  # fmt: skip
    order = np.argsort(cell_of[:, key], kind="stable")
    class_start = np.searchsorted(cell_of[order, key], np.arange(n_cells[key] + 1))
    per_combo, per_class = _consistency(
        combos, combo_counts.astype(np.int64), numeric, anc, cell_of, kinds, los, his, starts,
        levels, nodes, sizes, key, cells_start, cells, class_start.astype(np.int64),
        order.astype(np.int64),
    )  # fmt: skip
    return per_combo, per_class, combo_of


@jit()
def _admits(kind, lo, hi, first, last, levels, nodes, j, value, numeric, anc):  # pragma: no cover
    """Whether a published cell admits original value ``value`` of attribute ``j``: ``*``
    (kind 0), a numeric range (1), or labels (2: a value, a hierarchy label, a set)."""
    if kind == 0:
        return True
    if kind == 1:
        v = numeric[value, j]
        return lo <= v <= hi
    for p in range(first, last):
        if anc[j, value, levels[p]] == nodes[p]:
            return True
    return False


@jit()
def _consistency(combo_values, combo_counts, numeric, anc, cell_of, kinds, los, his, starts,
                 levels, nodes, class_sizes, key, value_cells_start, value_cells,
                 cell_classes_start, cell_classes):  # pragma: no cover  # fmt: skip
    """Per original combination: the records of the classes consistent with it; per class:
    the original records consistent with it. Classes are reached through the cells of the
    ``key`` attribute that admit the combination's value."""
    n_combos, b = combo_values.shape
    per_combo = np.zeros(n_combos, np.int64)
    per_class = np.zeros(class_sizes.size, np.int64)
    for u in range(n_combos):
        v = combo_values[u, key]
        for q in range(value_cells_start[v], value_cells_start[v + 1]):
            c = value_cells[q]
            for r in range(cell_classes_start[c], cell_classes_start[c + 1]):
                g = cell_classes[r]
                ok = True
                for j in range(b):
                    if j == key:
                        continue
                    cj = cell_of[g, j]
                    if not _admits(kinds[j, cj], los[j, cj], his[j, cj], starts[j, cj],
                                   starts[j, cj + 1], levels, nodes, j, combo_values[u, j],
                                   numeric, anc):  # fmt: skip
                        ok = False
                        break
                if ok:
                    per_combo[u] += class_sizes[g]
                    per_class[g] += combo_counts[u]
    return per_combo, per_class


@jit()
def _admitting_cells(key, n_values, n_cells, kinds, los, his, starts, levels, nodes, numeric,
                     anc):  # pragma: no cover  # fmt: skip
    """Per value of the key attribute: the cells (of that attribute) that admit it (CSR)."""
    count = np.zeros(n_values + 1, np.int64)
    for v in range(n_values):
        for c in range(n_cells):
            if _admits(kinds[key, c], los[key, c], his[key, c], starts[key, c],
                       starts[key, c + 1], levels, nodes, key, v, numeric, anc):  # fmt: skip
                count[v + 1] += 1
    start = np.cumsum(count)
    out = np.empty(start[n_values], np.int64)
    fill = start[:-1].copy()
    for v in range(n_values):
        for c in range(n_cells):
            if _admits(kinds[key, c], los[key, c], his[key, c], starts[key, c],
                       starts[key, c + 1], levels, nodes, key, v, numeric, anc):  # fmt: skip
                out[fill[v]] = c
                fill[v] += 1
    return start, out


@dataclass
class _Attribute:
    """One quasi-identifier: its distinct original values and how to read its cells."""

    name: str
    column: Any
    values: np.ndarray  # per record: index of its value in this attribute's table
    numeric: np.ndarray  # per value: the number (numeric attributes)
    ancestors: np.ndarray  # per value and level: the node (code attributes)


def _attribute(column: Any) -> _Attribute:
    if isinstance(column, NumericColumn):
        uniq, inverse = np.unique(column.values, return_inverse=True)
        return _Attribute(column.name, column, inverse.reshape(-1), uniq, np.zeros((uniq.size, 1),
                          np.int64))  # fmt: skip
    if isinstance(column, CategoricalColumn):
        size = len(column.categories)
        return _Attribute(column.name, column, column.codes, np.zeros(size),
                          np.arange(size, dtype=np.int64).reshape(-1, 1))  # fmt: skip
    assert isinstance(column, HierarchicalColumn)
    table = np.asarray(column.hierarchy.codes, dtype=np.int64)
    return _Attribute(column.name, column, column.codes[:, 0], np.zeros(table.shape[0]), table)


def _read_cell(attr: _Attribute, cell: str) -> tuple[int, float, float, list[tuple[int, int]]]:
    """``(kind, lo, hi, [(level, node), …])`` of a published cell of ``attr``."""
    cell = str(cell).strip()
    if cell == SUPPRESSED_VALUE:
        return 0, 0.0, 0.0, []
    column = attr.column
    if isinstance(column, NumericColumn):
        lo, hi = parse_range(cell)
        return 1, lo, hi, []
    members = parse_value_set(cell) or [cell]
    found: list[tuple[int, int]] = []
    for member in members:
        if isinstance(column, CategoricalColumn):
            code = category_code(column, member)
            if code is None:
                msg = (
                    f"published value {member!r} of {attr.name!r} is neither a value of the "
                    "original nor *; if it is a hierarchy label, give the hierarchy "
                    f"({option('hierarchies')}) the release was made with"
                )
                raise InputError(msg)
            found.append((0, code))
            continue
        node = column.hierarchy.level_of_label(member)
        if node is None:
            msg = (
                f"published value {member!r} of {attr.name!r} is not a label of its "
                "hierarchy; give the hierarchy the release was made with"
            )
            raise InputError(msg)
        found.append(node)
    return 2, 0.0, 0.0, found


def _pad(tables: list[np.ndarray], fill: float | int, dtype: type) -> np.ndarray:
    """Stack per-attribute tables (values × width) into one (attributes × values × width)."""
    rows = max(t.shape[0] for t in tables)
    width = max(t.shape[1] if t.ndim == 2 else 1 for t in tables)
    out = np.full((len(tables), rows, width), fill, dtype=dtype)
    for j, t in enumerate(tables):
        t2 = t.reshape(t.shape[0], -1)
        out[j, : t2.shape[0], : t2.shape[1]] = t2
    return out
