"""Comparing systems on a test set (evalcore.systems): scores against sacrebleu and jiwer, p-values against sacrebleu's
--paired-bs and --paired-ar, the Berg-Kirkpatrick rule, approximate randomization and the test-set-size curve
against plain loops, Holm and the percentile intervals against R, similarity on constructed systems.

Where the numbers come from:

- sacrebleu 2.6.0 itself: ``BLEU/CHRF/TER().corpus_score`` on the lines as sacrebleu's command line reads the files
  (``smart_open`` and ``rstrip``), and the command line's ``--paired-bs`` and ``--paired-ar`` (``-f text``: its
  JSON output fails under numpy 2), whose p-values it prints with four decimals;
- jiwer 4.0.0's ``wer``;
- R 4.2.2's ``p.adjust(p, "holm")`` and ``quantile(type = 7)``: ``tests/reference/r_systems_reference.json``, written
  by ``tests/r/generate_systems_reference.R``;
- plain loops written here: a resample at a time, the corpus score of each by sacrebleu's
  ``_compute_score_from_stats`` or the metric's formula in plain Python, counted as the rules say.

The test set (``mt_set`` fixture) is built by :func:`evalcore.systems.synthetic.synthetic_test_set`: 1,000
segments of multilingual text (German, Polish, Greek, Russian, Chinese, ...), references with CRLF line ends, one
system file with CRLF too, and empty hypotheses in every system.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from evalcore.cli import main
from evalcore.errors import ColumnError, EvalcoreError, FileFormatError, ParameterError
from evalcore.stats.multitest import adjust_pvalues
from evalcore.systems import names as sysnames
from evalcore.systems.compare import (ResamplingSettings, _quantiles, bootstrap_pvalue, compare_systems,
                                      pair_indices, randomization_pvalue)
from evalcore.systems.inputs import (ItemTable, check_text_input, read_item_table, read_segments, system_name,
                                     unique_names)
from evalcore.systems.metrics import METRIC_TABLE, TextOptions, chrf_statistics, get_metric, sacrebleu_metric
from evalcore.systems.similarity import similarity
from evalcore.systems.sizes import size_curves, set_sizes
from evalcore.systems.statistics import table_statistics, text_statistics
from evalcore.systems.synthetic import synthetic_test_set, write_test_set

R_REFERENCE = json.loads((Path(__file__).parent / "reference" / "r_systems_reference.json").read_text("utf-8"))
SYSTEMS = ("baseline", "sys2", "near_copy")


# ------------------------------------------------------------------------------------------------ the test set

@pytest.fixture(scope="module")
def mt_set(tmp_path_factory):
    """1,000 segments, three systems, written to files; ``files`` maps name -> path (references first)."""
    folder = tmp_path_factory.mktemp("systems")
    data = synthetic_test_set(1000, 3, seed=0)
    references, paths = write_test_set(folder, data)
    crlf = folder / "sys2.txt"  # one system file with CRLF line ends too
    crlf.write_bytes(("\r\n".join(data.systems["sys2"]) + "\r\n").encode("utf-8"))
    return {"data": data, "folder": folder, "refs": references, "hyps": paths}


def _sacrebleu_lines(path: Path) -> list[str]:
    """The lines as sacrebleu's command line reads a file (sacrebleu.py: smart_open, then line.rstrip())."""
    from sacrebleu.utils import smart_open

    with smart_open(str(path)) as handle:
        return [line.rstrip() for line in handle]


@pytest.fixture(scope="module")
def text_input(mt_set):
    refs = [(str(mt_set["refs"]), read_segments(mt_set["refs"]))]
    hyps = [(str(p), read_segments(p)) for p in mt_set["hyps"]]
    return refs, hyps


@pytest.fixture(scope="module")
def statistics(text_input):
    """The per-item statistics of every text metric on the test set (extracted once)."""
    refs, hyps = text_input
    out = {m: text_statistics(check_text_input(refs, hyps, m), m) for m in ("bleu", "chrf", "wer")}
    # TER (sacrebleu's is about 1.3 ms a segment, more than the others together): the first two systems
    out["ter"] = text_statistics(check_text_input(refs, hyps[:2], "ter"), "ter", workers=2)
    return out


def test_the_test_set_is_what_it_claims(mt_set, text_input):
    refs, hyps = text_input
    raw = mt_set["refs"].read_bytes()
    assert raw.count(b"\r\n") == 1000 and (mt_set["folder"] / "sys2.txt").read_bytes().count(b"\r\n") == 1000
    text = "".join(refs[0][1])
    assert any(ord(c) > 0x2FFF for c in text) and "ł" in text and "λ" in text  # CJK, Polish, Greek
    assert all(sum(1 for line in lines if line == "") >= 3 for _, lines in hyps)  # empty hypotheses in every system
    assert [len(lines) for _, lines in refs + hyps] == [1000] * 4
    assert not any(line.endswith("\r") for _, lines in refs + hyps for line in lines)
    again = synthetic_test_set(1000, 3, seed=0)  # deterministic
    assert again.references == mt_set["data"].references and again.systems == mt_set["data"].systems


