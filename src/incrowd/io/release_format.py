"""The release file format: a table (CSV or Parquet) and its JSON metadata beside it.

``out.csv`` (or ``out.parquet``) holds the published table, ``out.json`` the provenance,
record counts, loss figures and the table's SHA-256. Both are written together by the
protocol of :mod:`incrowd.io.atomic`: a kill at any point leaves the previous release or
the complete new one, never a mix.

Files of the user's are never overwritten: a target may be replaced only when it is part of
an earlier release (its metadata says so), and never when it is one of the inputs.

CSV cells that a spreadsheet would run as a formula (beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return) are neutralized as OWASP recommends, by a leading
apostrophe, unless the cell is a plain number such as ``-5``; a cell that already begins
with apostrophes before such a character gets one more, so reading a release back
(:func:`read_release`) restores every cell exactly. ``formulas="refuse"`` raises an error
naming the column and cell instead. Parquet is typed and needs neither.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

import numpy as np
import pandas as pd

from ..errors import InputError, OutputError
from .atomic import Output, check_target, commit, resolve
from .tables import (
    check_input_file,
    check_sep,
    dump_table,
    is_parquet,
    parquet_parts,
    read_table,
)

__all__ = [
    "COUNT",
    "FORMAT",
    "FormulaPolicy",
    "Hashing",
    "ReleaseFiles",
    "RADIUS",
    "ReleaseParts",
    "TABLE_SUFFIXES",
    "changed_files",
    "check_release_path",
    "check_release_target",
    "escape_formulas",
    "file_sha256",
    "is_release_metadata",
    "metadata_json",
    "metadata_path",
    "read_release",
    "read_release_parts",
    "refusal",
    "release_parts",
    "strict_json",
    "unescape_formulas",
    "write_release",
]

#: Written into every release's metadata; marks a file incrowd may later replace.
FORMAT = "incrowd release 1"
#: The columns a centers release adds: how many records a row stands for, and its radius.
COUNT = "count"
RADIUS = "radius"
#: Suffixes of a release table: CSV, or Parquet.
TABLE_SUFFIXES = (".csv", ".parquet", ".pq")
FormulaPolicy = Literal["escape", "refuse"]

_TRIGGER = re.compile(r"^'*[=+\-@\t\r]")
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def metadata_path(path: str | os.PathLike[str]) -> Path:
    """Where the JSON metadata of a release written to ``path`` lives."""
    return Path(path).with_suffix(".json")


def check_release_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a release table target; a clear error unless it ends in .csv or .parquet."""
    target = Path(path)
    if target.suffix.lower() not in TABLE_SUFFIXES:
        msg = (
            f"the release file must end in .csv or .parquet, got {str(target)!r} "
            f"(its metadata is written beside it as {metadata_path(target).name})"
        )
        raise OutputError(msg)
    return target


def is_release_metadata(path: Path) -> bool:
    """True when ``path`` is the JSON metadata of an incrowd release (which may be replaced)."""
    try:
        with path.open("rb") as fh:
            data = json.loads(fh.read(1 << 24))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    # releases written before the format marker carry these keys
    return data.get("format") == FORMAT or {"release", "n_released", "qi"} <= set(data)


def escape_formulas(frame: pd.DataFrame, policy: FormulaPolicy = "escape") -> pd.DataFrame:
    """``frame`` with cells (and column names) a spreadsheet would execute neutralized."""
    if policy not in ("escape", "refuse"):
        msg = f"csv_formulas must be 'escape' or 'refuse', got {policy!r}"
        raise InputError(msg)
    names = [_escape_cell(str(c), policy, "a column name") for c in frame.columns]
    out = {}
    for name, col in zip(names, frame.columns, strict=True):
        series = frame[col]
        if pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series):
            out[name] = series
            continue
        values = pd.unique(series.astype(str))
        mapping = {v: _escape_cell(v, policy, f"column {str(col)!r}") for v in values}
        changed = {v: e for v, e in mapping.items() if e != v}
        out[name] = series.astype(str).map(changed).fillna(series) if changed else series
    return pd.DataFrame(out, index=frame.index)


