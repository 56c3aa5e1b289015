"""ARX hierarchy files: no header, ``sep``-separated, one row per value (the value, then its
label at every level), read as a stream and written through the commit protocol.

:class:`~incrowd.Hierarchy` (:mod:`incrowd.data.hierarchy`) checks the rows read here;
this module only reads and writes text.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path

from ..errors import HierarchyError
from .atomic import write_new
from .tables import check_input_file
from .text_encoding import shown, text_encoding

__all__ = ["MAX_LINE_BYTES", "hierarchy_csv", "read_hierarchy_rows", "write_hierarchy"]

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


def read_hierarchy_rows(
    path: str | os.PathLike[str], sep: str = ";", encoding: str | None = "utf-8",
    keep: set[str] | None = None,
) -> tuple[list[tuple[int, list[str]]], int]:  # fmt: skip
    """The rows of an ARX hierarchy file, each with its number (blank lines aside), and how
    many labels the whole file's rows end in (2 at most).

    Given ``keep`` (value keys), only the rows of those values are held, and memory follows
    them, not the file; a file none of whose values is kept yields its first row. The whole
    file must decode, hold no line longer than :data:`MAX_LINE_BYTES`, and not be a file of
    another separator; else :class:`~incrowd.HierarchyError`. ``encoding`` None: guessed as
    a table's is (:mod:`incrowd.io.text_encoding`: UTF-8, else cp1252 or latin-1 with a
    warning); any spelling of UTF-8 drops a byte-order mark.
    """
    path = Path(path)
    check_input_file(path, "hierarchy file", HierarchyError, table=False)
    codec = text_encoding(path, encoding, HierarchyError)
    scan = _Scan(sep, keep)
    try:
        scan.read(_blocks(path, codec, sep))
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
    return scan.kept or ([scan.first] if scan.first else []), len(scan.tops)


def hierarchy_csv(rows: Sequence[Sequence[str]], sep: str = ";") -> str:
    """The text of an ARX hierarchy file of ``rows``: no header, ``sep``-separated."""
    text = io.StringIO()
    csv.writer(text, delimiter=sep, lineterminator="\n").writerows(rows)
    return text.getvalue()


def write_hierarchy(
    rows: Sequence[Sequence[str]], path: str | os.PathLike[str], sep: str = ";"
) -> Path:
    """Write an ARX hierarchy file (:func:`hierarchy_csv`); an existing file is never replaced."""
    return write_new(path, hierarchy_csv(rows, sep).encode())


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
                f"{shown(encoding)} text: {exc.reason}, byte {byte!r})"
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
