"""Systems for retrieval and summarization (issue 31): evalcore against ranx and rouge-score on the same inputs, in
the same run, and the agreement of their numbers.

TREC (``--trec``): 10 runs x 250 topics x 1,000 documents each (scores with ties, qrels of 100 judged documents
per topic), written as TREC files. ranx in a fresh process (``Qrels.from_file``, ``Run.from_file``, then
``compare(..., metrics="ndcg@10")`` with the paired t-test and with Fisher's randomization test of 10,000
permutations, every pair) against ``python -m evalcore systems --qrels ... --runs ... --metric nDCG@10 --tests
ttest --resamples 10000`` in a fresh process (the paired bootstrap, approximate randomization = Fisher's, Holm and
the t-test, every pair), whole process against whole process, alternating, ``--repeats`` times each (medians;
ranx's numba functions are compiled and cached by a first untimed run). Then the numbers: each run's nDCG@10 by
both, the t-test's p-values (ranx calls scipy's ttest_rel) and Fisher's p-values against our randomization's.

ROUGE (``--rouge``): 10 systems x 2,000 documents, summaries and references of about 60 words (English-like words
with suffixes, so the Porter stemmer has work). rouge-score called in one process (``RougeScorer([metric],
use_stemmer=True).score(reference, summary)`` for every document and system, what a script would do) against
:func:`evalcore.systems.rouge.rouge_statistics` with two processes (both cores), the wall time of the scoring alone,
alternating, ``--repeats`` times each (medians); every value is checked equal.

Targets (issue 31): TREC at least as fast as ranx while it also runs the bootstrap and Holm; ROUGE at least 1.8
times faster than rouge-score in one process.

Usage: python bench/bench_systems_ir.py [--trec] [--rouge] [--repeats 2] [--metric rougeL]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics as stats_
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RANX = r"""
import json, sys, time
from ranx import Qrels, Run, compare
qrels_path, out, permutations, *runs = sys.argv[1:]
qrels = Qrels.from_file(qrels_path, kind="trec")
loaded = [Run.from_file(p, kind="trec", name=p.rsplit("/", 1)[-1].split(".")[0]) for p in runs]
result = {}
for test in ("student", "fisher"):
    report = compare(qrels, loaded, metrics="ndcg@10", stat_test=test, n_permutations=int(permutations),
                     max_p=0.05, random_seed=42, make_comparable=True)
    result[test] = {"scores": {m: report.results[m]["ndcg@10"] for m in report.results},
                    "p": {f"{a}|{b}": report.comparisons[a, b]["ndcg@10"]["p_value"]
                          for a in report.results for b in report.results if a < b}}
