"""The engines (issue 21): the 'hash' tie key, count tables against the rankings they stand for, DuckDB against the
memory engine (every n, ties in file order and hashed at random, heavy ties, unannotated candidates), sample ranks
in one pass against a full sort, the chunked statistics against the whole tables, and the command line's --engine.

Spark's equality is in tests/test_engines_spark.py (one JVM for its module); the 10,000,000-row checks of every
engine are bench/bench_engines_equal.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.candidates import CandidateSet
from evalcore.compare import compare_rankings, significant_up_to
from evalcore.curves import precision_curve
from evalcore.engines import CountTables, TableSource, TooLargeError, count_tables, sample_ranks
from evalcore.engines.chunked import SignificantRun, comparison_chunks, curve_chunks
from evalcore.engines.memory import counts_of
from evalcore.engines.sampleranks import SampleCounter
from evalcore.engines.thin import Thinner, thin
from evalcore.errors import ColumnError, ParameterError
from evalcore.ranking import rank, rank_scores, tie_hash

MASK64 = (1 << 64) - 1


def splitmix64_slow(seed: int, count: int) -> list[int]:
    """SplitMix64 (Steele, Lea & Flood 2014) in plain Python integers, the obviously right reference."""
    out, state = [], seed & MASK64
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        out.append(z ^ (z >> 31))
    return out


def test_tie_hash_is_splitmix64_shifted():
    # SplitMix64 seeded with 0: its first outputs are 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F
    # (the values Vigna's splitmix64.c prints; they seed xoshiro256**)
    assert splitmix64_slow(0, 3) == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    for seed in (0, 1, 12345, 2**32 - 1, 2**63 + 5):
        expected = [v >> 1 for v in splitmix64_slow(seed, 50)]
        assert tie_hash(seed, np.arange(50)).tolist() == expected


def test_hash_ties_order_each_group_by_hash_then_row():
    rng = np.random.default_rng(4)
    scores = rng.integers(0, 5, 300).astype(float)
    labels = rng.random(300) < 0.3
    r = rank_scores(labels, scores, ties="hash", seed=99)
    h = tie_hash(99, np.arange(300))
    expected = sorted(range(300), key=lambda i: (-scores[i], int(h[i]), i))  # the definition, slowly
    assert r.order.tolist() == expected
    assert r.seed == 99


def test_random_ties_keep_todays_numbers():
    # the old policy is still a NumPy permutation: links and signatures made with it repeat their numbers
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 4, 200).astype(float)
    labels = rng.random(200) < 0.4
    pre = np.random.default_rng(7).permutation(200)
    expected = pre[np.argsort(-scores[pre], kind="stable")]
    assert rank_scores(labels, scores, ties="random", seed=7).order.tolist() == expected.tolist()


def test_hash_ties_use_the_file_rows_of_a_subset():
    cs = CandidateSet(labels=np.array([1, 0, 1, 0, 1, 0], bool), scores={"g": np.zeros(6)}, directions={})
    part = cs.subset(np.array([False, True, True, False, True, True]))
    h = tie_hash(3, part.rows - 1)  # rows 2, 3, 5, 6 of the file, 0-based 1, 2, 4, 5
    assert rank(part, "g", ties="hash", seed=3).order.tolist() == np.argsort(h, kind="stable").tolist()


# ----------------------------------------------------------------------- count tables stand for the rankings
def _random_set(rng, n, partial=False):
    labels = rng.random(n) < 0.25
    scores = {"a": rng.integers(0, 6, n).astype(float), "b": np.round(rng.normal(size=n), 1)}
    scores["a"][rng.random(n) < 0.05] = np.nan
    annotated = rng.random(n) < 0.3 if partial else None
    return CandidateSet(labels=labels, scores=scores, directions={"b": "lower"}, annotated=annotated)


@pytest.mark.parametrize("ties", ["stable", "hash", "random", "optimistic", "pessimistic"])
def test_rank_counts_answer_as_the_ranking(ties):
    rng = np.random.default_rng(11)
    for trial in range(5):
        cs = _random_set(rng, int(rng.integers(2, 400)))
        r = rank(cs, "a", ties=ties, seed=1)
        c = counts_of(r)
        n = np.arange(0, cs.n_candidates + 1)
        assert np.array_equal(np.asarray(c.tp), r.tp) and c.tp[-1] == r.tp[-1] and len(c.tp) == len(r.tp)
        assert np.array_equal(c.straddles(n), r.straddles(n))
        for got, want in zip(c.tp_bounds(n), r.tp_bounds(n)):
            assert np.array_equal(got, want)
        assert c.tie_summary() == r.tie_summary()
        sizes = np.arange(1, cs.n_candidates + 1)
        pd.testing.assert_frame_equal(precision_curve(c, sizes), precision_curve(r, sizes))


def test_pair_counts_give_the_difference_regions_of_the_rankings():
    rng = np.random.default_rng(12)
    for trial in range(5):
        cs = _random_set(rng, int(rng.integers(2, 500)))
        tables = count_tables(cs, ties="hash", seed=2)
        ra, rb = (rank(cs, m, ties="hash", seed=2) for m in ("a", "b"))
        sizes = rng.permutation(np.arange(1, cs.n_candidates + 1))  # any order of n
        pd.testing.assert_frame_equal(compare_rankings(tables["a"], tables["b"], sizes),
                                      compare_rankings(ra, rb, sizes))
        pd.testing.assert_frame_equal(compare_rankings(tables["b"], tables["a"], sizes),
                                      compare_rankings(rb, ra, sizes))


def test_count_tables_hold_no_single_candidate_and_say_so():
    cs = _random_set(np.random.default_rng(1), 50)
    tables = count_tables(cs, ties="stable")
    with pytest.raises(TooLargeError, match="not single candidates"):
        tables["a"].ranks  # noqa: B018
    from evalcore.analysis import difference_members

    with pytest.raises(TooLargeError):
        difference_members(cs, tables["a"], tables["b"], 10)


def test_count_tables_survive_the_bytes_for_the_store():
    cs = _random_set(np.random.default_rng(2), 300, partial=True)
    tables = count_tables(cs, ties="hash", seed=4)
    back = CountTables.from_bytes(tables.to_bytes())
    for m in ("a", "b"):
        for name in ("tp_ranks", "tie_start", "tie_end", "annotated_ranks"):
            assert np.array_equal(getattr(back[m], name), getattr(tables[m], name))
        assert (back[m].ties, back[m].seed, back[m].higher_is_better) == (tables[m].ties, 4, m == "a")
    p, q = back.pairs[("a", "b")], tables.pairs[("a", "b")]
    assert np.array_equal(p.both_steps, q.both_steps) and np.array_equal(p.both_tp_ranks, q.both_tp_ranks)
    assert np.array_equal(back["a"].pair(back["b"]).overlap(np.arange(301)), q.overlap(np.arange(301)))


# ----------------------------------------------------------------------- DuckDB against memory, from files
def _heavy_ties_frame(n: int, seed: int, partial: bool) -> pd.DataFrame:
    """Heavy ties (a: 12 values; b: two decimals, a 20% block of zeros and -0.0), non-finite scores, and (partial)
    empty labels for 70% of the candidates."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    labels = rng.random(n) < 1 / (1 + np.exp(-(1.5 * z - 2)))
    a = np.floor(np.clip(z + rng.normal(size=n), -3, 2.9) * 2).astype(float)
    b = np.round(z + rng.normal(size=n) * 0.8, 2)
    b[rng.random(n) < 0.2] = 0.0
    b[rng.random(n) < 0.01] = -0.0
    a[rng.random(n) < 0.02] = np.nan
    b[rng.random(n) < 0.005] = np.inf
    b[rng.random(n) < 0.005] = -np.inf
    label = pd.array(labels, dtype="boolean")
    if partial:
        label[rng.random(n) < 0.7] = pd.NA
    return pd.DataFrame({"label": label, "a": a, "b": b, "c": -b})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("engines")
    full = _heavy_ties_frame(120_000, 1, partial=False)
    partial = _heavy_ties_frame(120_000, 2, partial=True)
    full.to_parquet(folder / "full.parquet")
    partial.to_parquet(folder / "partial.parquet")
    parts = folder / "parts"
    parts.mkdir()
    for i, lo in enumerate(range(0, len(full), 50_000)):  # three parts, read in the order of their names
        full.iloc[lo:lo + 50_000].to_parquet(parts / f"part-{i:02d}.parquet")
    text = full.assign(label=full["label"].map({True: "TP", False: "FP"}))
    text.to_csv(folder / "full.tsv", sep="\t", index=False)
    partial.assign(label=partial["label"].map({True: "TP", False: "FP"})).to_csv(folder / "partial.tsv", sep="\t",
                                                                                 index=False)
    (folder / "partial-parts").mkdir()
    for i, lo in enumerate(range(0, len(partial), 50_000)):
        partial.iloc[lo:lo + 50_000].to_parquet(folder / "partial-parts" / f"part-{i:02d}.parquet")
    return folder


