"""The p-values of a pair kept in the store chunk by chunk (evalcore/engines/pvalues.py, issue 34): equal to a fresh
computation (a server data set of 1,000,000 generated rows through the Significance page's path, evalcore_app/cached.py and
evalcore_app/serverdata.py), not computed again for a level, a correction, a sub-range or a new process, computed again to the
same numbers when evicted or damaged, and a computation stopped between chunks keeps what it stored."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from evalcore import analysis
from evalcore.engines import pvalues
from evalcore.io.store import DatasetStore
from evalcore.ranking import rank_scores
from evalcore.viewstate import RankingChoice, Roles

ROWS = 1_000_000
RANGE = (2_000, 140_000)  # three chunks of 65,536 n (the first n = 1 .. 65,535, the last up to 196,607)


def assert_same(got: analysis.PairTests, want: analysis.PairTests) -> None:
    pd.testing.assert_frame_equal(got.comparison, want.comparison, check_exact=True)
    assert list(got.p_values) == list(want.p_values) and got.test == want.test
    for test, p in want.p_values.items():
        np.testing.assert_array_equal(got.p_values[test], p)


def computed() -> int:
    return pvalues.COMPUTED["chunks"]


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    """A server data set of 1,000,000 generated rows (the benchmark's and the browser test's generator)."""
    from evalcore.engines.synthetic import write_parquet

    folder = tmp_path_factory.mktemp("pvalue_data")
    write_parquet(folder / "million.parquet", ROWS)
    return folder


@pytest.fixture()
def server(million, tmp_path, monkeypatch):
    from evalcore_app import cached, serverdata

    monkeypatch.setenv("EVALCORE_DATA_DIR", str(million))
    monkeypatch.setenv("EVALCORE_STORE", str(tmp_path / "store"))
    monkeypatch.setattr(pvalues, "_IDS", {})  # (this process's index of the store: a new store each test)
    for fn in (serverdata.count_tables, cached.pair_tests, cached.pair):
        fn.clear()
    roles = Roles(dataset="server:million.parquet", label="label", scores=("a", "b"))
    return roles, RankingChoice("hash", 3)


def test_the_stored_p_values_of_a_million_rows_equal_a_fresh_computation(server):
    from evalcore_app import cached, serverdata

    roles, choice = server
    data = cached.load(roles)
    assert data.candidates.n_candidates == ROWS
    a, b = (serverdata.ranking(roles, m, choice) for m in ("a", "b"))
    assert cached.pvalue_chunks_to_compute(data, choice, "a", "b", RANGE) == 3
    before = computed()
    first = cached.pair_tests(data, choice, "a", "b", RANGE)  # (the page's call)
    assert computed() - before == 3
    assert cached.pvalue_chunks_to_compute(data, choice, "a", "b", RANGE) == 0
    assert_same(first, analysis.pair_tests(a, b, RANGE))
    names = [DatasetStore().get(i).name for i in DatasetStore().ids()]
    assert sum(n.startswith(pvalues.PREFIX) for n in names) == 3

    # a sub-range on the same lattice, and a new process (nothing but the store): read, not computed
    seen = dict(pvalues._IDS)
    pvalues._IDS.clear()
    before = computed()
    for sub in ((50_000, 120_001), (RANGE[1], RANGE[1] + 1), (65_536, 65_536)):
        assert_same(serverdata.pair_tests(roles, choice, "a", "b", sub, "fisher"), analysis.pair_tests(a, b, sub))
    assert computed() == before
    assert set(seen) <= set(pvalues._IDS)  # found again by one scan of the store

    # a step is another lattice (its own chunks); its last n off the lattice is tested on its own
    stepped = serverdata.pair_tests(roles, choice, "a", "b", (2_001, 140_000), "fisher", n_step=1_000)
    assert computed() - before == 1
    assert_same(stepped, analysis.pair_tests(a, b, (2_001, 140_000), n_step=1_000))
    assert stepped.comparison["n"].iloc[-1] == 140_000


def test_a_level_or_a_correction_computes_no_p_value(server):
    from evalcore_app import cached

    roles, choice = server
    data = cached.load(roles)
    args = dict(data=data, ranking=choice, display=cached.Display(), a="a", b="b", n_range=(1_000, 30_000),
                interval="clopper_pearson")
    before = computed()
    results = {(0.95, "none"): cached.pair(level=0.95, **args)}
    assert computed() - before == 1
    for level, correction in ((0.99, "none"), (0.9, "holm"), (0.95, "bh")):
        results[level, correction] = cached.pair(level=level, correction=correction, **args)
    cached.pair_tests.clear()  # (another process: only the store holds them)
    cached.pair.clear()
    results[0.999, "holm"] = cached.pair(level=0.999, correction="holm", **args)
    assert computed() - before == 1
    ra, rb = (cached.ranking_of(data, m, choice) for m in ("a", "b"))
    for (level, correction), result in results.items():  # what depends on the level, from the stored p-values
        fresh = analysis.pair_comparison(ra, rb, (1_000, 30_000), confidence_level=level, correction=correction)
        pd.testing.assert_frame_equal(result.comparison, fresh.comparison, check_exact=True)
        assert (result.up_to, result.n_significant) == (fresh.up_to, fresh.n_significant)
        pd.testing.assert_frame_equal(result.counts, fresh.counts)
    assert len({r.n_significant for r in results.values()}) > 1  # (the levels do change what is marked)


@pytest.fixture()
def small(monkeypatch):
    """Two rankings of 5,000 candidates with ties, and chunks of 1,000 n."""
    monkeypatch.setattr(pvalues, "CHUNK", 1_000)
    monkeypatch.setattr(pvalues, "_IDS", {})
    rng = np.random.default_rng(34)
    labels = rng.random(5_000) < 0.2
    a = rank_scores(labels, np.round(rng.random(5_000) + 0.3 * labels, 2), ties="stable", measure="a")
    b = rank_scores(labels, np.round(rng.random(5_000) + 0.2 * labels, 2), ties="stable", measure="b")
    return a, b


@pytest.mark.parametrize("test", ["fisher", "mcnemar", "chi2_yates"])
def test_evicted_or_damaged_chunks_are_computed_again_to_the_same_numbers(small, tmp_path, test):
    a, b = small
    want = analysis.pair_tests(a, b, (1, 5_000), test=test)
    probe = DatasetStore(tmp_path / "probe")
    pvalues.pair_pvalues(a, b, (1_000, 1_999), key="k", test=test, store=probe)  # one whole chunk
    chunk_bytes = probe.usage().total_bytes
    store = DatasetStore(tmp_path / "store", quota=int(2.5 * chunk_bytes))  # room for two or three of the six
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 5_000), key="k", test=test, store=store), want)
    assert computed() - before == 6
    kept = store.usage().datasets
    assert store.usage().total_bytes <= store.quota and 2 <= kept < 6  # evicted, least recently opened first
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 5_000), key="k", test=test, store=store), want)
    assert computed() - before == 6 - kept  # the evicted ones computed again, the others read

    # a damaged copy is set aside by the store's check and computed again
    roomy = DatasetStore(tmp_path / "roomy")
    pvalues.pair_pvalues(a, b, (1, 5_000), key="k", test=test, store=roomy)
    for dataset_id in roomy.ids():
        data_file = roomy._entry(dataset_id) / "data.bin"
        raw = bytearray(data_file.read_bytes())
        raw[-9] ^= 0xFF
        data_file.write_bytes(bytes(raw))
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 5_000), key="k", test=test, store=roomy), want)
    assert computed() - before == 6


def test_a_stopped_computation_keeps_its_chunks_and_goes_on_from_there(small, tmp_path):
    a, b = small
    store = DatasetStore(tmp_path / "store")
    calls = []

    class Stop(Exception):
        pass

    def progress(done, total):  # a cancel (the page's Cancel button, a closed tab) after two chunks
        calls.append((done, total))
        if done == 2:
            raise Stop

    before = computed()
    with pytest.raises(Stop):
        pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store, progress=progress)
    assert calls == [(0, 6), (1, 6), (2, 6)] and computed() - before == 2
    assert pvalues.chunks_to_compute(a, b, (1, 5_000), key="k", store=store) == 4
    calls.clear()
    got = pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)] and computed() - before == 6
    assert_same(got, analysis.pair_tests(a, b, (1, 5_000)))


def test_other_keys_pairs_and_tests_are_other_entries(small, tmp_path):
    a, b = small
    store = DatasetStore(tmp_path / "store")
    pvalues.pair_pvalues(a, b, (1, 999), key="k", store=store)
    before = computed()
    for key, x, y, test in (("other file", a, b, "fisher"), ("k", b, a, "fisher"), ("k", a, b, "mcnemar")):
        got = pvalues.pair_pvalues(x, y, (1, 999), key=key, test=test, store=store)
        assert_same(got, analysis.pair_tests(x, y, (1, 999), test=test))
    assert computed() - before == 3
    with pytest.raises(Exception, match="resamples"):
        pvalues.pair_pvalues(a, b, (1, 999), key="k", test="bootstrap", store=store)


def test_looking_for_chunks_opens_only_the_chunks_read(small, tmp_path, monkeypatch):
    """Finding the chunks of a pair scans the store and looks at every entry's name (uploads too): the looks must
    not count as opens, or every entry would become recent and eviction would go by the order of the scan. After a
    scan that finds nothing and one that reads a chunk, the store still evicts by real opens: the chunk not read,
    the uploads in the order they were opened (the reverse of the scan's order), the chunk read last."""
    from tests.test_store import eviction_order, sized

    a, b = small
    root = tmp_path / "store"
    store = DatasetStore(root)
    pvalues.pair_pvalues(a, b, (1, 1_999), key="k", store=store)  # two chunks: n = 1 .. 999 and 1,000 .. 1,999
    chunk = {store.peek(i).name: i for i in store.ids()}
    first, second = (chunk[pvalues.entry_name("k", "a", "b", "fisher", 1, 0, k)] for k in (0, 1))
    uploads = sorted(store.put(sized(i, 5_000), f"upload {i}.csv") for i in range(3))
    for dataset_id in reversed(uploads):  # a user opens them, in the reverse of the scan's order
        store.open(dataset_id)
    monkeypatch.setattr(pvalues, "_IDS", {})  # a new process: its index is empty, so it scans the store
    assert pvalues.chunks_to_compute(a, b, (1, 999), key="another file", store=store) == 1  # finds none of its own
    monkeypatch.setattr(pvalues, "_IDS", {})
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 999), key="k", store=store), analysis.pair_tests(a, b, (1, 999)))
    assert computed() == before  # read: the first chunk, opened now
    shutil.copytree(root, tmp_path / "copy")  # (the copy keeps the times, so it evicts in the store's order)
    assert eviction_order(tmp_path / "copy") == [second, *reversed(uploads), first]