def unescape_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`escape_formulas` for a release table read from CSV."""
    names = [_unescape_cell(str(c)) for c in frame.columns]
    out = {}
    for name, col in zip(names, frame.columns, strict=True):
        series = frame[col]
        if series.dtype == object or pd.api.types.is_string_dtype(series):
            text = series.astype(str)
            hit = text.str.match(_ESCAPED.pattern).fillna(False).to_numpy(dtype=bool)
            if hit.any():
                series = series.copy()
                series[hit] = text[hit].str.slice(1)
        out[name] = series
    return pd.DataFrame(out, index=frame.index)


def _escape_cell(cell: str, policy: FormulaPolicy, where: str) -> str:
    if not _TRIGGER.match(cell) or _NUMBER.match(cell):
        return cell
    if policy == "refuse":
        msg = (
            f"{where} holds {cell!r}, which a spreadsheet would run as a formula; recode it, "
            "or let incrowd neutralize such cells (csv_formulas='escape', the default)"
        )
        raise InputError(msg)
    return "'" + cell


def _unescape_cell(cell: str) -> str:
    return cell[1:] if _ESCAPED.match(cell) else cell


class Hashing(io.RawIOBase):
    """A binary writer that passes bytes on and keeps their SHA-256."""

    def __init__(self, sink: BinaryIO) -> None:
        self.sink, self.digest, self.size = sink, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        self.digest.update(view)
        self.sink.write(view)
        self.size += view.nbytes
        return view.nbytes

    def tell(self) -> int:
        return self.size


def refusal(path: Path) -> str:
    return (
        f"{path} exists and is not part of an earlier incrowd release; move it away or "
        "choose another output name (incrowd never overwrites other files)"
    )


def check_release_target(
    path: str | os.PathLike[str],
    protect: Sequence[str | os.PathLike[str]] = (),
    *,
    directory: bool = False,
) -> Path:
    """Check, before any work is done, that a release can be written at ``path``.

    Raises :class:`~incrowd.OutputError` when the name does not end in .csv / .parquet, when
    the table or its metadata would land on a directory (unless ``directory``: the table is
    a Parquet dataset and the directory an earlier release's), on a symbolic link, in a
    folder that cannot be written (:func:`~incrowd.io.atomic.check_target`), on one of the
    files in ``protect`` (the inputs), or on an existing file that is not part of an earlier
    release.
    """
    target = check_release_path(path)
    meta = metadata_path(target)
    for candidate in (target, meta):
        check_target(candidate, directory=directory and candidate == target and is_parquet(target))
        for guarded in protect:
            if _same_file(candidate, Path(guarded)):
                msg = f"refusing to write {candidate}: it is an input of this run ({guarded})"
                raise OutputError(msg)
        if candidate.exists() and not is_release_metadata(meta):
            raise OutputError(refusal(candidate))
    return target


def write_release(
    table: pd.DataFrame,
    metadata: Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    sep: str = ",",
    formulas: FormulaPolicy = "escape",
    protect: Sequence[str | os.PathLike[str]] = (),
) -> tuple[Path, Path]:
    """Write a release's table and metadata together (see the module docstring).

    ``protect`` names files that must never be written (the inputs). Raises
    :class:`~incrowd.OutputError` as :func:`check_release_target` does, or when the files
    cannot be written; nothing is changed then.
    """
    target = check_release_target(path, protect)
    check_sep(sep)
    meta_target = metadata_path(target)
    parquet = is_parquet(target)
    frame = table if parquet else escape_formulas(table, formulas)
    state: dict[str, Any] = {}

    def write_table(fh: BinaryIO) -> None:
        sink = Hashing(fh)
        dump_table(frame, sink, parquet=parquet, sep=sep)  # type: ignore[arg-type]
        state["sha256"], state["bytes"] = sink.digest.hexdigest(), sink.size

    def write_metadata(fh: BinaryIO) -> None:
        content = dict(metadata) | {
            "format": FORMAT,
            "table_sha256": state["sha256"],
            "table_bytes": state["bytes"],
        }
        fh.write(metadata_json(content))

    def replaceable(_path: Path) -> bool:  # checked again under the commit, in case of a race
        return is_release_metadata(meta_target)

    outputs = [Output(target, write_table, replaceable)]
    outputs.append(Output(meta_target, write_metadata, replaceable))
    commit(outputs, refuse_message=refusal)
    return target, meta_target


def metadata_json(content: Mapping[str, Any]) -> bytes:
    """The bytes of a release's JSON metadata file: strict JSON, which every parser reads (a
    figure that is not a finite number is written as null, never as ``NaN``)."""
    text = json.dumps(strict_json(content), indent=2, sort_keys=True, allow_nan=False)
    return (text + "\n").encode()


def strict_json(value: Any) -> Any:
    """``value`` with NumPy scalars and arrays as plain Python values and every non-finite
    number (NaN, ±inf: not JSON) as None, for ``json.dumps(..., allow_nan=False)``."""
    if isinstance(value, Mapping):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [strict_json(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    msg = f"cannot write {type(value).__name__} as JSON"
    raise TypeError(msg)


@dataclass(frozen=True)
class ReleaseFiles:
    """A written release as read back: its table, its metadata (None when there is none),
    and the SHA-256 of the table file as found on disk (of each part of a dataset)."""

    table: pd.DataFrame
    metadata: dict[str, Any] | None
    sha256: str | dict[str, str]


def read_release(path: str | os.PathLike[str], *, sep: str | None = None) -> ReleaseFiles:
    """Read a release written by :func:`write_release` or blockwise (a CSV file, a Parquet
    file or a Parquet dataset directory), finishing an interrupted write."""
    files = read_release_parts(path, sep=sep)
    if files.dataset:
        table = pd.concat(list(files.parts), ignore_index=True)
        return ReleaseFiles(table, files.metadata, files.sha256)
    [table_path] = files.paths
    parquet = is_parquet(table_path)
    table = read_table(table_path, sep=sep, form="parquet" if parquet else "csv")
    if not parquet:
        table = unescape_formulas(table)
    return ReleaseFiles(table, files.metadata, file_sha256(table_path))


@dataclass
class ReleaseParts:
    """A written release to read one part at a time, never whole: the files of a Parquet
    dataset, or chunks of a CSV or Parquet file. Its metadata, its part files, and the
    SHA-256 of each file read so far (by part name; ``"the table"`` for a single file)."""

    metadata: dict[str, Any] | None
    paths: list[Path]
    sha256: dict[str, str] = field(default_factory=dict)
    sep: str | None = None
    dataset: bool = True

    #: Records per chunk of a single file.
    CHUNK_ROWS = 1 << 20

    @property
    def parts(self) -> Iterator[pd.DataFrame]:
        """Each part's table, in order (hashing each file as it is read)."""
        if self.dataset:
            for path in self.paths:
                self.sha256[path.name] = file_sha256(path)
                yield read_table(path, form="parquet")
            return
        from .tables import TableFile

        [path] = self.paths
        self.sha256["the table"] = file_sha256(path)
        csv = not is_parquet(path)
        for chunk in TableFile(path, sep=self.sep).chunks(self.CHUNK_ROWS, compact=False):
            yield unescape_formulas(chunk) if csv else chunk

    @property
    def digest(self) -> str | dict[str, str]:
        """The SHA-256 as :func:`changed_files` takes it."""
        return self.sha256 if self.dataset else self.sha256.get("the table", "")