def assert_same_tables(x: CountTables, y: CountTables) -> None:
    assert x.n_candidates == y.n_candidates and x.measures == y.measures
    for m in x.measures:
        a, b = x[m], y[m]
        assert np.array_equal(a.tp_ranks, b.tp_ranks), m
        assert np.array_equal(a.tie_start, b.tie_start) and np.array_equal(a.tie_end, b.tie_end), m
        assert (a.annotated_ranks is None) == (b.annotated_ranks is None)
        if a.annotated_ranks is not None:
            assert np.array_equal(a.annotated_ranks, b.annotated_ranks)
        assert (a.n_nonfinite, a.higher_is_better, a.ties, a.seed) == (b.n_nonfinite, b.higher_is_better, b.ties,
                                                                       b.seed)
    assert set(x.pairs) == set(y.pairs)
    for key in x.pairs:
        p, q = x.pairs[key], y.pairs[key]
        assert np.array_equal(p.both_steps, q.both_steps), key
        assert np.array_equal(p.both_tp_ranks, q.both_tp_ranks), key
        if p.both_annotated_ranks is not None:
            assert np.array_equal(p.both_annotated_ranks, q.both_annotated_ranks), key


@pytest.mark.parametrize("ties", ["stable", "hash", "optimistic", "pessimistic"])
def test_duckdb_counts_as_memory(files, ties):
    source = TableSource(files / "full.parquet", lower=("c",))
    memory = count_tables(source, engine="memory", ties=ties, seed=17)
    duck = count_tables(source, engine="duckdb", ties=ties, seed=17, batch_rows=7_001)  # batches cut tie groups
    assert_same_tables(memory, duck)
    assert memory["b"].tie_summary()["largest_group"] > 20_000  # heavy ties indeed