# -- equal chunks, and a cancel at every point of the work --------------------------------------------------------


@pytest.fixture()
def equal_tails(monkeypatch):
    """Two rankings of 5,000 candidates that order only their top 200 differently: beyond n = 200 both n-best lists
    are the same candidates, so D1 and D2 are empty and every p-value is 1 (as the browser test's pair beyond
    n = 851,968: its last two chunks of 65,536 n hold the same numbers); chunks of 1,000 n."""
    monkeypatch.setattr(pvalues, "CHUNK", 1_000)
    monkeypatch.setattr(pvalues, "_IDS", {})
    rng = np.random.default_rng(35)
    labels = rng.random(5_000) < 0.2
    scores = np.arange(5_000, 0, -1, dtype=np.float64)  # distinct: no ties
    other = scores.copy()
    other[:200] = rng.permutation(other[:200])
    a = rank_scores(labels, scores, ties="stable", measure="a")
    b = rank_scores(labels, other, ties="stable", measure="b")
    return a, b


def pvalue_entries(store: DatasetStore) -> list[str]:
    names = []
    for dataset_id in store.ids():
        name = store.get(dataset_id).name
        if name.startswith(pvalues.PREFIX):
            names.append(name)
    return names


def test_chunks_of_equal_p_values_are_each_kept_and_found_by_a_new_process(equal_tails, tmp_path, monkeypatch):
    # Found with the browser test's fifteen chunks, of which the store kept fourteen: the store names an entry by
    # the SHA-256 of its bytes, so two chunks of the same p-values were one entry, under the first chunk's name; a
    # new process (a restart, another server process) found the second by no scan and tested it again every time.
    a, b = equal_tails
    want = analysis.pair_tests(a, b, (1, 5_000))
    assert (want.p_values["fisher"][200:] == 1).all()  # (chunks 1 .. 4, n = 1,000 .. 4,999: the same numbers)
    store = DatasetStore(tmp_path / "store")
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store), want)
    assert computed() - before == 6
    assert sorted(pvalue_entries(store)) == sorted(  # one entry a chunk, each under its own name
        pvalues.entry_name("k", "a", "b", "fisher", 1, 0, k) for k in range(6))
    monkeypatch.setattr(pvalues, "_IDS", {})  # a new process: nothing but the store
    assert pvalues.chunks_to_compute(a, b, (1, 5_000), key="k", store=store) == 0
    before = computed()
    assert_same(pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store), want)
    assert computed() == before


