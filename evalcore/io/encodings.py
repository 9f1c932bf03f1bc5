"""Text encodings: which one a file is in, and its text as UTF-8 for the parser.

Without an explicit encoding a text file is read as

1. UTF-8 if it starts with UTF-8's byte-order mark (and then it must be valid UTF-8: a
   mark followed by other bytes is an error, never a garbled first column name);
2. UTF-16 if it starts with a UTF-16 byte-order mark;
3. UTF-8 if all its bytes are valid UTF-8 (ASCII included);
4. else as what charset-normalizer finds among UTF-16 without a mark (little or big
   endian; considered only where the first bytes hold NUL bytes, as UTF-16 text in Latin
   script does), Windows-1252 and Latin-1. Windows-1252 and Latin-1 differ only in the
   bytes 0x80-0x9F (curly quotes, the euro sign, ... in Windows-1252, control characters in
   Latin-1): a file without such bytes is reported as Latin-1, which it then also is.
   Bytes that fit none of these (another legacy encoding, binary data) are an error.

An explicit encoding (any name Python knows) is used as given. Decoding and re-encoding
go in pieces of 16 MB, so the text is never held as a Python string as a whole.
"""

from __future__ import annotations

import codecs
from typing import Any

import numpy as np

from ..errors import FileFormatError, ParameterError

__all__ = ["to_utf8", "detect_encoding", "sniff_utf16", "ENCODING_CHOICES"]

ENCODING_CHOICES = {
    "utf-8": "UTF-8", "utf-16": "UTF-16", "utf-16-le": "UTF-16 little endian", "utf-16-be": "UTF-16 big endian",
    "cp1252": "Windows-1252", "latin-1": "Latin-1 (ISO-8859-1)",
}
"""The encodings detection chooses among, with names for people (the Data page offers these)."""

_PIECE = 16 << 20
_SAMPLE = 1 << 16
_UTF16_BOMS = {codecs.BOM_UTF16_LE: "utf-16", codecs.BOM_UTF16_BE: "utf-16"}
_NORMALIZER_NAMES = {"utf_16_le": "utf-16-le", "utf_16_be": "utf-16-be", "cp1252": "cp1252", "latin_1": "latin-1"}
_HINT = ("choose the file's real encoding (e.g. UTF-8, Windows-1252, Latin-1, UTF-16), or save the file as UTF-8")


def sniff_utf16(data: Any) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for UTF-16 text without a byte-order mark (found by
    charset-normalizer among the two, on the first 64 KB, where it holds NUL bytes, and
    then holding a line break or a delimiter and no NUL character, as a table does); else None."""
    head = bytes(data[:_SAMPLE])
    if b"\x00" not in head[:8192]:
        return None
    head = head[: len(head) - len(head) % 2]
    found = _normalizer(head, ["utf_16_le", "utf_16_be"])
    if found is None:
        return None
    text = head.decode(found, "replace")  # a table: some line break or delimiter, no NUL characters
    return found if "\x00" not in text and any(c in text for c in "\n\r\t,;|") else None


def _normalizer(sample: bytes, candidates: list[str]) -> str | None:
    import charset_normalizer

    best = charset_normalizer.from_bytes(sample, cp_isolation=candidates, preemptive_behaviour=False).best()
    return None if best is None else _NORMALIZER_NAMES.get(best.encoding)


def detect_encoding(data: Any, source: str) -> str:
    """The encoding :func:`to_utf8` reads ``data`` as when none is given (see the module docstring)."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    for bom, name in _UTF16_BOMS.items():
        if data.startswith(bom):
            return name
    utf16 = sniff_utf16(data)  # (ASCII text in UTF-16 is all ASCII bytes, NUL bytes included)
    if utf16 is not None:
        return utf16
    if data.isascii():
        return "utf-8"
    bad = _first_invalid(data, "utf-8")
    if bad is None:
        return "utf-8"
    found = _normalizer(_sample(data), ["cp1252", "latin_1"])
    if found is None:
        raise FileFormatError(
            f"{source}: the text is in none of the encodings evalcore recognises (UTF-8, UTF-16, Windows-1252, "
            f"Latin-1): line {_line_of(data, bad)} has the bytes {bytes(data[bad:bad + 4])!r}, which are not valid "
            f"UTF-8 and make no sense as Windows-1252 or Latin-1. If it is text, {_HINT}."
        )
    if found in ("cp1252", "latin-1"):
        return "cp1252" if _has_c1_bytes(data) else "latin-1"
    return found