# ------------------------------------------------------------------------------------------------ scores

@pytest.mark.parametrize("metric", ["bleu", "chrf", "ter"])
def test_corpus_scores_equal_sacrebleu_unrounded(metric, mt_set, statistics):
    refs = _sacrebleu_lines(mt_set["refs"])
    systems = statistics[metric].systems
    expected = [sacrebleu_metric(metric, TextOptions()).corpus_score(_sacrebleu_lines(p), [refs]).score
                for p in mt_set["hyps"][:len(systems)]]
    assert statistics[metric].scores.tolist() == expected  # to the last bit
    assert list(systems) == list(SYSTEMS[:len(systems)])


def test_wer_equals_jiwer_unrounded(mt_set, statistics):
    import jiwer

    refs = _sacrebleu_lines(mt_set["refs"])
    expected = [jiwer.wer(refs, _sacrebleu_lines(p)) for p in mt_set["hyps"]]
    assert statistics["wer"].scores.tolist() == expected
    assert 0 < min(expected) and max(expected) < 1  # a fraction


def test_options_change_the_numbers_as_sacrebleu(mt_set, text_input):
    """sacrebleu's options (a tokenizer, lowercase, chrF++) on the first 300 segments of two systems."""
    refs, hyps = text_input
    refs = [(name, lines[:300]) for name, lines in refs]
    hyps = [(name, lines[:300]) for name, lines in hyps]
    lines = _sacrebleu_lines(mt_set["refs"])[:300]
    for metric, options, reference in [
            ("bleu", TextOptions(tokenize="intl", lowercase=True), {"tokenize": "intl", "lowercase": True}),
            ("chrf", TextOptions(chrf_word_order=2, lowercase=True), {"word_order": 2, "lowercase": True})]:
        from sacrebleu.metrics import BLEU, CHRF

        ours = text_statistics(check_text_input(refs, hyps[:2], metric), metric, options)
        scorer = BLEU(**reference) if metric == "bleu" else CHRF(**reference)
        assert ours.scores.tolist() == [scorer.corpus_score(_sacrebleu_lines(p)[:300], [lines]).score
                                        for p in mt_set["hyps"][:2]]