json.dump(result, open(out, "w"))
"""


def trec_files(folder: Path, runs: int = 10, topics: int = 250, documents: int = 1000, judged: int = 100,
               decimals: int = 2) -> list:
    """Qrels and runs; scores rounded to ``decimals`` (2: many ties of equal scores)."""
    rng = np.random.default_rng(31)
    relevance = rng.choice([0, 0, 0, 1, 2], size=(topics, judged))
    with open(folder / "qrels.txt", "w") as q:
        for t in range(topics):
            for d in range(judged):
                q.write(f"{t + 1} 0 D{d:04d} {relevance[t, d]}\n")
    paths = []
    for r in range(runs):
        quality = 0.10 + 0.01 * r  # close systems: p-values between 1/(R + 1) and 1
        with open(folder / f"run{r:02d}.run", "w") as f:
            for t in range(topics):
                signal = np.zeros(documents)
                signal[:judged] = relevance[t] * quality
                scores = np.round(rng.random(documents) + signal, decimals)
                order = np.argsort(-scores, kind="stable")
                f.write("".join(f"{t + 1} Q0 D{d:04d} {k + 1} {scores[d]:.{decimals}f} run{r:02d}\n"
                                for k, d in enumerate(order)))
        paths.append(folder / f"run{r:02d}.run")
    return paths


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{command[:4]} failed:\n{done.stderr[-3000:]}")
    return seconds


def trec_agreement(permutations: int = 10_000) -> None:
    """On runs without ties (scores of 6 decimals, where ranx and trec_eval rank alike): each run's nDCG@10 per
    topic by both, the paired t-test by both, our randomization against ranx's Fisher test."""
    from ranx import Qrels, Run, evaluate
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test

    from evalcore.systems.compare import PairTests, ResamplingSettings, compare_systems
    from evalcore.systems.trec import read_qrels, read_run, trec_statistics

    with tempfile.TemporaryDirectory(prefix="bench-ir-") as tmp:
        folder = Path(tmp)
        runs = trec_files(folder, runs=4, topics=250, decimals=6)
        stats = trec_statistics(read_qrels(folder / "qrels.txt"), [read_run(p) for p in runs], "nDCG@10")
        result = compare_systems(stats, ResamplingSettings(permutations, 12345), tests=PairTests(("ttest",)))
        qrels = Qrels.from_file(str(folder / "qrels.txt"), kind="trec")
        per_topic = {}
        for s, path in enumerate(runs):
            run = Run.from_file(str(path), kind="trec")
            scores = evaluate(qrels, run, "ndcg@10", return_mean=False, make_comparable=True)
            order = {q: k for k, q in enumerate(run.keys())}  # ranx's topics in its own (sorted) order
            per_topic[stats.systems[s]] = np.asarray(scores)[[order[t] for t in stats.items]]
        print("\n== agreement, 4 runs x 250 topics without ties (6 decimals) ==")
        print(f"{'run':6} {'nDCG@10 evalcore':>20} {'ranx':>20} {'largest per-topic difference':>30}")
        for s, name in enumerate(stats.systems):
            ours = stats.values[:, 0, s]
            print(f"{name:6} {float(stats.scores[s])!r:>20} {float(per_topic[name].mean())!r:>20} "
                  f"{float(np.abs(ours - per_topic[name]).max()):>30.2e}")
        print(f"\n{'pair':12} {'t-test evalcore':>16} {'ranx':>10} {'randomization':>14} {'ranx Fisher':>12}")
        for row in result.pairs.itertuples(index=False):
            a, b = per_topic[row.a], per_topic[row.b]
            theirs_t = float(paired_student_t_test(a, b)[0])
            theirs_f = float(fisher_randomization_test(a, b, permutations, 0.05, 42)[0])
            print(f"{row.a + '-' + row.b:12} {row.p_ttest:>16.6g} {theirs_t:>10.6g} {row.p_randomization:>14.4g} "
                  f"{theirs_f:>12.4g}")


def bench_trec(repeats: int, permutations: int = 10_000) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-ir-") as tmp:
        folder = Path(tmp)
        print("== TREC: 10 runs x 250 topics x 1,000 documents, nDCG@10, every pair ==", flush=True)
        runs = trec_files(folder)
        ranx = [sys.executable, "-c", RANX, "qrels.txt", "ranx.json", str(permutations), *map(str, runs)]
        ours = [sys.executable, "-m", "evalcore", "systems", "--qrels", "qrels.txt", "--runs", *map(str, runs),
                "--metric", "nDCG@10", "--tests", "ttest", "--resamples", str(permutations), "--json", "ours.json",
                "--work-budget", "unlimited"]
        timed(ranx, folder)  # (compiles and caches ranx's numba functions)
        times = {"ranx": [], "evalcore": []}
        for _ in range(repeats):
            for which, command in (("ranx", ranx), ("evalcore", ours)):
                times[which].append(timed(command, folder))
                print(f"  {which}: {times[which][-1]:.1f} s", flush=True)
        ranx_s, ours_s = stats_.median(times["ranx"]), stats_.median(times["evalcore"])
        print(f"whole process, median of {repeats}: ranx (t-test + Fisher {permutations:,}) {ranx_s:.1f} s; "
              f"evalcore (bootstrap + randomization {permutations:,} + Holm + t-test) {ours_s:.1f} s; "
              f"ranx / evalcore = {ranx_s / ours_s:.2f}")
        theirs = json.loads((folder / "ranx.json").read_text())
        doc = json.loads((folder / "ours.json").read_text())
        print(f"\n{'run':6} {'nDCG@10 evalcore':>18} {'ranx':>10}")
        for s in doc["systems"]:
            print(f"{s['name']:6} {s['score']:>18.6f} {theirs['student']['scores'][s['name']]:>10.6f}")
        print(f"\n{'pair':14} {'t-test evalcore':>16} {'ranx':>10} {'randomization':>14} {'ranx Fisher':>12}")
        for p in doc["pairs"][:9]:
            key = f"{min(p['a'], p['b'])}|{max(p['a'], p['b'])}"
            print(f"{p['a'] + '-' + p['b']:14} {p['p_ttest']:>16.3g} {theirs['student']['p'][key]:>10.3g} "
                  f"{p['p_randomization']:>14.4g} {theirs['fisher']['p'][key]:>12.4g}")


