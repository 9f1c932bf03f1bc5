"""Signatures: one short, stable line that names the evalcore version, the data and every setting of a result.

In the spirit of sacrebleu's version strings (Post 2018), a signature is a line of ``key value`` fields
separated by ``|``::

    evalcore 0.1.0|cmd report|data sha256:68e0…5a76|label is.colloc|measures log.like,t.score|ties stable|
    test fisher|level 0.95|n 100,500,1000,2000|range 100:2000|corr none|interval clopper_pearson|numbers 3f9a…

(one line in practice). ``cmd`` says which result it stands for (``report`` or a command of the command line),
``data`` gives the SHA-256 of every data file read (in order), the settings follow, each once, in a fixed order,
and ``numbers`` is a digest of the numbers computed (:func:`numbers_digest`), so that a signature and the data
file are enough to check a result: ``evalcore reproduce SIGNATURE FILE``.

Values are lists of items separated by ``,``; inside an item ``%``, ``|``, ``,``, white space and control
characters are percent-encoded (UTF-8), so any column name survives the round trip
``parse_signature(str(s)) == s``.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Iterable, Mapping, Sequence
from urllib.parse import unquote

import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..text import shown

__all__ = ["Signature", "SignatureDifference", "evalcore_version", "file_sha256", "bytes_sha256",
           "numbers_digest", "parse_signature", "compare_signatures", "encode_item"]

PRODUCT = "evalcore"
DIGEST_DIGITS = 16  # hex digits of the numbers' digest (64 bits): enough to tell results apart, short to read
SIGNIFICANT_DIGITS = 9  # numbers are rounded to this many significant digits before hashing (see numbers_digest)
_SPECIAL = set("%|,")


def evalcore_version() -> str:
    """The installed evalcore version (``pyproject.toml``), or ``0+unknown`` when run from an uninstalled tree."""
    try:
        return metadata.version(PRODUCT)
    except metadata.PackageNotFoundError:  # pragma: no cover - ./dev installs the package
        return "0+unknown"


def bytes_sha256(data: bytes) -> str:
    """SHA-256 of some bytes, 64 lowercase hexadecimal digits."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes, read in chunks (the id the dataset store gives the same file)."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def encode_item(text: str) -> str:
    """Percent-encode the characters that would break a signature: ``% | ,``, white space, control characters."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL or ch.isspace() or not ch.isprintable():
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return "".join(out)


def _format_value(items: Sequence[str]) -> str:
    return ",".join(encode_item(i) for i in items)


def _parse_value(text: str) -> tuple[str, ...]:
    return tuple(unquote(i, errors="strict") for i in text.split(","))


@dataclass(frozen=True)
class Signature:
    """A parsed signature.

    Attributes
    ----------
    version : str
        The evalcore version that computed the result.
    command : str
        ``report`` or the command-line command (``curves``, ``compare``, ...).
    data : tuple of str
        SHA-256 (hex) of each data file, in the order read.
    settings : tuple of (str, tuple of str)
        The settings as (key, items), in signature order; a single value is a 1-tuple.
    numbers : str or None
        Digest of the numbers (:func:`numbers_digest`), None before they are known.
    """

    version: str
    command: str
    data: tuple[str, ...]
    settings: tuple[tuple[str, tuple[str, ...]], ...]
    numbers: str | None = None

    def __post_init__(self) -> None:
        for digest in self.data:
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise ParameterError(f"a signature's data hash must be 64 lowercase hexadecimal digits "
                                     f"(SHA-256); got {shown(digest, 80)}")
        keys = [k for k, _ in self.settings]
        if len(set(keys)) != len(keys):
            raise ParameterError(f"a signature names each setting once; {', '.join(keys)} repeats one")
        for key, items in self.settings:
            if not key or not key.replace("-", "").replace("_", "").isalnum():
                raise ParameterError(f"signature keys are words (letters, digits, - or _); got {shown(key)}")
            if not isinstance(items, tuple) or not items:
                raise ParameterError(f"the signature's setting {shown(key)} needs a tuple of at least one value")

    @property
    def mapping(self) -> dict[str, tuple[str, ...]]:
        """The settings as a dict (key -> items)."""
        return dict(self.settings)

    def get(self, key: str, default: str | None = None) -> str | None:
        """A setting as one string (items joined by ``,``), or ``default`` when it is absent."""
        items = self.mapping.get(key)
        return ",".join(items) if items is not None else default

    def with_numbers(self, digest: str) -> "Signature":
        return Signature(self.version, self.command, self.data, self.settings, digest)

    def __str__(self) -> str:
        fields = [f"{PRODUCT} {encode_item(self.version)}", f"cmd {encode_item(self.command)}",
                  "data " + ",".join(f"sha256:{d}" for d in self.data)]
        fields += [f"{key} {_format_value(items)}" for key, items in self.settings]
        if self.numbers is not None:
            fields.append(f"numbers {self.numbers}")
        return "|".join(fields)


def parse_signature(text: str) -> Signature:
    """Read a signature written by :meth:`Signature.__str__` (surrounding white space is ignored).

    Raises
    ------
    ParameterError
        Naming the field that is not understood.
    """
    if not isinstance(text, str):
        raise ParameterError(f"a signature is text; got {type(text).__name__}")
    fields = text.strip().split("|")
    parsed: dict[str, str] = {}
    order: list[str] = []
    for i, field in enumerate(fields):
        key, sep, value = field.partition(" ")
        if not sep or not value:
            raise ParameterError(f"signature field {i + 1} {shown(field, 60)} is not 'key value'; a signature looks like "
                                 f"'evalcore 0.1.0|cmd report|data sha256:...|...' (copy it whole)")
        if key in parsed:
            raise ParameterError(f"the signature names {shown(key)} twice")
        parsed[key] = value
        order.append(key)
    if not order or order[0] != PRODUCT:
        raise ParameterError(f"a signature starts with '{PRODUCT} <version>'; this one starts with "
                             f"{shown(fields[0], 60)}")
    for required in ("cmd", "data"):
        if required not in parsed:
            raise ParameterError(f"the signature has no {required!r} field; copy the whole signature")
    data = []
    for item in parsed["data"].split(","):
        algorithm, _, digest = item.partition(":")
        if algorithm != "sha256":
            raise ParameterError(f"the signature's data field must read 'sha256:<64 hex digits>'; got {shown(item, 80)}")
        data.append(digest)
    numbers = parsed.get("numbers")
    if numbers is not None and (len(numbers) != DIGEST_DIGITS or any(c not in "0123456789abcdef" for c in numbers)):
        raise ParameterError(f"the signature's numbers field must be {DIGEST_DIGITS} hexadecimal digits; "
                             f"got {shown(numbers, 40)}")
    try:
        settings = tuple((k, _parse_value(parsed[k])) for k in order if k not in (PRODUCT, "cmd", "data", "numbers"))
        version, command = unquote(parsed[PRODUCT], errors="strict"), unquote(parsed["cmd"], errors="strict")
    except UnicodeDecodeError:
        raise ParameterError("the signature holds a broken percent-encoding; copy the whole signature") from None
    return Signature(version=version, command=command, data=tuple(data), settings=settings, numbers=numbers)


@dataclass(frozen=True)
class SignatureDifference:
    """One field in which two signatures differ (None where a signature lacks it)."""

    key: str
    first: str | None
    second: str | None


def compare_signatures(first: Signature, second: Signature) -> list[SignatureDifference]:
    """The fields in which two signatures differ: version, command, data, each setting, numbers (in that order)."""
    out = []
    for key, a, b in (("evalcore", first.version, second.version), ("cmd", first.command, second.command),
                      ("data", ",".join(first.data), ",".join(second.data))):
        if a != b:
            out.append(SignatureDifference(key, a, b))
    one, two = first.mapping, second.mapping
    for key in list(one) + [k for k in two if k not in one]:
        a, b = one.get(key), two.get(key)
        if a != b:
            out.append(SignatureDifference(key, ",".join(a) if a else None, ",".join(b) if b else None))
    if first.numbers != second.numbers:
        out.append(SignatureDifference("numbers", first.numbers, second.numbers))
    return out


# ----------------------------------------------------------------------------------------- numbers

def _cell(value) -> str:
    if value is None or value is pd.NA:
        return "NA"
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = f"{value:.{SIGNIFICANT_DIGITS}g}"
        return "0" if text == "-0" else text
    return encode_item(str(value))


def _records(table) -> Iterable[Sequence]:
    if isinstance(table, pd.DataFrame):
        yield [encode_item(str(c)) for c in table.columns]
        for row in table.itertuples(index=False, name=None):
            yield row
    elif isinstance(table, Mapping):
        for key, value in table.items():
            yield [encode_item(str(key)), value]
    else:
        for row in table:
            yield row if isinstance(row, (list, tuple)) else [row]


def numbers_digest(tables: Mapping[str, object]) -> str:
    """A short digest of a result's numbers, for the ``numbers`` field of a signature.

    Parameters
    ----------
    tables : mapping of str to DataFrame, mapping or sequence
        Named tables: DataFrames (column names, then every row), mappings (key, value pairs) or
        sequences of rows.

    Returns
    -------
    str
        The first 16 hexadecimal digits of the SHA-256 of a canonical text of the tables.

    Notes
    -----
    Each cell is written as text: booleans as ``1``/``0``, integers exactly, floats rounded to 9
    significant digits (``%.9g``; an integer-valued float reads like the integer, so a table read back
    from CSV hashes like the one written), NaN as ``nan``. Rounding makes the digest insensitive to the
    last bits of floating-point arithmetic across machines (the results agree with R to a relative
    1e-10); a value that lies within that error of a rounding boundary could still flip a digit, in which
    case ``reproduce`` reports a mismatch it cannot explain, and the tables should be compared by value.
    """
    h = hashlib.sha256()
    for name in sorted(tables):
        h.update(f"[{encode_item(name)}]\n".encode())
        for row in _records(tables[name]):
            h.update(("\t".join(_cell(v) for v in row) + "\n").encode())
    return h.hexdigest()[:DIGEST_DIGITS]