@pytest.mark.parametrize("ties", ["stable", "hash"])
def test_duckdb_counts_an_annotated_sample_as_memory(files, ties):
    source = TableSource(files / "partial.parquet", annotated_sample=True)
    memory = count_tables(source, engine="memory", ties=ties, seed=5)
    duck = count_tables(source, engine="duckdb", ties=ties, seed=5)
    assert memory["a"].partly_annotated and 0.25 < memory["a"].n_annotated / memory.n_candidates < 0.35
    assert_same_tables(memory, duck)
    full = sample_ranks(source, engine="memory", ties=ties, seed=5)  # the annotated candidates' ranks, by row
    for m in ("a", "b"):
        assert np.array_equal(duck[m].sample_rows, full.rows) and np.array_equal(duck[m].sample_ranks, full.ranks[m])


def test_duckdb_reads_parts_and_text_as_one_file(files):
    whole = count_tables(TableSource(files / "full.parquet"), engine="duckdb", ties="hash", seed=8)
    assert_same_tables(whole, count_tables(TableSource(files / "parts"), engine="duckdb", ties="hash", seed=8))
    assert_same_tables(whole, count_tables(TableSource(files / "parts"), engine="memory", ties="hash", seed=8))
    assert_same_tables(whole, count_tables(TableSource(files / "full.tsv"), engine="duckdb", ties="hash", seed=8))


