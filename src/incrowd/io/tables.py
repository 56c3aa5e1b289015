"""Reading tables, and writing them atomically (:mod:`incrowd.io.atomic`); the checks of
delimited text are :mod:`incrowd.io.csv_text`.

CSV cells are read as text: number text (``1,234``, ``02142``, `` 8.0``) is left to the
schema, so published non-QI columns are written back as they were read. Which cells are
missing is one rule (:mod:`incrowd.io.missing`): empty cells, the common tokens (``NA``,
``N/A``, ``NaN``, ``null``, ``NULL``, ``None``, ``?``, ``-``) unless ``na_values`` holds
``""``, and the ``na_values`` given, in every text column of a CSV or Parquet file (a token
read as missing in a column of text is told in one warning line: the 1990 census name list
holds real names ``NA`` and ``NULL``). A CSV file is UTF-8 unless an
``encoding`` is named; a file that is not is read as cp1252 or latin-1 with a warning
(:mod:`incrowd.io.text_encoding`). :func:`table_separator` tells the separator a file is
read with, so that the output can be written with the same.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, Literal

import pandas as pd
from pandas.api.types import union_categoricals

from ..errors import IncrowdError, InputError
from .atomic import Output, commit
from .csv_text import (
    check_known,
    check_row_lengths,
    check_sep,
    check_unique,
    csv_errors,
    csv_options,
    detect_sep,
    maybe_short,
)
from .missing import read_missing
from .plain_values import check_plain_values, value_type
from .text_encoding import check_encoding, text_encoding

__all__ = [
    "read_table",
    "check_input_file",
    "value_type",
    "check_plain_values",
    "as_dataframe",
    "write_table",
    "detect_sep",
    "check_sep",
    "is_parquet",
    "dump_table",
    "parquet_parts",
    "read_parquet_file",
    "TableFile",
    "table_separator",
]


def check_input_file(
    path: str | os.PathLike[str], what: str = "input file",
    error: type[IncrowdError] = InputError, *, table: bool = True,
) -> Path:  # fmt: skip
    """``path`` as a :class:`Path` when it names a regular file; else ``error`` saying what
    it is instead: absent, a directory, a device or a pipe (a table is read more than once,
    so a stream will not do), or out of reach. ``what`` names the file's part in the run
    ("input file", "release file"); ``table``: it is a table (a directory may be meant as
    a Parquet dataset)."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        msg = f"{what} not found: {path}"
    except OSError as exc:  # a file where a folder should be, no permission
        msg = f"{what} {str(path)!r}: {exc.strerror or exc}"
    else:
        if stat.S_ISREG(mode):
            return path
        dataset = " (a Parquet dataset's name ends in .parquet)" if table else ""
        kind = f"is a directory{dataset}" if stat.S_ISDIR(mode) else "is not a regular file"
        msg = f"{what} {str(path)!r}: {kind}"
    raise error(msg)


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """Whether a path names a Parquet file (by its suffix)."""
    return Path(path).suffix.lower() in (".parquet", ".pq")


def parquet_parts(folder: Path, names: Sequence[str] | None = None) -> list[Path]:
    """The files of a Parquet dataset directory, in name order (hidden files, which are
    temporaries, left out), or the ``names`` its metadata lists."""
    if names is not None:
        parts = [folder / n for n in names]
        absent = [p for p in parts if not p.is_file()]
        if absent:
            msg = f"{folder}: the dataset lacks {absent[0].name}, which its metadata lists"
            raise InputError(msg)
        return parts
    hidden = (".", "_")
    parts = sorted(p for p in folder.iterdir()
                   if is_parquet(p) and p.is_file() and not p.name.startswith(hidden))  # fmt: skip
    if not parts:
        msg = f"{folder}: a directory without Parquet files"
        raise InputError(msg)
    return parts


def read_parquet_file(
    path: Path, *, compact: bool = False, columns: Sequence[str] | None = None
) -> pd.DataFrame:
    """One Parquet file as a DataFrame (text columns as categoricals when ``compact``; only
    ``columns`` when given); an unreadable file is an :class:`InputError`."""
    try:
        if not compact:
            return pd.read_parquet(path, columns=None if columns is None else list(columns))
        import pyarrow.parquet as pq

        return pq.read_table(path, columns=None if columns is None else list(columns),
                             read_dictionary=_text_fields(path)).to_pandas()  # fmt: skip
    except Exception as exc:  # pyarrow raises several unrelated types
        msg = f"{path}: cannot read as Parquet ({exc})"
        raise InputError(msg) from exc


