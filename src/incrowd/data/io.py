"""Reading tables and writing releases atomically.

CSV cells are read as text (nothing is guessed as missing except empty cells and the
``na_values`` the user names), so published non-QI columns are written back exactly as
they were read — the 1990 census name list contains real names ``NA`` and ``NULL``.
"""

from __future__ import annotations

import contextlib
import csv
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError

__all__ = ["read_table", "as_dataframe", "write_table", "atomic_path", "detect_sep"]

_SEPARATORS = ",;\t|"


def detect_sep(path: Path, sample_bytes: int = 65536) -> str:
    """Guess the separator of a delimited text file from its first lines."""
    with path.open(newline="", encoding="utf-8-sig", errors="replace") as fh:
        sample = fh.read(sample_bytes)
    lines = sample.splitlines()
    if not lines:
        return ","
    try:
        return csv.Sniffer().sniff("\n".join(lines[:50]), delimiters=_SEPARATORS).delimiter
    except csv.Error:
        counts = {s: lines[0].count(s) for s in _SEPARATORS}
        best = max(counts, key=lambda s: counts[s])
        return best if counts[best] else ","


def read_table(
    source: str | os.PathLike[str] | Any,
    *,
    sep: str | None = None,
    na_values: Sequence[str] = (),
) -> pd.DataFrame:
    """Read a table from a CSV / Parquet path, or accept a pandas, polars or Arrow table.

    Raises :class:`InputError` for a missing file, an unreadable file, duplicate column names
    or an empty table.
    """
    if not isinstance(source, str | os.PathLike):
        return as_dataframe(source)
    path = Path(source)
    if not path.is_file():
        msg = f"input file not found: {path}"
        raise InputError(msg)
    if path.suffix.lower() in (".parquet", ".pq"):
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several unrelated types
            msg = f"{path}: cannot read as Parquet ({exc})"
            raise InputError(msg) from exc
        return _checked(frame, str(path))
    with path.open("rb") as fh:
        head = fh.read(4096)
    if not head.strip():
        msg = f"{path} is empty"
        raise InputError(msg)
    sep = sep or detect_sep(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh, delimiter=sep), [])
        _check_unique(header, str(path))
        frame = pd.read_csv(
            path,
            sep=sep,
            dtype=str,
            keep_default_na=False,
            na_values=list(na_values),
            encoding="utf-8-sig",
        )
    except UnicodeDecodeError as exc:
        msg = f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise InputError(msg) from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        msg = f"{path}: cannot read as a {sep!r}-separated table ({str(exc).strip()})"
        raise InputError(msg) from exc
    return _checked(frame, str(path))


def as_dataframe(table: Any) -> pd.DataFrame:
    """A pandas view of a pandas, polars or pyarrow table (not copied when already pandas)."""
    if isinstance(table, pd.DataFrame):
        return _checked(table, "the table")
    to_pandas = getattr(table, "to_pandas", None)
    if callable(to_pandas):
        return _checked(to_pandas(), "the table")
    msg = f"expected a path, or a pandas / polars / Arrow table, got {type(table).__name__}"
    raise InputError(msg)


def _check_unique(columns: Sequence[object], where: str) -> None:
    seen: set[str] = set()
    for c in columns:
        if str(c) in seen:
            msg = f"{where}: two columns are named {str(c)!r}"
            raise InputError(msg)
        seen.add(str(c))


def _checked(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    _check_unique(list(frame.columns), where)
    if frame.shape[1] == 0:
        msg = f"{where} has no columns"
        raise InputError(msg)
    if len(frame) == 0:
        msg = f"{where} has no rows"
        raise InputError(msg)
    return frame


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; move it into place only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str], sep: str = ",") -> None:
    """Write CSV or Parquet (by suffix) atomically: readers never see a partial file."""
    target = Path(path)
    with atomic_path(target) as tmp:
        if target.suffix.lower() in (".parquet", ".pq"):
            frame.to_parquet(tmp, index=False)
        else:
            frame.to_csv(tmp, index=False, sep=sep, lineterminator="\n")
