"""A deterministic synthetic candidate set of any size, written by DuckDB straight to Parquet (seconds for 10^7).

For the benchmarks and tests of large sets (bench/bench_serverdata.py, tests/browser/test_browser_serverdata.py): no
NumPy array of N rows is ever built. Row i (0-based) is a TP when ``(i * 2654435761) mod 1000 < 110`` (so 11% of
any multiple of 1,000 rows exactly); its two scores come from multiplicative hashes of i, shifted up for the TPs and
rounded so that ties are heavy: ``a`` to 3 decimals (about 130,000 values), ``b`` to 2 (about 13,000).
"""

from __future__ import annotations

from pathlib import Path

TP_PER_MILLE = 110


def write_parquet(path: str | Path, rows: int) -> Path:
    """Write ``rows`` candidates (``label``, ``a``, ``b``) to the Parquet file ``path``; returns it."""
    import duckdb

    path = Path(path)
    tp = f"((i * 2654435761) % 1000) < {TP_PER_MILLE}"
    con = duckdb.connect()
    try:
        con.execute("SET enable_progress_bar = false")
        con.execute(f"""COPY (SELECT {tp} AS label,
            round(((i * 7919) % 100003) / 100003.0 + CASE WHEN {tp} THEN 0.3 ELSE 0 END, 3) AS a,
            round(((i * 104729) % 99991) / 99991.0 + CASE WHEN {tp} THEN 0.2 ELSE 0 END, 2) AS b
            FROM range({int(rows)}) t(i)) TO '{str(path).replace("'", "''")}' (FORMAT parquet)""")
    finally:
        con.close()
    return path
