"""A signature written into the files a user downloads: PNG text chunks, SVG descriptions, PDF document info,
HTML meta tags; and read back out of them.

CSV files get no line of their own: a comment line breaks ``pandas.read_csv`` and every spreadsheet's default
reading (the comment becomes the header, or a stray row; the signature's commas split it into columns), so the
signature goes beside a CSV in a sidecar file (``<name>.signature.txt``) instead.
"""

from __future__ import annotations

import re
import struct
import zlib
from html import escape, unescape

from ..errors import EvalcoreError

__all__ = ["embed_signature", "read_signature", "png_with_text", "png_texts", "svg_with_description",
           "pdf_with_info", "pdf_info", "html_with_meta", "sidecar_name", "EMBEDDABLE"]

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PNG_KEYWORD = "evalcore signature"
HTML_META = "evalcore-signature"
SVG_PREFIX = "evalcore signature: "


def sidecar_name(file_name: str) -> str:
    """The sidecar holding a table's signature: ``precision.csv`` -> ``precision.signature.txt``."""
    stem = file_name.rsplit(".", 1)[0] if "." in file_name else file_name
    return f"{stem}.signature.txt"


# ----------------------------------------------------------------------------------------------- PNG

def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png_chunks(data: bytes):
    if not data.startswith(PNG_MAGIC):
        raise EvalcoreError("not a PNG file (its first bytes are not the PNG signature)")
    pos = len(PNG_MAGIC)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        if end > len(data):
            raise EvalcoreError("the PNG file is cut short")
        yield pos, end, kind, data[pos + 8:pos + 8 + length]
        pos = end


def png_with_text(data: bytes, keyword: str, text: str) -> bytes:
    """The PNG with an ``iTXt`` chunk (UTF-8 text, uncompressed) right after its header chunk (PNG 1.2, §4.2.3.3)."""
    if not 1 <= len(keyword) <= 79:
        raise EvalcoreError(f"a PNG text keyword has 1 to 79 characters; got {keyword!r}")
    chunks = list(_png_chunks(data))
    if not chunks or chunks[0][2] != b"IHDR":
        raise EvalcoreError("the PNG file does not start with its IHDR chunk")
    payload = keyword.encode("latin-1") + b"\x00\x00\x00" + b"\x00" + b"\x00" + text.encode("utf-8")
    cut = chunks[0][1]
    return data[:cut] + _png_chunk(b"iTXt", payload) + data[cut:]


def png_texts(data: bytes) -> dict[str, str]:
    """The ``tEXt`` and uncompressed ``iTXt`` chunks of a PNG, keyword -> text."""
    out = {}
    for _, _, kind, body in _png_chunks(data):
        if kind == b"tEXt":
            key, _, value = body.partition(b"\x00")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\x00")
            if rest[:1] == b"\x00":  # not compressed
                _, _, rest = rest[2:].partition(b"\x00")  # language tag
                _, _, value = rest.partition(b"\x00")  # translated keyword
                out[key.decode("latin-1")] = value.decode("utf-8")
    return out


# ----------------------------------------------------------------------------------------------- SVG

def svg_with_description(data: bytes, text: str) -> bytes:
    """The SVG with ``<desc>text</desc>`` as the first child of its root element."""
    svg = data.decode("utf-8")
    match = re.search(r"<svg\b[^>]*>", svg)
    if match is None:
        raise EvalcoreError("not an SVG file (no <svg> element)")
    desc = f"<desc>{escape(SVG_PREFIX + text, quote=False)}</desc>"
    return (svg[:match.end()] + desc + svg[match.end():]).encode("utf-8")


def _svg_signature(data: bytes) -> str | None:
    match = re.search(r"<desc>(.*?)</desc>", data.decode("utf-8"), re.DOTALL)
    if match is None:
        return None
    text = unescape(match.group(1))
    return text[len(SVG_PREFIX):] if text.startswith(SVG_PREFIX) else None


# ----------------------------------------------------------------------------------------------- PDF

def _pdf_text(value: str) -> str:
    """A PDF text string: UTF-16BE with byte order mark, as a hexadecimal string (any character survives)."""
    return "<FEFF" + value.encode("utf-16-be").hex().upper() + ">"