@pytest.mark.parametrize("metric", ["bleu", "chrf", "chrf++", "ter"])
def test_vectorised_scores_follow_sacrebleu(metric):
    """The resamples' formula against sacrebleu's _compute_score_from_stats, on random and degenerate sums."""
    rng = np.random.default_rng(3)
    word_order = 2 if metric == "chrf++" else 0
    name = "chrf" if metric == "chrf++" else metric
    options = TextOptions(chrf_word_order=word_order)
    m = get_metric(name, options)
    scorer = sacrebleu_metric(name, options)
    rows = []
    for _ in range(400):
        if name == "bleu":
            total = rng.integers(0, 60, 4)
            total[rng.random(4) < 0.1] = 0
            correct = np.minimum(total, rng.integers(0, 40, 4))
            correct[rng.random(4) < 0.2] = 0
            rows.append([int(rng.integers(0, 80)), int(rng.integers(1, 80)), *correct, *total])
        elif name == "chrf":
            hyp = rng.integers(0, 50, len(chrf_statistics(word_order)) // 3)
            ref = rng.integers(0, 50, hyp.size)
            hyp[rng.random(hyp.size) < 0.1] = 0
            match = np.minimum(np.minimum(hyp, ref), rng.integers(0, 40, hyp.size))
            rows.append(np.column_stack([hyp, ref, match]).ravel().tolist())
        else:
            rows.append([float(rng.integers(0, 30)), float(rng.choice([0.0, 1.0, 7.5, 20.0]))])
    sums = np.array(rows, dtype=float)
    expected = [scorer._compute_score_from_stats([int(v) for v in r] if name != "ter" else list(r)).score for r in rows]
    assert_allclose(m.score(sums), expected, rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------------------------------------------ sacrebleu's tests

def _sacrebleu_cli(folder: Path, hyps: list[str], *options: str) -> subprocess.Popen:
    """sacrebleu's command line on the files, -f text -w 6 (started; :func:`_sacrebleu_table` reads its table)."""
    command = [sys.executable, "-m", "sacrebleu", "references.txt", "-i", *hyps, "-m", "bleu", "chrf", "-f", "text",
               "-w", "6", *options]
    env = {**os.environ, "SACREBLEU_SEED": "12345", "NO_COLOR": "1"}
    return subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _sacrebleu_table(process: subprocess.Popen) -> dict[str, dict]:
    """{system file: {"scores": [BLEU, chrF], "p": [BLEU, chrF]}} from sacrebleu's text table."""
    out, err = process.communicate()
    assert process.returncode == 0, err
    rows: dict[str, dict] = {}
    current = None
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) != 3:
            continue
        if cells[0] and cells[0] != "System":
            current = cells[0].removeprefix("Baseline: ")
            rows[current] = {"scores": [float(c.split()[0]) for c in cells[1:]]}
        elif current and "p =" in line:
            rows[current]["p"] = [float(re.search(r"p = ([0-9.]+)", c).group(1)) for c in cells[1:]]
    return rows


@pytest.fixture(scope="module")
def sacrebleu_tests(mt_set):
    hyps = [p.name for p in mt_set["hyps"]]
    running = {"bs": _sacrebleu_cli(mt_set["folder"], hyps, "--paired-bs", "--paired-bs-n", "1000"),
               "ar": _sacrebleu_cli(mt_set["folder"], hyps, "--paired-ar", "--paired-ar-n", "1000")}  # both cores
    return {test: _sacrebleu_table(process) for test, process in running.items()}


def _baseline_pairs(result) -> pd.DataFrame:
    return result.pairs[result.pairs["a"] == "baseline"].set_index("b")


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_sacrebleu_rule_with_sacrebleus_seed_draws_sacrebleus_resamples(metric, statistics, sacrebleu_tests):
    """With seed 12345 the resamples are sacrebleu's: every p-value equals the one sacrebleu prints (4 decimals)."""
    column = ["bleu", "chrf"].index(metric)
    ours = compare_systems(statistics[metric], ResamplingSettings(1000, 12345, "sacrebleu"))
    pairs = _baseline_pairs(ours)
    for name in SYSTEMS[1:]:
        for test, ours_p in (("bs", pairs.loc[name, "p_bootstrap"]), ("ar", pairs.loc[name, "p_randomization"])):
            assert abs(ours_p - sacrebleu_tests[test][f"{name}.txt"]["p"][column]) <= 0.5e-4 + 1e-12, (name, test)
        assert round(ours.systems.set_index("name").loc[name, "score"], 6) == \
            sacrebleu_tests["bs"][f"{name}.txt"]["scores"][column]


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_sacrebleu_rule_agrees_with_sacrebleu_within_monte_carlo_error(metric, statistics, sacrebleu_tests):
    """Other resamples (seed 7, 4,000 of them): each p-value within 4 standard errors of both estimates (binomial,
    at sacrebleu's p) plus the 1/(R + 1) of the rule and sacrebleu's 4 printed decimals."""
    column = ["bleu", "chrf"].index(metric)
    ours = _baseline_pairs(compare_systems(statistics[metric], ResamplingSettings(4000, 7, "sacrebleu")))
    for name in SYSTEMS[1:]:
        for test, ours_p in (("bs", ours.loc[name, "p_bootstrap"]), ("ar", ours.loc[name, "p_randomization"])):
            p = sacrebleu_tests[test][f"{name}.txt"]["p"][column]
            se = math.sqrt(max(p * (1 - p), 1e-3) * (1 / 1000 + 1 / 4000))
            assert abs(ours_p - p) <= 4 * se + 1 / 1001 + 0.5e-4, (name, test, ours_p, p)


# ------------------------------------------------------------------------------------------------ plain loops

def _plain_bleu(stats_by_system, idx_rows, options=TextOptions()):
    """Each resample's BLEU, one at a time: the items' statistics summed in plain Python, scored by sacrebleu."""
    scorer = sacrebleu_metric("bleu", options)
    out = []
    for idx in idx_rows:
        row = []
        for stats in stats_by_system:
            sums = [0] * stats.shape[1]
            for i in idx:
                for k in range(stats.shape[1]):
                    sums[k] += int(stats[i, k])
            row.append(scorer._compute_score_from_stats(sums).score)
        out.append(row)
    return np.array(out)


def test_bootstrap_rule_and_randomization_equal_plain_loops_on_bleu(statistics):
    """Berg-Kirkpatrick's rule, sacrebleu's rule and approximate randomization, counted resample by resample in plain
    Python over the same draws (numpy's default_rng(seed): choice for the bootstrap, integers(2) for the swaps), on
    the first 120 segments, 200 resamples."""
    full = statistics["bleu"]
    n, R, seed = 120, 200, 11
    part = type(full)(full.metric, full.options, full.systems, full.values[:n], full.outputs[:n],
                      np.array([float(full.metric.score(full.values[:n, :, s].sum(0))) for s in range(3)]))
    fast = {rule: compare_systems(part, ResamplingSettings(R, seed, rule)) for rule in ("bk", "sacrebleu")}
    per_system = [part.values[:, :, s] for s in range(3)]
    boot = _plain_bleu(per_system, np.random.default_rng(seed).choice(n, size=(R, n), replace=True))
    swaps = np.random.default_rng(seed).integers(2, size=(R, n), dtype=bool)
    whole = _plain_bleu(per_system, [range(n)])[0]
    for p, (a, b) in enumerate(pair_indices(3)):
        delta = whole[b] - whole[a]
        gains = boot[:, b] - boot[:, a]
        bk = (1 + sum(1 for g in gains if math.copysign(1, delta) * g > 2 * abs(delta))) / (R + 1)
        mean_abs = sum(abs(g) for g in gains) / R
        sacre = (1 + sum(1 for g in gains if abs(g) - mean_abs > abs(delta))) / (R + 1)
        ar_gains = []
        for r in range(R):  # swap a's and b's statistics where the coin says so
            sa = [[int(x) for x in (per_system[b][i] if swaps[r, i] else per_system[a][i])] for i in range(n)]
            sb = [[int(x) for x in (per_system[a][i] if swaps[r, i] else per_system[b][i])] for i in range(n)]
            scorer = sacrebleu_metric("bleu", TextOptions())
            score_a = scorer._compute_score_from_stats([sum(col) for col in zip(*sa)]).score
            score_b = scorer._compute_score_from_stats([sum(col) for col in zip(*sb)]).score
            ar_gains.append(score_b - score_a)
        ar = (1 + sum(1 for g in ar_gains if abs(g) >= abs(delta))) / (R + 1)
        assert fast["bk"].pairs["p_bootstrap"][p] == bk
        assert fast["sacrebleu"].pairs["p_bootstrap"][p] == sacre
        assert fast["bk"].pairs["p_randomization"][p] == ar
        assert_allclose(fast["bk"].gains[:, p], gains, rtol=1e-12, atol=1e-12)


def _table(rng, n_items: int, metric: str, n_systems: int = 3) -> ItemTable:
    if metric == "f1":
        tp = rng.integers(0, 6, (n_items, n_systems))
        counts = np.stack([tp, rng.integers(0, 4, (n_items, n_systems)), rng.integers(0, 4, (n_items, n_systems))], 1)
    elif metric == "accuracy":
        total = rng.integers(1, 30, (n_items, 1)).repeat(n_systems, 1)
        counts = np.stack([np.floor(total * rng.uniform(0.5, 1.0, (n_items, n_systems))), total], 1)
    else:  # aer
        a = rng.integers(1, 20, (n_items, n_systems))
        a_p = np.floor(a * rng.uniform(0.4, 1, a.shape))
        a_s = np.floor(a_p * rng.uniform(0.5, 1, a.shape))
        s = a_s + rng.integers(0, 5, a.shape)
        counts = np.stack([a_s, a_p, a, s], 1)
    return ItemTable(metric, tuple(f"item{i}" for i in range(n_items)),
                     tuple(f"s{k}" for k in range(n_systems)), counts.astype(float))


def _plain_score(metric: str, rows) -> float:
    """The metric in plain Python from a list of per-item count tuples."""
    sums = [sum(r[k] for r in rows) for k in range(len(rows[0]))]
    if metric == "f1":
        tp, fp, fn = sums
        return 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else float("nan")
    if metric == "accuracy":
        return sums[0] / sums[1]
    a_s, a_p, a, s = sums
    return 1 - (a_s + a_p) / (a + s)


@pytest.mark.parametrize("metric", ["f1", "accuracy", "aer"])
def test_table_metrics_equal_a_plain_loop(metric):
    rng = np.random.default_rng({"f1": 1, "accuracy": 2, "aer": 3}[metric])
    table = _table(rng, 60, metric)
    stats = table_statistics(table)
    expected = [_plain_score(metric, [tuple(table.counts[i, :, s]) for i in range(60)]) for s in range(3)]
    assert_allclose(stats.scores, expected, rtol=1e-14)
    R, seed = 400, 5
    result = compare_systems(stats, ResamplingSettings(R, seed))
    draws = np.random.default_rng(seed).choice(60, size=(R, 60), replace=True)
    for p, (a, b) in enumerate(pair_indices(3)):
        delta = expected[b] - expected[a]
        gains = [_plain_score(metric, [tuple(table.counts[i, :, b]) for i in idx])
                 - _plain_score(metric, [tuple(table.counts[i, :, a]) for i in idx]) for idx in draws]
        count = sum(1 for g in gains if math.copysign(1, delta) * g > 2 * abs(delta) + 1e-11)
        assert result.pairs["p_bootstrap"][p] == (1 + count) / (R + 1)
        assert_allclose(result.pairs["delta"][p], delta, rtol=1e-12, atol=1e-15)


def test_rules_on_hand_worked_gains():
    gains = np.array([0.5, 1.0, 2.5, 3.0, -1.0, 2.0])
    # delta 1: BK counts gains above 2 (2.5, 3.0); sacrebleu: |g| - mean|g| (= 10/6) above 1: 3.0 only
    assert bootstrap_pvalue(gains, 1.0, "bk") == 3 / 7
    assert bootstrap_pvalue(gains, 1.0, "sacrebleu") == 2 / 7
    assert bootstrap_pvalue(-gains, -1.0, "bk") == 3 / 7  # one-sided in the direction of the gain
    assert bootstrap_pvalue(gains, 0.0, "bk") == bootstrap_pvalue(gains, 0.0, "sacrebleu") == 1.0
    assert randomization_pvalue(gains, 1.0) == 6 / 7  # |g| >= 1: five of six, plus one
    assert randomization_pvalue(gains, 1.0, "sacrebleu") == 4 / 7  # |g| > 1 (sacrebleu's --paired-ar)
    assert randomization_pvalue(gains, 0.0) == 1.0


def test_identical_systems_have_p_one_and_no_gain():
    rng = np.random.default_rng(0)
    table = _table(rng, 50, "accuracy", 2)
    table = ItemTable("accuracy", table.items, ("a", "b"), np.repeat(table.counts[:, :, :1], 2, axis=2))
    result = compare_systems(table_statistics(table), ResamplingSettings(200, 1))
    row = result.pairs.iloc[0]
    assert (row.delta, row.p_bootstrap, row.p_randomization, row.p_adjusted) == (0.0, 1.0, 1.0, 1.0)
    assert not row.significant and row.delta_low == row.delta_high == 0.0


# ------------------------------------------------------------------------------------------------ R

@pytest.mark.parametrize("family", R_REFERENCE["holm"], ids=[f["name"] for f in R_REFERENCE["holm"]])
def test_holm_equals_r_p_adjust(family):
    assert_allclose(adjust_pvalues(np.array(family["p"]), "holm"), family["holm"], rtol=1e-15, atol=0)


def test_the_comparison_adjusts_its_bootstrap_p_values_by_holm(statistics):
    result = compare_systems(statistics["bleu"], ResamplingSettings(500, 3))
    assert_array_equal(result.pairs["p_adjusted"], adjust_pvalues(result.pairs["p_bootstrap"].to_numpy(), "holm"))
    assert_array_equal(result.pairs["significant"], result.pairs["p_adjusted"] < 0.05)


@pytest.mark.parametrize("sample", R_REFERENCE["quantile"], ids=[s["name"] for s in R_REFERENCE["quantile"]])
def test_percentile_intervals_equal_r_quantile_type_7(sample):
    x = np.array(sample["x"])
    for row in sample["intervals"]:
        low, high = _quantiles(x[:, None], row["level"])
        assert_allclose([low[0], high[0]], [row["low"], row["high"]], rtol=1e-13)


# ------------------------------------------------------------------------------------------------ test-set size

def test_size_curves_equal_a_plain_loop():
    """Subsample (the first m of one random order; beyond n, m drawn with replacement), bootstrap, quantile: each
    size in turn, each resample in plain Python, over the same draws."""
    rng = np.random.default_rng(4)
    table = _table(rng, 40, "f1")
    stats = table_statistics(table)
    settings = ResamplingSettings(150, 9, level=0.9)
    fractions = (0.25, 0.5, 1.0, 2.0)
    fast = size_curves(stats, settings, fractions=fractions)
    draws = np.random.default_rng(9)
    order = draws.permutation(40)
    rows = []
    for m in set_sizes(40, fractions):
        pool = order[:m] if m <= 40 else draws.choice(40, size=m, replace=True)
        picks = draws.choice(m, size=(150, m), replace=True)
        for a, b in pair_indices(3):
            def gain(items):
                return (_plain_score("f1", [tuple(table.counts[i, :, b]) for i in items])
                        - _plain_score("f1", [tuple(table.counts[i, :, a]) for i in items]))
            whole = gain(range(40))
            sign = -1.0 if whole < 0 else 1.0
            base = gain(pool)
            centred = [sign * (gain(pool[idx]) - base) for idx in picks]
            rows.append((m, a, b, base, float(np.quantile(centred, 0.9)), whole))
    expected = pd.DataFrame(rows, columns=["size", "a", "b", "gain", "threshold", "observed"])
    assert fast["size"].tolist() == expected["size"].tolist()
    assert_allclose(fast["gain"], expected["gain"], rtol=1e-12, atol=1e-15)
    assert_allclose(fast["threshold"], expected["threshold"], rtol=1e-12, atol=1e-15)
    assert_allclose(fast["observed"], expected["observed"], rtol=1e-12, atol=1e-15)
    assert fast["extrapolated"].tolist() == [m > 40 for m in expected["size"]]


def test_size_curves_fall_with_the_test_set_size(statistics):
    curves = size_curves(statistics["bleu"], ResamplingSettings(300, 2), fractions=(0.1, 0.4, 1.0, 4.0))
    for _, part in curves.groupby(["a", "b"]):
        t = part.sort_values("size")["threshold"].to_numpy()
        assert t[0] > t[-1] * 3  # about 1/sqrt(m): 40 times the items, about 6 times smaller
    near = curves[(curves["b"] == "near_copy") & (curves["a"] == "baseline")]["threshold"].to_numpy()
    far = curves[(curves["b"] == "sys2") & (curves["a"] == "baseline")]["threshold"].to_numpy()
    assert (near < far).all()  # the near copy (similar system) reaches significance with smaller gains


# ------------------------------------------------------------------------------------------------ similarity

def test_similarity_of_identical_and_disjoint_systems():
    right = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1] * 5, dtype=float)
    total = np.ones_like(right)
    counts = np.stack([np.stack([right, right, 1 - right], 1), np.stack([total] * 3, 1)], 1)
    stats = table_statistics(ItemTable("accuracy", tuple(map(str, range(50))), ("a", "same", "opposite"), counts))
    table = similarity(stats).set_index(["a", "b"])
    assert table.loc[("a", "same")].tolist() == pytest.approx([1.0, 1.0], abs=1e-12)
    assert table.loc[("a", "opposite")].tolist() == pytest.approx([0.0, -1.0], abs=1e-12)
    # text: identical hypothesis lines, and none in common
    refs = [("r", ["a b c d", "e f g", "h i j k l"] * 10)]
    hyps = [("x", ["a b c", "e f", "h i j k"] * 10), ("y", ["a b c", "e f", "h i j k"] * 10),
            ("z", ["z", "y y", "q"] * 10)]
    text = similarity(text_statistics(check_text_input(refs, hyps, "wer"), "wer")).set_index(["a", "b"])
    assert text.loc[("x", "y"), "identical"] == 1.0 and text.loc[("x", "y"), "correlation"] == pytest.approx(1.0)
    assert text.loc[("x", "z"), "identical"] == 0.0