@pytest.mark.parametrize("name", ["partial.parquet", "partial.tsv", "partial-parts"])
def test_duckdb_leaves_out_unlabelled_rows_as_memory(files, name):
    # issue 30: --exclude-unlabelled with --engine duckdb is one SQL filter; the rows kept keep their file rows, so
    # the hash of seed and row breaks ties as the memory engine's (which reads the file and drops the rows)
    source = TableSource(files / name, exclude_unlabelled=True)
    memory = count_tables(source, engine="memory", ties="hash", seed=5)
    duck = count_tables(source, engine="duckdb", ties="hash", seed=5, batch_rows=7_001)
    assert_same_tables(memory, duck)
    assert memory.excluded_unlabelled == duck.excluded_unlabelled == 120_000 - memory.n_candidates
    assert 0.65 < memory.excluded_unlabelled / 120_000 < 0.75 and memory["a"].annotated_ranks is None
    assert duck.summary().excluded_unlabelled == duck.excluded_unlabelled
    assert CountTables.from_bytes(duck.to_bytes()).excluded_unlabelled == duck.excluded_unlabelled
    assert_same_tables(count_tables(TableSource(files / name, exclude_unlabelled=True), engine="duckdb",
                                    ties="stable"), count_tables(source, engine="memory", ties="stable"))


def test_leaving_out_unlabelled_rows_and_reading_them_as_unannotated_exclude_each_other(files):
    with pytest.raises(ParameterError, match="exclude each other"):
        TableSource(files / "partial.parquet", exclude_unlabelled=True, annotated_sample=True)
    every = _heavy_ties_frame(1_000, 3, partial=True)
    every["label"] = pd.array([pd.NA] * len(every), dtype="boolean")
    every.to_parquet(files / "unlabelled.parquet")
    with pytest.raises(ColumnError, match="every one of the 1,000 rows has an empty label"):
        count_tables(TableSource(files / "unlabelled.parquet", exclude_unlabelled=True), engine="duckdb")


def test_sample_ranks_in_one_pass_equal_a_full_sort(files):
    source = TableSource(files / "partial.parquet", annotated_sample=True)
    for ties in ("hash", "stable"):
        full = sample_ranks(source, engine="memory", ties=ties, seed=21)
        one_pass = sample_ranks(source, engine="duckdb", ties=ties, seed=21, batch_rows=9_999)
        assert np.array_equal(full.rows, one_pass.rows) and np.array_equal(full.labels, one_pass.labels)
        for m in full.ranks:
            assert np.array_equal(full.ranks[m], one_pass.ranks[m]), (ties, m)


def test_sample_counter_by_chunks_as_whole():
    # the counts of several partitions add up (Spark's path): two halves give the ranks of the whole
    rng = np.random.default_rng(9)
    keys = rng.integers(0, 5, (1000, 2)).astype(float)
    rows = np.arange(1000)
    labels = rng.random(1000) < 0.3
    pick = np.sort(rng.choice(1000, 40, replace=False))
    whole = SampleCounter(keys[pick], rows[pick], labels[pick], "hash", 3)
    whole.add(keys, rows, labels)
    halves = SampleCounter(keys[pick], rows[pick], labels[pick], "hash", 3)
    for part in (slice(0, 617), slice(617, None)):
        piece = SampleCounter(keys[pick], rows[pick], labels[pick], "hash", 3)
        piece.add(keys[part], rows[part], labels[part])
        halves.add_state(*piece.state())
    assert np.array_equal(whole.ranks(), halves.ranks())
    cs = CandidateSet(labels=labels, scores={"x": -keys[:, 0], "y": -keys[:, 1]}, directions={})
    for j, m in enumerate(("x", "y")):
        assert np.array_equal(whole.ranks()[:, j], rank(cs, m, ties="hash", seed=3).ranks[pick])


