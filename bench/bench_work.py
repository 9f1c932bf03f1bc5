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
    """The two named texts as word lists: (reference words, hypothesis words) of ``translation`` and ``unrelated``."""
    from evalcore.systems.synthetic import synthetic_test_set

    data = synthetic_test_set(max(200, 2 * words // 15), 2, seed=seed, empty_rate=0.0)
    reference = " ".join(data.references).split()
    translation = " ".join(data.systems["baseline"]).split()
    half = len(reference) // 2
    return {"translation": (reference[:half], translation[:half]),
            "unrelated": (reference[:half], reference[half:])}


def segments(words: list[str], length: int, count: int) -> list[str]:
    return [" ".join(words[k * length:(k + 1) * length]) for k in range(count)]


def scoring(args) -> None:
    from evalcore.systems.inputs import TextInput
    from evalcore.systems.metrics import TextOptions
    from evalcore.systems.statistics import text_statistics
    from evalcore.work.scoring import scoring_estimate

    lengths = [int(v) for v in args.lengths.split(",")]
    texts = named_texts(max(lengths) * 2 + args.words * 2)
    metrics = args.metric or ["bleu", "chrf", "wer", "ter"]
    print(f"{'metric':<7}{'text':<13}{'words/seg':>10}{'segments':>10}{'predicted s':>13}{'measured s':>12}{'ratio':>8}")
    worst = []
    for metric in metrics:
        options = TextOptions()
        warm = TextInput(references=(("a b c",) * 10,), hypotheses=(("a b d",) * 10,), systems=("hyp",),
                         reference_names=("references",))
        text_statistics(warm, metric, options, workers=1)  # (imports and compiled patterns outside the timings)
        for name, (reference, hypothesis) in texts.items():
            for length in lengths:
                count = max(1, args.words // length)
                refs, hyps = segments(reference, length, count), segments(hypothesis, length, count)
                data = TextInput(references=(tuple(refs),), hypotheses=(tuple(hyps),), systems=("hyp",),
                                 reference_names=("references",))
                predicted = scoring_estimate(metric, data.references, data.hypotheses, options).seconds
                measured = sorted(cpu(lambda: text_statistics(data, metric, options, workers=1))
                                  for _ in range(1 if metric == "ter" else 3))[0 if metric == "ter" else 1]
                ratio = predicted / measured
                worst.append(ratio)
                print(f"{metric:<7}{name:<13}{length:>10,}{count:>10,}{predicted:>13.3f}{measured:>12.3f}{ratio:>8.2f}",
                      flush=True)
    print(f"ratios from {min(worst):.2f} to {max(worst):.2f} (wanted: 1 to 2)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--scoring", action="store_true", help="the scoring of text instead (see above)")
    parser.add_argument("--metric", action="append", choices=["bleu", "chrf", "ter", "wer"])
    parser.add_argument("--words", type=int, default=2000, help="words per segment length and text (--scoring)")
    parser.add_argument("--lengths", default="10,30,100,300,1000,2000", help="words per segment (--scoring)")
    args = parser.parse_args()
    if args.scoring:
        return scoring(args)
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