# ------------------------------------------------------------------------------------------------ bad input

def test_messages_for_bad_text_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(FileFormatError, match=r"empty\.txt: the file is empty"):
        read_segments(empty)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("ok\nStra\xdfe\n".encode("latin-1"))
    with pytest.raises(FileFormatError, match=r"latin\.txt: line 2 is not UTF-8 .*save the file as UTF-8"):
        read_segments(latin)
    utf16 = tmp_path / "u16.txt"
    utf16.write_bytes("a\nb\n".encode("utf-16"))
    with pytest.raises(FileFormatError, match="UTF-16"):
        read_segments(utf16)
    with pytest.raises(FileFormatError, match=r"B\.txt has 2 lines, the references R\.txt 3"):
        check_text_input([("R.txt", ["a", "b", "c"])], [("A.txt", ["a", "b", "c"]), ("B.txt", ["a", "b"])], "bleu")
    with pytest.raises(FileFormatError, match=r"R\.txt: line 2 of the references is empty.*jiwer"):
        check_text_input([("R.txt", ["a", " ", "c"])], [("A.txt", ["a", "b", "c"]), ("B.txt", ["a", "b", "c"])],
                         "wer")
    with pytest.raises(ParameterError, match="at least two hypotheses files"):
        check_text_input([("R.txt", ["a"])], [("A.txt", ["a"])], "bleu")
    with pytest.raises(FileFormatError, match="carriage returns only"):
        read_segments(b"a\rb\rc\r", name="mac.txt")
    assert read_segments("\ufeffa \r\nb\t\n\n".encode(), name="x") == ["a", "b", ""]  # BOM, CRLF, trailing blanks


