"""Generalization hierarchies (ARX CSV format, interval and prefix builders).

A hierarchy lists, for each original value, its generalization at every level: column 0 is
the value itself and column ``j`` its label at level ``j``. The top level covers the whole
domain (``*``); if the given table does not end in a single value, a ``*`` level is added.
The *height* ``l`` is the number of generalization levels above the original value, so that
generalizing a value to level ``h`` costs ``h / l`` (Aggarwal et al., *Approximation
Algorithms for k-Anonymity*, Sec. 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import numpy as np

from ..errors import HierarchyError
from ..io.hierarchy_csv import read_hierarchy_rows
from .ranges import decimals, last_below, range_label

__all__ = ["Hierarchy", "factorize_keys", "value_key"]

ROOT = "*"


def factorize_keys(values: Sequence[object] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, codes)``: the distinct :func:`value_key` of ``values`` (sorted) and the
    position of each value's key — computed on the distinct values only, so a column of a
    million cells costs one hash pass, not a million Python calls."""
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(values, dtype=object), sort=False)
    raw = np.array([value_key(v) for v in uniques], dtype=object)
    keys, inverse = np.unique(raw, return_inverse=True)
    return keys, inverse.ravel()[codes].astype(np.intp)


def distinct_values(column: object) -> tuple[np.ndarray, np.ndarray]:
    """``(values, codes)``: a column's distinct values (an object array; a categorical's
    categories, without touching its rows) and each row's position among them (-1: missing)."""
    import pandas as pd

    series = column if isinstance(column, pd.Series) else pd.Series(column)
    if isinstance(series.dtype, pd.CategoricalDtype):
        return (np.asarray(series.cat.categories, dtype=object),
                series.cat.codes.to_numpy().astype(np.intp))  # fmt: skip
    codes, uniques = pd.factorize(series)
    return np.asarray(uniques, dtype=object), codes.astype(np.intp)


