"""Reading in pieces gives what reading at once gives: the layout scan of text (4 MB pieces), the
encoding checks and conversions (16 MB pieces) and decompression (64 KB in, 8 MB out) are run here
with pieces of a few bytes, against the csv module, Python's codecs and gzip/bz2/lzma on the whole."""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evalcore.io.compression as compression
import evalcore.io.encodings as encodings
import evalcore.io.text as text
from evalcore.errors import EvalcoreError
from evalcore.io import Limits, read_table

CELLS = st.sampled_from(["1", "-2", "2.5", "NA", "", " ", "x", "a b", "TRUE", "F", "zur:Verfügung", '"q"',
                         '"a,b"', '"x""y"', '"two\nlines"', '""', '"\r\n"', "€"])


def outcome(data: bytes, name: str = "t.csv"):
    try:
        return read_table(data, name=name)
    except EvalcoreError as e:
        return (type(e).__name__, str(e))


def same(a, b) -> None:
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b
    else:
        assert a.equals(b) and list(a.index) == list(b.index) and a.attrs == b.attrs


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(CELLS, min_size=3, max_size=3) | st.lists(CELLS, max_size=4), max_size=10),
       st.sampled_from(["\n", "\r\n"]), st.integers(1, 9))
def test_layout_scan_in_pieces_agrees_with_the_csv_module(rows, eol, piece):
    data = eol.join([",".join(["k", "label", "s"])] + [",".join(r) for r in rows]).encode()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(text, "_LAYOUT_PIECE", piece)
        fast = outcome(data)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(text, "_parse_simple", lambda *a: None)
        m.setattr(text, "_parse_layout", lambda *a: None)
        slow = outcome(data)
    same(fast, slow)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab,\n€ü„“\u00a0\U0001f600", max_size=60), st.integers(1, 9),
       st.sampled_from(["utf-8", "utf-16-le", "utf-16-be", "cp1252", "latin-1"]))
def test_encodings_in_pieces(body, piece, encoding):
    content = "k,s\n" + body
    try:
        data = content.encode(encoding)
    except UnicodeEncodeError:
        return
    whole = encodings.to_utf8(data, "f", encoding)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(encodings, "_PIECE", piece)
        assert encodings.to_utf8(data, "f", encoding) == whole
        assert bytes(whole[0]).decode("utf-8") == content.removeprefix("\ufeff")
        assert encodings._first_invalid(content.encode("utf-8"), "utf-8") is None
        broken = content.encode("utf-8") + b"\xff" + b"tail\n"
        assert encodings._first_invalid(broken, "utf-8") == len(content.encode("utf-8"))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400), st.integers(1, 7), st.integers(1, 7), st.sampled_from(["gzip", "bzip2", "xz"]),
       st.integers(1, 3))
def test_decompression_in_pieces(payload, piece_in, piece_out, kind, streams):
    compress = {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind]
    data = b"".join(compress(payload + bytes([i])) for i in range(streams))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(compression, "_INPUT", piece_in)
        m.setattr(compression, "_PIECE", piece_out)
        out, found = compression.decompress(data, "f", Limits())
    assert found == kind and bytes(out) == b"".join(payload + bytes([i]) for i in range(streams))


def test_invalid_byte_found_at_a_piece_boundary():
    data = ("k,s\n" + "é" * 20 + "\n").encode("utf-8")
    for cut in range(1, 12):
        broken = data[:cut + 4] + b"\x80" + data[cut + 4:]
        with pytest.MonkeyPatch.context() as m:
            m.setattr(encodings, "_PIECE", 5)
            found = encodings._first_invalid(broken, "utf-8")
        try:
            broken.decode("utf-8")
        except UnicodeDecodeError as e:
            assert found == e.start
    assert codecs.lookup("latin-1").name == "iso8859-1"


def test_a_long_line_with_a_character_cut_at_a_piece_end_is_scanned(monkeypatch):
    """A regression: the scanner cut pieces at line breaks in a 64 KiB look-back and looped forever when a
    longer line had a multi-byte character cut at the piece's end (found by the test above, in pieces of 1-9)."""
    monkeypatch.setattr(encodings, "_PIECE", 70_000)
    line = ("é" * 50_000).encode("utf-8")  # 100,000 bytes, no line break; byte 70,000 is inside no character
    assert encodings._first_invalid(line + b"\n", "utf-8") is None
    monkeypatch.setattr(encodings, "_PIECE", 70_001)  # now the piece ends inside "é"
    assert encodings._first_invalid(line + b"\n", "utf-8") is None
    assert encodings._first_invalid(line + b"\xff\n", "utf-8") == len(line)