@pytest.mark.parametrize("csv, message", [
    ("id,A.tp,A.fp,A.fn,B.tp,B.fp,B.fn\n1,1,0,0,1,0,1\n", r"no column 'item'"),
    ("item,A.tp,A.fp,A.fn,B.tp,B.fn\n1,1,0,0,1,1\n", r"system 'B' lacks the column 'B\.fp'"),
    ("item,A.tp,A.fp,A.fn,B.tp,B.fp,B.fn\n1,1,0,0,1,0,1\n2,1,-2,0,1,0,1\n", r"'A\.fp' holds a negative count, -2, in row 2"),
    ("item,A.tp,A.fp,A.fn,B.tp,B.fp,B.fn\n1,1,0,0,1,0,1\n1,1,0,0,1,0,1\n", r"item '1' appears in rows 1, 2"),
    ("item,A.tp,A.fp,A.fn,B.tp,B.fp,B.fn\n1,1,0,x,1,0,1\n", r"'A\.fn' holds text where a count belongs: row 1"),
    ("item,A.tp,A.fp,A.fn\n1,1,0,0\n", r"at least two; found only 'A'"),
    ("item,A.correct,A.total,B.correct,B.total\n1,3,2,1,2\n", r"A\.correct is larger than A\.total in row 1"),
])
def test_messages_for_bad_tables(csv, message, tmp_path):
    path = tmp_path / "items.csv"
    path.write_text(csv)
    with pytest.raises(ColumnError, match=message):
        read_item_table(path, None if "correct" not in csv else "accuracy")