def value_key(value: object) -> str:
    """The string under which a data value is looked up in a hierarchy.

    Integral floats print without a decimal point, so a column read as float (``39.0``)
    still finds the hierarchy row ``39``.
    """
    if (
        isinstance(value, float | np.floating)
        and math.isfinite(value)
        and float(value).is_integer()
    ):
        return str(int(value))
    return str(value)


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A validated generalization hierarchy.

    Use :meth:`from_csv`, :meth:`from_rows`, :meth:`from_intervals` or :meth:`from_prefix`
    (the spellings of :mod:`incrowd.data.hierarchy_specs` build them).

    Attributes
    ----------
    labels : tuple of tuple of str
        ``labels[j]`` are the distinct labels of level ``j``.
    codes : ndarray of int, shape (n_values, height + 1)
        ``codes[i, j]`` is the index in ``labels[j]`` of value ``i`` generalized to level ``j``.
    """

    codes: np.ndarray
    labels: tuple[tuple[str, ...], ...]
    source: str = "hierarchy"
    _index: dict[str, int] = field(init=False, repr=False)
    _nodes: dict[str, tuple[int, int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.codes.setflags(write=False)
        index = {v: i for i, v in enumerate(self.labels[0])}
        object.__setattr__(self, "_index", index)
        nodes: dict[str, tuple[int, int]] = {}
        for level in range(len(self.labels) - 1, -1, -1):  # the lowest level wins
            nodes.update((label, (level, code)) for code, label in enumerate(self.labels[level]))
        object.__setattr__(self, "_nodes", nodes)

    # ----------------------------------------------------------------- constructors
    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[str]], source: str = "hierarchy") -> Hierarchy:
        """Build from rows ``[value, level1, level2, ...]``, validating every rule.

        Raises :class:`HierarchyError` naming the row (1-based) for: no rows, rows of unequal
        width, empty cells, one value listed with two different generalizations, a label
        that generalizes to two different parents (at one level, or at two levels: a label is
        one node of the tree wherever it occurs), and a label that generalizes to itself.
        """
        return cls._from_numbered([(i, list(r)) for i, r in enumerate(rows, start=1)], source)

    @classmethod
    def _from_numbered(
        cls, rows: list[tuple[int, list[str]]], source: str, tops: int | None = None
    ) -> Hierarchy:
        """:meth:`from_rows` of rows given with their numbers: a file read for some values
        holds only their rows, and each message names the row of the file."""
        if not rows:
            msg = f"{source}: the hierarchy has no rows"
            raise HierarchyError(msg)
        first, width = rows[0][0], len(rows[0][1])
        for i, row in rows:
            if len(row) != width:
                msg = f"{source}: row {i} has {len(row)} cells but row {first} has {width}"
                raise HierarchyError(msg)
            for j, cell in enumerate(row):
                if cell.strip() == "":
                    msg = f"{source}: row {i} has an empty cell at level {j}"
                    raise HierarchyError(msg)
        # Identical duplicate rows are harmless; anything else is caught as a two-parent label.
        first_row: dict[tuple[str, ...], int] = {}
        for i, row in rows:
            first_row.setdefault(tuple(row), i)
        unique_rows = list(first_row)
        for j in range(width - 1):
            parent: dict[str, tuple[str, tuple[str, ...]]] = {}
            for r in unique_rows:
                seen = parent.setdefault(r[j], (r[j + 1], r))
                if seen[0] != r[j + 1]:
                    what = "value" if j == 0 else f"level-{j} label"
                    msg = (
                        f"{source}: {what} {r[j]!r} generalizes to both {seen[0]!r} "
                        f"(row {first_row[seen[1]]}) and {r[j + 1]!r} (row {first_row[r]}) "
                        f"at level {j + 1}"
                    )
                    raise HierarchyError(msg)
        table = [list(r) for r in unique_rows]
        # one root: added when the rows end in several labels (``tops``: how many the whole
        # file's rows end in, so that a file read for some values has the same shape)
        if (tops if tops is not None else len({r[-1] for r in table})) > 1 or width == 1:
            table = [r + [ROOT] for r in table]
        _check_tree(table, [first_row[r] for r in unique_rows], source)
        levels = len(table[0])
        labels: list[tuple[str, ...]] = []
        codes = np.empty((len(table), levels), dtype=np.intp)
        for j in range(levels):
            column = [r[j] for r in table]
            distinct = tuple(dict.fromkeys(column))
            lookup = {v: c for c, v in enumerate(distinct)}
            codes[:, j] = [lookup[v] for v in column]
            labels.append(distinct)
        return cls(codes=codes, labels=tuple(labels), source=source)

    @classmethod
    def from_csv(
        cls,
        path: str | Path,
        sep: str = ";",
        encoding: str = "utf-8",
        keep: Iterable[object] | None = None,
    ) -> Hierarchy:
        """Read an ARX hierarchy file: no header, ``sep``-separated, one row per value.

        The file is read as a stream. Given ``keep`` (the data's values), only their rows are
        held — a row is its value's whole path to the top, so nothing else is needed — and
        memory follows the data's distinct values, not the file; the rules of
        :meth:`from_rows` are checked on those rows (a file none of whose values is kept
        yields its first row, so that the data's values are reported missing from it). The
        whole file must decode, hold no line longer than
        :data:`~incrowd.io.hierarchy_csv.MAX_LINE_BYTES`, and not be a file of another
        separator (:mod:`incrowd.io.hierarchy_csv` reads it).
        """
        path = Path(path)
        wanted = None if keep is None else {value_key(v) for v in keep}
        rows, tops = read_hierarchy_rows(path, sep, encoding, wanted)
        return cls._from_numbered(rows, source=str(path), tops=tops)

    @classmethod
    def from_intervals(
        cls, values: Iterable[float], widths: Sequence[float], source: str = "intervals"
    ) -> Hierarchy:
        """Nested intervals for numeric values: level ``j`` bins values by ``widths[j-1]``.

        Each width must be a multiple of the previous one so that the bins nest; bins are
        aligned on multiples of the last width. A bin ``[lo, lo + w)`` is labelled as the
        closed range of the values it can hold at the data's precision (the most decimals of
        a value or a width): ``35-39`` for whole numbers, ``0-999.99`` for amounts in cents,
        in the one style of :func:`incrowd.data.ranges.range_label`. Computed in exact
        decimals, so that a value on a bin's edge (``0.3`` with width ``0.1``) lands in the
        bin it starts, not the one a rounding error would give.
        """
        vals = np.unique(np.asarray(list(values), dtype=float))
        if vals.size == 0 or not np.all(np.isfinite(vals)):
            msg = f"{source}: interval hierarchies need finite numeric values"
            raise HierarchyError(msg)
        widths = [float(w) for w in widths]
        if not widths or any(w <= 0 or not math.isfinite(w) for w in widths):
            msg = f"{source}: interval widths must be positive, got {widths}"
            raise HierarchyError(msg)
        for a, b in zip(widths, widths[1:], strict=False):
            if not math.isclose(b / a, round(b / a)) or b < a:
                msg = f"{source}: width {b:g} is not a multiple of {a:g}, so bins would not nest"
                raise HierarchyError(msg)
        places = max(decimals(x) for x in [*widths, *vals.tolist()])
        step = Decimal(1).scaleb(-places)
        exact = [Decimal(repr(w)) for w in widths]
        origin = (Decimal(repr(float(vals.min()))) // exact[-1]) * exact[-1]
        if origin > Decimal(repr(float(vals.min()))):  # // truncates toward zero
            origin -= exact[-1]
        rows = []
        for v in vals.tolist():
            row, d = [value_key(v)], Decimal(repr(v))
            for w in exact:
                lo = origin + ((d - origin) // w) * w
                row.append(range_label(float(lo), last_below(lo + w, step)))
            rows.append(row)
        return cls.from_rows(rows, source=source)

    @classmethod
    def from_prefix(cls, values: Iterable[object], source: str = "prefix") -> Hierarchy:
        """Masking hierarchy for codes, of one length (zip codes) or several (ICD-10 codes of
        3 to 7 characters): masked from the right, aligned left, padded with ``*`` to the
        longest code's width ``L`` as ARX's redaction builder pads them; ``L`` levels, the
        last the root ``*``.

        Level ``j`` keeps the first ``m = L − j`` characters: a code of at least ``m``
        characters is published as those followed by ``*`` up to width ``L``
        (``C34.90 → C34.90* → C34.9** → C34.*** → C34**** → C3***** → C****** → *`` when the
        longest code has 7 characters; ``80010 → 8001* → … → 8**** → *`` for zip codes), and
        a shorter code as itself, since it has no character at the masked positions
        (``C34.9`` stays ``C34.9`` at level 1 and becomes ``C34.9**`` at level 2, where it
        meets ``C34.90``). So codes meet at the level of their common prefix, each level
        partitions the codes into "starts with these ``m`` characters" nested in the next,
        and a label means one set of codes wherever it occurs: ``C34.9**`` is every code
        that starts with ``C34.9``. That is where this departs from ARX, which pads
        ``C34.9`` to ``C34.9**`` already at level 1: one published text would then mean
        ``{C34.9}`` at level 1 and ``{C34.9, C34.90, …}`` at level 2, and its NCP (and a
        reader's) would depend on a level the published file does not record. The top is
        ``*``, as every other hierarchy's (ARX writes ``*******``). A code holding ``*``
        is refused (it could not be told from a masked label). O(values · L).
        """
        vals = sorted({value_key(v) for v in values})
        if not vals:
            msg = f"{source}: no values to build a prefix hierarchy from"
            raise HierarchyError(msg)
        starred = next((v for v in vals if ROOT in v), None)
        if starred is not None:
            msg = (
                f"{source}: code {starred!r} holds {ROOT!r}, the mask character, so a masked "
                "label could not be told from it: give a hierarchy file"
            )
            raise HierarchyError(msg)
        width = max(len(v) for v in vals)

        def masked(v: str, kept: int) -> str:
            return v if len(v) < kept else v[:kept] + ROOT * (width - kept)

        rows = [[masked(v, width - j) for j in range(width)] + [ROOT] for v in vals]
        return cls.from_rows(rows, source=source)

    def with_leaf_under_root(self, label: str) -> Hierarchy:
        """This hierarchy with ``label`` a value of its own directly under the root: its row
        keeps ``label`` up to the top, so it meets any other value only there.

        A top of ``*`` only (``*``, or ``*****`` of an ARX prefix file) is the root; above
        any other top (``0-99``, ``Europe``) a ``*`` level is added. The other values keep
        their codes. Unchanged when ``label`` is already a value.
        """
        if label in self._index:
            return self
        rows = [[self.labels[j][c] for j, c in enumerate(row)] for row in self.codes.tolist()]
        if len(self.labels[-1]) != 1 or set(self.labels[-1][0]) != {ROOT}:
            rows = [[*row, ROOT] for row in rows]
        top = rows[0][-1]
        return Hierarchy.from_rows([*rows, [label] * (len(rows[0]) - 1) + [top]], self.source)

    # -------------------------------------------------------------------- queries
    @property
    def height(self) -> int:
        """Number of generalization levels above the original values (``l`` in the paper)."""
        return self.codes.shape[1] - 1

    @property
    def values(self) -> tuple[str, ...]:
        """The original (level-0) values."""
        return self.labels[0]

    def __contains__(self, value: object) -> bool:
        return value_key(value) in self._index

    def encode(self, values: Sequence[object], column: str = "") -> np.ndarray:
        """Level codes, shape (n, height + 1), for data values; reports the first unknown value."""
        keys, codes = factorize_keys(values)
        missing = [k not in self._index for k in keys]
        if any(missing):
            unknown = np.flatnonzero(missing)
            i = int(np.flatnonzero(np.isin(codes, unknown))[0])
            bad = keys[codes[i]]
            where = f" of column {column!r}" if column else ""
            msg = (
                f"value {bad!r}{where} (row {i + 1}) is not in its hierarchy "
                f"(column 0 of {self.source})"
            )
            raise HierarchyError(msg)
        rows = np.array([self._index[k] for k in keys], dtype=np.intp)[codes]
        return self.codes[rows]

    def label(self, level: int, code: int) -> str:
        """Published label of a level-``level`` node."""
        return self.labels[level][code]

    def labels_of(self, levels: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        """Labels (object array) of the nodes ``(levels[i], nodes[i])``."""
        out = np.empty(len(levels), dtype=object)
        for j in np.unique(levels):
            at = levels == j
            out[at] = np.asarray(self.labels[int(j)], dtype=object)[nodes[at]]
        return out

    def level_of_label(self, label: str) -> tuple[int, int] | None:
        """The lowest ``(level, code)`` whose label is ``label``, or None."""
        return self._nodes.get(label)

    def __repr__(self) -> str:
        return f"Hierarchy({self.source!r}, values={len(self.values)}, height={self.height})"


# ------------------------------------------------------------------------ validation
def _check_tree(table: list[list[str]], numbers: list[int], source: str) -> None:
    """Refuse a label with two parents anywhere, and a label that generalizes to itself.

    A published label means "one of the values under it", so each label must be one node of
    one tree wherever it occurs. A label repeated along its own row (``Male;Male;*``: kept
    for a level) is one node; otherwise it has the same parent on every row and never comes
    back later on its row. The check per level alone accepts ``M;F;*`` with ``F;M;*``, where
    ``F`` is both a value and the group above ``M``, so a published ``F`` means either.

    That is enough for no cycle across rows: every row ends in the same top label, so a
    label's one parent chain is the rest of any row that holds it, which ends at the top; and
    the top never has a parent (it would appear twice on that row). For a file read for the
    data's values this runs on their rows only, which is sound for the release: it publishes
    nothing but labels on those rows, and costs and risks are counted over those values.
    """
    parent: dict[str, tuple[str, int]] = {}
    for row, number in zip(table, numbers, strict=True):
        path = [label for j, label in enumerate(row) if j == 0 or label != row[j - 1]]
        if len(set(path)) < len(path):
            at: dict[str, int] = {}
            for pos, label in enumerate(path):
                if label in at:
                    loop = " -> ".join(repr(x) for x in path[at[label] : pos + 1])
                    msg = (
                        f"{source}: row {number} is a cycle: {loop} "
                        "(a label cannot generalize to itself)"
                    )
                    raise HierarchyError(msg)
                at[label] = pos
        for child, up in zip(path, path[1:], strict=False):
            seen = parent.setdefault(child, (up, number))
            if seen[0] != up:
                msg = (
                    f"{source}: {child!r} generalizes to both {seen[0]!r} (row {seen[1]}) "
                    f"and {up!r} (row {number}); a label has one parent wherever it occurs"
                )
                raise HierarchyError(msg)