@pytest.mark.parametrize("ties", ["hash", "stable", "optimistic", "pessimistic"])
def test_sample_counter_few_per_tie_group_as_one_sort(ties, monkeypatch):
    # a few sampled candidates per tie group (the 10^8 benchmark's case): compared in turn, no sort of the chunk;
    # the same ranks as the sort of chunk and sample (FEW_PER_GROUP = 0) and as a full ranking
    from evalcore.engines import sampleranks

    rng = np.random.default_rng(4)
    keys = np.column_stack([rng.integers(0, 60, 6000), rng.integers(0, 400, 6000)]).astype(float)
    rows, labels = np.arange(6000), rng.random(6000) < 0.3
    pick = np.sort(rng.choice(6000, 300, replace=False))

    def ranks():
        counter = SampleCounter(keys[pick], rows[pick], labels[pick], ties, 3)
        for lo in range(0, 6000, 1700):
            counter.add(keys[lo:lo + 1700], rows[lo:lo + 1700], labels[lo:lo + 1700])
        return counter.ranks()

    assert 2 < SampleCounter(keys[pick], rows[pick], labels[pick], ties, 3).size[0].max() <= sampleranks.FEW_PER_GROUP
    few = ranks()
    monkeypatch.setattr(sampleranks, "FEW_PER_GROUP", 0)
    assert np.array_equal(few, ranks())
    cs = CandidateSet(labels=labels, scores={"x": -keys[:, 0], "y": -keys[:, 1]}, directions={})
    for j, m in enumerate(("x", "y")):
        assert np.array_equal(few[:, j], rank(cs, m, ties=ties, seed=3).ranks[pick])


@pytest.fixture(scope="module")
def sample_table():
    """20,000 candidates in DuckDB (keys ascending = better): heavy ties (k0: 40 values), ties of three decimals
    (k1), all distinct (k2), each with some non-finite scores (+inf); 300 sampled candidates; the oracle's set."""
    import duckdb  # (a dependency: never skipped)
    rng = np.random.default_rng(12)
    n = 20_000
    keys = np.column_stack([rng.integers(0, 40, n).astype(float), np.round(rng.normal(size=n), 3),
                            rng.normal(size=n) * 1e3])
    keys[rng.random((n, 3)) < 0.01] = np.inf
    labels = rng.random(n) < 0.3
    pick = np.sort(rng.choice(n, 300, replace=False))
    con = duckdb.connect()
    frame = pd.DataFrame({"__evalcore_row": np.arange(n), "label": labels, "k0": keys[:, 0], "k1": keys[:, 1],
                          "k2": keys[:, 2]})
    con.execute("CREATE TABLE t AS SELECT * FROM frame")
    scores = {f"k{j}": np.where(np.isinf(keys[:, j]), np.nan, -keys[:, j]) for j in range(3)}
    return con, keys, labels, pick, CandidateSet(labels=labels, scores=scores, directions={})


@pytest.mark.parametrize("path", ["pairs", "numpy", "ambiguous"])
@pytest.mark.parametrize("ties", ["hash", "stable", "optimistic", "pessimistic"])
def test_sample_ranks_counted_in_duckdb_equal_a_full_sort(sample_table, ties, path, monkeypatch):
    # DuckDB counts the candidates below each sampled one on a grid and its tie group by a join (the 10^8 path);
    # tie groups with many sampled candidates go to NumPy; a coarse grid leaves many candidates to their exact keys
    from evalcore.engines import samplesql

    con, keys, labels, pick, candidates = sample_table
    monkeypatch.setattr(samplesql, "PAIRS_PER_CANDIDATE", 0.0 if path == "numpy" else 1e9)
    if path == "ambiguous":
        monkeypatch.setattr(samplesql, "GRID_CELLS", 3)
    calls = []
    for name in ("_ambiguous_below", "_pairs_within", "_streamed_within"):
        original = getattr(samplesql, name)
        monkeypatch.setattr(samplesql, name, lambda *a, _f=original, _n=name, **k: calls.append(_n) or _f(*a, **k))
    got = samplesql.sample_ranks_sql(con, "t", ["k0", "k1", "k2"], pick.astype(np.int64), labels[pick],
                                     keys[pick], ties, 5, keys.shape[0])
    for j in range(3):
        assert np.array_equal(got[:, j], rank(candidates, f"k{j}", ties=ties, seed=5).ranks[pick]), j
    assert ("_streamed_within" in calls) == (path == "numpy") and ("_pairs_within" in calls) == (path != "numpy")
    assert path != "ambiguous" or "_ambiguous_below" in calls
    assert "evalcore" not in " ".join(name for (name,) in con.execute("SHOW TABLES").fetchall())  # cleaned up


