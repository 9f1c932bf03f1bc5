"""Pooled designs on the command line (issue 30): the annotated set is checked against the design it claims, an
export's design comes from its evalcore: columns, a plain file's seed is "unknown", --measure need not name the
pool's measures, and pool-plan reads a pooled pilot with the design's own estimator.

Krenn's data with every label hidden but those of a pool + sample design (the pool of the top 120 of G2 and t,
ties stable, and a random sample of 150 of the rest, seed 7), once as a plain file (the labels alone) and once as
the Annotate page's export of the same sample (evalcore:design, evalcore:sample_position, annotator:alice).
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from evalcore.annotations import AnnotationStore, export_table, write_export
from evalcore.estimates import SamplingFrame
from evalcore.io import load_candidates, read_table
from evalcore.pooling import Design, Strata, best_ranks, draw_design
from evalcore.ranking import rank
from test_cli_estimates import _hide, run

FRAME = SamplingFrame(("log.like", "t.score"), 120, ties="stable")
DESIGN = Design("pool+sample", FRAME, size=150, seed=7)
DATASET = "ab" * 32
LABEL = ("--label", "is.colloc", "--annotated-sample", "--ties", "stable")


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    return load_candidates(krenn_tsv, label="is.colloc")


def _export(krenn, krenn_tsv, folder, design=DESIGN, seed=7, name="pilot"):
    """The Annotate page's export of ``design`` drawn on Krenn's data, every candidate of it marked by alice."""
    order = draw_design(design, krenn)
    store = AnnotationStore(folder / f"{name}.sqlite3")
    record = design.record(int(design.pool_mask(krenn).sum())) if design.pooled else {}
    store.create_sample(DATASET, name, order, seed=seed, frame=design.frame, design=record)
    store.import_table(DATASET, name, pd.DataFrame({"candidate": order, "annotator": "alice",
                                                    "label": np.where(krenn.labels[order], "TP", "FP")}))
    data = read_table(krenn_tsv)
    data["is.colloc"] = ""
    table = export_table(krenn, store.table(DATASET, name), store.sample(DATASET, name), data=data,
                         label_column="is.colloc")
    path = folder / f"{name}.tsv"
    path.write_bytes(write_export(table, "tsv"))
    return order, path


@pytest.fixture(scope="module")
def files(krenn, krenn_tsv, tmp_path_factory):
    folder = tmp_path_factory.mktemp("exported")
    order, export = _export(krenn, krenn_tsv, folder)
    return order, _hide(krenn_tsv, folder, order), export


@pytest.mark.parametrize("m, words", [(5, "more than the sample of the rest can hold"), (200, "not 200")])
def test_pool_sample_is_checked_against_the_annotated_set(files, m, words):
    _, plain, _ = files
    code, out, err = run("curves", plain, *LABEL, "--pool", "log.like,t.score:120", "--pool-sample", m, "--n", "500")
    assert code == 2 and out == ""
    assert f"--pool-sample {m}: 150 candidates are annotated outside the pool, {words}" in err
    assert "give --pool-sample 150" in err


def test_a_plain_file_carries_no_seed_and_the_note_says_so(files):
    _, plain, _ = files
    code, out, err = run("curves", plain, *LABEL, "--pool", "log.like,t.score:120", "--pool-sample", 150, "--n",
                         "500", "--measure", "log.like")
    assert code == 0, err
    assert "(seed unknown)" in err and "seed 0" not in err
    assert "150 candidates annotated outside the pool (the sample of m = 150, seed unknown)" in err


def test_an_export_brings_its_own_design(krenn, files, tmp_path):
    order, _, export = files
    sig = tmp_path / "sig.txt"
    code, out, err = run("curves", export, *LABEL, "--measure", "MI", "--n", "100,500,3000", "--signature", sig)
    assert code == 0, err
    assert "the design of sample pilot of the export" in err and "(seed 7)" in err
    assert "the pool's measures log.like, t.score are read to find the pool" in err
    got = pd.read_csv(io.StringIO(out))
    assert got["measure"].unique().tolist() == ["MI"]
    part = krenn.with_annotations(order, krenn.labels[order])
    want = Strata.of(DESIGN, part).precision(rank(part, "MI", ties="stable"), [100, 500, 3000])
    np.testing.assert_allclose(got[["estimate", "lower", "upper"]], want[["estimate", "lower", "upper"]])
    assert got["regime"].tolist() == want["regime"].astype(str).tolist()
    line = sig.read_text().strip()
    assert "|pool log.like%2Ct.score:120|" in line  # (the signature names the design taken from the file)
    code, _, err = run("reproduce", line, export)
    assert code == 0, err
    # the pool alone, as asked: the export's sample of the rest is left unused
    code, out, err = run("curves", export, *LABEL, "--pool", "t.score,log.like:120", "--measure", "log.like",
                         "--n", "100,121")
    assert code == 0, err
    assert pd.read_csv(io.StringIO(out))["in_frame"].tolist() == [True, False]
    assert "150 annotated candidates outside the pool are not used" in err


def test_an_export_of_a_random_sample_of_a_frame_brings_its_frame(krenn, krenn_tsv, tmp_path):
    from evalcore.estimates import precision_estimates

    frame = SamplingFrame(("log.like",), 1000, ties="stable")
    order, export = _export(krenn, krenn_tsv, tmp_path, design=Design("sample", frame, size=200, seed=5),
                            name="framed")
    code, out, err = run("curves", export, *LABEL, "--measure", "log.like", "--n", "500,1000,1001")
    assert code == 0, err
    assert "the design of sample framed of the export" in err and "top 1,000 candidates of log.like" in err
    got = pd.read_csv(io.StringIO(out))
    part = krenn.with_annotations(order, krenn.labels[order])
    want = precision_estimates(rank(part, "log.like", ties="stable"), [500, 1000, 1001], frame=frame.mask(part))
    assert got["in_frame"].tolist() == [True, True, False]  # (a sample of the top 1,000 says nothing beyond it)
    columns = ["estimate", "lower", "upper"]
    np.testing.assert_allclose(got[columns].iloc[:2], want[columns].iloc[:2])
    code, _, err = run("curves", export, *LABEL, "--measure", "MI", "--n", "500")
    assert code == 2 and "add --measure log.like" in err, err


@pytest.mark.parametrize("argv, message", [
    (["--pool", "log.like,t.score:150"], "is an export whose design is pool+sample log.like,t.score K=120"),
    (["--pool", "log.like,t.score:120", "--pool-sample", "149"], "the export's design has a sample of m = 150"),
    (["--sample-frame", "log.like:100"], "give one"),
])
def test_options_that_state_another_design_than_the_exports_are_refused(files, argv, message):
    _, _, export = files
    code, out, err = run("curves", export, *LABEL, "--n", "100", *argv)
    assert code == 2 and out == "" and message in err, err


def test_an_export_whose_labels_lie_outside_its_sample_is_refused(krenn, files, tmp_path):
    order, _, export = files
    table = pd.read_csv(export, sep="\t", dtype=str, keep_default_na=False)
    stray = int(np.setdiff1d(np.arange(krenn.n_candidates), order)[0])
    table.loc[stray, "is.colloc"] = "TRUE"
    path = tmp_path / "stray.tsv"
    table.to_csv(path, sep="\t", index=False)
    code, out, err = run("compare", path, *LABEL, "--measure", "MI", "--measure", "Dice", "--n", "500")
    assert code == 2 and out == ""
    assert "1 candidate carries a label but is not in the sample its evalcore:design describes" in err
    assert f"data row {stray + 1}" in err


def test_measure_need_not_name_the_pools_measures(krenn, files):
    order, plain, _ = files
    pool = ("--pool", "log.like,t.score:120", "--pool-sample", 150)
    code, out, err = run("curves", plain, *LABEL, *pool, "--measure", "MI", "--n", "500,3000")
    assert code == 0, err
    assert pd.read_csv(io.StringIO(out))["measure"].unique().tolist() == ["MI"]
    code, out, err = run("compare", plain, *LABEL, *pool, "--measure", "MI", "--measure", "Dice", "--n", "500,3000")
    assert code == 0, err
    part = krenn.with_annotations(order, krenn.labels[order])
    want = Strata.of(DESIGN, part).compare(rank(part, "MI", ties="stable"), rank(part, "Dice", ties="stable"),
                                           [500, 3000])
    np.testing.assert_allclose(pd.read_csv(io.StringIO(out))["p_value"], want["p_value"], rtol=1e-12)


def test_the_design_of_an_export_and_of_a_record_without_seed(krenn, krenn_tsv, files, tmp_path):
    from evalcore.pooling import design_of_export

    order, plain, export = files
    assert design_of_export(read_table(plain)) is None
    found = design_of_export(read_table(export))
    assert found.design == DESIGN and found.name == "pilot" and found.pool_size == int(DESIGN.pool_mask(krenn).sum())
    np.testing.assert_array_equal(found.rows, order)
    _, unseeded = _export(krenn, krenn_tsv, tmp_path, seed=None, name="unseeded")
    seedless = design_of_export(read_table(unseeded)).design
    assert seedless.seed is None and "seed unknown" in seedless.describe() and "seed unknown" in seedless.short()
    code, _, err = run("curves", unseeded, *LABEL, "--n", "500", "--measure", "t.score")
    assert code == 0 and "(seed unknown)" in err, err


# ------------------------------------------------------------------------------------------- pool-plan


def _slow_rate(krenn, order, target, best, n, K, pool0):
    """The pilot's rate of the target's n-best list outside the planned pool of depth K, by the pilot's design (a
    pool known whole, a simple random sample of the rest), written out candidate by candidate."""
    annotated = set(int(i) for i in order)
    rest = [i for i in range(krenn.n_candidates) if not pool0[i]]
    m_all = [i for i in rest if i in annotated]
    p0 = (sum(krenn.labels[i] for i in range(krenn.n_candidates) if pool0[i])
          + len(rest) * sum(krenn.labels[i] for i in m_all) / len(m_all)) / krenn.n_candidates
    region = [int(i) for i in rank(krenn, target, ties="stable").order[:n] if best[i] > K]
    known = [i for i in region if pool0[i]]
    sampled = [i for i in region if not pool0[i]]
    seen = [i for i in sampled if i in annotated]
    k = sum(krenn.labels[i] for i in seen)
    tps = sum(krenn.labels[i] for i in known) + len(sampled) * (k + 2 * p0) / (len(seen) + 2)
    return tps / len(region), sum(krenn.labels[i] for i in region) / len(region)


def test_pool_plan_reads_a_pooled_pilot_with_its_designs_estimator(krenn, krenn_tsv, tmp_path):
    """A pilot whose pool (the top 400 of G2 and t, 515 candidates, 36% TPs) reaches deeper than the planned one:
    read as a random sample, the pool's TPs would raise the planned rate of the lists' rest (issue 30)."""
    from evalcore.pooling.planning import _pilot_rates

    deep = Design("pool+sample", SamplingFrame(FRAME.measures, 400, ties="stable"), size=100, seed=7)
    order, export = _export(krenn, krenn_tsv, tmp_path, design=deep, name="deep")
    argv = ("--label", "is.colloc", "--pool-measures", "log.like,t.score", "--budget", 1500, "--n", 2500, "--ties",
            "stable")
    code, out, err = run("pool-plan", export, *argv)
    assert code == 0, err
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    K = int(row["depth"])
    pool0 = deep.pool_mask(krenn)
    best = best_ranks([rank(krenn, m, ties="stable") for m in FRAME.measures])
    part = krenn.with_annotations(order, krenn.labels[order])
    for target in FRAME.measures:
        want, real = _slow_rate(krenn, order, target, best, 2500, K, pool0)
        assert row[f"rate_{target}"] == pytest.approx(want, rel=1e-12)
        ranking = rank(part, target, ties="stable")
        as_random = _pilot_rates(ranking, best, 2500, np.array([K]), ranking.n_annotated_tp / ranking.n_annotated)[0]
        assert abs(want - real) < 0.04 < as_random - real  # (the pilot's pool counted as if sampled: main's plan)
    assert "its TP rates estimated by that design" in err
    # the plain file holds the same labels but not the design: read as a random sample of the whole set, and said so
    # (and --measure need not name the pool's measures)
    code, out, err = run("pool-plan", _hide(krenn_tsv, tmp_path, order), *argv, "--measure", "MI")
    assert code == 0 and "taken as a simple random sample of the whole set" in err, err


def test_pilot_rates_by_the_design_equal_a_slow_count(krenn):
    from evalcore.pooling.planning import PilotStrata, _pilot_rates

    pilot = Design("pool+sample", SamplingFrame(("Dice",), 200, ties="stable"), size=300, seed=3)
    order = draw_design(pilot, krenn)
    part = krenn.with_annotations(order, krenn.labels[order])
    strata = PilotStrata.of(pilot, part)
    assert strata.kinds == ("complete", "sampled")
    target = rank(part, "t.score", ties="stable")
    best = best_ranks([rank(krenn, m, ties="stable") for m in ("log.like", "t.score")])
    depths = np.array([0, 50, 300, 900])
    p0 = strata.baseline(target)
    got = _pilot_rates(target, best, 1500, depths, p0, strata)
    pool0 = pilot.pool_mask(krenn)
    for K, value in zip(depths, got):
        want, _ = _slow_rate(krenn, order, "t.score", best, 1500, int(K), pool0)
        assert value == pytest.approx(want, rel=1e-12)
    # a pool alone says nothing of the rest: planning then needs the guess
    alone = PilotStrata.of(Design("pool", pilot.frame, seed=3), part)
    assert alone.kinds == ("complete", "unknown") and alone.baseline(target) is None


def test_a_report_of_an_export_uses_the_exports_design(files, tmp_path):
    """``report --annotated-sample`` reads an export's design as curves and compare do: the same numbers as the plain
    file with the design stated (pool of 120 of G2 and t, a sample of 150 of the rest, seed 7), not those of a random
    sample of the whole set, which a report of the export gave before; options stating another design are refused,
    and the signature names the design, so ``reproduce`` of the export holds."""
    import json
    import zipfile

    _, plain, export = files
    common = (*LABEL, "--measure", "log.like", "--measure", "t.score", "--n", "100,500,2000", "--no-figures")
    numbers = {}
    for name, path, extra in (("export", export, ()),
                              ("stated", plain, ("--pool", "log.like,t.score:120", "--pool-sample", "150",
                                                 "--sample-seed", "7")),
                              ("random", plain, ())):
        sig = tmp_path / f"{name}.txt"
        code, _, err = run("report", path, *common, *extra, "--out", tmp_path / f"{name}.zip", "--signature", sig)
        assert code == 0, err
        data = json.loads(zipfile.ZipFile(tmp_path / f"{name}.zip").read("data.json"))
        numbers[name] = data["numbers"]
        if name == "export":
            line = sig.read_text().strip()
            assert "|pool log.like,t.score:120|pool-sample 150|sample-seed 7|" in line
            code, out, err = run("reproduce", line, export)
            assert code == 0 and "numbers: match" in out, out + err
    assert numbers["export"] == numbers["stated"]
    assert numbers["export"] != numbers["random"]
    code, out, err = run("report", export, *common, "--pool", "log.like,t.score:120", "--pool-sample", "5", "--out",
                         tmp_path / "bad.zip")
    assert code == 2 and "--pool-sample 5: the export's design has a sample of m = 150" in err
    assert not (tmp_path / "bad.zip").exists()
