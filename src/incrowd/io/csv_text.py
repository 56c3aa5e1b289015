"""Reading delimited text: its separator, its header and rows checked, and a clear error for
a file that is not delimited text at all (a workbook, an archive, a PDF).

Used by :mod:`incrowd.io.tables`, which reads tables; nothing here holds a table. The text
encoding is chosen by :mod:`incrowd.io.text_encoding`.
"""

from __future__ import annotations

import contextlib
import csv
import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError, option
from .text_encoding import decode_error, text_encoding

__all__ = [
    "check_known", "check_row_lengths", "check_sep", "check_text", "check_unique",
    "csv_errors", "csv_options", "detect_sep", "maybe_short", "unreadable",
]  # fmt: skip

_SEPARATORS = ",;\t|"


def detect_sep(path: Path, sample_bytes: int = 65536, encoding: str = "utf-8-sig") -> str:
    """Guess the separator of a delimited text file (read as ``encoding``) from its first
    lines."""
    try:
        with path.open(newline="", encoding=encoding, errors="replace") as fh:
            sample = fh.read(sample_bytes)
    except UnicodeError as exc:  # "replace" covers bad bytes, not a codec that refuses all
        raise _codec_refused(path, encoding, exc) from exc
    lines = sample.splitlines()
    if not lines:
        return ","
    try:
        return csv.Sniffer().sniff("\n".join(lines[:50]), delimiters=_SEPARATORS).delimiter
    except csv.Error:
        counts = {s: lines[0].count(s) for s in _SEPARATORS}
        best = max(counts, key=lambda s: counts[s])
        return best if counts[best] else ","


def check_sep(sep: str | None) -> str | None:
    """A field separator must be one character other than a quote or a line break."""
    if sep is not None and (len(sep) != 1 or sep in '"\r\n'):
        msg = f"the separator must be a single character such as ',' or ';', got {sep!r}"
        raise InputError(msg)
    return sep


_NOT_TABLE = "not CSV or Parquet"
#: The first bytes of files often given by mistake, and what to say of each.
_SIGNATURES = (
    (b"PK\x03\x04", f"looks like a zip archive, {_NOT_TABLE}; unpack it"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
     f"looks like an Excel 97-2003 workbook, {_NOT_TABLE}; save it as CSV"),
    (b"\x1f\x8b", f"is gzip-compressed, {_NOT_TABLE}; decompress it first"),
    (b"\xfd7zXZ\x00", f"is xz-compressed, {_NOT_TABLE}; decompress it first"),
    (b"\x28\xb5\x2f\xfd", f"is zstd-compressed, {_NOT_TABLE}; decompress it first"),
    (b"%PDF", f"looks like a PDF document, {_NOT_TABLE}; export the table as CSV"),
    (b"PAR1", "is a Parquet file; name it *.parquet to read it as one"),
)  # fmt: skip
#: Spreadsheets are zip archives: named by their suffix, they are told apart.
_WORKBOOKS = {".xlsx": "an Excel workbook", ".xlsm": "an Excel workbook",
              ".ods": "an OpenDocument spreadsheet"}  # fmt: skip


def check_text(path: Path, head: bytes) -> None:
    """Refuse a file whose first bytes say it is not delimited text (read as CSV, a
    workbook is "not UTF-8", or even a table without rows)."""
    for magic, what in _SIGNATURES:
        if head.startswith(magic):
            book = _WORKBOOKS.get(path.suffix.lower()) if magic.startswith(b"PK") else None
            if book:
                what = f"looks like {book} (a zip archive), {_NOT_TABLE}; save it as CSV"
            msg = f"input file {str(path)!r} {what}"
            raise InputError(msg)


def csv_options(
    path: Path, sep: str | None, columns: Sequence[str] | None, encoding: str | None = None
) -> tuple[str, dict[str, Any]]:
    """The separator and ``pd.read_csv`` options of a CSV file, its header checked; the
    codec it is read with is ``options["encoding"]`` (``encoding``, or guessed when None:
    :func:`~incrowd.io.text_encoding.text_encoding`). Every cell is read as text, empty
    ones too: which are missing is :mod:`incrowd.io.missing`'s rule, applied after."""
    with path.open("rb") as fh:
        head = fh.read(4096)
    if not head.strip():
        msg = f"{path} is empty"
        raise InputError(msg)
    check_text(path, head)
    codec = text_encoding(path, encoding)
    sep = sep or detect_sep(path, encoding=codec)
    with csv_errors(path, sep, codec, guessed=encoding is None), \
            path.open(newline="", encoding=codec) as fh:  # fmt: skip
        header = next(csv.reader(fh, delimiter=sep), [])
    check_unique(header, str(path))
    if columns is not None:
        check_known(columns, header, str(path))
    options = {"sep": sep, "dtype": str, "keep_default_na": False, "encoding": codec}
    if columns is not None:
        options["usecols"] = list(columns)
    return sep, options