def test_tie_hash_in_sql_is_tie_hash():
    import duckdb  # (a dependency: never skipped)
    from evalcore.engines.samplesql import tie_hash_sql

    rows = np.r_[np.arange(1000), 2**40 + np.arange(10)]
    for seed in (0, 2026, 2**64 - 1):
        got = duckdb.sql(f"SELECT {tie_hash_sql('r', seed)} AS h FROM (SELECT unnest($1::BIGINT[]) AS r)",
                         params=[rows.tolist()]).fetchnumpy()["h"]
        assert np.array_equal(got, tie_hash(seed, rows))


# ----------------------------------------------------------------------- what the engines refuse, in words
def test_engines_refuse_bad_input_naming_row_and_column(tmp_path):
    frame = pd.DataFrame({"label": ["TP", "FP", "maybe", "TP"], "a": [1.0, 2.0, 3.0, 4.0]})
    frame.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ColumnError, match=r"bad\.csv: row 3, column 'label'"):
        count_tables(TableSource(tmp_path / "bad.csv"), engine="duckdb", ties="stable")
    frame.assign(label=["TP", "", "FP", "TP"]).to_csv(tmp_path / "empty.csv", index=False)
    with pytest.raises(ColumnError, match=r"row 2, column 'label': 1 labels are empty.*--annotated-sample"):
        count_tables(TableSource(tmp_path / "empty.csv"), engine="duckdb", ties="stable")
    frame.assign(label=["TP", "FP", "FP", "TP"]).to_csv(tmp_path / "ok.csv", index=False)
    with pytest.raises(ParameterError, match="use 'hash'"):
        count_tables(TableSource(tmp_path / "ok.csv"), engine="duckdb", ties="random")
    with pytest.raises(ParameterError, match="no such file"):
        TableSource(tmp_path / "missing.parquet")


# ----------------------------------------------------------------------- chunks give the whole tables
def test_chunks_concatenate_to_the_whole_tables():
    cs = _random_set(np.random.default_rng(3), 5_000)
    tables = count_tables(cs, ties="hash", seed=6)
    whole = pd.concat([precision_curve(r, None) for r in tables], ignore_index=True)
    chunked = pd.concat(list(curve_chunks(tables.rankings, chunk=777)), ignore_index=True)
    pd.testing.assert_frame_equal(whole, chunked)
    a, b = tables["a"], tables["b"]
    comparison = compare_rankings(a, b)
    run = SignificantRun()
    parts = [run.add(t) for t in comparison_chunks(a, b, chunk=333)]
    pd.testing.assert_frame_equal(comparison, pd.concat(parts, ignore_index=True))
    assert run.up_to == significant_up_to(comparison) and run.n_significant == int(comparison["significant"].sum())


