"""The release file format: a table (CSV or Parquet) and its JSON metadata beside it.

``out.csv`` (or ``out.parquet``) holds the published table, ``out.json`` the provenance,
record counts, loss figures and the table's SHA-256. Both are written together by the
protocol of :mod:`incrowd.io.atomic`: a kill at any point leaves the previous release or
the complete new one, never a mix. :func:`write_release` writes a whole table;
:class:`PartWriter` a table that comes part by part (a blockwise run's blocks): a Parquet
dataset of one file per part, or one CSV file of the parts in order under one header.

Files of the user's are never overwritten: a target may be replaced only when it is part of
an earlier release (its metadata says so), and never when it is one of the inputs
(:mod:`incrowd.io.targets`).

CSV cells that a spreadsheet would run as a formula are neutralized, or refused
(:mod:`incrowd.io.formulas`); reading a release back (:func:`read_release`) restores every
cell exactly. Parquet is typed and needs neither.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd

from ..errors import InputError
from .atomic import Output, commit, resolve
from .formulas import FormulaPolicy, escape_formulas, unescape_formulas
from .metadata import ReleaseMetadata
from .missing import AS_WRITTEN
from .staging import staging_directory
from .tables import (
    check_input_file,
    check_sep,
    dump_table,
    is_parquet,
    parquet_parts,
    read_table,
)
from .targets import (
    FORMAT,
    TABLE_SUFFIXES,
    check_release_path,
    check_release_target,
    is_release_metadata,
    metadata_path,
    refusal,
    release_replaceable,
)

__all__ = [
    "COUNT", "FORMAT", "FormulaPolicy", "Hashing", "EncodedPart", "PartWriter", "ReleaseFiles",
    "RADIUS", "ReleaseParts", "TABLE_SUFFIXES", "changed_files", "check_release_path",
    "encode_part", "escape_formulas", "file_sha256",
    "is_release_metadata", "metadata_json", "metadata_path", "read_release",
    "read_release_parts", "refusal", "release_parts", "strict_json", "unescape_formulas",
    "write_release",
]  # fmt: skip

#: The columns a centers release adds: how many records a row stands for, and its radius.
COUNT = "count"
RADIUS = "radius"


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


def write_release(
    table: pd.DataFrame,
    metadata: ReleaseMetadata | Mapping[str, Any],
    path: str | os.PathLike[str],
    *,
    sep: str = ",",
    formulas: FormulaPolicy = "escape",
    protect: Sequence[str | os.PathLike[str]] = (),
    also: Sequence[Output] = (),
    also_refusal: Callable[[Path], str] | None = None,
    encoded: bytes | None = None,
) -> tuple[Path, Path]:
    """Write a release's table and metadata together (see the module docstring).

    ``protect`` names files that must never be written (the inputs); ``also``: files of the
    same folder written in the same group (a report, a job file: all change or none), whose
    refusal ``also_refusal`` words. ``encoded``: the CSV table's bytes as this function
    wrote them before, with the same ``sep`` and ``formulas`` (the caller's guarantee: the
    app's worker writes a run's release into its private folder, and Save writes those
    bytes instead of encoding the table again); a ValueError for a Parquet target. Raises
    :class:`~incrowd.OutputError` as :func:`check_release_target` does, or when the files
    cannot be written; nothing is changed then.
    """
    target = check_release_target(path, protect)
    check_sep(sep)
    parquet = is_parquet(target)
    if parquet and encoded is not None:
        raise ValueError("encoded bytes are a CSV table's, not a Parquet release's")
    state: dict[str, Any] = {}
    frame = table if parquet or encoded is not None else escape_formulas(table, formulas)

    def write_table(fh: BinaryIO) -> None:
        _hashed(fh, state, lambda sink: sink.write(encoded) if encoded is not None
                else dump_table(frame, sink, parquet=parquet, sep=sep))  # fmt: skip

    _commit_release(target, metadata, state, write=write_table, also=also,
                    also_refusal=also_refusal)  # fmt: skip
    return target, metadata_path(target)


def _hashed(fh: BinaryIO, state: dict[str, Any], fill: Callable[[BinaryIO], None]) -> None:
    """Write the table with ``fill`` into ``fh``, its SHA-256 and size into ``state``."""
    sink = Hashing(fh)
    fill(sink)  # type: ignore[arg-type]
    state["table_sha256"], state["table_bytes"] = sink.digest.hexdigest(), sink.size


def _commit_release(
    target: Path,
    metadata: ReleaseMetadata | Mapping[str, Any],
    state: dict[str, Any],
    *,
    write: Callable[[BinaryIO], None] | None = None,
    staged: Path | None = None,
    also: Sequence[Output] = (),
    also_refusal: Callable[[Path], str] | None = None,
) -> ReleaseMetadata:
    """Commit a release's table (written by ``write``, which fills ``state`` with the
    table's SHA-256 and size, or ``staged``) and its metadata: ``metadata`` with the format
    marker and ``state``, as written (returned)."""
    meta_target = metadata_path(target)
    replaceable = release_replaceable(meta_target)
    written: list[ReleaseMetadata] = []

    def write_metadata(fh: BinaryIO) -> None:
        written.append(ReleaseMetadata.of(metadata).replace(format=FORMAT, **state))
        fh.write(metadata_json(written[-1]))

    others = {Path(o.path) for o in also}

    def refuse(path: Path) -> str:
        return also_refusal(path) if also_refusal and Path(path) in others else refusal(path)

    outputs = [Output(target, write, replaceable, staged),
               Output(meta_target, write_metadata, replaceable), *also]  # fmt: skip
    commit(outputs, refuse_message=refuse)
    return written[-1]


@dataclass(frozen=True)
class EncodedPart:
    """A part's published table as the bytes of its part file."""

    data: bytes
    rows: int
    header: bytes  # a CSV part's header line (what the one CSV file keeps once); b"" in a dataset


