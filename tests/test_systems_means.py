"""Tests for means and for all pairs in the systems comparison (evalcore.systems.meantests, compare): the paired
t-test and Wilcoxon's signed-rank test equal scipy with the same options, Holm over the pairs; ranx's paired t-test
exactly and its Fisher randomization test within Monte Carlo error; the randomized Tukey HSD (Carterette 2012) and
the bootstrap and randomization of a mean against plain loops; the per-item score table (``--metric mean``); the
command line's JSON for ROUGE, a score table and TREC runs, and ``reproduce``.

Where the numbers come from: scipy 1.17.1 and ranx 0.3.21, stored in
tests/reference/systems_libraries_reference.json by tests/reference/make_systems_libraries_reference.py (which
imports nothing of evalcore) and called here; plain loops written here over the same random draws.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from evalcore.cli import main
from evalcore.errors import ColumnError, ParameterError
from evalcore.stats.multitest import adjust_pvalues
from evalcore.systems.compare import PairTests, ResamplingSettings, compare_systems, pair_indices
from evalcore.systems.inputs import ItemTable, read_item_table
from evalcore.systems.statistics import table_statistics

REFERENCE = json.loads((Path(__file__).parent / "reference" / "systems_libraries_reference.json").read_text("utf-8"))
STORED = REFERENCE["tests"]


def _mean_table(values: dict) -> ItemTable:
    names = list(values)
    scores = np.stack([np.asarray(values[n], dtype=float) for n in names], axis=1)[:, None, :]
    counts = np.concatenate([scores, np.ones_like(scores)], axis=1)
    return ItemTable("mean", tuple(f"i{k}" for k in range(scores.shape[0])), tuple(names), counts)


@pytest.fixture(scope="module")
def stored_result():
    table = _mean_table(STORED["values"])
    return compare_systems(table_statistics(table), ResamplingSettings(2000, 5), tests=PairTests(("ttest",)))


def test_the_paired_t_test_equals_scipy_and_ranx(stored_result):
    pairs = stored_result.pairs
    assert pairs["p_ttest"].tolist() == [row["ttest"] for row in STORED["pairs"]]
    assert pairs["p_ttest"].tolist() == [row["ranx_ttest"] for row in STORED["pairs"]]  # ranx's is scipy's
    assert_array_equal(pairs["p_ttest_adjusted"], adjust_pvalues(pairs["p_ttest"].to_numpy(), "holm"))


@pytest.mark.parametrize("case", range(15))
def test_wilcoxon_equals_scipy_with_each_option(case):
    table = _mean_table(STORED["values"])
    options = STORED["pairs"][0]["wilcoxon"][case]
    tests = PairTests(("wilcoxon",), zero_method=options["zero_method"], method=options["method"],
                      correction=options["correction"])
    result = compare_systems(table_statistics(table), ResamplingSettings(100, 1), tests=tests)
    expected = [next(w["p"] for w in row["wilcoxon"] if w["zero_method"] == options["zero_method"]
                     and w["method"] == options["method"] and w["correction"] == options["correction"])
                for row in STORED["pairs"]]
    assert result.pairs["p_wilcoxon"].tolist() == expected
    assert_array_equal(result.pairs["p_wilcoxon_adjusted"], adjust_pvalues(np.array(expected), "holm"))


def test_randomization_agrees_with_ranx_fisher_within_monte_carlo_error(stored_result):
    """ranx's Fisher randomization test (100,000 permutations, seed 42: p = #{|δ*| ≥ |δ|} / R) against ours
    (2,000 swaps: (1 + #) / (R + 1)): within 4 standard errors of the two estimates plus 1 / (R + 1)."""
    for row, ours in zip(STORED["pairs"], stored_result.pairs["p_randomization"]):
        p = row["ranx_fisher_100000"]
        se = math.sqrt(max(p * (1 - p), 1e-4) * (1 / 2000 + 1 / 100_000))
        assert abs(ours - p) <= 4 * se + 1 / 2001, (row["a"], row["b"], ours, p)


def test_randomization_on_the_same_values_as_a_plain_loop():
    """Our approximate randomization test (5,000 resamples, seed 9) against the plainest reading of it: 200,000
    random swaps of each item's two values, the share whose absolute difference of means is at least the observed
    one. (ranx's fisher_randomization_test was compared here live; it is seeded through numba's threads and gives
    another value on every run, 0.177 to 0.190 for the pair a, c, whose plain value is 0.193: not a reference.)"""
    table = _mean_table(STORED["values"])
    result = compare_systems(table_statistics(table), ResamplingSettings(5000, 9))
    values = {k: np.array(v) for k, v in STORED["values"].items()}
    rng = np.random.default_rng(2024)
    for (a, b), ours in zip((("a", "b"), ("a", "c"), ("b", "c")), result.pairs["p_randomization"]):
        x, y = values[a], values[b]
        observed = abs(x.mean() - y.mean())
        hits = 0
        for _ in range(10):
            swap = rng.random((20_000, len(x))) < 0.5
            d = np.abs(np.where(swap, y, x).mean(axis=1) - np.where(swap, x, y).mean(axis=1))
            hits += int((d >= observed - 1e-12).sum())
        p = hits / 200_000
        se = math.sqrt(max(p * (1 - p), 1e-4) * (1 / 5000 + 1 / 200_000))
        assert abs(ours - p) <= 4 * se + 1 / 5001, (a, b, ours, p)


def _plain_tukey(values: np.ndarray, score, resamples: int, seed: int) -> list[float]:
    """Carterette's randomized Tukey HSD, one permutation and one item at a time, over the same draws."""
    n, n_stats, k = values.shape
    from evalcore.systems.meantests import tukey_block_rows

    rng = np.random.default_rng(seed)
    rows = tukey_block_rows(n, k, n_stats)
    ranges = []
    done = 0
    while done < resamples:
        block = min(rows, resamples - done)
        perm = rng.permuted(np.tile(np.arange(k), (block, n, 1)), axis=2)
        for r in range(block):
            sums = [[0.0] * n_stats for _ in range(k)]
            for i in range(n):
                for j in range(k):
                    for t in range(n_stats):
                        sums[j][t] += values[i, t, perm[r, i, j]]
            scores = [float(score(np.array(s))) for s in sums]
            ranges.append(max(scores) - min(scores))
        done += block
    observed = [float(score(values[:, :, j].sum(axis=0))) for j in range(k)]
    out = []
    for a, b in pair_indices(k):
        delta = abs(observed[b] - observed[a])
        out.append(1.0 if delta == 0 else (1 + sum(1 for g in ranges if g >= delta - 1e-11)) / (resamples + 1))
    return out


@pytest.mark.parametrize("metric", ["mean", "f1"])
def test_tukey_hsd_equals_a_plain_loop(metric):
    rng = np.random.default_rng(12)
    if metric == "mean":
        table = _mean_table({"a": rng.random(25), "b": rng.random(25) + 0.2, "c": rng.random(25), "d": rng.random(25)})
    else:
        counts = np.stack([rng.integers(0, 6, (25, 3)), rng.integers(0, 4, (25, 3)), rng.integers(0, 4, (25, 3))], 1)
        table = ItemTable("f1", tuple(map(str, range(25))), ("a", "b", "c"), counts.astype(float))
    stats = table_statistics(table)
    result = compare_systems(stats, ResamplingSettings(300, 4), tests=PairTests(("tukey",)))
    expected = _plain_tukey(stats.values, stats.metric.score, 300, 4)
    assert result.pairs["p_tukey"].tolist() == expected
    # one family: the smallest Tukey p is never below the smallest unadjusted randomization p by more than chance
    assert result.pairs["p_tukey"].min() >= 1 / 301


def test_tukey_p_values_are_larger_than_the_pair_alone_for_many_systems():
    """Ten systems with one real difference: the family's p-value of the other pairs is larger (the range of ten
    permuted means is wider than one pair's difference)."""
    rng = np.random.default_rng(3)
    values = {f"s{k}": rng.random(80) for k in range(10)}
    values["s9"] = values["s9"] + 0.15
    result = compare_systems(table_statistics(_mean_table(values)), ResamplingSettings(2000, 1),
                             tests=PairTests(("tukey",)))
    assert (result.pairs["p_tukey"] >= result.pairs["p_randomization"] - 0.02).all()
    top = result.pairs[(result.pairs["b"] == "s9")]
    assert (top["p_tukey"] < 0.05).sum() >= 5


def test_the_bootstrap_and_randomization_of_a_mean_equal_plain_loops():
    rng = np.random.default_rng(2)
    values = {"a": rng.random(40), "b": rng.random(40) + 0.1}
    table = _mean_table(values)
    R, seed = 300, 8
    result = compare_systems(table_statistics(table), ResamplingSettings(R, seed))
    draws = np.random.default_rng(seed).choice(40, size=(R, 40), replace=True)
    swaps = np.random.default_rng(seed).integers(2, size=(R, 40), dtype=bool)
    a, b = values["a"], values["b"]
    delta = sum(b) / 40 - sum(a) / 40
    gains = [sum(b[i] for i in idx) / 40 - sum(a[i] for i in idx) / 40 for idx in draws]
    bk = (1 + sum(1 for g in gains if math.copysign(1, delta) * g > 2 * abs(delta) + 1e-11)) / (R + 1)
    ar_gains = [sum(a[i] if s[i] else b[i] for i in range(40)) / 40 - sum(b[i] if s[i] else a[i] for i in range(40))
                / 40 for s in swaps]
    ar = (1 + sum(1 for g in ar_gains if abs(g) >= abs(delta) - 1e-11)) / (R + 1)
    assert result.pairs["p_bootstrap"][0] == bk and result.pairs["p_randomization"][0] == ar


def test_identical_systems_get_p_one_from_every_test():
    rng = np.random.default_rng(0)
    same = rng.random(30)
    result = compare_systems(table_statistics(_mean_table({"a": same, "b": same.copy()})), ResamplingSettings(200, 1),
                             tests=PairTests(("ttest", "wilcoxon", "tukey")))
    row = result.pairs.iloc[0]
    assert (row.p_ttest, row.p_wilcoxon, row.p_tukey, row.p_bootstrap) == (1.0, 1.0, 1.0, 1.0)


def test_tests_of_item_values_are_refused_for_a_ratio_of_sums():
    counts = np.ones((10, 3, 2))
    stats = table_statistics(ItemTable("f1", tuple(map(str, range(10))), ("a", "b"), counts))
    with pytest.raises(ParameterError, match="the paired t-test compares item values, and F1 here is a ratio of sums"):
        compare_systems(stats, ResamplingSettings(100, 1), tests=PairTests(("ttest", "tukey")))
    with pytest.raises(ParameterError, match="must be some of ttest, wilcoxon, tukey"):
        PairTests(("student",))
    with pytest.raises(ParameterError, match="zero_method"):
        PairTests(("wilcoxon",), zero_method="drop")
    assert PairTests(("tukey", "ttest")).tests == ("ttest", "tukey")
    assert PairTests((), zero_method="pratt").zero_method == "wilcox"  # no Wilcoxon: its options change nothing


# ------------------------------------------------------------------------------------------------ score tables

@pytest.mark.parametrize("csv, message", [
    ("item,a.score,b.score\n1,0.5,0.4\n2,,0.3\n", r"'a\.score' is empty in row 2; every item needs a score of every "
                                                  r"system"),
    ("item,a.score,b.score\n1,0.5,x\n", r"'b\.score' holds text where a score belongs: row 1"),
    ("item,a.score,b.score\n1,0.5,inf\n", r"'b\.score' holds inf in row 1; scores are finite"),
    ("item,a.score\n1,0.5\n", r"at least two; found only 'a'"),
    ("item,a.scores,b.scores\n1,0.5,0.4\n", r"no system has the count columns of a metric"),
])
def test_messages_for_bad_score_tables(csv, message, tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(csv)
    with pytest.raises(ColumnError, match=message):
        read_item_table(path, None)


def test_a_score_table_takes_negative_scores_and_is_suggested_by_its_columns(tmp_path):
    path = tmp_path / "comet.csv"
    path.write_text("item,base.score,new.score,note\nx,-0.5,0.25,ok\ny,1.5,-2,\n")
    table = read_item_table(path)
    assert table.metric == "mean" and table.systems == ("base", "new")
    stats = table_statistics(table)
    assert stats.scores.tolist() == [0.5, -0.875] and stats.metric.mean and stats.metric.unit == "items"


# ------------------------------------------------------------------------------------------------ command line

def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


KEYS = ["a", "b", "delta", "p_bootstrap", "p_randomization", "p_adjusted"]


def test_command_line_on_a_score_table_with_every_test(tmp_path, capsys):
    values = STORED["values"]
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(60)], **{f"{k}.score": v for k, v in values.items()}})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.json"
    code, stdout, err = _run(capsys, ["systems", str(path), "--metric", "mean", "--resamples", "500", "--json",
                                      str(out), "--tests", "ttest", "wilcoxon", "tukey", "--zero-method", "pratt",
                                      "--signature", "-"])
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert list(doc) == ["metric", "n_items", "systems", "pairs"] and doc["metric"] == "mean" and doc["n_items"] == 60
    assert all(list(p) == KEYS + ["p_ttest", "p_ttest_adjusted", "p_wilcoxon", "p_wilcoxon_adjusted", "p_tukey"]
               for p in doc["pairs"])
    assert [p["p_ttest"] for p in doc["pairs"]] == [r["ttest"] for r in STORED["pairs"]]
    assert [p["p_wilcoxon"] for p in doc["pairs"]] == [
        next(w["p"] for w in r["wilcoxon"] if (w["zero_method"], w["method"], w["correction"]) == ("pratt", "auto",
                                                                                                   False))
        for r in STORED["pairs"]]
    assert "mean score on 60 items" in stdout and "tukey" in stdout
    signature = re.search(r"signature: (.+)$", err, re.M).group(1)
    assert "tests ttest,wilcoxon,tukey" in signature and "zero-method pratt" in signature
    code, stdout, _ = _run(capsys, ["reproduce", signature, str(path)])
    assert code == 0 and "reproduced" in stdout
    code, _, err = _run(capsys, ["systems", str(path), "--metric", "f1"])
    assert code == 2 and "no system has a count column of F1" in err