# ----------------------------------------------------------------------- thinned figures
def test_thinning_a_20_million_point_curve_keeps_extremes_and_boundaries():
    n_total = 20_000_000
    n = np.arange(1, n_total + 1, dtype=np.int64)
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(size=n_total // 1000)).repeat(1000)  # a curve with many local extremes
    y = walk + np.sin(n / 5e4)
    significant = (n < 1_234_567) | ((n > 5_000_000) & (n < 5_000_010)) | (n == 19_999_999)
    thinner = Thinner((1, n_total), ["y"], ["significant"], buckets=2000, also=(1_234_566,))
    chunk = 3_000_000  # parts of the n axis are cut by chunks too
    for lo in range(0, n_total, chunk):
        thinner.add(pd.DataFrame({"n": n[lo:lo + chunk], "y": y[lo:lo + chunk],
                                  "significant": significant[lo:lo + chunk]}))
    kept = thinner.result()
    assert len(kept) < 10_000
    kept_n = kept["n"].to_numpy()
    # every part's extremes (and so the global ones) are drawn
    part = thinner.bucket(n)
    starts = np.flatnonzero(np.r_[True, part[1:] != part[:-1]])
    kept_part = thinner.bucket(kept_n)
    kept_starts = np.flatnonzero(np.r_[True, kept_part[1:] != kept_part[:-1]])
    assert starts.size == 2000 and kept_starts.size == 2000  # every part of the n axis is drawn
    kept_y = kept["y"].to_numpy()
    for reduce in (np.maximum, np.minimum):
        assert np.array_equal(reduce.reduceat(kept_y, kept_starts), reduce.reduceat(y, starts)), reduce
    assert y.max() in kept["y"].to_numpy() and y.min() in kept["y"].to_numpy()
    # every significance boundary: the n on both sides of each change
    changes = np.flatnonzero(significant[1:] != significant[:-1])
    for i in changes:
        assert n[i] in kept_n and n[i + 1] in kept_n
    assert {1, n_total, 1_234_566} <= set(kept_n.tolist())
    assert np.all(np.diff(kept_n) > 0)


def test_a_short_curve_is_drawn_whole():
    table = pd.DataFrame({"n": np.arange(1, 101), "y": np.arange(100.0)})
    assert thin(table, ["y"]) is table


# ----------------------------------------------------------------------- the command line
def _cli(*args, capsys):
    from evalcore.cli import main

    code = main(list(args))
    return code, capsys.readouterr().err


def test_cli_engine_writes_what_memory_writes(files, tmp_path, capsys):
    path = str(files / "full.parquet")
    for command in (["curves", path, "--n", "1:120000:37"],
                    ["compare", path, "--measure", "a", "--measure", "b", "--n", "1:120000:11"],
                    ["compare", path, "--measure", "b", "--measure", "c", "--n", "1000:120000:997", "--mdd"]):
        outputs = {}
        for engine in ("memory", "duckdb"):
            out = tmp_path / f"{command[0]}-{engine}.csv"
            code, err = _cli(*command, "--engine", engine, "--ties", "hash", "--seed", "4", "--out", str(out),
                             capsys=capsys)
            assert code == 0, err
            outputs[engine] = out.read_bytes()
        assert outputs["memory"] == outputs["duckdb"] and len(outputs["memory"]) > 10_000
    sample = str(files / "partial.parquet")
    outputs = {}
    for engine in ("memory", "duckdb"):
        out = tmp_path / f"sample-{engine}.csv"
        code, err = _cli("compare", sample, "--annotated-sample", "--measure", "a", "--measure", "b", "--n",
                         "1:120000:13", "--engine", engine, "--ties", "stable", "--out", str(out), capsys=capsys)
        assert code == 0, err
        outputs[engine] = pd.read_csv(out)
    assert outputs["duckdb"]["size_d"].isna().all()  # the one-pass ranks do not count D1 among all candidates
    pd.testing.assert_frame_equal(outputs["memory"].drop(columns="size_d"), outputs["duckdb"].drop(columns="size_d"))
    code, err = _cli("compare", path, "--measure", "a", "--measure", "b", "--engine", "duckdb", "--test", "bootstrap",
                     capsys=capsys)
    assert code == 2 and "resamples single candidates" in err


def test_cli_exclude_unlabelled_on_every_engine(files, tmp_path, capsys):
    # issue 30: --exclude-unlabelled was refused with --engine duckdb; the same option means the same on every engine
    path = str(files / "partial.parquet")
    outputs = {}
    for engine in ("memory", "duckdb"):
        out = tmp_path / f"excluded-{engine}.csv"
        code, err = _cli("compare", path, "--measure", "a", "--measure", "b", "--n", "1:35000:7", "--engine", engine,
                         "--ties", "hash", "--exclude-unlabelled", "--out", str(out), capsys=capsys)
        assert code == 0, err
        assert "rows with an empty label (--exclude-unlabelled)" in err
        outputs[engine] = out.read_bytes()
    assert outputs["memory"] == outputs["duckdb"] and len(outputs["memory"]) > 10_000
    code, err = _cli("compare", path, "--measure", "a", "--measure", "b", "--engine", "duckdb", "--exclude-unlabelled",
                     "--annotated-sample", "--ties", "hash", capsys=capsys)
    assert code == 2 and "choose one" in err


def test_report_on_an_engine_is_the_memory_report(files, tmp_path, capsys):
    import zipfile

    contents = {}
    for engine in ("memory", "duckdb"):
        out = tmp_path / f"report-{engine}.zip"
        code, err = _cli("report", str(files / "full.parquet"), "--engine", engine, "--ties", "hash", "--seed", "9",
                         "--no-figures", "--out", str(out), capsys=capsys)
        assert code == 0, err
        with zipfile.ZipFile(out) as z:
            contents[engine] = {name: z.read(name) for name in z.namelist()}
    assert contents["memory"] == contents["duckdb"]  # numbers, tables, methods text and signature alike
    assert b"hash of the seed (9)" in contents["duckdb"]["methods.md"]


def _serial_write(chunks, target):
    """The obviously right writer: each chunk in turn, in this thread."""
    from evalcore.engines.chunked import ChunkWriter

    with ChunkWriter(target) as writer:
        for table in chunks:
            writer.write(table)
        return writer.rows


@pytest.mark.parametrize("suffix", [".parquet", ".tsv", ".csv"])
def test_write_chunks_overlapped_writes_the_bytes_of_a_serial_write(tmp_path, suffix):
    """write_chunks writes a chunk in a second thread while the next is computed: the same bytes, the same order."""
    from evalcore.engines.chunked import write_chunks

    tables = count_tables(_random_set(np.random.default_rng(3), 20_000), ties="hash", seed=5)
    chunks = lambda: curve_chunks(tables.rankings, chunk=1_500)  # noqa: E731 - 14 chunks a measure, the last short
    rows = write_chunks(chunks(), tmp_path / f"overlapped{suffix}")
    assert rows == _serial_write(chunks(), tmp_path / f"serial{suffix}") == 40_000
    assert (tmp_path / f"overlapped{suffix}").read_bytes() == (tmp_path / f"serial{suffix}").read_bytes()


def test_write_chunks_stops_on_an_error_of_either_side(tmp_path):
    """An error while computing a chunk, or while writing one, is raised by write_chunks, and the file is closed."""
    from evalcore.engines import chunked

    table = pd.DataFrame({"n": np.arange(1, 11), "x": np.linspace(0, 1, 10)})
    seen = []

    def computed():
        for i in range(5):
            seen.append(i)
            if i == 3:
                raise ParameterError("chunk 3 cannot be computed")
            yield table
    with pytest.raises(ParameterError, match="chunk 3"):
        chunked.write_chunks(computed(), tmp_path / "c.parquet")
    assert seen == [0, 1, 2, 3]
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "c.parquet").num_rows == 30  # the three chunks before, closed as a file

    def mixed():  # the second chunk's columns cannot be cast to the first's schema: the writer fails
        yield table
        yield table.assign(x=["not a number"] * 10)
        seen.append("computed after the failing write")
        yield table
        seen.append("computed two after the failing write")
        yield table
    seen.clear()
    with pytest.raises(Exception) as raised:
        chunked.write_chunks(mixed(), tmp_path / "m.parquet")
    assert not isinstance(raised.value, AssertionError)
    assert seen in ([], ["computed after the failing write"])  # at most the one chunk in flight is computed