def read_release_parts(path: str | os.PathLike[str], *, sep: str | None = None) -> ReleaseParts:
    """A written release (a dataset, a CSV or a Parquet file), to read part by part."""
    target = Path(path)
    if not (target.is_dir() and is_parquet(target)):
        check_input_file(target, "release file")
    table_path, meta_path = resolve([target, metadata_path(target)])
    meta = _read_metadata(meta_path)
    if table_path.is_dir():
        return ReleaseParts(meta, release_parts(table_path, meta))
    return ReleaseParts(meta, [table_path], sep=check_sep(sep), dataset=False)


def release_parts(folder: Path, meta: Mapping[str, Any] | None) -> list[Path]:
    """The part files of a dataset release: those its metadata lists, else every one."""
    files = (meta or {}).get("files")
    names = [str(f.get("file")) for f in files if isinstance(f, dict)] if isinstance(
        files, list) else None  # fmt: skip
    return parquet_parts(folder, names)


def changed_files(meta: Mapping[str, Any], found: str | Mapping[str, str]) -> list[str]:
    """Files of a release whose SHA-256 differs from what its metadata recorded."""
    if isinstance(found, str):
        recorded = meta.get("table_sha256")
        return ["the table"] if recorded is not None and recorded != found else []
    files = meta.get("files") if isinstance(meta.get("files"), list) else []
    listed = [(str(f.get("file")), f.get("sha256")) for f in files if isinstance(f, dict)]
    return [name for name, digest in listed if found.get(name) != digest]


def _read_metadata(meta: Path) -> dict[str, Any] | None:
    if not meta.is_file():
        return None
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        msg = f"{meta}: not valid JSON metadata ({exc})"
        raise InputError(msg) from exc
    if not isinstance(data, dict):
        msg = f"{meta}: metadata must be a JSON object"
        raise InputError(msg)
    return data


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False
