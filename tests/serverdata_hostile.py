"""A folder of large data sets (``EVALCORE_DATA_DIR``) made of files from many hands, each hostile in its own way.

Used by tests/test_serverdata.py (the engine and :func:`evalcore_app.serverdata.summary` on each file) and
tests/app/test_serverdata_pages.py (each file opened by a link on the Data, Precision, Confidence and Significance
pages). Every file here must be refused with a message in the page's words that names it by its name in the folder,
with no path of the server, no SQL and no traceback; the two good files must open.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

LONG_NAME = "w" * 200_000  # a column name of 200,000 characters (issue 29, section 4)

#: name in the folder -> what is wrong with it
HOSTILE_FILES = {
    "truncated.parquet": "a copy in progress: the first half of a Parquet file",
    "empty.parquet": "0 bytes",
    "empty.csv": "0 bytes",
    "struct.parquet": "a label and a struct column (no score)",
    "list.parquet": "a label and a list<double> column (DOUBLE[], no score)",
    "interval.parquet": "a label and an INTERVAL column (no score)",
    "array.parquet": "a label and a DOUBLE[3] column (no score)",
    "garbage.csv": "binary garbage with a .csv name",
    "ragged.csv": "rows of different lengths and a stray quote",
    "badline.csv": "30,000 good lines, then a score that is not a number (past what DuckDB looks at for the types)",
    "badpart": "a folder of Parquet parts whose second part is not Parquet",
    "text.parquet": "CSV text named .parquet",
    "binary.csv": "a Parquet file named .csv",
    "notgzip.csv.gz": "plain text named .csv.gz",
    "longname.csv": "a 200,000-character column name and no label column",
    "longname.parquet": "a 200,000-character column name and no label column",
}
#: files of the folder that open (the label, and the scores a and b; a struct, a list and a text column besides in
#: mixed.parquet, which are neither)
GOOD_FILES = ("good.parquet", "mixed.parquet", "good.csv")


def frame(rows: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"label": rng.random(rows) < 0.3, "a": rng.integers(0, 9, rows).astype(float),
                         "b": np.round(rng.normal(size=rows), 1)})


def _duckdb_parquet(path: Path, select: str) -> None:
    import duckdb

    con = duckdb.connect()
    try:
        con.execute(f"COPY ({select}) TO '{str(path)}' (FORMAT parquet)")
    finally:
        con.close()


def write_folder(folder: Path) -> Path:
    """Write every file of :data:`HOSTILE_FILES` and :data:`GOOD_FILES` into ``folder``; returns it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    good = frame()
    good.to_parquet(folder / "good.parquet")
    whole = (folder / "good.parquet").read_bytes()
    (folder / "truncated.parquet").write_bytes(whole[: len(whole) // 2])
    (folder / "empty.parquet").write_bytes(b"")
    (folder / "empty.csv").write_bytes(b"")
    labels = pa.array(good["label"])
    pq.write_table(pa.table({"label": labels, "s": pa.array([{"x": 1.0, "y": "a"}] * len(good))}),
                   folder / "struct.parquet")
    pq.write_table(pa.table({"label": labels, "l": pa.array([[1.0, 2.0]] * len(good), pa.list_(pa.float64()))}),
                   folder / "list.parquet")
    _duckdb_parquet(folder / "interval.parquet",
                    "SELECT i % 3 = 0 AS label, to_days(i::INTEGER) AS iv FROM range(400) t(i)")
    _duckdb_parquet(folder / "array.parquet",
                    "SELECT i % 3 = 0 AS label, [i, 1, 2]::DOUBLE[3] AS v FROM range(400) t(i)")
    # a set that opens although it has such columns beside its label and scores: they are neither
    mixed = pa.table({"label": labels, "a": pa.array(good["a"]), "b": pa.array(good["b"]),
                      "s": pa.array([{"x": 1.0}] * len(good)),
                      "l": pa.array([[1.0]] * len(good), pa.list_(pa.float64())),
                      "d": pa.array(["2024-01-01"] * len(good)).cast(pa.string())})
    pq.write_table(mixed, folder / "mixed.parquet")
    rng = np.random.default_rng(1)
    (folder / "garbage.csv").write_bytes(bytes(rng.integers(0, 256, 20_000, dtype=np.uint8)))
    (folder / "ragged.csv").write_text('label,a,b\nTRUE,1,2\nFALSE,1\n"x,1,2,3,4\nTRUE,1,2\n' * 50)
    (folder / "badline.csv").write_text("label,a,b\n" + "TRUE,1.5,2\nFALSE,0.5,1\n" * 15_000 + "FALSE,abc,1\n")
    good.to_csv(folder / "good.csv", index=False)
    parts = folder / "badpart"
    parts.mkdir(exist_ok=True)
    good.iloc[:200].to_parquet(parts / "p0.parquet")
    (parts / "p1.parquet").write_text("label,a,b\nTRUE,1,2\n")
    (folder / "text.parquet").write_text(good.to_csv(index=False))
    (folder / "binary.csv").write_bytes(whole)
    (folder / "notgzip.csv.gz").write_text(good.to_csv(index=False))
    long = pd.DataFrame({LONG_NAME: good["a"], "x" + LONG_NAME: good["b"]})
    (folder / "longname.csv").write_text(long.to_csv(index=False))
    long.to_parquet(folder / "longname.parquet")
    return folder
