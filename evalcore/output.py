"""Writing result tables for the command line: CSV, TSV or Parquet, fast and exact.

Numbers are written in their shortest round-trip form (a float read back is the same
double), booleans as ``true``/``false``, missing values as empty cells. Nothing is
escaped for spreadsheets: the command line's files are data for programs (pandas, R,
Arrow), and a number such as ``-0.5`` must stay a number. (The dashboard's downloads
are meant for spreadsheets and neutralise formulas; see the dashboard's download code.)

pyarrow's CSV writer is used rather than pandas' ``to_csv``: on a 2,000,000-row curves
table it is many times faster (``bench/bench_cli.py``).
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import BinaryIO, TextIO

import pandas as pd

__all__ = ["TABLE_FORMATS", "table_format", "write_table"]

#: File name endings and the format each selects; anything else is CSV.
TABLE_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".tsv": "tsv", ".tab": "tsv", ".csv": "csv"}


def table_format(path: str | os.PathLike) -> str:
    """The format a file name selects: ``"parquet"``, ``"tsv"`` or ``"csv"`` (the default)."""
    return TABLE_FORMATS.get(Path(path).suffix.lower(), "csv")


def _arrow(table: pd.DataFrame):
    """``table`` as an Arrow table, categories as their values (the CSV writer has no dictionary type): decoded by
    Arrow from the codes, not through a column of Python strings (3.5 s for 10^7 rows)."""
    import pyarrow as pa

    categorical = [i for i, dtype in enumerate(table.dtypes) if isinstance(dtype, pd.CategoricalDtype)]
    if not categorical:
        return pa.Table.from_pandas(table, preserve_index=False)
    plain = table.drop(columns=[table.columns[i] for i in categorical])
    arrow = pa.Table.from_pandas(plain, preserve_index=False)
    for i in categorical:
        column = table.iloc[:, i]
        codes = column.cat.codes.to_numpy()
        values = pa.array(column.cat.categories, from_pandas=True)  # (the type pandas would give: large_string)
        decoded = pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0), values).dictionary_decode()
        arrow = arrow.add_column(i, str(table.columns[i]), decoded)
    return arrow


def parquet_options(schema) -> dict:
    """Options of pyarrow's Parquet writer for result tables: dictionary pages for the text columns only (a
    measure's name); the numbers are near all distinct, and trying a dictionary for them first doubled the time."""
    import pyarrow as pa

    return {"use_dictionary": [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
                               or pa.types.is_dictionary(f.type)]}


def write_table(table: pd.DataFrame, target: str | os.PathLike | BinaryIO | TextIO) -> None:
    """Write ``table`` to a file (format by its ending, see :data:`TABLE_FORMATS`) or a binary stream (CSV).

    Parameters
    ----------
    table : DataFrame
        Its index is not written.
    target : path or file object
        A path ending in ``.parquet``/``.pq`` gives Parquet, ``.tsv``/``.tab`` tab-separated text,
        anything else CSV; a stream (``sys.stdout``, binary or text) gets UTF-8 CSV.
    """
    import pyarrow.csv as pcsv

    if isinstance(target, io.TextIOBase):
        binary = getattr(target, "buffer", None)
        if binary is None:  # a text stream with no bytes underneath (a test's StringIO)
            data = io.BytesIO()
            write_table(table, data)
            target.write(data.getvalue().decode("utf-8"))
            return
        target.flush()
        target = binary

    fmt = "csv" if not isinstance(target, (str, os.PathLike)) else table_format(target)
    try:
        arrow = _arrow(table)
    except (TypeError, ValueError):  # columns Arrow cannot type (mixed Python objects): pandas writes them
        if fmt == "parquet":
            raise
        table.to_csv(target, index=False, sep="\t" if fmt == "tsv" else ",")
        return
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(arrow, os.fspath(target), **parquet_options(arrow.schema))
        return
    options = pcsv.WriteOptions(delimiter="\t" if fmt == "tsv" else ",")
    try:
        pcsv.write_csv(arrow, target if not isinstance(target, os.PathLike) else os.fspath(target), options)
    except BrokenPipeError:  # `evalcore curves ... | head`: the reader has what it wanted
        pass
