"""Decompression within limits: gzip, bzip2 and xz, streamed and stopped at the limit.

The output grows in pieces of at most 8 MB; after every piece its size is checked against
``max_bytes`` and, once 16 MB are out, its ratio to the compressed bytes read so far
against ``max_expansion``. A file that expands 1,000-fold is so refused after reading a
few kilobytes of it, with at most a few tens of megabytes held in memory, whatever size
it would reach. Concatenated streams (``cat a.gz b.gz``, parallel bzip2) are read whole.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from typing import Callable

from ..errors import FileFormatError
from ..text import cut
from .formats import compression_of
from .limits import EXPANSION_GRACE, LimitError, Limits

__all__ = ["decompress"]

_PIECE = 8 << 20  # largest piece of output per step
_INPUT = 1 << 16  # compressed bytes fed per step (the ratio is checked against what was fed)

_DECOMPRESSORS: dict[str, Callable[[], object]] = {
    "gzip": lambda: zlib.decompressobj(wbits=31),
    "bzip2": bz2.BZ2Decompressor,
    "xz": lambda: lzma.LZMADecompressor(format=lzma.FORMAT_AUTO),
}
_ERRORS = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)


def decompress(data: bytes, source: str, limits: Limits) -> tuple[bytes | bytearray, str | None]:
    """``(content, compression)``: the decompressed content and the compression's name, or
    ``(data, None)`` for content that is not compressed.

    Raises
    ------
    LimitError
        The content passes ``max_bytes`` or expands more than ``max_expansion``-fold.
    FileFormatError
        Broken or truncated compressed data, or nothing inside.
    """
    kind = compression_of(data)
    if kind is None:
        return data, None
    out = bytearray()
    view = memoryview(data)
    position = 0
    try:
        while True:  # one compressed stream after another
            position = _stream(_DECOMPRESSORS[kind](), kind, view, position, out, source, limits)
            following = bytes(view[position : position + 8])
            if compression_of(following) != kind:
                break  # the end, zero padding or trailing bytes: no further stream
    except LimitError:
        raise
    except _ERRORS as e:
        raise FileFormatError(
            f"{source}: {kind}-compressed but cannot be decompressed ({cut(e, 200)}); the file may be truncated or damaged"
        ) from None
    if not out:
        raise FileFormatError(f"{source}: the file is empty (after {kind} decompression)")
    return out, kind


def _stream(engine, kind: str, view: memoryview, position: int, out: bytearray, source: str, limits: Limits) -> int:
    """Decompress the stream starting at ``position`` onto ``out``; the position after it."""
    pending = b""
    while not engine.eof:
        if kind == "gzip":
            if not pending:
                pending = _feed(view, position)
                position += len(pending)
            out += engine.decompress(pending, _PIECE)
            pending = engine.unconsumed_tail
        else:  # bz2, lzma keep unused input themselves; b"" asks for more output
            chunk = _feed(view, position) if engine.needs_input else b""
            position += len(chunk)
            out += engine.decompress(chunk, _PIECE)
        _check(len(out), position - len(pending), source, limits, kind)
    return position - len(engine.unused_data) - len(pending)


def _feed(view: memoryview, position: int) -> memoryview:
    chunk = view[position : position + _INPUT]
    if not len(chunk):
        raise EOFError("the compressed data ends before the end of the stream")
    return chunk


def _check(size: int, consumed: int, source: str, limits: Limits, kind: str) -> None:
    if size > limits.max_bytes:
        raise limits.refuse(source, "max_bytes", f"decompressed ({kind}), the content is larger than "
                                                 f"{limits.max_bytes:,} bytes")
    if size > EXPANSION_GRACE and size > limits.max_expansion * max(consumed, 1):
        raise limits.refuse(
            source, "max_expansion",
            f"the {kind}-compressed content expands {size / max(consumed, 1):,.0f}-fold ({consumed:,} compressed "
            f"bytes give {size:,} bytes so far), as a decompression bomb does",
        )