def test_command_line_on_trec_runs_and_reproduce(tmp_path, capsys):
    files = REFERENCE["trec"]["files"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("\n".join(files["qrels"]) + "\n")
    runs = []
    for name, lines in files["runs"].items():
        runs.append(tmp_path / f"{name}.run")
        runs[-1].write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.json"
    argv = ["systems", "--qrels", str(qrels), "--runs", *map(str, runs), "--metric", "ndcg@10", "--resamples", "300",
            "--tests", "ttest", "--ties", "random", "--tie-seed", "4", "--json", str(out), "--signature", "-"]
    code, stdout, err = _run(capsys, argv)
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert doc["metric"] == "nDCG@10" and doc["n_items"] == 12 and [s["name"] for s in doc["systems"]] == \
        ["bm25", "dense", "hybrid"]
    assert all(list(p) == KEYS + ["p_ttest", "p_ttest_adjusted"] for p in doc["pairs"])
    assert "nDCG@10 on 12 topics" in stdout and "run dense lacks 1 topic" in err
    signature = re.search(r"signature: (.+)$", err, re.M).group(1)
    assert "qrels 1" in signature and "ties random" in signature and "tie-seed 4" in signature
    code, stdout, _ = _run(capsys, ["reproduce", signature, str(qrels), *map(str, runs)])
    assert code == 0 and "reproduced" in stdout
    code, stdout, _ = _run(capsys, ["reproduce", signature.replace("tie-seed 4", "tie-seed 5"), str(qrels),
                                    *map(str, runs)])
    assert code == 1  # another tie order, other numbers
    code, _, err = _run(capsys, ["systems", "--qrels", str(qrels), "--runs", str(runs[0]), str(runs[1]),
                                 "--metric", "bleu"])
    assert code == 2 and "not a measure ir-measures knows" in err
    code, stdout, err = _run(capsys, ["systems", "--qrels", str(qrels), "--runs", str(runs[0]), str(runs[1]),
                                      "--metric", "map", "--missing", "omit", "--resamples", "100", "--json", "-"])
    assert code == 0 and json.loads(stdout)["metric"] == "AP" and json.loads(stdout)["n_items"] == 11


def test_command_line_on_rouge_with_its_settings(tmp_path, capsys):
    stored = REFERENCE["rouge"]
    refs = tmp_path / "refs.txt"
    refs.write_text("\n".join(r[0] for r in stored["references"]) + "\n")
    hyps = []
    for name, lines in stored["summaries"].items():
        hyps.append(tmp_path / f"{name}.txt")
        hyps[-1].write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.json"
    code, _, err = _run(capsys, ["systems", "--refs", str(refs), "--hyps", *map(str, hyps), "--metric", "rouge1",
                                 "--no-stemmer", "--rouge-stat", "recall", "--resamples", "200", "--json", str(out),
                                 "--signature", "-"])
    assert code == 0, err
    doc = json.loads(out.read_text())
    expected = next(r for r in stored["scores"] if r["metric"] == "rouge1" and not r["stemmer"]
                    and r["system"] == "lead")
    assert doc["systems"][0]["score"] == math.fsum(v[1] for v in expected["single"]) / 6
    assert "drops most of the letters and digits" in err  # Russian and Japanese documents
    signature = re.search(r"signature: (.+)$", err, re.M).group(1)
    assert "rouge-tokenizer rouge_score|stemmer no|rouge-refs max|rouge-stat recall" in signature
    code, stdout, _ = _run(capsys, ["reproduce", signature, str(refs), *map(str, hyps)])
    assert code == 0 and "reproduced" in stdout
    code, _, err = _run(capsys, ["systems", "--refs", str(refs), "--hyps", *map(str, hyps), "--metric", "rougeL",
                                 "--rouge-stat", "corpus"])
    assert code == 2 and "ROUGE-N's" in err
    code, _, err = _run(capsys, ["systems", "--refs", str(refs), "--hyps", *map(str, hyps), "--metric", "bleu",
                                 "--tests", "wilcoxon"])
    assert code == 2 and "ratio of sums" in err


# ------------------------------------------------------------------------------------------------ report

def test_the_report_names_the_new_inputs_and_tests_and_cites_them():
    from evalcore.report.bib import BIBLIOGRAPHY
    from evalcore.systems.report import build_systems_report
    from evalcore.systems.rouge import RougeOptions, rouge_statistics
    from evalcore.systems.inputs import check_text_input
    from evalcore.systems.trec import TrecOptions, read_qrels, read_run, trec_statistics

    files = REFERENCE["trec"]["files"]
    qrels = read_qrels(("\n".join(files["qrels"]) + "\n").encode(), name="q")
    runs = [read_run(("\n".join(lines) + "\n").encode(), name=f"{n}.run") for n, lines in files["runs"].items()]
    trec = compare_systems(trec_statistics(qrels, runs, "AP", TrecOptions(missing="omit", ties="random", tie_seed=3)),
                           ResamplingSettings(200, 1), tests=PairTests(("ttest", "wilcoxon", "tukey"), method="exact"))
    report = build_systems_report(trec, data_sha256=["0" * 64] * 4, n_references=None, figures=False)
    text = report.methods.md
    assert {"carterette2012", "student1908", "wilcoxon1945", "holm1979"} <= set(report.methods.cites)
    assert "ir-measures" in text and "left out for every run" in text and "at random (seed 3)" in text
    assert "not simultaneous" in text and "method exact" in text and "12 topics" not in text  # 11 after omitting
    data = json.loads(report.files["data.json"])
    assert data["metric"] == "AP" and data["unit"] == "topics" and data["n_items"] == 11
    assert "p_tukey" in data["pairs"][0] and "p_wilcoxon_adjusted" in data["pairs"][0]
    table = report.files["tables/pairs.md"].decode()
    assert "p Tukey HSD" in table and "p t-test, Holm" in table
    settings = dict(report.signature.settings)
    assert settings["tests"] == ("ttest", "wilcoxon", "tukey") and settings["tie-seed"] == ("3",)

    stored = REFERENCE["rouge"]
    data_in = check_text_input([("r", [r[0] for r in stored["references"]])],
                               list(stored["summaries"].items()), "rougeLsum")
    rouge = compare_systems(rouge_statistics(data_in, "rougeLsum", RougeOptions(tokenizer="unicode",
                                                                                split="punctuation")),
                            ResamplingSettings(100, 1))
    report = build_systems_report(rouge, data_sha256=["0" * 64] * 3, n_references=1, figures=False)
    assert "lin2004" in report.methods.cites and "Unicode letters" in report.methods.md
    assert "after sentence punctuation" in report.methods.md and "median of bootstrap means" in report.methods.md
    assert "rouge-split punctuation" in str(report.signature) and "stemmer no" in str(report.signature)
    for key in ("lin2004", "carterette2012", "student1908", "wilcoxon1945"):
        assert f"{{{key}," in report.files["references.bib"].decode() or key not in report.methods.cites
        assert BIBLIOGRAPHY[key].link
