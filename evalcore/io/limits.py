"""The limits every reader checks while it reads, set in one place.

A file is refused as soon as reading it would pass one of these limits, before the
memory or the time it would take is spent: a compressed file is decompressed in
pieces and stopped at the limit, a Parquet file or an ``.xlsx`` sheet is refused on
the size it declares before a value is read, and a text file on the length of its
longest line before it is parsed.

The defaults serve real candidate sets -- 10 million rows of 20 columns load -- and
can be changed by the server's environment (``EVALCORE_MAX_ROWS=50000000``, read at
each call) or, on the command line, by ``--limit rows=50000000``; in Python, pass
``limits=Limits(max_rows=...)`` (or :meth:`Limits.replace`) to the readers.

==================  =====================  ======================================  ==========
field               environment variable   what it bounds                          default
==================  =====================  ======================================  ==========
``max_bytes``       EVALCORE_MAX_BYTES     a file's size after decompression       4 GB
``max_expansion``   EVALCORE_MAX_EXPANSION decompressed size / compressed size      200
``max_rows``        EVALCORE_MAX_ROWS      data rows (text: lines)                 20,000,000
``max_columns``     EVALCORE_MAX_COLUMNS   columns                                 1,000
``max_cells``       EVALCORE_MAX_CELLS     rows x columns                          400,000,000
``max_line_bytes``  EVALCORE_MAX_LINE      one line of a text file                 1 MB
``max_field_bytes`` EVALCORE_MAX_FIELD     one value (a text field, a cell)        1 MB
==================  =====================  ======================================  ==========

``max_expansion`` is checked once 16 MB have come out of a compressed stream:
real candidate tables compress 3 to 20-fold, a decompression bomb 1,000-fold.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Mapping

from ..errors import FileFormatError, ParameterError

__all__ = ["Limits", "LimitError", "limits_from", "parse_limit_options", "Handover"]

ENV_PREFIX = "EVALCORE_"
EXPANSION_GRACE = 16_000_000  # bytes out of a compressed stream before its ratio is checked


class LimitError(FileFormatError):
    """A file passes one of the reading limits (:class:`Limits`): too large, too wide, a line too long, ..."""


_SUFFIXES = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "kb": 10**3, "mb": 10**6, "gb": 10**9,
             "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_NUMBER = re.compile(r"\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([a-z]*)\s*", re.IGNORECASE)


def _parse_amount(text: str, what: str) -> int:
    """``'50000000'``, ``'5e7'``, ``'50M'``, ``'4GB'``, ``'512MiB'``, ``'20_000_000'`` as an integer."""
    m = _NUMBER.fullmatch(str(text).replace("_", "").replace(",", ""))
    if m is None or m.group(2).lower() not in _SUFFIXES:
        raise ParameterError(
            f"{what}: {text!r} is not an amount; give a whole number, optionally with a suffix "
            "k, M, G (powers of 1000) or KiB, MiB, GiB (powers of 1024), e.g. 50M or 8GB"
        )
    value = float(m.group(1)) * _SUFFIXES[m.group(2).lower()]
    if value < 1 or value > 2**62:
        raise ParameterError(f"{what}: {text!r} must be at least 1 (and below 2^62)")
    return int(value)


@dataclass(frozen=True)
class Limits:
    """Bounds on what a reader accepts; see the module docstring for each field and its default.

    Attributes
    ----------
    max_bytes : int
        Size of a file after decompression, in bytes (for Parquet: its declared
        uncompressed size; for ``.xlsx``: a sheet's declared XML size).
    max_expansion : int
        Largest ratio of decompressed to compressed size (after the first 16 MB).
    max_rows, max_columns, max_cells : int
        Data rows (in text files: lines, blank ones included), columns, and their product.
    max_line_bytes, max_field_bytes : int
        Length in bytes of one line of a text file, and of one value.
    """

    max_bytes: int = 4_000_000_000
    max_expansion: int = 200
    max_rows: int = 20_000_000
    max_columns: int = 1_000
    max_cells: int = 400_000_000
    max_line_bytes: int = 1_000_000
    max_field_bytes: int = 1_000_000

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ParameterError(f"limit {f.name} must be a positive whole number; got {value!r}")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> "Limits":
        """The defaults, with every ``EVALCORE_MAX_*`` variable of ``environ`` (default ``os.environ``) applied."""
        environ = os.environ if environ is None else environ
        values = {}
        for name, variable in ENV_VARIABLES.items():
            text = environ.get(variable)
            if text:
                values[name] = _parse_amount(text, f"environment variable {variable}")
        return cls(**values)

    def replace(self, **changes: int) -> "Limits":
        """A copy with some limits changed (names as the fields: ``max_rows=...``)."""
        return dataclasses.replace(self, **changes)

    def refuse(self, source: str, name: str, what: str, hint: str = "") -> LimitError:
        """The error for passing limit ``name``: names the file, what it has, the limit and how to raise it.

        ``what`` says what the file has, e.g. ``"line 3 is 52,428,800 bytes long"``; ``hint``
        (a sentence) what else may help.
        """
        example = f"{4 * getattr(self, name):_}".replace("_", "")
        hint = f" {hint}" if hint else ""
        return LimitError(
            f"{source}: {what}: more than the limit of {getattr(self, name):,} {UNITS[name]} ({name}).{hint} "
            f"If the file is what you meant to read, raise the limit where evalcore runs: set the environment "
            f"variable {ENV_VARIABLES[name]} (e.g. {ENV_VARIABLES[name]}={example}; on a shared server, ask its "
            f"administrator), or pass --limit {OPTION_NAMES[name]}={example} on the command line."
        )


OPTION_NAMES = {f.name: f.name.removeprefix("max_").removesuffix("_bytes") for f in dataclasses.fields(Limits)}
"""Short names for ``--limit NAME=VALUE``: bytes, expansion, rows, columns, cells, line, field."""
ENV_VARIABLES = {name: ENV_PREFIX + "MAX_" + short.upper() for name, short in OPTION_NAMES.items()}
ENV_VARIABLES["max_expansion"] = ENV_PREFIX + "MAX_EXPANSION"
UNITS = {"max_bytes": "bytes", "max_expansion": "times the compressed size", "max_rows": "rows",
         "max_columns": "columns", "max_cells": "cells", "max_line_bytes": "bytes", "max_field_bytes": "bytes"}


def limits_from(limits: Limits | None) -> Limits:
    """``limits`` if given, else the defaults with the environment applied (read now)."""
    if limits is None:
        return Limits.from_environment()
    if not isinstance(limits, Limits):
        raise ParameterError(f"limits must be an evalcore.io.Limits; got {type(limits).__name__}")
    return limits


def parse_limit_options(options: list[str] | tuple[str, ...], base: Limits | None = None) -> Limits:
    """``["rows=50M", "columns=5000"]`` (the command line's ``--limit``) applied to ``base``
    (default: the environment's limits)."""
    changes = {}
    short = {v: k for k, v in OPTION_NAMES.items()}
    for option in options:
        key, sep, value = option.partition("=")
        name = short.get(key.strip().lower().replace("-", "_"))
        if not sep or name is None:
            raise ParameterError(
                f"--limit {option!r}: give NAME=VALUE with NAME one of {', '.join(short)}, e.g. --limit rows=50M"
            )
        changes[name] = _parse_amount(value, f"--limit {key}")
    return limits_from(base).replace(**changes)


class Handover:
    """A file's bytes passed to a reader so that the reader holds the only reference to them
    and can free them as soon as they are parsed (memory is bounded by what is alive at once)."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes | bytearray) -> None:
        self._data = data

    def take(self) -> bytes | bytearray:
        """The bytes; the handover keeps no reference to them."""
        data, self._data = self._data, None
        if data is None:
            raise RuntimeError("the bytes were already taken")
        return data
