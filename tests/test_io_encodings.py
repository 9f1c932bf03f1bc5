"""Text encodings (evalcore.io.encodings): UTF-8 with or without BOM, UTF-16 with or without BOM,
Windows-1252 and Latin-1 read correctly; anything else, and a BOM before invalid UTF-8, is an error."""

from __future__ import annotations

import codecs
import gzip

import pytest

from evalcore.errors import FileFormatError, ParameterError
from evalcore.io import ENCODING_CHOICES, detect_encoding, load_candidates, read_table

# Header and rows with what each encoding is for: umlauts, curly quotes, the euro sign, a dash.
TEXT = ("PP\tverb\tis.colloc\tg2\n"
        "zur:Verfügung\tstellen\tTRUE\t12.5\n"
        "„in Frage“\tkommen\tFALSE\t3.25\n"
        "für 5 €\tzahlen – sofort\tTRUE\t-1\n")
LATIN1_TEXT = "PP\tverb\tis.colloc\tg2\nzur:Verfügung\tstellen\tTRUE\t12.5\nà côté\tgehen\tFALSE\t3.25\n"


def expected(text):
    return [line.split("\t")[0] for line in text.splitlines()[1:]]


@pytest.mark.parametrize("encoding, bom, reported", [
    ("utf-8", b"", "utf-8"),
    ("utf-8", codecs.BOM_UTF8, "utf-8"),
    ("utf-16-le", codecs.BOM_UTF16_LE, "utf-16"),
    ("utf-16-be", codecs.BOM_UTF16_BE, "utf-16"),
    ("utf-16-le", b"", "utf-16-le"),
    ("utf-16-be", b"", "utf-16-be"),
    ("cp1252", b"", "cp1252"),
])
def test_encodings_read_correctly(encoding, bom, reported, tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(bom + TEXT.encode(encoding))
    df = read_table(path)
    assert df.attrs["encoding"] == reported
    assert list(df.columns) == ["PP", "verb", "is.colloc", "g2"]  # no BOM in the first name
    assert df["PP"].tolist() == expected(TEXT)
    assert df["verb"].tolist()[2] == "zahlen – sofort"
    assert load_candidates(path).labels.tolist() == [True, False, True]


def test_latin1_is_reported_as_latin1(tmp_path):
    """Without bytes 0x80-0x9F Latin-1 and Windows-1252 read the same; the file is reported as Latin-1."""
    path = tmp_path / "l.tsv"
    path.write_bytes(LATIN1_TEXT.encode("latin-1"))
    df = read_table(path)
    assert df.attrs["encoding"] == "latin-1" and df["PP"].tolist() == expected(LATIN1_TEXT)


def test_windows_1252_found_far_into_a_large_file(tmp_path):
    lines = ["PP,label,score"] + [f"k{i},{'TRUE' if i % 5 else 'FALSE'},{i}" for i in range(200_000)]
    lines[150_000] = "„Anführung“ für 5 €,TRUE,1"
    path = tmp_path / "big.csv.gz"
    path.write_bytes(gzip.compress("\n".join(lines).encode("cp1252")))
    df = read_table(path)
    assert df.attrs["encoding"] == "cp1252"
    assert df["PP"][150_000] == "„Anführung“ für 5 €"


@pytest.mark.parametrize("name, data", [
    ("koi8-r", "PP,verb,label\nПривет мир,текст,TRUE\nещё одна строка,слово,FALSE\n".encode("koi8-r")),
    ("shift_jis", "PP,verb,label\n日本語のテキスト,動詞,TRUE\n別の行です,言葉,FALSE\n".encode("shift_jis")),
])
def test_bytes_that_fit_no_encoding_are_an_error(name, data, tmp_path):
    path = tmp_path / "x.csv"
    path.write_bytes(data)
    with pytest.raises(FileFormatError, match=r"x\.csv: the text is in none of the encodings evalcore recognises.*"
                                              r"line 2 has the bytes"):
        read_table(path)
    read_table(path, encoding=name)  # an explicit encoding reads it


def test_bom_before_invalid_utf8_is_an_error(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(codecs.BOM_UTF8 + "PP,label,s\nzur:Verfügung,TRUE,1\n".encode("latin-1"))
    with pytest.raises(FileFormatError, match=r"bom\.csv: starts with a UTF-8 byte-order mark, but line 2 is not "
                                              r"valid utf-8 \(bytes b'\\xfcgun'\)"):
        read_table(path)


def test_explicit_encoding_overrides_detection(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(TEXT.encode("cp1252"))
    as_latin1 = read_table(path, encoding="latin-1")
    assert as_latin1.attrs["encoding"] == "latin-1" and as_latin1["PP"][2] == "\x84in Frage\x93"
    with pytest.raises(FileFormatError, match=r"line 2 is not valid utf-8"):
        read_table(path, encoding="utf-8")
    with pytest.raises(ParameterError, match="unknown encoding 'ebcdic-klingon'"):
        read_table(path, encoding="ebcdic-klingon")


def test_utf16_read_as_utf8_says_it_looks_like_utf16(tmp_path):
    path = tmp_path / "u.txt"
    path.write_bytes(TEXT.encode("utf-16-le"))
    with pytest.raises(FileFormatError, match=r"it looks like UTF-16 text: choose UTF-16"):
        read_table(path, encoding="utf-8")


def test_detect_encoding_names_are_choices():
    for data in (TEXT.encode("utf-8"), TEXT.encode("utf-16"), TEXT.encode("cp1252"), LATIN1_TEXT.encode("latin-1"),
                 TEXT.encode("utf-16-le")):
        assert detect_encoding(data, "x") in ENCODING_CHOICES


def test_text_as_utf8_for_an_encoding_override(tmp_path):
    from evalcore.io import text_as_utf8

    path = tmp_path / "c.tsv.gz"
    path.write_bytes(gzip.compress(TEXT.encode("cp1252")))
    assert text_as_utf8(path).decode("utf-8") == TEXT
    assert text_as_utf8(path, encoding="latin-1").decode("utf-8").splitlines()[2].startswith("\x84in Frage\x93")
    again = read_table(text_as_utf8(path), name="c.tsv")
    assert again.attrs["encoding"] == "utf-8" and again["PP"].tolist() == expected(TEXT)
    with pytest.raises(ParameterError, match="only to text files"):
        text_as_utf8(b"PAR1" + b"\x00" * 20, name="x.parquet")