class Stop(BaseException):
    """A cancel as a Streamlit run meets it: its StopException and RerunException are BaseExceptions, which an
    ``except Exception`` (or ``except OSError``) does not catch."""


#: The store's file-system steps a cancel is put in place of (in evalcore.io.store's own ``os`` and ``fcntl``).
STEPS = ("open", "fsync", "replace", "link", "rename", "unlink", "utime", "flock")


class Interrupted:
    """A module (``os`` or ``fcntl``) whose file-system steps are counted, with :class:`Stop` raised in place of
    the ``at``-th step (shared count); ``at=0`` counts only."""

    def __init__(self, module, count: dict):
        self._module, self._count = module, count

    def __getattr__(self, name):
        real = getattr(self._module, name)
        if name not in STEPS:
            return real

        def step(*args, **kwargs):
            self._count["steps"] += 1
            if self._count["steps"] == self._count["at"]:
                raise Stop(f"{name}, step {self._count['steps']}")
            return real(*args, **kwargs)

        return step


def on_disk(store: DatasetStore) -> dict:
    """What a cancel may have left in the store: temporary files, reservation files, entries without their
    description, and the bytes of every file that counts against the quota (all but the notes, reservations,
    leases)."""
    import os
    from pathlib import Path

    root = Path(store.root)
    files = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
    counted = [p for p in files if p.relative_to(root).parts[0] not in (".reservations", ".leases", ".evicted")]
    return {
        "temporary": sorted(str(p.relative_to(root)) for p in files if p.name.startswith(".tmp-")),
        "reservations": sorted(p.name for p in (root / ".reservations").iterdir()) if (root / ".reservations").exists()
        else [],
        "incomplete": sorted(p.name for p in root.glob("[0-9a-f][0-9a-f]/*") if not (p / "meta.json").exists()),
        "bytes": sum(os.lstat(p).st_size for p in counted),
    }