def _text_fields(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return [f.name for f in pq.read_schema(path) if str(f.type) in ("string", "large_string")]


def read_table(
    source: str | os.PathLike[str] | Any,
    *,
    sep: str | None = None,
    na_values: Sequence[str] = (),
    form: Literal["csv", "parquet"] | None = None,
    compact: bool = False,
    columns: Sequence[str] | None = None,
    encoding: str | None = None,
) -> pd.DataFrame:
    """Read a table from a CSV / Parquet path, or accept a pandas, polars or Arrow table.

    The format follows the suffix unless ``form`` says it. Empty cells, the default missing
    tokens and ``na_values`` are missing (:mod:`incrowd.io.missing`: ``na_values=[""]``
    turns the default tokens off). A CSV file is read as
    ``encoding`` (strictly), or when None as UTF-8, else cp1252 or latin-1 with one
    :class:`~incrowd.IncrowdWarning` (:mod:`incrowd.io.text_encoding`); Parquet ignores
    it. ``compact`` reads every CSV column and every Parquet text column as a pandas
    categorical (each distinct text once, a small code per row: millions of rows in a
    fraction of the memory). ``columns`` reads only those (in that order). Raises
    :class:`InputError` for a missing file, an unreadable file, a bad separator or
    encoding, duplicate column names, an unknown column or an empty table.
    """
    if not isinstance(source, str | os.PathLike):
        return as_dataframe(source)
    check_sep(sep)
    if encoding is not None:
        check_encoding(encoding)
    path = Path(source)
    if path.is_dir() and is_parquet(path):
        parts = [read_parquet_file(p, compact=compact, columns=columns)
                 for p in parquet_parts(path)]  # fmt: skip
        return _checked(read_missing(pd.concat(parts, ignore_index=True), na_values), str(path))
    check_input_file(path)
    if (form or ("parquet" if is_parquet(path) else "csv")) == "parquet":
        frame = read_parquet_file(path, compact=compact, columns=columns)
        return _checked(read_missing(frame, na_values), str(path))
    sep, options = csv_options(path, sep, columns, encoding)
    with csv_errors(path, sep, options["encoding"], guessed=encoding is None):
        if compact:  # text chunk by chunk, each made categorical (pandas would guess types)
            chunks = [c.astype("category") for c in pd.read_csv(path, chunksize=1 << 20,
                                                                 **options)]  # fmt: skip
            frame = pd.DataFrame({
                name: union_categoricals([c[name] for c in chunks], ignore_order=True)
                for name in chunks[0].columns
            }) if len(chunks) > 1 else chunks[0]  # fmt: skip
        else:
            frame = pd.read_csv(path, **options)
    # reading some columns, pandas lets rows be short or long; reading all, only short
    if columns is not None or (len(frame.columns) and maybe_short(frame.iloc[:, -1])):
        check_row_lengths(path, sep, options["encoding"])
    if columns is not None:
        frame = frame[list(columns)]
    return _checked(read_missing(frame, na_values), str(path))


class TableFile:
    """A CSV or Parquet table on disk (a Parquet dataset directory too), read a few columns
    at a time or chunk by chunk, never whole: a blockwise run plans its blocks from the
    quasi-identifiers alone and streams the rest (:mod:`incrowd.distributed`), so the table
    may be larger than memory. Everything is read compactly (:func:`read_table`), so a
    column and a chunk give the same values.

    ``sep`` and ``encoding`` are the CSV separator and codec the file is read with: as given,
    or as found (:func:`read_table`, which warns once when the file is not UTF-8); for
    Parquet, ``sep`` stays as given and ``encoding`` is None.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, sep: str | None = None,
        na_values: Sequence[str] = (), encoding: str | None = None,
    ) -> None:  # fmt: skip
        self.path = Path(path)
        self.sep = check_sep(sep)
        if encoding is not None:
            check_encoding(encoding)
        self.encoding: str | None = None
        self.na_values = tuple(na_values)
        self.dataset = self.path.is_dir() and is_parquet(self.path)
        self.parquet = self.dataset or is_parquet(self.path)
        if not self.dataset:
            check_input_file(self.path)
        if self.parquet:
            import pyarrow.parquet as pq

            try:
                names = list(pq.read_schema(self._files()[0]).names)
            except Exception as exc:  # pyarrow raises several unrelated types
                msg = f"{self.path}: cannot read as Parquet ({exc})"
                raise InputError(msg) from exc
        else:
            self.sep, options = csv_options(self.path, sep, None, encoding)
            self.encoding = options["encoding"]  # read as found from here on: no second guess
            with self.path.open(newline="", encoding=self.encoding) as fh:
                names = next(csv.reader(fh, delimiter=self.sep), [])
        check_unique(names, str(self.path))
        self.columns: list[str] = names
        self._read: dict[str, pd.Series] = {}

    def _files(self) -> list[Path]:
        return parquet_parts(self.path) if self.dataset else [self.path]

    @property
    def nbytes(self) -> int:
        """The size of the file(s) on disk."""
        return sum(p.stat().st_size for p in self._files())

    def read(self, columns: Sequence[str]) -> pd.DataFrame:
        """These columns, whole (each is read once, then kept)."""
        check_known(columns, self.columns, str(self.path))
        wanted = [c for c in dict.fromkeys(columns) if c not in self._read]
        if wanted:
            frame = read_table(self.path, sep=self.sep, na_values=self.na_values,
                               compact=True, columns=wanted, encoding=self.encoding)  # fmt: skip
            self._read.update({c: frame[c] for c in wanted})
        return pd.DataFrame({c: self._read[c] for c in columns})

    def chunks(self, rows: int = 1 << 20, *, compact: bool = True) -> Iterator[pd.DataFrame]:
        """Every column, about ``rows`` records at a time, in file order (as
        :func:`read_table` reads them: compactly unless ``compact`` is False)."""
        if self.parquet:
            import pyarrow.parquet as pq

            for path in self._files():
                try:
                    text = _text_fields(path) if compact else None
                    reader = pq.ParquetFile(path, read_dictionary=text)
                    for batch in reader.iter_batches(batch_size=rows):
                        yield read_missing(batch.to_pandas(), self.na_values, warn=False)
                except InputError:
                    raise
                except Exception as exc:  # pyarrow raises several unrelated types
                    msg = f"{path}: cannot read as Parquet ({exc})"
                    raise InputError(msg) from exc
            return
        sep, options = csv_options(self.path, self.sep, None, self.encoding)
        codec = options["encoding"]
        with csv_errors(self.path, sep, codec), pd.read_csv(self.path, chunksize=rows,
                                                             **options) as reader:  # fmt: skip
            for chunk in reader:
                if len(chunk.columns) and maybe_short(chunk.iloc[:, -1]):
                    check_row_lengths(self.path, sep, codec)
                chunk = chunk.astype("category") if compact else chunk
                yield read_missing(chunk, self.na_values, warn=False)  # told by read()


def table_separator(
    source: str | os.PathLike[str] | Any, sep: str | None = None, encoding: str | None = None
) -> str:
    """The separator to write a CSV copy of ``source`` with: ``sep`` when given, else the
    one :func:`read_table` finds in a CSV file (read as ``encoding``, or as guessed); ``,``
    for Parquet or a table in memory. Reads at most the file's first 64 KiB once it knows
    the encoding (cached: no second warning)."""
    check_sep(sep)
    if sep is not None or not isinstance(source, str | os.PathLike):
        return sep or ","
    path = Path(source)
    if is_parquet(path) or path.is_dir():
        return ","
    return detect_sep(check_input_file(path), encoding=text_encoding(path, encoding))


def as_dataframe(table: Any) -> pd.DataFrame:
    """A pandas view of a pandas, polars or pyarrow table (not copied when already pandas).

    Column names become strings (``1`` → ``"1"``), since schemas name columns by text.
    """
    if isinstance(table, pd.DataFrame):
        frame = table
    elif callable(getattr(table, "to_pandas", None)):
        frame = table.to_pandas()
    else:
        msg = f"expected a path, or a pandas / polars / Arrow table, got {type(table).__name__}"
        raise InputError(msg)
    if not all(isinstance(c, str) for c in frame.columns):
        check_unique(list(frame.columns), "the table")
        frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
    return _checked(frame, "the table")


def _checked(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    check_unique(list(frame.columns), where)
    if frame.shape[1] == 0:
        msg = f"{where} has no columns"
        raise InputError(msg)
    if len(frame) == 0:
        msg = f"{where} has no rows"
        raise InputError(msg)
    return frame


def dump_table(frame: pd.DataFrame, fh: BinaryIO, *, parquet: bool, sep: str = ",") -> None:
    """Write ``frame`` to an open binary file: Parquet, or UTF-8 CSV with ``\\n`` line ends."""
    if parquet:
        frame.to_parquet(fh, index=False)
        return
    text = io.TextIOWrapper(fh, encoding="utf-8", newline="", write_through=True)
    frame.to_csv(text, index=False, sep=sep, lineterminator="\n")
    text.flush()
    text.detach()


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str], sep: str = ",") -> None:
    """Write CSV or Parquet (by suffix) atomically: readers never see a partial file."""
    check_sep(sep)
    target = Path(path)
    commit([Output(target, lambda fh: dump_table(frame, fh, parquet=is_parquet(target), sep=sep))])
