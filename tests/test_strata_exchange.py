"""A stratified design travels with its sample (issue 33): stored in the annotation database with its record,
exported as CSV, TSV and Parquet and imported again, it is the same design over the same draw and the same labels,
with the same estimates; a hostile design record is refused at the import, nothing stored."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalcore.annotations import (AnnotationError, AnnotationStore, annotated_candidate_set, export_table,
                                  import_export, write_export)
from evalcore.candidates import CandidateSet
from evalcore.pooling import Design, Strata, StratifiedDesign
from evalcore.pooling.stratified import stratified_name
from evalcore.ranking import rank

DS = "e" * 64


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    rng = np.random.default_rng(33)
    n = 700
    truth = rng.random(n) < 0.2
    scores = {"A": rng.normal(size=n) + 2 * truth, "B": rng.normal(size=n) + truth, "C": rng.normal(size=n)}
    candidates = CandidateSet(labels=np.zeros(n, bool), scores=scores, directions={m: "higher" for m in scores},
                              annotated=np.zeros(n, bool))
    design = StratifiedDesign.of(["A", "B"], (30, 120), (30, 25, 40), ties="hash", tie_seed=9, seed=4)
    store = AnnotationStore(tmp_path_factory.mktemp("ann") / "a.sqlite3")
    order = design.draw(candidates)
    name = stratified_name(design)
    store.create_sample(DS, name, order, seed=design.seed, frame=design.frame, design=design.record())
    for position, c in enumerate(order[:80]):  # annotation under way: 80 of the 95
        store.mark(DS, name, position, int(c), "ann", "TP" if truth[c] else "FP")
    return candidates, design, store, store.sample(DS, name)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet"])
def test_the_design_is_exported_and_imported_with_the_sample(stored, tmp_path, fmt):
    candidates, design, store, info = stored
    assert Design.from_record(info.frame, info.design, info.seed, info.size) == design
    labels = store.table(DS, info.name)
    data = write_export(export_table(candidates, labels, info), fmt)
    other = AnnotationStore(tmp_path / "b.sqlite3")
    imported = import_export(other, DS, data, fmt, candidates=candidates)
    assert imported.name == info.name and imported.design == info.design and imported.frame == info.frame
    assert Design.from_record(imported.frame, imported.design, imported.seed, imported.size) == design
    np.testing.assert_array_equal(imported.candidates, info.candidates)
    a = annotated_candidate_set(candidates, labels, "majority")
    b = annotated_candidate_set(candidates, other.table(DS, imported.name), "majority")
    strata = Strata.of(design, a)
    for measure in ("A", "C"):
        x = strata.precision(rank(a, measure, ties="hash", seed=9), [10, 30, 100, 700])
        y = Strata.of(design, b).precision(rank(b, measure, ties="hash", seed=9), [10, 30, 100, 700])
        assert x.drop(columns="measure").equals(y.drop(columns="measure"))


def _with_design(stored, change) -> bytes:
    candidates, _, store, info = stored
    table = export_table(candidates, store.table(DS, info.name), info)
    record = json.loads(table["evalcore:design"].iloc[0])
    change(record)
    table["evalcore:design"] = pd.Series([json.dumps(record)] + [pd.NA] * (len(table) - 1), dtype=object)
    return write_export(table, "csv")


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(sizes=[30, 25, 41]), "sizes: 96"),
    (lambda r: r.update(sizes="30,25,40"), "band sizes"),
    (lambda r: r.update(widths=[30, -1]), "band widths"),
    (lambda r: r.update(widths=[30] * 80), "band widths"),
    (lambda r: r.update(kind="strata"), "kind"),
    (lambda r: r["frame"].update(k=31), "cuts 150 ranks"),
    (lambda r: r["frame"].update(ties="optimistic"), "ties"),
])
def test_a_hostile_design_record_is_refused_and_nothing_is_stored(stored, tmp_path, change, message):
    candidates = stored[0]
    data = _with_design(stored, change)
    other = AnnotationStore(tmp_path / "c.sqlite3")
    with pytest.raises(AnnotationError) as caught:
        import_export(other, DS, data, "csv", candidates=candidates)
    text = str(caught.value)
    assert len(text) <= 300 and "Traceback" not in text
    assert message in text or message.split(":")[0] in text, text
    assert other.samples(DS).empty  # nothing stored