def resumed_and_clean(a, b, store: DatasetStore, want, chunks: int, monkeypatch, n_range=(1, 5_000)) -> None:
    """After a cancel: nothing stale in the store (no temporary file, no entry without its description, every byte
    on disk counted in the quota, no reservation held; a reservation's file is left only where the cancel took the
    place of its removal, and then nobody holds it: the next write's check drops it); the next call stores every
    chunk, and a new process finds them all."""
    left = on_disk(store)
    assert left["temporary"] == [] and left["incomplete"] == [] and len(left["reservations"]) <= 1, left
    assert store.usage().total_bytes == left["bytes"] and store.usage().reserved_bytes == 0
    assert_same(pvalues.pair_pvalues(a, b, n_range, key="k", store=store), want)
    assert sorted(pvalue_entries(store)) == sorted(
        pvalues.entry_name("k", "a", "b", "fisher", 1, 0, k) for k in range(chunks))
    monkeypatch.setattr(pvalues, "_IDS", {})  # a new process
    assert pvalues.chunks_to_compute(a, b, n_range, key="k", store=store) == 0
    with store.reserve(1):  # (the next write's check: a reservation nobody holds is dropped)
        pass
    after = on_disk(store)
    assert after == {**after, "temporary": [], "reservations": [], "incomplete": []}, after
    assert store.usage().total_bytes == after["bytes"] and store.usage().reserved_bytes == 0