def to_utf8(data: Any, source: str, encoding: str | None = None) -> tuple[bytes | bytearray, str]:
    """The text as UTF-8 bytes without a byte-order mark, and the encoding it was read as.

    Parameters
    ----------
    data : bytes-like
        The file's (decompressed) bytes.
    source : str
        File name for messages.
    encoding : str, optional
        The encoding to read; default: detected (module docstring).

    Raises
    ------
    FileFormatError
        Bytes that are not valid in the encoding (naming the line and the bytes), or bytes
        that fit none of the encodings detection considers.
    ParameterError
        An encoding Python does not know.
    """
    if encoding is None:
        encoding = detect_encoding(data, source)
        explicit = False
    else:
        explicit = True
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ParameterError(
                f"unknown encoding {encoding!r}; use e.g. 'utf-8', 'cp1252' (Windows-1252), 'latin-1' or 'utf-16'"
            ) from None
    codec = codecs.lookup(encoding).name
    if codec in ("utf-8", "utf-8-sig"):
        bad = None if data.isascii() else _first_invalid(data, "utf-8")
        if bad is not None:
            if data.startswith(codecs.BOM_UTF8) and not explicit:
                what = "starts with a UTF-8 byte-order mark, but"
            else:
                what = ""
            raise _not_valid(data, bad, "utf-8", source, what)
        return (data[3:] if data.startswith(codecs.BOM_UTF8) else data), encoding
    return _transcode(data, encoding, source), encoding


def _not_valid(data: Any, position: int, encoding: str, source: str, what: str = "") -> FileFormatError:
    hint = _HINT
    if encoding.startswith("utf-8") and sniff_utf16(data):
        hint = "it looks like UTF-16 text: choose UTF-16, or leave the encoding to be detected"
    what = f"{what} " if what else ""
    return FileFormatError(
        f"{source}: {what}line {_line_of(data, position)} is not valid {encoding} "
        f"(bytes {bytes(data[position:position + 4])!r}); {hint}"
    )


def _first_invalid(data: Any, encoding: str) -> int | None:
    """Position of the first byte that is not valid in ``encoding`` (a UTF-8-like codec), None if all are.

    Decoded in pieces by an incremental decoder, which holds back a character cut at the end of a
    piece; the position of an error counts those held bytes. (Cutting pieces at line breaks instead
    looped forever on a line longer than the look-back that had a character cut at the piece's end.)
    """
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    view = memoryview(data)
    for start in range(0, len(view), _PIECE):
        state = decoder.getstate()
        held = len(state[0]) if isinstance(state, tuple) and isinstance(state[0], bytes) else 0
        try:
            decoder.decode(view[start : start + _PIECE], start + _PIECE >= len(view))
        except UnicodeDecodeError as e:
            return start - held + e.start
    return None


def _transcode(data: Any, encoding: str, source: str) -> bytearray:
    """``data`` decoded from ``encoding`` and encoded as UTF-8, in pieces; a leading BOM dropped."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    view = memoryview(data)
    out = bytearray()
    for start in range(0, len(view), _PIECE):
        piece = view[start : start + _PIECE]
        state = decoder.getstate()
        held = len(state[0]) if isinstance(state, tuple) and isinstance(state[0], bytes) else 0
        try:
            text = decoder.decode(piece, start + _PIECE >= len(view))
        except UnicodeDecodeError as e:
            raise _not_valid(data, max(start + e.start - held, 0), encoding, source) from None
        if start == 0:
            text = text.removeprefix("\ufeff")
        out += text.encode("utf-8")
    return out


def _line_of(data: Any, position: int) -> int:
    """1-based line of byte ``position`` (lines end with LF; UTF-16's LF counted the same)."""
    head = bytes(data[:position]) if position < (1 << 26) else data[:position]
    return head.count(b"\n") + 1


def _has_c1_bytes(data: Any) -> bool:
    """Whether any byte is in 0x80-0x9F: where Windows-1252 and Latin-1 differ."""
    view = np.frombuffer(data, dtype=np.uint8)
    for start in range(0, len(view), _PIECE):
        piece = view[start : start + _PIECE]
        if ((piece >= 0x80) & (piece <= 0x9F)).any():
            return True
    return False


def _sample(data: Any) -> bytes:
    """What charset-normalizer judges: the first 64 KB and up to 2,000 lines with non-ASCII bytes."""
    view = np.frombuffer(data, dtype=np.uint8)
    parts = [bytes(data[:_SAMPLE])]
    found = 0
    for start in range(_SAMPLE, len(view), 1 << 20):
        where = np.flatnonzero(view[start : start + (1 << 20)] >= 0x80)
        for p in where[:: max(1, len(where) // 50)][:2000 - found]:
            p += start
            lo = bytes(data[max(p - 200, 0) : p]).rfind(b"\n") + max(p - 200, 0) + 1
            hi = bytes(data[p : p + 200]).find(b"\n")
            parts.append(bytes(data[lo : p + (hi if hi >= 0 else 200)]))
            found += 1
        if found >= 2000 or sum(map(len, parts)) > (1 << 20):
            break
    return b"\n".join(parts)