def test_names_come_from_file_stems():
    assert system_name("out/sysA.de.txt") == "sysA.de" and system_name("x/b.txt.gz") == "b"
    assert unique_names(["a", "a", "b", "a"]) == ["a", "a (2)", "b", "a (3)"]


# ------------------------------------------------------------------------------------------------ command line

def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_command_line_contract_on_text(mt_set, capsys, tmp_path):
    out = tmp_path / "out.json"
    refs = str(mt_set["refs"])
    hyps = [str(p) for p in mt_set["hyps"]]
    code, stdout, err = _run(capsys, ["systems", "--refs", refs, "--hyps", *hyps, "--metric", "wer",
                                      "--resamples", "300", "--seed", "4", "--json", str(out), "--signature", "-"])
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert list(doc) == ["metric", "n_items", "systems", "pairs"]
    assert doc["metric"] == "wer" and doc["n_items"] == 1000
    assert [s["name"] for s in doc["systems"]] == list(SYSTEMS)
    assert all(list(s) == ["name", "score", "ci_low", "ci_high"] for s in doc["systems"])
    assert all(0 < s["ci_low"] < s["score"] < s["ci_high"] < 1 for s in doc["systems"])  # a fraction
    assert [(p["a"], p["b"]) for p in doc["pairs"]] == [("baseline", "sys2"), ("baseline", "near_copy"),
                                                         ("sys2", "near_copy")]
    assert all(list(p) == ["a", "b", "delta", "p_bootstrap", "p_randomization", "p_adjusted"] for p in doc["pairs"])
    scores = {s["name"]: s["score"] for s in doc["systems"]}
    assert all(p["delta"] == pytest.approx(scores[p["b"]] - scores[p["a"]], abs=1e-15) for p in doc["pairs"])
    assert_array_equal([p["p_adjusted"] for p in doc["pairs"]],
                       adjust_pvalues([p["p_bootstrap"] for p in doc["pairs"]], "holm"))
    assert "WER on 1,000 segments" in stdout
    signature = re.search(r"signature: (.+)$", err, re.M).group(1)
    code, stdout, _ = _run(capsys, ["reproduce", signature, refs, *hyps])
    assert code == 0 and "reproduced" in stdout
    code, stdout, _ = _run(capsys, ["reproduce", signature, refs, *hyps[::-1]])  # files in another order
    assert code == 1 and "not the same data" in stdout