def vocabulary(rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    """English-like words (stems with suffixes, for the stemmer) and rare ones, with Zipf-like weights."""
    stems = ["walk", "report", "market", "govern", "rate", "bank", "stock", "play", "count", "build", "test", "lead",
             "trade", "vote", "plan", "form", "turn", "work", "start", "call", "cut", "rise", "fall", "open", "hold"]
    endings = ["", "s", "ed", "ing", "er", "ers", "ment", "ly", "ation", "ance"]
    vocab = [s + e for s in stems for e in endings] + [f"word{k}" for k in range(2000)]
    weights = 1 / np.arange(1, len(vocab) + 1) ** 0.9
    order = rng.permutation(len(vocab))
    return [vocab[k] for k in order], weights / weights.sum()


def rouge_texts(documents: int = 2000, systems: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    vocab, weights = vocabulary(rng)
    draws = iter(rng.choice(len(vocab), size=documents * (70 + systems * 70), p=weights).tolist())
    references = [" ".join(vocab[next(draws)] for _ in range(int(rng.integers(50, 71)))) + "."
                  for _ in range(documents)]
    out = {}
    for s in range(systems):
        keep = 0.5 + 0.03 * s
        lines = []
        for ref in references:
            tokens = ref.split()
            picked = [t if rng.random() < keep else vocab[next(draws)] for t in tokens]
            lines.append(" ".join(picked[: int(rng.integers(50, 71))]))
        out[f"sys{s}"] = lines
    return references, out


def bench_rouge(repeats: int, metric: str) -> None:
    from rouge_score import rouge_scorer

    from evalcore.systems.inputs import check_text_input
    from evalcore.systems.rouge import rouge_statistics

    references, systems = rouge_texts()
    data = check_text_input([("refs", references)], list(systems.items()), metric)
    print(f"\n== ROUGE: {len(systems)} systems x {len(references):,} documents of about 60 words, {metric}, "
          "stemmer on ==", flush=True)
    times = {"rouge-score": [], "evalcore": []}
    expected = None
    for _ in range(repeats):
        start = time.perf_counter()
        scorer = rouge_scorer.RougeScorer([metric], use_stemmer=True)
        expected = [[scorer.score(r, h)[metric].fmeasure for r, h in zip(references, lines)]
                    for lines in systems.values()]
        times["rouge-score"].append(time.perf_counter() - start)
        start = time.perf_counter()
        ours = rouge_statistics(data, metric, workers=2)
        times["evalcore"].append(time.perf_counter() - start)
        print(f"  rouge-score {times['rouge-score'][-1]:.1f} s, evalcore (2 processes) {times['evalcore'][-1]:.1f} s",
              flush=True)
    equal = all(ours.values[:, 0, s].tolist() == expected[s] for s in range(len(systems)))
    theirs_s, ours_s = stats_.median(times["rouge-score"]), stats_.median(times["evalcore"])
    print(f"scoring, median of {repeats}: rouge-score {theirs_s:.1f} s, evalcore {ours_s:.1f} s: "
          f"{theirs_s / ours_s:.2f} times faster; every value equal: {equal}")
    print(f"{'system':8} {'evalcore':>20} {'mean of rouge-score':>20}")
    for s, name in enumerate(systems):
        print(f"{name:8} {float(ours.scores[s])!r:>20} {float(np.mean(expected[s]))!r:>20}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trec", action="store_true")
    parser.add_argument("--rouge", action="store_true")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--metric", default="rougeL")
    parser.add_argument("--agreement-only", action="store_true", help="TREC: only the agreement on runs without ties")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.trec or not args.rouge:
        if not args.agreement_only:
            bench_trec(args.repeats)
        trec_agreement()
    if args.rouge or not args.trec:
        bench_rouge(args.repeats, args.metric)


if __name__ == "__main__":
    main()
