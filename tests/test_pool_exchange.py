"""A pooled design travels with its sample (issue 22): stored in the annotation database with its record, exported
as CSV, TSV and Parquet and imported again, it is the same design over the same draw and the same labels; the
estimates from the imported labels equal those from the stored ones."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.annotations import AnnotationStore, annotated_candidate_set, export_table, import_export, write_export
from evalcore.candidates import CandidateSet
from evalcore.estimates import SamplingFrame
from evalcore.pooling import Design, Strata, draw_design
from evalcore.ranking import rank

DS = "d" * 64


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    rng = np.random.default_rng(11)
    n = 600
    truth = rng.random(n) < 0.25
    scores = {"A": rng.normal(size=n) + truth, "B": rng.normal(size=n) + truth, "C": rng.normal(size=n)}
    candidates = CandidateSet(labels=np.zeros(n, bool), scores=scores, directions={m: "higher" for m in scores},
                              annotated=np.zeros(n, bool))
    design = Design("pool+sample", SamplingFrame(("A", "B"), 25, ties="stable"), size=40, seed=3)
    pool = design.pool_mask(candidates)
    store = AnnotationStore(tmp_path_factory.mktemp("ann") / "a.sqlite3")
    order = draw_design(design, candidates)
    info = store.create_sample(DS, "pools3", order, seed=3, frame=design.frame,
                               design=design.record(int(pool.sum())))
    for position, c in enumerate(order):
        store.mark(DS, "pools3", position, int(c), "ann", "TP" if truth[c] else "FP")
    return candidates, design, store, store.sample(DS, "pools3")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_the_design_is_exported_and_imported_with_the_sample(stored, tmp_path, fmt):
    candidates, design, store, info = stored
    assert Design.from_record(info.frame, info.design, info.seed, info.size) == design
    labels = store.table(DS, info.name)
    data = write_export(export_table(candidates, labels, info), fmt)
    other = AnnotationStore(tmp_path / "b.sqlite3")
    imported = import_export(other, DS, data, fmt, candidates=candidates)
    assert imported.name == info.name and imported.design == info.design
    assert Design.from_record(imported.frame, imported.design, imported.seed, imported.size) == design
    np.testing.assert_array_equal(imported.candidates, info.candidates)
    again = other.table(DS, imported.name)
    a = annotated_candidate_set(candidates, labels, "majority")
    b = annotated_candidate_set(candidates, again, "majority")
    strata = Strata.of(design, a)
    for measure in ("A", "C"):
        x = strata.precision(rank(a, measure, ties="stable"), [10, 25, 100, 600])
        y = strata.precision(rank(b, measure, ties="stable"), [10, 25, 100, 600])
        assert x.drop(columns="measure").equals(y.drop(columns="measure"))
    assert set(strata.precision(rank(a, "A", ties="stable"), [10, 100])["regime"]) == {"exact", "estimated"}


def test_a_sample_stored_without_a_design_record_is_a_random_sample(stored):
    _, _, store, _ = stored
    plain = store.create_sample(DS, "s1", np.arange(30), seed=1)
    assert Design.from_record(plain.frame, plain.design, plain.seed, plain.size) == Design("sample", size=30, seed=1)