def test_command_line_contract_on_a_table(tmp_path, capsys):
    rng = np.random.default_rng(8)
    table = _table(rng, 80, "f1")
    frame = pd.DataFrame({"item": table.items})
    for s, name in enumerate(["base", "new"] + ["third"]):
        for k, stat in enumerate(("tp", "fp", "fn")):
            frame[f"{name}.{stat}"] = table.counts[:, k, s].astype(int)
    path = tmp_path / "items.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.json"
    code, _, err = _run(capsys, ["systems", str(path), "--metric", "f1", "--resamples", "200", "--seed", "1",
                                 "--json", str(out), "--signature", "-"])
    assert code == 0, err
    signature = re.search(r"signature: (.+)$", err, re.M).group(1)
    assert "cmd systems" in signature and "refs" not in signature and "metric f1" in signature
    code, stdout, _ = _run(capsys, ["reproduce", signature, str(path)])
    assert code == 0 and "reproduced" in stdout
    pairs, sizes = tmp_path / "pairs.csv", tmp_path / "sizes.tsv"
    code, _, err = _run(capsys, ["systems", str(path), "--resamples", "100", "--out", str(pairs), "--sizes", str(sizes)])
    assert code == 0, err  # (the metric: the one whose columns the table has, F1)
    written = pd.read_csv(pairs)
    assert list(written.columns) == ["a", "b", "delta", "delta_low", "delta_high", "p_bootstrap", "p_randomization",
                                     "p_adjusted", "significant", "identical", "correlation"]
    curves = pd.read_csv(sizes, sep="\t")
    assert len(curves) == 3 * 14 and curves["extrapolated"].sum() == 3 * 4
    doc = json.loads(out.read_text())
    assert [s["name"] for s in doc["systems"]] == ["base", "new", "third"]
    expected = [_plain_score("f1", [tuple(table.counts[i, :, s]) for i in range(80)]) for s in range(3)]
    assert_allclose([s["score"] for s in doc["systems"]], expected, rtol=1e-14)
    code, _, err = _run(capsys, ["systems", str(path), "--metric", "bleu", "--json", str(out)])
    assert code == 2 and "--metric bleu is a metric of text" in err


def test_command_line_messages_for_bad_input(tmp_path, capsys):
    refs = tmp_path / "refs.txt"
    refs.write_text("a b\n\nc d\n")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a b\nx\nc d\n")
    b.write_text("a\nx\n")
    code, _, err = _run(capsys, ["systems", "--refs", str(refs), "--hyps", str(a), str(b), "--metric", "bleu"])
    assert code == 2 and "b.txt has 2 lines, the references" in err
    b.write_text("a\nx\nc\n")
    code, _, err = _run(capsys, ["systems", "--refs", str(refs), "--hyps", str(a), str(b), "--metric", "wer"])
    assert code == 2 and "line 2 of the references is empty" in err


# ------------------------------------------------------------------------------------------------ report

