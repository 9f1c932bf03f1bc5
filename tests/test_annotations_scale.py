"""One big draw does not block everyone (issue 19): a 1,000,000-candidate draw in a store with a 200 MB quota, the
database within it, while two annotators click on another sample. Their clicks go on while the draw is written
(it is written in short transactions; the waits themselves are measured in bench/bench_annotate.py), the database
holds 4 bytes a candidate (today's main: 541 MB for such a draw), and a draw that cannot fit is refused."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from evalcore.annotations import DB_FILE, AnnotationStore
from evalcore.estimates import draw_sample
from evalcore.io.store import DatasetStore, StoreError

DATASET = "cd" * 32
MILLION = 1_000_000


def annotation_bytes(root) -> int:
    return sum(p.stat().st_size for p in root.glob(DB_FILE + "*"))


def test_a_million_candidate_draw_while_two_annotators_click(tmp_path):
    root = tmp_path / "store"
    datasets = DatasetStore(root, quota="200MB")
    reserve = getattr(datasets, "reserve", None)
    store = AnnotationStore(root / DB_FILE, reserve=reserve)
    store.create_sample(DATASET, "small", list(range(5000)), seed=1)
    order = draw_sample(MILLION, MILLION, seed=7)
    clicks: dict = {"alice": [], "bob": []}
    started, stop = threading.Barrier(3), threading.Event()

    def annotator(name: str) -> None:
        own = AnnotationStore(store.path)
        started.wait()
        for position in range(5000):
            if stop.is_set():
                break
            own.mark(DATASET, "small", position, position, name, "TP" if position % 2 else "FP")
            clicks[name].append(time.monotonic())  # committed at this moment
            time.sleep(0.002)
        own.close()

    threads = [threading.Thread(target=annotator, args=(name,)) for name in clicks]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(0.05)
    begin = time.monotonic()
    info = store.create_sample(DATASET, "big", order, seed=7)
    end = time.monotonic()
    time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(store.candidates_at(DATASET, "big", [0, 654_321, MILLION - 1]),
                                  order[[0, 654_321, MILLION - 1]])
    assert info.size == MILLION
    for name, times in clicks.items():
        during = [t for t in times if begin < t < end]
        # clicks committed while the draw was being written: they never waited for the draw as a whole
        assert len(during) >= 2 or end - begin < 0.05, (name, len(during), end - begin)
        assert store.progress(DATASET, "small", name)[0] == len(times)
    size = annotation_bytes(root)
    assert size < 12 * 10**6, size  # 4 bytes a candidate, plus the log (today's main: 541 MB)
    usage = datasets.usage()
    if hasattr(usage, "annotation_bytes"):  # the store counts the database in its quota
        assert usage.annotation_bytes >= size * 0.5 and usage.total_bytes <= datasets.quota
    store.close()


@pytest.fixture()
def tight(tmp_path):
    """An annotation database in a store with a 2 MB quota, reserving its writes in it; (its store, the folder)."""
    root = tmp_path / "store"
    store = AnnotationStore(root / DB_FILE, reserve=DatasetStore(root, quota="2MB").reserve)
    yield store, root
    store.close()


def test_a_draw_that_does_not_fit_in_the_quota_is_refused_and_nothing_is_written(tight):
    store, root = tight
    store.create_sample(DATASET, "small", list(range(100)), seed=1)
    with pytest.raises(StoreError, match="[Tt]he sample of 1,000,000 candidates"):
        store.create_sample(DATASET, "big", draw_sample(MILLION, MILLION, seed=7), seed=7)
    assert store.samples(DATASET)["sample"].tolist() == ["small"]
    assert annotation_bytes(root) < 2 * 10**6


def test_an_import_that_does_not_fit_in_the_quota_is_refused_and_nothing_is_written(tight):
    import pandas as pd

    store, _ = tight
    store.create_sample(DATASET, "s", list(range(20_000)), seed=1)
    store.mark(DATASET, "s", 0, 0, "alice", "TP")
    labels = pd.DataFrame({"candidate": np.arange(20_000), "annotator": "b" * 100, "label": "FP"})
    with pytest.raises(StoreError, match="import of 20,000 labels"):
        store.import_table(DATASET, "s", labels)
    assert store.table(DATASET, "s").columns.tolist() == ["alice"]  # nothing of the import, alice's mark kept
    assert store.progress(DATASET, "s", "alice")[0] == 1
