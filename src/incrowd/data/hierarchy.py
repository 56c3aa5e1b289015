"""Generalization hierarchies (ARX CSV format, interval and prefix builders).

A hierarchy lists, for each original value, its generalization at every level: column 0 is
the value itself and column ``j`` its label at level ``j``. The top level covers the whole
domain (``*``); if the given table does not end in a single value, a ``*`` level is added.
The *height* ``l`` is the number of generalization levels above the original value, so that
generalizing a value to level ``h`` costs ``h / l`` (Aggarwal et al., *Approximation
Algorithms for k-Anonymity*, Sec. 2).
"""

from __future__ import annotations

import codecs
import csv
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np

from ..errors import HierarchyError
from ..io.tables import check_input_file

__all__ = ["Hierarchy", "factorize_keys", "value_key"]

ROOT = "*"

#: The longest line a hierarchy file may hold (bytes). A row is a value and its few labels;
#: a longer line is the wrong file (a dump on one line), refused before it is held whole.
MAX_LINE_BYTES = 1 << 20
#: Bytes read at a time; at most MAX_LINE_BYTES, so that only a line carried over from the
#: previous read can exceed the limit (each other line lies inside one read).
_READ_BYTES = 1 << 18
#: Separators a one-cell-per-row file is checked against (a file written for another tool).
_OTHER_SEPARATORS = (",", "\t", "|")
#: Line ends of a universal-newline read (what ``open(newline="")`` iterates by).
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")


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

    Use :meth:`from_csv`, :meth:`from_rows`, :meth:`from_intervals` or :meth:`from_prefix`.

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
        whole file must decode, hold no line longer than :data:`MAX_LINE_BYTES`, and not be
        a file of another separator.
        """
        path = Path(path)
        check_input_file(path, "hierarchy file", HierarchyError, table=False)
        scan = _Scan(sep, None if keep is None else {value_key(v) for v in keep})
        try:
            scan.read(_blocks(path, encoding, sep))
        except csv.Error as exc:
            msg = f"{path}: cannot read as a {sep!r}-separated hierarchy ({exc})"
            raise HierarchyError(msg) from exc
        except OSError as exc:
            msg = f"hierarchy file {str(path)!r}: cannot be read ({exc.strerror or exc})"
            raise HierarchyError(msg) from exc
        if scan.records and scan.one_cell:
            for other in _OTHER_SEPARATORS:
                if scan.counts.get(other):
                    msg = (
                        f"{path}: every row is one cell when split on {sep!r}, but splits "
                        f"evenly on {other!r}; ARX hierarchy files are {sep!r}-separated "
                        f"(replace the {other!r} separators with {sep!r})"
                    )
                    raise HierarchyError(msg)
        rows = scan.kept or ([scan.first] if scan.first else [])
        return cls._from_numbered(rows, source=str(path), tops=len(scan.tops))

    @classmethod
    def from_intervals(
        cls, values: Iterable[float], widths: Sequence[float], source: str = "intervals"
    ) -> Hierarchy:
        """Nested intervals for numeric values: level ``j`` bins values by ``widths[j-1]``.

        Each width must be a multiple of the previous one so that the bins nest. Integer data
        gets inclusive labels such as ``35-39``; other data ``[35, 40)``.
        """
        vals = np.unique(np.asarray(list(values), dtype=float))
        if vals.size == 0 or not np.all(np.isfinite(vals)):
            msg = f"{source}: interval hierarchies need finite numeric values"
            raise HierarchyError(msg)
        widths = [float(w) for w in widths]
        if not widths or any(w <= 0 for w in widths):
            msg = f"{source}: interval widths must be positive, got {widths}"
            raise HierarchyError(msg)
        for a, b in zip(widths, widths[1:], strict=False):
            if not math.isclose(b / a, round(b / a)) or b < a:
                msg = f"{source}: width {b:g} is not a multiple of {a:g}, so bins would not nest"
                raise HierarchyError(msg)
        integral = bool(np.all(vals == np.round(vals))) and all(w.is_integer() for w in widths)
        origin = math.floor(vals.min() / widths[-1]) * widths[-1]
        rows = []
        for v in vals:
            row = [value_key(v)]
            for w in widths:
                lo = origin + math.floor((v - origin) / w) * w
                row.append(f"{lo:g}-{lo + w - 1:g}" if integral else f"[{lo:g}, {lo + w:g})")
            rows.append(row)
        return cls.from_rows(rows, source=source)

    @classmethod
    def from_prefix(cls, values: Iterable[object], source: str = "prefix") -> Hierarchy:
        """Masking hierarchy for codes of equal length, such as zip codes.

        Level ``j`` replaces the last ``j`` characters with ``*``: ``80000 → 8000* → … → *****``.
        """
        vals = sorted({value_key(v) for v in values})
        if not vals:
            msg = f"{source}: no values to build a prefix hierarchy from"
            raise HierarchyError(msg)
        width = len(vals[0])
        odd = next((v for v in vals if len(v) != width), None)
        if odd is not None:
            msg = (
                f"{source}: prefix hierarchies need codes of equal length; {vals[0]!r} has "
                f"{width} characters but {odd!r} has {len(odd)} (pad them, e.g. zip codes to 5)"
            )
            raise HierarchyError(msg)
        rows = [[v[: width - j] + "*" * j for j in range(width + 1)] for v in vals]
        return cls.from_rows(rows, source=source)

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


# --------------------------------------------------------------------- reading files
def _blocks(path: Path, encoding: str, sep: str) -> Iterator[str]:
    """The text of ``path`` in blocks of whole lines (the last may lack its line end),
    decoded strictly; a line longer than :data:`MAX_LINE_BYTES` is refused as soon as it is
    seen, and an undecodable byte with its line."""
    decoder = codecs.getincrementaldecoder(encoding)()
    line, carry = 1, b""  # line: the number of the first line of the next block

    def decode(data: bytes, final: bool = False) -> str:
        try:
            return decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            where = line + data.count(b"\n", 0, max(exc.start, 0))
            byte = exc.object[exc.start : exc.start + 1]
            msg = (
                f"{path}: cannot read as a {sep!r}-separated hierarchy (line {where} is not "
                f"{encoding} text: {exc.reason}, byte {byte!r})"
            )
            raise HierarchyError(msg) from exc

    def too_long() -> HierarchyError:
        limit = f"{MAX_LINE_BYTES / 2**20:g} MiB"
        return HierarchyError(
            f"hierarchy file {str(path)!r} has a line longer than {limit} (line {line}); "
            "a row is a value and its labels"
        )

    with path.open("rb") as fh:
        while chunk := fh.read(_READ_BYTES):
            cut = chunk.rfind(b"\n") + 1
            if not cut:  # no line ends in this read: the carried line grows
                carry += chunk
                if len(carry) > MAX_LINE_BYTES:
                    raise too_long()
                continue
            block, carry = carry + chunk[:cut], chunk[cut:]
            if block.find(b"\n") > MAX_LINE_BYTES:  # only the first line was carried over
                raise too_long()
            yield decode(block)
            line += block.count(b"\n")
        yield decode(carry, final=True)


class _Scan:
    """One pass over a hierarchy file's blocks: the rows to keep (numbered as the file's
    records, blank lines aside), the first row, and whether every row is one cell (then how
    many times each other separator occurs in each: one count for all rows, or None)."""

    def __init__(self, sep: str, wanted: set[str] | None) -> None:
        self.sep, self.wanted = sep, wanted  # wanted None: every row
        self.kept: list[tuple[int, list[str]]] = []
        self.first: tuple[int, list[str]] | None = None
        self.records = 0
        self.one_cell = True
        self.counts: dict[str, int | None] = {}
        #: The labels rows end in (two at most: enough to know whether a root is added).
        self.tops: set[str] = set()

    def read(self, blocks: Iterator[str]) -> None:
        """Split quote-free blocks at the separator (a set lookup per line); from the first
        block with a quote or a bare carriage return on, parse with :mod:`csv` (quoted cells
        may hold separators and line ends)."""
        sep = self.sep
        for raw in blocks:
            text = raw.replace("\r\n", "\n") if "\r" in raw else raw
            if '"' in text or "\r" in text:
                lines = (x for t in chain([raw], blocks) for x in _LINE_END.split(t) if x)
                self._parsed(csv.reader(lines, delimiter=sep))
                return
            lines = text.split("\n")
            if lines[-1] == "":  # the block's last line end
                lines.pop()
            if "" in lines:  # blank lines are no rows
                lines = [x for x in lines if x]
            base = self.records
            self.records += len(lines)
            if self.first is None and lines:
                self.first = (base + 1, lines[0].split(sep))
            if self.one_cell and sep in text:
                self.one_cell = False
            if self.one_cell:
                self._count_others(lines)
            self._note_tops(text, lines)
            wanted = self.wanted
            if wanted is None:
                self.kept += [(base + i, x.split(sep)) for i, x in enumerate(lines, start=1)]
                continue
            heads = [x.partition(sep)[0] for x in lines]
            if not wanted.isdisjoint(heads):
                self.kept += [
                    (base + i, x.split(sep))
                    for i, (head, x) in enumerate(zip(heads, lines, strict=True), start=1)
                    if head in wanted
                ]

    def _parsed(self, rows: Iterator[list[str]]) -> None:
        wanted = self.wanted
        for row in rows:
            if not row:
                continue
            self.records += 1
            if self.first is None:
                self.first = (self.records, row)
            if len(row) != 1:
                self.one_cell = False
            elif self.one_cell:
                self._count_others(row)
            if len(self.tops) < 2:
                self.tops.add(row[-1])
            if wanted is None or row[0] in wanted:
                self.kept.append((self.records, row))

    def _note_tops(self, text: str, lines: list[str]) -> None:
        """Add the labels ``lines`` end in to :attr:`tops`; when every line ends in the one
        label seen so far, a count of ``sep + label + line end`` in the block tells so
        without splitting a line."""
        if len(self.tops) >= 2 or not lines:
            return
        sep = self.sep
        if not self.tops:
            self.tops.add(lines[0].rpartition(sep)[2])
        [top] = self.tops
        ending = f"{sep}{top}"
        if sep in lines[0]:
            ends = text.count(ending + "\n") + (not text.endswith("\n") and text.endswith(ending))
            if ends == len(lines):
                return
        for line in lines:
            self.tops.add(line.rpartition(sep)[2])
            if len(self.tops) >= 2:
                return

    def _count_others(self, cells: list[str]) -> None:
        for other in _OTHER_SEPARATORS:
            if other == self.sep or (other in self.counts and self.counts[other] is None):
                continue
            counts = {cell.count(other) for cell in cells}
            previous = self.counts.get(other)
            if previous is not None:
                counts.add(previous)
            if counts:
                self.counts[other] = counts.pop() if len(counts) == 1 else None