def test_methods_text_cites_the_methods_and_metrics(statistics):
    from evalcore.report.bib import BIBLIOGRAPHY
    from evalcore.systems.report import build_systems_report

    cited = {}
    for metric in ("bleu", "chrf", "ter", "wer"):
        rule = "sacrebleu" if metric == "chrf" else "bk"
        result = compare_systems(statistics[metric], ResamplingSettings(100, 1, rule))
        report = build_systems_report(result, data_sha256=["0" * 64] * 4, n_references=1, figures=False)
        cited[metric] = set(report.methods.cites)
        files = report.files
        assert set(report.methods.cites) == {k for k in BIBLIOGRAPHY if f"@{k}" in files["references.bib"].decode()
                                             or f"{{{k}," in files["references.bib"].decode()}
        assert "cmd systems" in files["signature.txt"].decode()
        assert json.loads(files["data.json"])["n_items"] == 1000
    common = {"koehn2004", "bergkirkpatrick2012", "noreen1989", "riezler2005", "holm1979"}
    assert common <= cited["bleu"] and {"papineni2002", "post2018"} <= cited["bleu"]
    assert {"popovic2015", "post2018"} <= cited["chrf"] and "snover2006" in cited["ter"]
    assert "papineni2002" not in cited["wer"] and common <= cited["wer"]
    for key in ("koehn2004", "riezler2005", "post2018", "papineni2002", "popovic2015", "snover2006"):
        fields = dict(BIBLIOGRAPHY[key].fields)
        assert fields.get("doi", "").startswith("10.") or fields.get("url", "").startswith("https://aclanthology.org/")


def test_names_are_one_table():
    assert set(sysnames.METRICS) == set(METRIC_TABLE)
    assert all(METRIC_TABLE[m].percent == (m in ("bleu", "chrf", "ter")) for m in METRIC_TABLE)
    with pytest.raises(EvalcoreError):
        ResamplingSettings(rule="moses")


# ------------------------------------------------------------------------------------------------ figures

def test_figures_draw_the_numbers(statistics):
    from evalcore.systems import figures as sysfig

    result = compare_systems(statistics["bleu"], ResamplingSettings(300, 2))
    scores = sysfig.scores_figure(result)
    assert_allclose(scores.data[0].x, result.systems["score"])
    assert list(scores.data[0].y) == list(SYSTEMS)
    assert_allclose(scores.data[0].error_x.array, result.systems["ci_high"] - result.systems["score"])
    matrix = sysfig.pvalue_figure(result)
    assert matrix.data[0].text[0][1].startswith(f"{result.pairs['p_adjusted'][0]:.3g}"[:4])
    gains = sysfig.gains_figure(result, 1)
    assert_allclose(gains.data[0].x, result.gains[:, 1])
    assert {s.name for s in gains.layout.shapes} >= {"observed", "zero", "twice", "interval"}
    curves = size_curves(statistics["bleu"], ResamplingSettings(100, 2), fractions=(0.5, 1.0, 2.0))
    sizes = sysfig.size_figure(curves, result.metric, n_items=1000, alpha=0.05)
    first = curves[(curves["a"] == "baseline") & (curves["b"] == "sys2")]
    line = next(t for t in sizes.data if t.name == "sys2 vs baseline")
    assert_allclose(line.y, first["threshold"]) and list(line.x) == first["size"].tolist()
    # the dotted observed gains have a legend entry (each pair's own dotted trace stays out of the legend)
    keyed = [t for t in sizes.data if t.line.dash == "dot" and t.mode == "lines" and t.showlegend is not False]
    assert [t.name for t in keyed] == ["observed |gain| (dotted, the pair's colour)"]
    for fig in (scores, matrix, gains, sizes):  # the print look of each
        printed = sysfig.for_print(fig)
        assert printed.layout.width == 321 and printed.layout.template.layout.plot_bgcolor == "white"
    hostile = ItemTable("accuracy", ("1", "2"), ("<b>x</b>", "$y$"), np.ones((2, 2, 2)))
    shown = sysfig.scores_figure(compare_systems(table_statistics(hostile), ResamplingSettings(10, 1)))
    assert "<b>" not in "".join(shown.data[0].y)  # a system's name is text, not Plotly's HTML


def test_resampling_blocks_counts_and_exact_products():
    from evalcore.systems.resample import bootstrap_sums, counts_of, product_dtype, randomization_sums

    rng = np.random.default_rng(0)
    drawn = rng.integers(0, 7, size=(5, 9))
    assert_array_equal(counts_of(drawn, 7), [np.bincount(row, minlength=7) for row in drawn])
    # the bootstrap's draws are choice's (sacrebleu's), in blocks or not
    a = np.random.default_rng(12345).choice(3000, size=(2500, 3000), replace=True)
    values = rng.integers(0, 50, size=(3000, 4)).astype(float)
    assert_array_equal(bootstrap_sums(values, 2500, 12345), counts_of(a, 3000) @ values)
    swaps = np.random.default_rng(3).integers(2, size=(1500, 3000), dtype=bool)
    assert_array_equal(randomization_sums(values, 1500, 3), swaps.astype(float) @ values)
    # float32 only where every sum is a whole number below 2^24
    assert product_dtype(values, 3000) == np.float32
    assert product_dtype(values + 0.5, 3000) == np.float64 and product_dtype(values * 1e4, 3000) == np.float64
