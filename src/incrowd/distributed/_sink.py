"""Writing a blockwise release as its blocks finish, with nothing at the destination until
the whole release is complete (see :mod:`incrowd.distributed`).

The bytes are written by the release format's part writer
(:class:`~incrowd.io.release_format.PartWriter`): a block is one part.
"""

from __future__ import annotations

from ..io.release_format import EncodedPart, PartWriter, encode_part

__all__ = ["BlockSink", "EncodedPart", "encode_part"]


class BlockSink(PartWriter):
    """The blocks of one release, staged in a hidden directory beside the target: block
    ``i`` is part ``i`` (:meth:`~incrowd.io.release_format.PartWriter.add`); encode each
    where it is made with :func:`encode_part` and :attr:`encoding`, so that the process
    gathering them only writes bytes. :meth:`commit` names the table and its metadata
    together; :meth:`discard` (on any error) removes the staging directory."""