@contextlib.contextmanager
def csv_errors(
    path: Path, sep: str, encoding: str = "utf-8-sig", *, guessed: bool = False
) -> Iterator[None]:
    """Turn the errors of reading ``path`` (as ``encoding``; ``guessed``: no encoding was
    named) into an :class:`InputError` naming the file, and the line where one can."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise decode_error(path, encoding, exc, guessed=guessed) from exc
    except UnicodeError as exc:
        raise _codec_refused(path, encoding, exc) from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        raise unreadable(path, sep, str(exc).strip()) from exc


def _codec_refused(path: Path, encoding: str, exc: UnicodeError) -> InputError:
    return InputError(f"{path}: cannot be read as {encoding} ({exc}); name the file's encoding "
                      f"with {option('encoding')} (e.g. utf-8, cp1252, latin-1)")  # fmt: skip


def unreadable(path: Path, sep: str, why: str) -> InputError:
    return InputError(f"{path}: cannot read as a {sep!r}-separated table ({why})")


def maybe_short(last: pd.Series) -> bool:
    """Whether the last column has empty cells: pandas fills a short row's missing fields
    with empty cells (the only sign of one it leaves), and those come last."""
    if isinstance(last.dtype, pd.CategoricalDtype):
        return bool(last.isna().any()) or "" in last.cat.categories
    return bool(last.isna().any() or last.eq("").any())


def check_row_lengths(path: Path, sep: str, encoding: str = "utf-8-sig") -> None:
    """Refuse a row with fewer or more fields than the header, named as pandas names a long
    one. One pass of Arrow's CSV parser (a third of the time pandas takes to read the file),
    made once per version of a file (a blockwise run reads its columns in two goes)."""
    info = path.stat()  # a file rewritten within one mtime tick keeps neither inode nor ctime
    version = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
    _row_lengths(path, sep, encoding, version)


@functools.lru_cache(maxsize=16)
def _row_lengths(path: Path, sep: str, encoding: str, _version: tuple[int, ...]) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    with path.open(newline="", encoding=encoding) as fh:
        skipped = 0  # lines of spaces before the header, which pandas skips too
        for line in fh:
            if line.strip():
                break
            skipped += 1
        else:
            return
        names = [f"f{i}" for i in range(len(next(csv.reader([line], delimiter=sep), [])))]
    if not names:
        return
    bad: list[Any] = []

    def note(row: Any) -> str:
        if not row.text.strip():  # a line of spaces, which pandas skips too
            return "skip"
        bad.append(row)
        return "error"

    try:
        # one thread, and empty lines kept: rows are numbered as pandas numbers its lines
        reader = pacsv.open_csv(
            path,
            read_options=pacsv.ReadOptions(use_threads=False, skip_rows=skipped + 1,
                                           column_names=names, encoding=_arrow(encoding)),
            parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True,
                                             ignore_empty_lines=False, invalid_row_handler=note),
            convert_options=pacsv.ConvertOptions(include_columns=names[:1],
                                                 column_types={names[0]: pa.binary()}),
        )  # fmt: skip
        for _ in reader:
            pass
    except Exception:  # pandas has read the file: a complaint of Arrow's own is not the user's
        if not bad:
            return
    if bad:
        row = bad[0]
        line = "a line" if row.number is None else f"line {row.number}"
        why = f"Expected {row.expected_columns} fields in {line}, saw {row.actual_columns}"
        raise unreadable(path, sep, why)


def _arrow(codec: str) -> str:
    """Arrow's name of a codec: its own UTF-8 reader, else Python's codec (transcoded)."""
    return "utf8" if codec in ("utf-8", "utf-8-sig") else codec


def check_known(columns: Sequence[str], header: Sequence[str], where: str) -> None:
    unknown = [c for c in columns if c not in set(header)]
    if unknown:
        msg = f"{where}: no column named {unknown[0]!r}; it has: {', '.join(header)}"
        raise InputError(msg)


def check_unique(columns: Sequence[object], where: str) -> None:
    seen: set[str] = set()
    for c in columns:
        if str(c) in seen:
            msg = f"{where}: two columns are named {str(c)!r}"
            raise InputError(msg)
        seen.add(str(c))
