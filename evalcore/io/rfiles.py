"""R data files (``.rda``/``.RData``, ``.rds``), read within limits.

Compressed R files (gzip, bzip2, xz) are decompressed within the limits before rdata
parses them (:mod:`evalcore.io.compression`). R stores sequences such as ``1:n`` in a
compact form (ALTREP) that a file of a few bytes can declare to be 10^9 long: such a
sequence is refused if it is longer than ``max_rows`` before it is expanded.
"""

from __future__ import annotations

import contextlib
import io as _io
import warnings
from typing import Any, Iterator

import pandas as pd

from ..errors import FileFormatError, ParameterError
from ..text import cut, listed, shown
from .cells import tidy
from .limits import LimitError, Limits, Handover
from .messages import columns_text

__all__ = ["read_rda", "read_rds"]


def _bounded_altrep(source: str, limits: Limits) -> dict:
    """rdata's ALTREP constructors, with compact sequences checked against ``max_rows`` first."""
    from rdata.parser import DEFAULT_ALTREP_MAP

    def bounded(constructor: Any) -> Any:
        def construct(state: Any) -> Any:
            n = int(state.value[0])
            if n > limits.max_rows:
                raise limits.refuse(source, "max_rows", f"holds a compact R sequence declared {n:,} long")
            return constructor(state)

        return construct

    table = dict(DEFAULT_ALTREP_MAP)
    for name in (b"compact_intseq", b"compact_realseq"):
        table[name] = bounded(table[name])
    return table


@contextlib.contextmanager
def _quiet_rdata() -> Iterator[None]:
    """Silence rdata's notes that a subclass (tibble, data.table) is read as its data.frame base."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Missing constructor for R class", category=UserWarning)
        yield


def read_rda(
    content: Handover, source: str, ext: str, encoding: str | None, sheet: Any, limits: Limits
) -> pd.DataFrame:
    """The data frame of an .rda/.RData file (its only one, or the one named ``sheet``)."""
    data = content.take()
    import rdata

    try:
        with _quiet_rdata():
            objects = rdata.read_rda(_io.BytesIO(data), altrep_constructor_dict=_bounded_altrep(source, limits))
    except LimitError:
        raise
    except Exception as e:  # rdata raises many types for broken or unsupported files
        raise FileFormatError(
            f"{source}: cannot read as an R data file (.rda/.RData) ({type(e).__name__}: {cut(e, 200)})"
        ) from None
    frames = [k for k, v in objects.items() if isinstance(v, pd.DataFrame)]
    kinds = listed(objects.items(),
                   lambda kv: f"{shown(kv[0])} ({'data frame' if kv[0] in frames else type(kv[1]).__name__})")
    if sheet is not None:
        if sheet not in frames:
            raise ParameterError(f"{source}: no data frame named {shown(sheet)}; the file holds "
                                 f"{kinds if objects else 'nothing'}")
        name = sheet
    elif len(frames) == 1:
        name = frames[0]
    elif not frames:
        raise FileFormatError(
            f"{source}: holds no data frame, only {kinds or 'nothing'}; save the candidate table as a data frame"
        )
    else:
        raise FileFormatError(
            f"{source}: holds {len(frames)} data frames ({columns_text(frames)}); "
            "choose one by name with the sheet option"
        )
    df = tidy(objects[name], source, "rda", "row.names")
    df.attrs["object"] = name
    return df


def read_rds(
    content: Handover, source: str, ext: str, encoding: str | None, sheet: Any, limits: Limits
) -> pd.DataFrame:
    """The data frame of an .rds file."""
    data = content.take()
    import rdata

    try:
        with _quiet_rdata():
            obj = rdata.read_rds(_io.BytesIO(data), altrep_constructor_dict=_bounded_altrep(source, limits))
    except LimitError:
        raise
    except Exception as e:  # rdata raises many types for broken or unsupported files
        raise FileFormatError(f"{source}: cannot read as an R .rds file ({type(e).__name__}: {cut(e, 200)})") from None
    if not isinstance(obj, pd.DataFrame):
        raise FileFormatError(
            f"{source}: holds a {type(obj).__name__}, not a data frame; save the candidate table as a data frame"
        )
    return tidy(obj, source, "rds", "row.names")
