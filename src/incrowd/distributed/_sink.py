"""Writing a blockwise release as its blocks finish, with nothing at the destination until
the whole release is complete (see :mod:`incrowd.distributed`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from ..io.atomic import Output, commit, staging_directory
from ..io.release_format import (
    FORMAT,
    FormulaPolicy,
    Hashing,
    check_release_target,
    escape_formulas,
    is_release_metadata,
    metadata_json,
    metadata_path,
    refusal,
)
from ..io.tables import check_sep, dump_table, is_parquet

__all__ = ["BlockSink", "EncodedPart", "encode_part"]


class BlockSink:
    """The blocks of one release, staged in a hidden directory beside the target.

    A ``.parquet`` target becomes a Parquet dataset: a directory of one file per block
    (``part-00001.parquet`` ...), each file's SHA-256 in the metadata. A ``.csv`` target
    becomes one CSV file: the blocks in block order, one header. :meth:`commit` names the
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
        """What :func:`encode_part` needs to encode a block for this sink (where the block
        is made, so that the process gathering them only writes bytes)."""
        return self.dataset, self.sep, self.formulas

    def add(self, index: int, part: EncodedPart) -> None:
        """Stage block ``index``'s published table, encoded by :func:`encode_part` with
        :attr:`encoding` (blocks may come in any order)."""
        suffix = ".parquet" if self.dataset else ".csv"
        name = f"part-{index + 1:05d}{suffix}"
        with open(self.stage / name, "wb") as fh:
            sink = Hashing(fh)
            sink.write(part.data)
            fh.flush()
            os.fsync(fh.fileno())
        self.parts[index] = {"file": name, "rows": part.rows, "sha256": sink.digest.hexdigest(),
                             "bytes": sink.size, "header": part.header}  # fmt: skip

    def commit(self, metadata: Mapping[str, Any]) -> tuple[Path, Path, dict[str, Any]]:
        """Name the release: the table (dataset directory or CSV file) and its metadata;
        returns their paths and the metadata as written."""
        meta_target = metadata_path(self.target)
        ordered = [self.parts[i] for i in sorted(self.parts)]
        state: dict[str, Any] = {}

        def write_csv(fh: BinaryIO) -> None:  # the parts in block order, one header
            sink = Hashing(fh)
            for i, part in enumerate(ordered):
                with open(self.stage / part["file"], "rb") as src:
                    if i:
                        src.seek(len(part["header"]))
                    while chunk := src.read(1 << 20):
                        sink.write(chunk)
            state["table_sha256"], state["table_bytes"] = sink.digest.hexdigest(), sink.size

        if self.dataset:
            state["files"] = [{k: p[k] for k in ("file", "rows", "sha256")} for p in ordered]

        def write_metadata(fh: BinaryIO) -> None:
            state["written"] = dict(metadata) | {"format": FORMAT} | state
            fh.write(metadata_json(state["written"]))

        def replaceable(_path: Path) -> bool:
            return is_release_metadata(meta_target)

        table = (Output(self.target, staged=self.stage, replaceable=replaceable) if self.dataset
                 else Output(self.target, write_csv, replaceable))  # fmt: skip
        try:
            commit([table, Output(meta_target, write_metadata, replaceable)],
                   refuse_message=refusal)  # fmt: skip
        finally:
            self.discard()
        return self.target, meta_target, state["written"]

    def discard(self) -> None:
        """Remove the staging directory (after a commit it is already gone)."""
        import shutil

        shutil.rmtree(self.stage, ignore_errors=True)


@dataclass(frozen=True)
class EncodedPart:
    """A block's published table as the bytes of its part file."""

    data: bytes
    rows: int
    header: bytes  # a CSV part's header line (what the one CSV file keeps once)


def encode_part(table: pd.DataFrame, dataset: bool, sep: str,
                formulas: FormulaPolicy) -> EncodedPart:  # fmt: skip
    """``table`` as a part of a Parquet dataset (``dataset``) or of one CSV file."""
    import io

    frame = table if dataset else escape_formulas(table, formulas)
    buffer = io.BytesIO()
    dump_table(frame, buffer, parquet=dataset, sep=sep)
    return EncodedPart(buffer.getvalue(), len(table), _header(frame, sep))


def _header(frame: pd.DataFrame, sep: str) -> bytes:
    """The header line a CSV part starts with (the columns of an empty copy)."""
    import io

    buffer = io.BytesIO()
    dump_table(frame.iloc[:0], buffer, parquet=False, sep=sep)
    return buffer.getvalue()