@pytest.mark.parametrize("at", range(7))
def test_a_cancel_at_any_progress_report_keeps_what_was_stored(small, tmp_path, monkeypatch, at):
    a, b = small
    want = analysis.pair_tests(a, b, (1, 5_000))
    store = DatasetStore(tmp_path / "store")

    def progress(done, total):
        if done == at:
            raise Stop

    with pytest.raises(Stop):
        pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store, progress=progress)
    assert len(pvalue_entries(store)) == at  # (reported after it is stored)
    resumed_and_clean(a, b, store, want, 6, monkeypatch)


@pytest.mark.parametrize("at", range(1, 7))
def test_a_cancel_while_a_chunk_is_tested_keeps_the_chunks_before(small, tmp_path, monkeypatch, at):
    a, b = small
    want = analysis.pair_tests(a, b, (1, 5_000))
    store = DatasetStore(tmp_path / "store")
    tested, calls = pvalues._tested, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == at:
            raise Stop
        return tested(*args)

    monkeypatch.setattr(pvalues, "_tested", interrupted)
    with pytest.raises(Stop):
        pvalues.pair_pvalues(a, b, (1, 5_000), key="k", store=store)
    monkeypatch.setattr(pvalues, "_tested", tested)
    assert len(pvalue_entries(store)) == at - 1
    resumed_and_clean(a, b, store, want, 6, monkeypatch)


def test_a_cancel_at_any_step_of_a_write_leaves_nothing_stale_and_the_next_call_stores_every_chunk(
        small, tmp_path, monkeypatch):
    """A cancel in place of each file-system step of the store's writes of three chunks (its reservation, temporary
    files, moves into place, descriptions), as a stopped run raises it: BaseException, not OSError. Before the fix
    it left a reservation held for the life of the process, the data's temporary file, entries without their
    description."""
    import fcntl
    import os

    import evalcore.io.store as store_module

    a, b = small
    n_range = (1, 2_999)  # three chunks
    want = analysis.pair_tests(a, b, n_range)
    tested, memo = pvalues._tested, {}

    def tested_once(x, y, sizes, test):  # (each chunk tested once: what is cancelled here is the store's work)
        if (sizes.tobytes(), test) not in memo:
            memo[sizes.tobytes(), test] = tested(x, y, sizes, test)
        return memo[sizes.tobytes(), test]

    monkeypatch.setattr(pvalues, "_tested", tested_once)
    count = {"steps": 0, "at": 0}
    monkeypatch.setattr(store_module, "os", Interrupted(os, count))
    monkeypatch.setattr(store_module, "fcntl", Interrupted(fcntl, count))
    pvalues.pair_pvalues(a, b, n_range, key="k", store=DatasetStore(tmp_path / "probe"))
    steps = count["steps"]
    assert steps > 3 * 10
    for at in range(1, steps + 1):
        store = DatasetStore(tmp_path / f"store{at}")
        monkeypatch.setattr(pvalues, "_IDS", {})
        count.update(steps=0, at=at)
        with pytest.raises(Stop):
            pvalues.pair_pvalues(a, b, n_range, key="k", store=store)
        count["at"] = 0
        try:
            resumed_and_clean(a, b, store, want, 3, monkeypatch, n_range)
        except AssertionError as e:
            raise AssertionError(f"cancelled at step {at} of {steps}: {e}") from None