def pdf_with_info(data: bytes, info: dict[str, str]) -> bytes:
    """The PDF with a new document information dictionary, appended as an incremental update (PDF 1.7, §7.5.6).

    The original bytes are kept; a new object holds ``info`` (e.g. ``Title``, ``Subject``), a cross-reference
    section lists it, and a trailer points to it and to the previous cross-reference table.
    """
    if not data.startswith(b"%PDF-"):
        raise EvalcoreError("not a PDF file (it does not start with %PDF-)")
    starts = re.findall(rb"startxref\s+(\d+)", data)
    trailers = re.findall(rb"trailer\s*<<(.*?)>>\s*startxref", data, re.DOTALL)
    if not starts or not trailers:
        raise EvalcoreError("the PDF has no classic trailer (a cross-reference stream?); cannot add its info")
    trailer = trailers[-1]
    size = re.search(rb"/Size\s+(\d+)", trailer)
    root = re.search(rb"/Root\s+(\d+\s+\d+\s+R)", trailer)
    if size is None or root is None:
        raise EvalcoreError("the PDF's trailer lacks /Size or /Root")
    number = int(size.group(1))
    head = data if data.endswith(b"\n") else data + b"\n"
    entries = " ".join(f"/{key} {_pdf_text(value)}" for key, value in info.items())
    obj = f"{number} 0 obj\n<< {entries} >>\nendobj\n".encode("ascii")
    xref_at = len(head) + len(obj)
    tail = (f"xref\n{number} 1\n{len(head):010d} 00000 n \ntrailer\n<< /Size {number + 1} "
            f"/Root {root.group(1).decode()} /Info {number} 0 R /Prev {int(starts[-1])} >>\n"
            f"startxref\n{xref_at}\n%%EOF\n").encode("ascii")
    return head + obj + tail


def pdf_info(data: bytes) -> dict[str, str]:
    """The document information the last trailer of a PDF points to (text values written as hex strings)."""
    trailers = re.findall(rb"trailer\s*<<(.*?)>>\s*startxref", data, re.DOTALL)
    ref = re.search(rb"/Info\s+(\d+)\s+0\s+R", trailers[-1]) if trailers else None
    if ref is None:
        return {}
    body = re.findall(rb"(?<!\d)" + ref.group(1) + rb"\s+0\s+obj\s*<<(.*?)>>\s*endobj", data, re.DOTALL)
    if not body:
        return {}
    out = {}
    for key, value in re.findall(rb"/(\w+)\s*<FEFF([0-9A-Fa-f]*)>", body[-1]):
        out[key.decode()] = bytes.fromhex(value.decode()).decode("utf-16-be")
    return out


# ---------------------------------------------------------------------------------------------- HTML

def html_with_meta(data: bytes, text: str) -> bytes:
    """The HTML with ``<meta name="evalcore-signature" content="...">`` at the start of its head."""
    html = data.decode("utf-8")
    tag = f'<meta name="{HTML_META}" content="{escape(text, quote=True)}">'
    match = re.search(r"<head\b[^>]*>", html, re.IGNORECASE)
    if match is None:
        raise EvalcoreError("the HTML file has no <head> element")
    return (html[:match.end()] + tag + html[match.end():]).encode("utf-8")


# ---------------------------------------------------------------------------------------------- any

EMBEDDABLE = ("png", "svg", "pdf", "html")


def embed_signature(data: bytes, fmt: str, signature: str) -> bytes:
    """A figure file with its signature inside: PNG ``iTXt`` "evalcore signature", SVG ``<desc>``, PDF
    ``/Subject`` (and ``/Title`` "evalcore figure"), HTML ``<meta name="evalcore-signature">``."""
    writers = {
        "png": lambda: png_with_text(data, PNG_KEYWORD, signature),
        "svg": lambda: svg_with_description(data, signature),
        "pdf": lambda: pdf_with_info(data, {"Title": "evalcore figure", "Subject": signature,
                                            "Creator": "evalcore"}),
        "html": lambda: html_with_meta(data, signature),
    }
    if fmt not in writers:
        raise EvalcoreError(f"a signature can be written into {', '.join(EMBEDDABLE)} files; got {fmt!r}")
    return writers[fmt]()


def read_signature(data: bytes, fmt: str) -> str | None:
    """The signature :func:`embed_signature` wrote into a file, or None."""
    if fmt == "png":
        return png_texts(data).get(PNG_KEYWORD)
    if fmt == "svg":
        return _svg_signature(data)
    if fmt == "pdf":
        return pdf_info(data).get("Subject")
    if fmt == "html":
        match = re.search(rf'<meta name="{HTML_META}" content="([^"]*)">', data.decode("utf-8"))
        return unescape(match.group(1)) if match else None
    raise EvalcoreError(f"signatures are read from {', '.join(EMBEDDABLE)} files; got {fmt!r}")