def encode_part(table: pd.DataFrame, dataset: bool, sep: str,
                formulas: FormulaPolicy) -> EncodedPart:  # fmt: skip
    """``table`` as a part of a Parquet dataset (``dataset``) or of one CSV file."""
    frame = table if dataset else escape_formulas(table, formulas)
    buffer, header = io.BytesIO(), io.BytesIO()
    dump_table(frame, buffer, parquet=dataset, sep=sep)
    if not dataset:
        dump_table(frame.iloc[:0], header, parquet=False, sep=sep)  # an empty copy's columns
    return EncodedPart(buffer.getvalue(), len(table), header.getvalue())


class PartWriter:
    """A release written part by part, staged in a hidden directory beside the target.

    A ``.parquet`` target becomes a Parquet dataset: a directory of one file per part
    (``part-00001.parquet`` ...), each file's SHA-256 in the metadata. A ``.csv`` target
    becomes one CSV file: the parts in part order, one header. :meth:`commit` names the
    table and its metadata together (:mod:`incrowd.io.atomic`); :meth:`discard` (on any
    error) removes the staging directory, so the destination is never touched.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        protect: Sequence[str | os.PathLike[str]] = (),
        sep: str = ",",
        formulas: FormulaPolicy = "escape",
    ) -> None:
        self.target = check_release_target(path, protect, directory=True)
        check_sep(sep)
        self.sep, self.formulas = sep, formulas
        self.dataset = is_parquet(self.target)
        self.stage = staging_directory(self.target)
        self.parts: dict[int, dict[str, Any]] = {}

    @property
    def encoding(self) -> tuple[bool, str, FormulaPolicy]:
        """What :func:`encode_part` needs to encode a part for this writer (where the part
        is made, so that the process gathering them only writes bytes)."""
        return self.dataset, self.sep, self.formulas

    def add(self, index: int, part: EncodedPart) -> None:
        """Stage part ``index``'s published table, encoded by :func:`encode_part` with
        :attr:`encoding` (parts may come in any order)."""
        suffix = ".parquet" if self.dataset else ".csv"
        name = f"part-{index + 1:05d}{suffix}"
        with open(self.stage / name, "wb") as fh:
            fh.write(part.data)
            if self.dataset:  # a dataset's parts are the release; a CSV's are copied and synced
                fh.flush()
                os.fsync(fh.fileno())
        self.parts[index] = {"file": name, "rows": part.rows, "header": part.header}
        if self.dataset:
            self.parts[index]["sha256"] = hashlib.sha256(part.data).hexdigest()

    def commit(self, metadata: ReleaseMetadata) -> tuple[Path, Path, ReleaseMetadata]:
        """Name the release: the table (dataset directory or CSV file) and its metadata;
        returns their paths and the metadata as written."""
        ordered = [self.parts[i] for i in sorted(self.parts)]
        state: dict[str, Any] = {}

        def write_csv(fh: BinaryIO) -> None:  # the parts in part order, one header
            def fill(sink: BinaryIO) -> None:
                for i, part in enumerate(ordered):
                    with open(self.stage / part["file"], "rb") as src:
                        if i:
                            src.seek(len(part["header"]))
                        while chunk := src.read(1 << 20):
                            sink.write(chunk)

            _hashed(fh, state, fill)

        try:
            if self.dataset:
                listed = ("file", "rows", "sha256")
                state["files"] = tuple({k: p[k] for k in listed} for p in ordered)
                written = _commit_release(self.target, metadata, state, staged=self.stage)
            else:
                written = _commit_release(self.target, metadata, state, write=write_csv)
        finally:
            self.discard()
        return self.target, metadata_path(self.target), written

    def discard(self) -> None:
        """Remove the staging directory (after a commit it is already gone)."""
        shutil.rmtree(self.stage, ignore_errors=True)


def metadata_json(content: ReleaseMetadata) -> bytes:
    """The bytes of a release's JSON metadata file: strict JSON, which every parser reads (a
    figure that is not a finite number is written as null, never as ``NaN``)."""
    text = json.dumps(strict_json(content.to_json()), indent=2, sort_keys=True, allow_nan=False)
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
    metadata: ReleaseMetadata | None
    sha256: str | dict[str, str]


def read_release(path: str | os.PathLike[str], *, sep: str | None = None) -> ReleaseFiles:
    """Read a release written by :func:`write_release` or blockwise (a CSV file, a Parquet
    file or a Parquet dataset directory), finishing an interrupted write."""
    files = read_release_parts(path, sep=sep)
    if files.dataset:
        table = pd.concat(list(files.parts), ignore_index=True)
        return ReleaseFiles(table, files.metadata, files.sha256)
    [table_path] = files.paths
    form = "parquet" if is_parquet(table_path) else "csv"
    table = read_table(table_path, sep=sep, form=form, na_values=AS_WRITTEN)
    if form == "csv":
        table = unescape_formulas(table)
    return ReleaseFiles(table, files.metadata, file_sha256(table_path))


@dataclass
class ReleaseParts:
    """A written release to read one part at a time, never whole: the files of a Parquet
    dataset, or chunks of a CSV or Parquet file. Its metadata, its part files, and the
    SHA-256 of each file read so far (by part name; ``"the table"`` for a single file)."""

    metadata: ReleaseMetadata | None
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
                yield read_table(path, form="parquet", na_values=AS_WRITTEN)
            return
        from .tables import TableFile

        [path] = self.paths
        self.sha256["the table"] = file_sha256(path)
        csv = not is_parquet(path)
        cells = TableFile(path, sep=self.sep, na_values=AS_WRITTEN)
        for chunk in cells.chunks(self.CHUNK_ROWS, compact=False):
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


def release_parts(folder: Path, meta: ReleaseMetadata | None) -> list[Path]:
    """The part files of a dataset release: those its metadata lists, else every one."""
    files = None if meta is None else meta.files
    return parquet_parts(folder, None if files is None else [str(f.get("file")) for f in files])


def changed_files(meta: ReleaseMetadata, found: str | Mapping[str, str]) -> list[str]:
    """Files of a release whose SHA-256 differs from what its metadata recorded."""
    if isinstance(found, str):
        recorded = meta.table_sha256
        return ["the table"] if recorded is not None and recorded != found else []
    listed = [(str(f.get("file")), f.get("sha256")) for f in meta.files or ()]
    return [name for name, digest in listed if found.get(name) != digest]


def _read_metadata(meta: Path) -> ReleaseMetadata | None:
    if not meta.is_file():
        return None
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        msg = f"{meta}: not valid JSON metadata ({exc})"
        raise InputError(msg) from exc
    return ReleaseMetadata.from_json(data, where=str(meta))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
