"""Where a blockwise run's blocks come from: a table in memory, or a table file streamed
once into its blocks on disk, so that no process ever holds the whole table (see
:mod:`incrowd.distributed`)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io.atomic import staging_directory
from ..io.tables import TableFile

__all__ = ["FrameBlocks", "SpilledBlocks", "compact_part"]

#: Bytes of input read at a time while spilling (about), and the fewest rows of a chunk.
CHUNK_BYTES = 1 << 27
MIN_CHUNK_ROWS = 10_000


def compact_part(part: pd.DataFrame) -> pd.DataFrame:
    """A block's records with categoricals holding only their values (the schema's domain
    holds them all), so that a task does not carry a million unused categories."""
    part = part.reset_index(drop=True)
    for name in part.columns:
        if isinstance(part[name].dtype, pd.CategoricalDtype):
            part[name] = part[name].cat.remove_unused_categories()
    return part


class FrameBlocks:
    """Blocks of a table held in memory."""

    def __init__(self, frame: pd.DataFrame, blocks: Sequence[np.ndarray]) -> None:
        self.frame, self.blocks = frame, blocks

    def part(self, i: int) -> pd.DataFrame:
        return compact_part(self.frame.iloc[self.blocks[i]])

    def close(self) -> None:
        pass


class SpilledBlocks:
    """Blocks of a table file, sorted into place on disk in one pass over the file.

    Each chunk of the file is written, its rows ordered by block (stably, so that a block's
    rows keep their file order), as one Arrow IPC file in a hidden directory beside
    ``beside`` (the release's target: a disk the user chose for output, not a small
    ``/tmp``); a block is then read back as a slice of each chunk file, memory-mapped. A
    block comes out exactly as :class:`FrameBlocks` gives it from the same table read
    whole. The directory is removed by :meth:`close`, or after a kill by the next write of
    the target.
    """

    def __init__(
        self, table: TableFile, blocks: Sequence[np.ndarray], n_rows: int,
        beside: str | Path,
    ) -> None:  # fmt: skip
        import pyarrow as pa

        n_blocks = len(blocks)
        block_of = np.empty(n_rows, dtype=np.int32)
        for i, rows in enumerate(blocks):
            block_of[rows] = i
        row_bytes = max(table.nbytes / max(n_rows, 1), 1.0)
        chunk_rows = int(max(MIN_CHUNK_ROWS, CHUNK_BYTES // (4 * row_bytes)))
        self.folder = staging_directory(beside)
        self.chunks: list[object] = []  # memory-mapped: pages are read as blocks need them
        self.offsets: list[np.ndarray] = []
        try:
            start = 0
            for chunk in table.chunks(chunk_rows):
                stop = start + len(chunk)
                if stop > n_rows:
                    start = stop
                    break
                ids = block_of[start:stop]
                order = np.argsort(ids, kind="stable")
                arrow = _wide_codes(pa.Table.from_pandas(chunk.iloc[order], preserve_index=False))
                path = self.folder / f"chunk-{len(self.chunks):05d}.arrow"
                with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, arrow.schema) as w:
                    w.write_table(arrow)
                del arrow, chunk
                self.chunks.append(pa.ipc.open_file(pa.memory_map(str(path))).read_all())
                self.offsets.append(np.searchsorted(ids[order], np.arange(n_blocks + 1)))
                start = stop
            if start != n_rows:
                msg = (f"{table.path} changed while being read: it had {n_rows} records when "
                       "the blocks were planned, and has a different number now")  # fmt: skip
                raise InputError(msg)
        except BaseException:
            self.close()
            raise

    def part(self, i: int) -> pd.DataFrame:
        import pyarrow as pa

        pieces = [chunk.slice(int(offsets[i]), int(offsets[i + 1] - offsets[i]))  # type: ignore[attr-defined]
                  for chunk, offsets in zip(self.chunks, self.offsets, strict=True)
                  if offsets[i + 1] > offsets[i]]  # fmt: skip
        return compact_part(pa.concat_tables(pieces, promote_options="permissive").to_pandas())

    def close(self) -> None:
        self.chunks.clear()
        shutil.rmtree(self.folder, ignore_errors=True)


def _wide_codes(table: object) -> object:
    """``table`` with dictionary columns coded in 32 bits, so that chunks with few and with
    many distinct values have one type and concatenate."""
    import pyarrow as pa

    fields = []
    for field in table.schema:  # type: ignore[attr-defined]
        if pa.types.is_dictionary(field.type):
            field = field.with_type(pa.dictionary(pa.int32(), field.type.value_type))
        fields.append(field)
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))  # type: ignore[attr-defined]
