"""How well the work budget's cost model predicts (evalcore.work.cost): predicted against measured CPU seconds of
the expensive calls a link or a command can start, on synthetic rankings of N candidates (11% TPs), and of comparing systems on a test set of N items, in this run.

For each case: the estimate, the measured CPU time (``time.process_time``: all threads of this process; what the
budget counts), and their ratio. A ratio near 1 means the constants of evalcore/work/cost.py fit this machine;
they were measured on the project's reference machine (2 cores, shared), so a faster machine shows ratios above 1
(the budget is then conservative).

With ``--scoring``: the scoring of text (evalcore.work.scoring against sacrebleu's BLEU, chrF and TER and jiwer's WER,
:func:`evalcore.systems.statistics.text_statistics` in this process) on two named texts, each cut into segments of 10
to 2,000 words (about ``--words`` words in all per length):

- ``translation``: the references of evalcore.systems.synthetic's test set (seed 0) and its baseline system's output
  (a third of the words wrong, dropped or added, neighbours swapped), the same stretch of text cut alike: a realistic
  pair of translations;
- ``unrelated``: the same references against references of other sentences (every word out of place; the same
  small vocabulary, so many words are equal): the worst case of TER, which tries the most shifts.

The estimate must lie at or above the measured CPU time and at most twice it (ratio 1 to 2); BLEU, chrF and WER
are measured three times (the median; a run of 0.1 s is noisy on a shared machine), TER once.

Usage: python bench/bench_work.py [--scale 1.0]   (--scale multiplies the resamples, for a quicker run)
       python bench/bench_work.py --scoring [--metric ter] [--words 2000] [--lengths 10,30,100,300,1000,2000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore import analysis, roc  # noqa: E402
from evalcore.ranking import rank_scores  # noqa: E402
from evalcore.systems.compare import ResamplingSettings, compare_systems  # noqa: E402
from evalcore.systems.inputs import ItemTable  # noqa: E402
from evalcore.systems.sizes import size_curves  # noqa: E402
from evalcore.systems.statistics import table_statistics  # noqa: E402
from evalcore.work import pair_estimate, roc_estimate, systems_estimate  # noqa: E402


def rankings(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.11
    return (rank_scores(labels, labels * 1.0 + rng.normal(size=n), ties="stable"),
            rank_scores(labels, labels * 0.8 + rng.normal(size=n), ties="stable"))


def test_set(n_items: int, k: int, seed: int = 0):
    """Per-item statistics of ``k`` systems on ``n_items`` items (accuracy: correct of 5)."""
    rng = np.random.default_rng(seed)
    correct = rng.binomial(5, 0.6, size=(n_items, k)).astype(float)
    counts = np.stack([correct, np.full_like(correct, 5.0)], axis=1)
    return table_statistics(ItemTable("accuracy", tuple(map(str, range(n_items))), tuple(f"s{i}" for i in range(k)),
                                      counts))


def cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def named_texts(words: int, seed: int = 0) -> dict[str, tuple[list[str], list[str]]]:
    """The two named texts as word lists of at least ``words`` words each: (reference words, hypothesis words) of
    ``translation`` and ``unrelated``."""
    from evalcore.systems.synthetic import synthetic_test_set

    data = synthetic_test_set(max(200, 2 * words // 15), 2, seed=seed, empty_rate=0.0)
    reference = " ".join(data.references).split()
    translation = " ".join(data.systems["baseline"]).split()
    half = len(reference) // 2
    return {"translation": (reference[:half], translation[:half]),
            "unrelated": (reference[:half], reference[half:])}


def segments(words: list[str], length: int, count: int, start: int = 0) -> list[str]:
    """``count`` segments of ``length`` words, taken in turn from ``start`` on (round the text again where it ends)."""
    out = []
    for k in range(count):
        at = (start + k * length) % max(1, len(words) - length)
        out.append(" ".join(words[at:at + length]))
    return out


#: Each row of the scoring benchmark scores enough segments for at least this much CPU time (a shorter
#: measurement is noise on a shared machine; TER's time varies more from segment to segment, so its rows take
#: more of them); a segment that takes longer alone is scored alone.
TARGET_CPU = {"ter": 10.0}
TARGET_CPU_DEFAULT = 1.5
#: Rows measured once (not the median of three) from this many CPU seconds on.
ONCE_FROM = 5.0


def scoring(args) -> None:
    from evalcore.systems.inputs import TextInput
    from evalcore.systems.metrics import TextOptions
    from evalcore.systems.statistics import text_statistics
    from evalcore.work.scoring import scoring_estimate

    lengths = [int(v) for v in args.lengths.split(",")]
    texts = named_texts(args.words)
    saved = {}
    for path in args.reuse or ():
        for line in Path(path).read_text().splitlines():
            row = json.loads(line)
            saved[row["row"]] = (row["segments"], row["measured"])
    metrics = args.metric or ["bleu", "chrf", "wer", "ter"]
    text_names = args.text or list(texts)
    print(f"{'metric':<7}{'text':<13}{'words/seg':>10}{'segments':>10}{'predicted s':>13}{'measured s':>12}"
          f"{'ratio':>8}", flush=True)
    ratios = []
    for metric in metrics:
        options = TextOptions()
        warm = TextInput(references=(("a b c",) * 10,), hypotheses=(("a b d",) * 10,), systems=("hyp",),
                         reference_names=("references",))
        text_statistics(warm, metric, options, workers=1)  # (imports and compiled patterns outside the timings)
        for name in text_names:
            reference, hypothesis = texts[name]
            for length in lengths:
                def data_of(count: int) -> TextInput:
                    refs, hyps = segments(reference, length, count), segments(hypothesis, length, count)
                    return TextInput(references=(tuple(refs),), hypotheses=(tuple(hyps),), systems=("hyp",),
                                     reference_names=("references",))

                key = f"{metric} {name} {length}"
                if key in saved:  # (measured by an earlier run: sacrebleu's and jiwer's time does not change)
                    count, measured = saved[key]
                    data = data_of(count)
                else:
                    target = TARGET_CPU.get(metric, TARGET_CPU_DEFAULT)
                    count, measured = 1, 0.0
                    while True:  # as many segments as take the target's CPU time (the first try: one segment)
                        data = data_of(count)
                        measured = cpu(lambda: text_statistics(data, metric, options, workers=1))
                        if measured >= target:
                            break
                        count = int(np.ceil(count * 1.3 * target / max(measured, 1e-3)))
                    if measured < ONCE_FROM:
                        more = [cpu(lambda: text_statistics(data, metric, options, workers=1)) for _ in range(2)]
                        measured = sorted([measured, *more])[1]
                    if args.save:
                        with open(args.save, "a") as f:
                            f.write(json.dumps({"row": key, "segments": count, "measured": measured}) + "\n")
                predicted = scoring_estimate(metric, data.references, data.hypotheses, options).seconds
                ratio = predicted / measured
                ratios.append(ratio)
                print(f"{metric:<7}{name:<13}{length:>10,}{count:>10,}{predicted:>13.3f}{measured:>12.3f}"
                      f"{ratio:>8.2f}", flush=True)
    print(f"ratios from {min(ratios):.2f} to {max(ratios):.2f} (wanted: 1 to 2)")


#: The commands measured end to end with ``--commands``: every estimate a command checks (reading, ranking, tables,
#: sample estimates, engines: evalcore.work.commands; the pages' models below) summed, against its CPU time.
COMMANDS = [
    ("summary", ["summary", "{full}", "--label", "gold"]),
    ("curves", ["curves", "{full}", "{data}", "--out", "{out}"]),
    ("curves --n 1:2000", ["curves", "{full}", "{data}", "--n", "1:2000", "--out", "{out}"]),
    ("curves --kind roc", ["curves", "{full}", "{data}", "--kind", "roc", "--out", "{out}"]),
    ("curves parquet", ["curves", "{parquet}", "{data}", "--out", "{out}"]),
    ("curves .tsv.gz", ["curves", "{gz}", "{data}", "--out", "{out}"]),
    ("accept", ["accept", "{full}", "{data}", "--gamma", "0,1,2", "--out", "{out}"]),
    ("auc-test", ["auc-test", "{full}", "--label", "gold", "--out", "{out}"]),
    ("sample curves (hypergeometric)", ["curves", "{sample}", "{data}", "--annotated-sample", "--n", "1:2000",
                                         "--out", "{out}"]),
    ("sample curves (clopper_pearson)", ["curves", "{sample}", "{data}", "--annotated-sample", "--n", "1:2000",
                                          "--sample-interval", "clopper_pearson", "--out", "{out}"]),
    ("sample compare", ["compare", "{sample}", "{data}", "--annotated-sample", "--n", "1:20000:10", "--measure",
                        "a", "--measure", "b", "--out", "{out}"]),
    ("curves --engine duckdb", ["curves", "{parquet}", "{data}", "--engine", "duckdb", "--n", "1:20000",
                                "--out", "{out}"]),
    ("simulate 80 x 2000", ["simulate", "--out", "{experiment}"]),
    ("validate", ["validate", "{experiment}", "--out", "{out}"]),
    ("across", ["across", "{experiment}", "--measure", "sharp", "--measure", "good", "--out", "{out}"]),
    ("uir", ["uir", "{experiment}", "--out", "{out}"]),
    ("pool-plan", ["pool-plan", "{sample}", "{data}", "--pool-measures", "a,b", "--budget", "2000", "--n", "1000",
                   "--out", "{out}"]),
]


def command_files(folder: Path, n: int) -> dict[str, str]:
    import pandas as pd

    rng = np.random.default_rng(0)
    labels = rng.random(n) < 0.11
    full = pd.DataFrame({"gold": np.where(labels, "TP", "FP"), "a": np.round(labels + rng.normal(size=n), 6),
                         "b": np.round(0.8 * labels + rng.normal(size=n), 6), "c": np.round(rng.normal(size=n), 6)})
    full.to_csv(folder / "full.tsv", sep="\t", index=False)
    full.to_csv(folder / "full.tsv.gz", sep="\t", index=False)
    full.to_parquet(folder / "full.parquet")
    sample = full.copy()
    sample.loc[rng.random(n) > 0.1, "gold"] = ""
    sample.to_csv(folder / "sample.tsv", sep="\t", index=False)
    return {"full": str(folder / "full.tsv"), "gz": str(folder / "full.tsv.gz"),
            "parquet": str(folder / "full.parquet"), "sample": str(folder / "sample.tsv"),
            "experiment": str(folder / "experiment.tsv"), "out": str(folder / "out.csv")}


def run_command(argv) -> None:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from evalcore.cli import main as cli

    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = cli([str(a) for a in argv])
    if code != 0:
        raise SystemExit(f"{argv}: {err.getvalue()}")


def pages_cases(n: int):
    """The pages' own models (evalcore.work.pages, and the scoring estimate's own cost) against the calls they
    stand for, on ``n`` candidates: (label, estimate, the call)."""
    import pandas as pd

    from evalcore import analysis, roc, samples, validate
    from evalcore.io import load_candidates
    from evalcore.simulate import simulate
    from evalcore.systems.inputs import check_text_input
    from evalcore.systems.similarity import similarity
    from evalcore.systems.synthetic import synthetic_test_set
    from evalcore.work import pages
    from evalcore.work.scoring import estimating_estimate

    rng = np.random.default_rng(1)
    labels = rng.random(n) < 0.11
    table = pd.DataFrame({"gold": np.where(labels, "TP", "FP"), "key": [f"w{k}" for k in range(n)],
                          **{m: np.round(labels * w + rng.normal(size=n), 6) for m, w in
                             (("a", 1.0), ("b", 0.8), ("c", 0.5), ("d", 0.3), ("e", 0.0))}})
    candidates = load_candidates(table, label="gold", keys=["key"])
    measures = ("a", "b", "c", "d", "e")
    ranked = analysis.rankings_for(candidates, measures, ties="stable", seed=None)
    from io import StringIO

    from evalcore.simulate import to_tsv

    simulated = pd.read_csv(StringIO(to_tsv(simulate(k=80, n=max(200, n // 80), seed=2))), sep="\t")
    experiment = load_candidates(simulated, label="is_tp", keys=["candidate"], sample="sample")
    xm = tuple(experiment.measures)
    cuts = samples.cuts_for(experiment, xm, "gamma", 100)
    text = synthetic_test_set(max(1000, n // 10), 3, seed=0)
    text_files = [("refs.txt", text.references)], [(k, v) for k, v in text.systems.items()]
    stats = test_set(n // 4, 5)
    words = {"bleu": text, "ter": synthetic_test_set(max(100, n // 200), 2, seed=1)}
    import tempfile

    from evalcore.annotations import AnnotationStore

    database = AnnotationStore(Path(tempfile.mkdtemp(prefix="bench_work_")) / "annotations.sqlite")
    draws = iter(range(10**6))
    import gzip
    import io

    from evalcore.io import read_table
    from evalcore.systems.inputs import read_segments
    from evalcore.work.commands import ranking_estimate, reading_estimate

    tsv = table.to_csv(sep="\t", index=False).encode()
    compressed = gzip.compress(tsv)
    buffer = io.BytesIO()
    table.to_parquet(buffer)
    parquet = buffer.getvalue()
    buffer = io.BytesIO()
    table.head(max(1000, n // 50)).to_excel(buffer, index=False)
    xlsx = buffer.getvalue()
    lines = ("\n".join(text.references) + "\n").encode()
    return [
        ("reading TSV", reading_estimate(tsv, "t.tsv"), lambda: read_table(tsv, name="t.tsv")),
        ("reading .tsv.gz", reading_estimate(compressed, "t.tsv.gz"), lambda: read_table(compressed, name="t.tsv.gz")),
        ("reading Parquet", reading_estimate(parquet, "t.parquet"), lambda: read_table(parquet, name="t.parquet")),
        ("reading Excel", reading_estimate(xlsx, "t.xlsx"), lambda: read_table(xlsx, name="t.xlsx")),
        ("reading text lines", reading_estimate(lines, "r.txt", kind="text"),
         lambda: read_segments(lines, name="r.txt")),
        ("ranking", ranking_estimate(n, 1), lambda: analysis.rankings_for(candidates, ("a",), ties="stable", seed=None)),
        ("labels checked", pages.labels_estimate("t", n, 7),
         lambda: load_candidates(table, label="gold", keys=["key"])),
        ("a subset (pass)", pages.pass_estimate("s", n, 6), lambda: candidates.subset(labels)),
        ("members at N/2", pages.members_estimate(n, n // 2),
         lambda: analysis.difference_members(candidates, ranked["a"], ranked["b"], n // 2)),
        ("curves, 3 measures", pages.curves_estimate(n, 3, n),
         lambda: analysis.curves({m: ranked[m] for m in measures[:3]}, range(1, n + 1))),
        ("validation", pages.samples_estimate("v", experiment.n_candidates, 1, 80),
         lambda: validate.validate(experiment, xm[0], cuts[xm[0]], ties="stable")),
        ("across", pages.samples_estimate("a", experiment.n_candidates, 2, 80),
         lambda: analysis.across_samples(experiment, xm[0], xm[1], cuts[xm[0]], cuts[xm[1]], ties="stable",
                                         seed=None)),
        ("uir", pages.uir_estimate(experiment.n_candidates, len(xm), 80),
         lambda: analysis.uir_analysis(experiment, xm, dict(cuts), xm[0], xm[1], betas=(), threshold=0.25,
                                       ties="stable", seed=None)),
        ("pairwise, 5 measures", pages.pairwise_estimate(n, 5), lambda: analysis.pairwise(ranked, n // 2)),
        ("roc curves, 5 measures", pages.roc_curves_estimate(n, 5), lambda: roc.curves_table(ranked, "roc")),
        ("text checked", pages.text_estimate("t", sum(len(t) for _, lines in text_files[0] + text_files[1]
                                                      for t in lines)),
         lambda: check_text_input(*text_files, "bleu")),
        ("similarity, 5 systems", pages.similarity_estimate(stats.n_items, 5), lambda: similarity(stats)),
        ("a draw of 5,000", pages.draw_estimate(n, 5000),
         lambda: database.draw("0" * 64, f"s{next(draws)}", candidates, 5000, 1)),
        ("estimating BLEU", estimating_estimate("bleu", (words["bleu"].references,),
                                                tuple(words["bleu"].systems.values())),
         lambda: __import__("evalcore.work.scoring", fromlist=["x"]).scoring_estimate(
             "bleu", (words["bleu"].references,), tuple(words["bleu"].systems.values()))),
        ("estimating TER", estimating_estimate("ter", (words["ter"].references,),
                                               tuple(words["ter"].systems.values())),
         lambda: __import__("evalcore.work.scoring", fromlist=["x"]).scoring_estimate(
             "ter", (words["ter"].references,), tuple(words["ter"].systems.values()))),
    ]


def commands(args) -> None:
    import tempfile

    from evalcore.work import observe

    folder = Path(tempfile.mkdtemp(prefix="bench_work_"))
    files = command_files(folder, args.candidates)
    data = ["--label", "gold", "--ties", "stable"]
    print(f"{'command (N = ' + format(args.candidates, ',') + ')':<34}{'predicted s':>13}{'measured s':>12}"
          f"{'ratio':>8}", flush=True)
    ratios = []
    for label, template in COMMANDS:
        argv = []
        for a in template:
            argv.extend(data if a == "{data}" else [a.format(**files)])
        run_command(argv)  # (imports, compiled kernels, the experiment written for the commands after it)
        with observe() as seen:
            measured = cpu(lambda: run_command(argv))
        predicted = sum(e.seconds for e, _ in seen)
        ratios.append(predicted / measured)
        print(f"{label:<34}{predicted:>13.3f}{measured:>12.3f}{predicted / measured:>8.2f}", flush=True)
        if args.verbose:
            for e, _ in seen:
                print(f"    {e.seconds:9.3f}  {e.what}")
    print(f"{'page computation':<34}{'predicted s':>13}{'measured s':>12}{'ratio':>8}", flush=True)
    for label, estimate, call in pages_cases(args.candidates):
        call()
        measured = sorted(cpu(call) for _ in range(3))[1]
        ratios.append(estimate.seconds / measured)
        print(f"{label:<34}{estimate.seconds:>13.3f}{measured:>12.3f}{estimate.seconds / measured:>8.2f}", flush=True)
    print(f"ratios from {min(ratios):.2f} to {max(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--scoring", action="store_true", help="the scoring of text instead (see above)")
    parser.add_argument("--commands", action="store_true",
                        help="the commands' and the pages' own models instead (see COMMANDS, pages_cases)")
    parser.add_argument("--candidates", type=int, default=200_000, help="candidates of the data (--commands)")
    parser.add_argument("--verbose", action="store_true", help="every estimate of each command (--commands)")
    parser.add_argument("--metric", action="append", choices=["bleu", "chrf", "ter", "wer"])
    parser.add_argument("--text", action="append", choices=["translation", "unrelated"])
    parser.add_argument("--save", help="append each row's measurement to this file (JSON lines; --scoring)")
    parser.add_argument("--reuse", action="append",
                        help="take the rows measured in this file (--save) instead of measuring them again: the "
                             "libraries' time does not change with the model (--scoring)")
    parser.add_argument("--words", type=int, default=400_000, help="words of each named text (--scoring)")
    parser.add_argument("--lengths", default="10,30,100,300,1000,2000", help="words per segment (--scoring)")
    args = parser.parse_args()
    if args.scoring:
        return scoring(args)
    if args.commands:
        return commands(args)
    cases = [  # (kind, N, n range, step, test, resamples)
        ("pair", 5_102, (1, 5_102), 1, "fisher", 0),
        ("pair", 200_000, (200, 200_000), 1, "fisher", 0),
        ("pair", 5_102, (1, 5_102), 1, "bootstrap", 2_000),
        ("pair", 50_000, (100, 50_000), 1, "bootstrap", 200),
        ("pair", 200_000, (200, 200_000), 1, "bootstrap", 40),
        ("pair", 200_000, (200, 200_000), 500, "bootstrap", 200),
        ("pair", 5_102, (1, 5_102), 1, "randomization", 5_000),
        ("pair", 200_000, (200, 200_000), 1, "randomization", 200),
        ("roc", 5_102, None, 1, "4 measures", 2_000),
        ("roc", 200_000, None, 1, "2 measures", 200),
        ("systems", 2_000, None, 1, "2 systems", 5_000),  # N: items of a test set
        ("systems", 10_000, None, 1, "3 systems", 2_000),
        ("systems", 50_000, None, 1, "5 systems", 500),
        ("curves", 2_000, None, 1, "2 systems", 5_000),  # the test-set-size curves alone
        ("curves", 10_000, None, 1, "3 systems", 2_000),
    ]
    a0, b0 = rankings(2_000)
    analysis.pair_comparison(a0, b0, (1, 2_000))  # compile the kernels outside the timings
    print(f"{'call':<14}{'N':>9}{'sizes':>9}{'resamples':>11}{'predicted s':>13}{'measured s':>12}{'ratio':>8}")
    for kind, n, n_range, step, test, resamples in cases:
        resamples = max(1, int(resamples * args.scale)) if resamples else 0
        a, b = rankings(n)
        if kind == "pair":
            estimate = pair_estimate(n, n_range, test, resamples, n_step=step)
            measured = cpu(lambda: analysis.pair_comparison(a, b, n_range, test=test, resamples=resamples or 1000,
                                                           n_step=step))
            label, sizes = test, estimate.sizes
        elif kind in ("systems", "curves"):
            k = int(test.split()[0])
            statistics, settings = test_set(n, k), ResamplingSettings(resamples, 1)
            estimate = systems_estimate(n, k, resamples)
            if kind == "curves":  # the curves' share of the estimate with curves
                estimate = systems_estimate(n, k, resamples, curves=True)
                measured = cpu(lambda: size_curves(statistics, settings))
                predicted = estimate.seconds - systems_estimate(n, k, resamples).seconds
            else:
                measured = cpu(lambda: compare_systems(statistics, settings))
            label, sizes = f"{kind} ({k})", 0
        else:
            k = int(test.split()[0])
            ranked = {f"m{i}": rankings(n, seed=i)[0] for i in range(k)}
            estimate = roc_estimate(n, k, resamples)
            measured = cpu(lambda: roc.roc_table(ranked, resamples=resamples))
            label, sizes = f"roc ({test})", 0
        predicted = predicted if kind == "curves" else estimate.seconds
        print(f"{label:<14}{n:>9,}{sizes:>9,}{resamples:>11,}{predicted:>13.2f}{measured:>12.2f}"
              f"{predicted / measured:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
