"""The one table of file formats, and how a file's format is found.

The format comes from the file's extension (case-insensitive, looking through a final
``.gz``, ``.bz2`` or ``.xz``); a compressed file is recognised by its magic bytes
whatever its name says, and decompressed first (:mod:`evalcore.io.compression`).
When the extension is unknown, the content decides: magic bytes, else text. Binary
content whose magic bytes name another format than the extension (an ``.xlsx`` renamed
``.parquet``) is refused with a message saying what the file really is.

:data:`FORMATS` is the table; :func:`format_from_name` is what the data-set store uses to
record a format hint from an uploaded file's name.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import PurePath

from ..errors import FileFormatError
from .encodings import sniff_utf16

__all__ = ["FORMATS", "COMPRESSIONS", "FileFormat", "format_from_name", "sniff_format", "extension", "detect"]


@dataclass(frozen=True)
class FileFormat:
    """One format evalcore reads.

    Attributes
    ----------
    name : str
        The format's key: ``text``, ``parquet``, ``xlsx``, ``rda`` or ``rds``.
    title : str
        How messages name it.
    extensions : tuple of str
        Lower-case file extensions (with the dot) that select it.
    magic : tuple of bytes
        Signatures its (decompressed) content starts with; empty for text.
    """

    name: str
    title: str
    extensions: tuple[str, ...]
    magic: tuple[bytes, ...] = ()


FORMATS: dict[str, FileFormat] = {f.name: f for f in (
    FileFormat("text", "delimited text (CSV, TSV)", (".csv", ".tsv", ".tab", ".txt")),
    FileFormat("parquet", "Apache Parquet file", (".parquet", ".pq"), (b"PAR1",)),
    FileFormat("xlsx", "Excel .xlsx workbook", (".xlsx", ".xlsm"), (b"PK\x03\x04",)),
    FileFormat("rda", "R data file (.rda/.RData)", (".rda", ".rdata"), (b"RDX2\n", b"RDX3\n", b"RDA2\n", b"RDA3\n")),
    FileFormat("rds", "R .rds file", (".rds",), (b"X\n", b"B\n", b"A\n")),
)}
"""Every format evalcore reads, by name."""

COMPRESSIONS: dict[str, tuple[bytes, str]] = {
    "gzip": (b"\x1f\x8b", ".gz"), "bzip2": (b"BZh", ".bz2"), "xz": (b"\xfd7zXZ\x00", ".xz"),
}
"""Compressions recognised by their magic bytes (and the extension they add), decompressed before reading."""

EXTENSIONS = {ext: f.name for f in FORMATS.values() for ext in f.extensions}
SUPPORTED = ".csv, .tsv, .txt (optionally .gz, .bz2, .xz), .parquet, .xlsx, .rda/.RData, .rds"
UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
OLD_EXCEL = b"\xd0\xcf\x11\xe0"


def extension(name: str) -> str:
    """Lower-case extension, looking through a final ``.gz``, ``.bz2`` or ``.xz``."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes[-1:] and suffixes[-1] in {ext for _, ext in COMPRESSIONS.values()}:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def format_from_name(name: str) -> str | None:
    """The format a file name's extension selects (a key of :data:`FORMATS`), None if unknown."""
    return EXTENSIONS.get(extension(name))


def compression_of(data: bytes) -> str | None:
    """``gzip``, ``bzip2`` or ``xz`` if the content starts with that compression's magic bytes."""
    return next((c for c, (magic, _) in COMPRESSIONS.items() if data.startswith(magic)), None)


def sniff_format(data: bytes) -> str | None:
    """Format of (decompressed) content from its first bytes alone; None for binary content
    of an unknown kind. Text is content without NUL bytes in its first 8 KB, or with a
    UTF-16 byte-order mark (UTF-16 without one is recognised by the text reader)."""
    for f in FORMATS.values():
        if f.name != "rds" and data.startswith(f.magic):
            return f.name
    if data[:2] in FORMATS["rds"].magic and (data[:2] != b"A\n" or data[2:3].isdigit()):
        return "rds"
    return "text" if data.startswith(UTF16_BOMS) or b"\x00" not in data[:8192] else None


def detect(data: bytes, source: str) -> str:
    """The format to read (decompressed) ``data`` as: the extension's, else the content's.

    R files are told apart by content (an ``.rds`` saved as ``.rda`` works too); binary
    content with the magic bytes of another format than the extension names is an error
    saying what the file is; text with a binary extension is left to that format's reader.
    """
    ext = extension(source)
    by_name = EXTENSIONS.get(ext)
    by_content = sniff_format(data)
    if by_name in ("rda", "rds"):
        return by_content if by_content in ("rda", "rds") else by_name
    if by_name not in (None, "text") and by_content not in (None, "text", by_name):
        raise FileFormatError(
            f"{source}: the content is an {FORMATS[by_content].title}, not an {FORMATS[by_name].title} as the "
            f"extension {ext!r} says; rename the file to {FORMATS[by_content].extensions[0]} (or save it again in "
            "the format its name says)"
        )
    if by_name is not None:
        return by_name
    if by_content is None and sniff_utf16(data):
        return "text"
    if by_content is None:
        hint = " It looks like an old Excel .xls file: save it as .xlsx or CSV." if data.startswith(OLD_EXCEL) else ""
        raise FileFormatError(
            f"{source}: unknown file format (extension {ext or '(none)'!r}, binary content).{hint} "
            f"Supported formats: {SUPPORTED}."
        )
    return by_content
