"""The text encoding of a user's file (a CSV table, an ARX hierarchy): UTF-8 unless named,
with a guess for the 8-bit files spreadsheets on Windows still write.

Rules (:func:`text_encoding`):

- a named encoding is checked (:func:`check_encoding`) and then applied strictly: a byte it
  cannot decode is an error naming the line (:func:`decode_error`); any spelling of UTF-8
  reads as ``utf-8-sig``, so a byte-order mark is dropped;
- none named: the first :data:`SAMPLE_BYTES` of the file are checked as UTF-8 as a stream
  (a block at a time, never held whole). Valid: UTF-8 (a byte-order mark dropped). Not:
  cp1252 when every byte of that sample has a character in cp1252, else latin-1 (which has
  one for every byte), with one :class:`~incrowd.IncrowdWarning` naming the file, the
  encoding used, the first line that is not UTF-8 and ``--encoding``. A UTF-16 file (its
  byte-order mark) is refused: read as 8-bit text it would be garbage.

Only the sample is checked, so a file whose first non-UTF-8 byte lies beyond it is read as
UTF-8 and fails there, with an error that names the line and asks for ``--encoding``.
The guess is made once per version of a file (size, times, inode), so a table read in
several goes (:class:`~incrowd.io.tables.TableFile`) warns once.
"""

from __future__ import annotations

import codecs
import functools
import warnings
from pathlib import Path

from ..errors import IncrowdError, IncrowdWarning, InputError, option

__all__ = ["SAMPLE_BYTES", "check_encoding", "decode_error", "shown", "text_encoding"]

#: How much of a file is checked as UTF-8 when no encoding is named (bytes): a fraction of a
#: second, and most tables whole.
SAMPLE_BYTES = 16 << 20
_BLOCK = 1 << 20
#: The bytes cp1252 leaves without a character.
_CP1252_HOLES = tuple(b"\x81\x8d\x8f\x90\x9d")
_UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def check_encoding(name: str, error: type[IncrowdError] = InputError) -> str:
    """The codec that reads text named ``name`` (``utf-8-sig`` for any spelling of UTF-8);
    ``error`` naming it when Python knows no such text encoding."""
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        msg = f"unknown encoding {name!r}; name one such as utf-8, cp1252 or latin-1"
        raise error(msg) from None
    if not info._is_text_encoding:  # rot13, base64: codecs, but not of bytes to text
        msg = f"{name!r} is not a text encoding; name one such as utf-8, cp1252 or latin-1"
        raise error(msg)
    return "utf-8-sig" if info.name == "utf-8" else info.name


def shown(codec: str) -> str:
    """A codec's name as the user knows it."""
    return "utf-8" if codec == "utf-8-sig" else codec


def text_encoding(
    path: Path, encoding: str | None = None, error: type[IncrowdError] = InputError
) -> str:
    """The codec to read ``path`` with: ``encoding`` checked, or the guess of the module's
    rules (warning once when the file is not UTF-8)."""
    if encoding is not None:
        return check_encoding(encoding, error)
    info = path.stat()  # a file rewritten within one mtime tick keeps neither inode nor ctime
    version = (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
    return _guessed(path, SAMPLE_BYTES, error, version)


@functools.lru_cache(maxsize=16)
def _guessed(
    path: Path, limit: int, error: type[IncrowdError], _version: tuple[int, ...]
) -> str:  # fmt: skip
    line, pending, bad, holes, read, cr = 1, b"", 0, False, 0, False
    with path.open("rb") as fh:
        while read < limit and (block := fh.read(min(_BLOCK, limit - read))):
            if not read and block.startswith(_UTF16_MARKS):
                msg = (f"{path} looks like UTF-16 text (Excel's \"Unicode text\"); pass "
                       f"{option('encoding', 'utf-16')}, or save it as CSV UTF-8")  # fmt: skip
                raise error(msg)
            read += len(block)
            if b"\x00" in block:  # no text encoding guessed here holds a NUL byte
                msg = (
                    f"{path} holds NUL bytes: it is not text in UTF-8, cp1252 or latin-1 "
                    f"(a binary file?); name its encoding with {option('encoding')} if it is text"
                )
                raise error(msg)
            holes = holes or any(byte in block for byte in _CP1252_HOLES)
            if bad and holes:  # latin-1: nothing more to learn
                break
            if bad:
                continue
            data = pending + block
            try:  # a character cut by the block's end waits for the next block
                _, used = codecs.utf_8_decode(data, "strict", False)
            except UnicodeDecodeError as exc:
                bad = line + _lines(data[: exc.start]) - (cr and data.startswith(b"\n"))
                continue
            line += _lines(data[:used]) - (cr and data.startswith(b"\n"))
            pending, cr = data[used:], data[:used].endswith(b"\r")
        if pending and not bad and read < limit:  # the file ends inside a character
            bad = line
    if not bad:
        return "utf-8-sig"
    codec, other = ("latin-1", option("encoding", ...)) if holes else (
        "cp1252", f"{option('encoding', 'latin-1')} (or utf-8)")  # fmt: skip
    warnings.warn(f"{path} is not UTF-8 (line {bad}): read as {codec}; {other} to override",
                  IncrowdWarning, stacklevel=4)  # fmt: skip
    return codec


def _lines(data: bytes) -> int:
    """How many line ends ``data`` holds (``\\n``, ``\\r\\n`` or a lone ``\\r``)."""
    ends = data.count(b"\n")
    return ends + data.count(b"\r") - data.count(b"\r\n") if b"\r" in data else ends


def decode_error(
    path: Path, codec: str, exc: UnicodeDecodeError, *, guessed: bool = False,
    error: type[IncrowdError] = InputError,
) -> IncrowdError:  # fmt: skip
    """The error for ``path`` failing to decode as ``codec`` (``exc``, raised where the file
    was read): the file is read again as a stream to name the first line that does not
    decode (this happens once, on the way out). ``guessed``: no encoding was named."""
    found = _first_bad(path, codec)
    line, reason, byte = found or (0, exc.reason, exc.object[exc.start : exc.start + 1])
    where = f"line {line}" if line else "it"
    hint = f"name the file's encoding with {option('encoding')} (e.g. utf-8, cp1252, latin-1)"
    if guessed:
        hint = f"its first {_size(SAMPLE_BYTES)} were, so it was read as {shown(codec)}; {hint}"
    msg = f"{path}: {where} is not {shown(codec)} text ({reason}, byte {byte!r}); {hint}"
    return error(msg)


def _first_bad(path: Path, codec: str) -> tuple[int, str, bytes] | None:
    decoder = codecs.getincrementaldecoder(codec)()
    line = 1
    try:
        with path.open("rb") as fh:
            while True:
                block = fh.read(_BLOCK)
                try:
                    decoder.decode(block, not block)
                except UnicodeDecodeError as exc:
                    held = max(len(exc.object) - len(block), 0)  # bytes carried over
                    line += _lines(exc.object[: exc.start]) - _lines(exc.object[:held])
                    return line, exc.reason, exc.object[exc.start : exc.start + 1]
                if not block:
                    return None
                line += _lines(block)
    except OSError:
        return None


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n % (1 << 20) else f"{n} bytes"
