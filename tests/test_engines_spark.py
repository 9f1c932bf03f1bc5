"""The Spark engine in local mode (Debian's Java 17, installed by ./dev test) gives the memory engine's count tables
and sample ranks: heavy ties, unannotated candidates, ties in file order and hashed at random with a seed.

One SparkSession for the module (its JVM starts in seconds); small data here, the 10,000,000-row check is
bench/bench_engines_equal.py.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from evalcore.engines import TableSource, count_tables, sample_ranks

from tests.test_engines import _heavy_ties_frame, assert_same_tables

# skipped without Java only outside ./dev test (which installs Java 17 and sets EVALCORE_SPARK_TESTS=required): CI fails
pytestmark = pytest.mark.skipif(shutil.which("java") is None and os.environ.get("EVALCORE_SPARK_TESTS") != "required",
                                reason="Java is missing: ./dev test installs openjdk-17-jre-headless")


@pytest.fixture(scope="module")
def spark():
    from evalcore.engines.spark_engine import local_session

    os.environ.setdefault("EVALCORE_SPARK_PARTITIONS", "2")  # small data: few shuffle partitions
    return local_session()


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spark")
    _heavy_ties_frame(30_000, 3, partial=True).to_parquet(folder / "partial.parquet")
    full = _heavy_ties_frame(30_000, 4, partial=False)
    parts = folder / "parts"
    parts.mkdir()
    for i, lo in enumerate(range(0, len(full), 12_000)):
        full.iloc[lo:lo + 12_000].to_parquet(parts / f"part-{i}.parquet")
    return folder


@pytest.mark.parametrize("ties", ["hash", "stable"])
def test_spark_counts_an_annotated_sample_as_memory(spark, sets, ties):
    source = TableSource(sets / "partial.parquet", annotated_sample=True)
    memory = count_tables(source, ["a", "b"], engine="memory", ties=ties, seed=13)
    on_spark = count_tables(source, ["a", "b"], engine="spark", ties=ties, seed=13, session=spark)
    assert memory["b"].tie_summary()["largest_group"] > 5_000
    assert_same_tables(memory, on_spark)
    full = sample_ranks(source, ["a", "b"], engine="memory", ties=ties, seed=13)
    for m in ("a", "b"):
        assert np.array_equal(on_spark[m].sample_ranks, full.ranks[m])


def test_spark_sample_ranks_in_one_pass_equal_a_full_sort(spark, sets):
    source = TableSource(sets / "partial.parquet", annotated_sample=True)
    one_pass = sample_ranks(source, ["a", "b"], engine="spark", ties="hash", seed=13, session=spark)
    full = sample_ranks(source, ["a", "b"], engine="memory", ties="hash", seed=13)
    assert np.array_equal(one_pass.rows, full.rows) and one_pass.rows.size > 8_000
    for m in ("a", "b"):
        assert np.array_equal(one_pass.ranks[m], full.ranks[m])


def test_spark_reads_parquet_parts_in_the_order_of_their_names(spark, sets):
    source = TableSource(sets / "parts", lower=("c",))
    assert_same_tables(count_tables(source, engine="memory", ties="optimistic"),
                       count_tables(source, engine="spark", ties="optimistic", session=spark))


@pytest.mark.parametrize("name, words", [
    ("truncated.parquet", "truncated.parquet is not a complete Parquet file"),
    ("badpart", "badpart (part p1.parquet) is text, not Parquet"),
    ("list.parquet", "list.parquet: no numeric score column"),  # (array<double> is no score: issue 29)
    ("interval.parquet", "interval.parquet cannot be read: [PARQUET_TYPE_NOT_SUPPORTED]"),  # (Spark reads no INTERVAL)
])
def test_spark_refuses_a_hostile_file_in_words(spark, tmp_path, name, words):
    """The hostile files of the server's folder (tests/serverdata_hostile.py) on Spark: the message names the file
    by its name, with no path and no query (before: Spark's own exceptions, with the paths)."""
    from evalcore.errors import EvalcoreError
    from serverdata_hostile import write_folder

    folder = write_folder(tmp_path / "data")
    with pytest.raises(EvalcoreError) as info:
        count_tables(TableSource(folder / name), engine="spark", ties="hash", seed=1, session=spark)
    message = str(info.value)
    assert words in message and str(tmp_path) not in message and "SELECT" not in message, message


@pytest.mark.parametrize("ties", ["hash", "optimistic"])
def test_spark_leaves_out_unlabelled_rows_as_memory(spark, sets, ties):
    # issue 30: --exclude-unlabelled with --engine spark is one filter; the rows kept keep their file rows
    source = TableSource(sets / "partial.parquet", exclude_unlabelled=True)
    memory = count_tables(source, ["a", "b"], engine="memory", ties=ties, seed=13)
    on_spark = count_tables(source, ["a", "b"], engine="spark", ties=ties, seed=13, session=spark)
    assert_same_tables(memory, on_spark)
    assert on_spark.excluded_unlabelled == memory.excluded_unlabelled == 30_000 - memory.n_candidates > 15_000
