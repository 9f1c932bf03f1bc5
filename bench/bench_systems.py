"""Comparing systems (issue 20): evalcore's ``systems`` command against sacrebleu's ``--paired-bs``, whole process
against whole process, in the same run; the resampling alone; and the agreement of their numbers.

The data: :func:`evalcore.systems.synthetic.synthetic_test_set`, 10 systems x 3,000 segments (the issue's case),
BLEU, 10,000 resamples. sacrebleu tests the 9 pairs with the baseline (``sacrebleu refs -i sys*.txt -m bleu
--paired-bs --paired-bs-n 10000 -f text``; its JSON output fails under numpy 2), evalcore all 45 pairs with the
paired bootstrap and approximate randomization (``python -m evalcore systems --refs ... --hyps ... --metric bleu
--resamples 10000 --json ...``). Each command runs in a fresh Python process (interpreter start and imports
counted) that reports its own peak resident memory (``VmHWM``) and that of its largest child (evalcore's workers
extracting sacrebleu's statistics); the two commands alternate, ``--repeats`` times each, and the medians are
compared (the machines are shared and noisy: a ratio in one run, not an absolute time).

Then, in this process: extracting sacrebleu's per-segment statistics (one process and two) and the resampling
alone (statistics extracted: every pair's bootstrap and randomization, the intervals, Holm) with its peak of
traced memory; and with ``--agreement``, the issue's closing table: on the tests' test set (1,000 segments, 3
systems) every score against sacrebleu's and jiwer's, and the p-values against sacrebleu's ``--paired-bs`` and
``--paired-ar`` (seed 12345, the same resamples). ``--figure PATH`` saves the test-set-size figure of that test
set as PNG.

Targets (issue 20): whole process at least 8 times faster than sacrebleu's, the resampling under 1 s, under 500 MB.

Usage: python bench/bench_systems.py [--segments 3000] [--systems 10] [--resamples 10000] [--repeats 2]
                                     [--agreement] [--figure out.png]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics as stats_
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.systems.synthetic import synthetic_test_set, write_test_set  # noqa: E402

RUNNER = r"""
import json, resource, sys
which, argv = sys.argv[1], sys.argv[2:]
def peak_mb():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
code = 0
if which == "sacrebleu":
    from sacrebleu.sacrebleu import main
    sys.argv = ["sacrebleu", *argv]
    try:
        main()
    except SystemExit as e:
        code = e.code or 0
else:
    from evalcore.cli import main
    code = main(argv)
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"peak_mb": peak_mb(), "child_peak_mb": children, "code": code}), file=sys.stderr)
"""


def run(which: str, argv: list[str], cwd: Path) -> dict:
    """One command in a fresh process: wall time, processor time (user + system, its workers included: wait4
    reports a process with the children it reaped), and its report."""
    env = {**os.environ, "SACREBLEU_SEED": "12345", "NO_COLOR": "1"}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-c", RUNNER, which, *argv], cwd=cwd, stdout=out, stderr=err,
                                   text=True, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    report = json.loads(stderr.strip().splitlines()[-1])
    if process.returncode or report["code"]:
        raise RuntimeError(f"{which} failed:\n{stderr[-3000:]}")
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, **report, "stdout": stdout}


def sacrebleu_p_values(stdout: str) -> dict[str, float]:
    out, current = {}, None
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) < 2:
            continue
        if cells[0] and cells[0] != "System":
            current = cells[0].removeprefix("Baseline: ").removesuffix(".txt")
        elif current and "p =" in line:
            out[current] = float(re.search(r"p = ([0-9.]+)", cells[1]).group(1))
    return out


def whole_process(folder: Path, names: list[str], resamples: int, repeats: int) -> dict:
    hyps = [f"{n}.txt" for n in names]
    sacre_argv = ["references.txt", "-i", *hyps, "-m", "bleu", "--paired-bs", "--paired-bs-n", str(resamples),
                  "-f", "text", "-w", "6"]
    ours_argv = ["systems", "--refs", "references.txt", "--hyps", *hyps, "--metric", "bleu", "--resamples",
                 str(resamples), "--seed", "12345", "--rule", "sacrebleu", "--json", "out.json"]
    runs = {"sacrebleu": [], "evalcore": []}
    for _ in range(repeats):
        for which, argv in (("sacrebleu", sacre_argv), ("evalcore", ours_argv)):
            runs[which].append(run(which, argv, folder))
            print(f"  {which}: {runs[which][-1]['seconds']:.1f} s (processor {runs[which][-1]['cpu']:.1f} s), peak "
                  f"{runs[which][-1]['peak_mb']:.0f} MB "
                  f"(largest child {runs[which][-1]['child_peak_mb']:.0f} MB)", flush=True)
    theirs = sacrebleu_p_values(runs["sacrebleu"][-1]["stdout"])
    ours = {p["b"]: p["p_bootstrap"] for p in json.loads((folder / "out.json").read_text())["pairs"]
            if p["a"] == names[0]}
    return {"runs": runs, "p_sacrebleu": theirs, "p_evalcore": ours}


def in_process(folder: Path, names: list[str], resamples: int) -> dict:
    from evalcore.systems.compare import ResamplingSettings, compare_systems
    from evalcore.systems.inputs import check_text_input, read_segments
    from evalcore.systems.statistics import text_statistics

    refs = [("references.txt", read_segments(folder / "references.txt"))]
    hyps = [(n, read_segments(folder / f"{n}.txt")) for n in names]
    data = check_text_input(refs, hyps, "bleu")
    out = {}
    for workers in (1, 2):
        start = time.perf_counter()
        statistics = text_statistics(data, "bleu", workers=workers)
        out[f"extract_{workers}"] = time.perf_counter() - start
    compare_systems(statistics, ResamplingSettings(100, 1))  # warm (BLAS threads, first-call costs)
    times = []
    cpu = []
    for _ in range(3):
        start, processor = time.perf_counter(), time.process_time()
        result = compare_systems(statistics, ResamplingSettings(resamples, 12345))
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - processor)
    tracemalloc.start()
    compare_systems(statistics, ResamplingSettings(resamples, 12345))
    out["resampling_traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out["resampling"] = min(times)
    out["resampling_all"] = times
    out["resampling_cpu"] = min(cpu)
    out["pairs"] = len(result.pairs)
    return out


def agreement(figure: str | None) -> None:
    """The closing table: the tests' test set, scores and p-values next to sacrebleu's and jiwer's."""
    import jiwer
    from sacrebleu.utils import smart_open

    from evalcore.systems.compare import ResamplingSettings, compare_systems
    from evalcore.systems.inputs import check_text_input, read_segments
    from evalcore.systems.metrics import TextOptions, sacrebleu_metric
    from evalcore.systems.statistics import text_statistics

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = synthetic_test_set(1000, 3, seed=0)
        write_test_set(folder, data)
        names = list(data.systems)
        refs = [("references.txt", read_segments(folder / "references.txt"))]
        hyps = [(n, read_segments(folder / f"{n}.txt")) for n in names]

        def lines(path):
            with smart_open(str(path)) as handle:
                return [line.rstrip() for line in handle]

        print("\n== the tests' test set: 1,000 segments, 3 systems (references CRLF, empty hypotheses) ==")
        print(f"{'metric':6} {'system':10} {'evalcore':>22} {'sacrebleu / jiwer':>22}  equal")
        results = {}
        for metric in ("bleu", "chrf", "ter", "wer"):
            statistics = text_statistics(check_text_input(refs, hyps, metric), metric, workers=2)
            results[metric] = statistics
            for k, n in enumerate(names):
                if metric == "wer":
                    theirs = jiwer.wer(lines(folder / "references.txt"), lines(folder / f"{n}.txt"))
                else:
                    theirs = sacrebleu_metric(metric, TextOptions()).corpus_score(
                        lines(folder / f"{n}.txt"), [lines(folder / "references.txt")]).score
                ours = float(statistics.scores[k])
                print(f"{metric:6} {n:10} {ours!r:>22} {theirs!r:>22}  {ours == theirs}")
        for test in ("bs", "ar"):
            cmd = [sys.executable, "-m", "sacrebleu", "references.txt", "-i", *[f"{n}.txt" for n in names], "-m",
                   "bleu", "chrf", f"--paired-{test}", f"--paired-{test}-n", "1000", "-f", "text", "-w", "6"]
            out = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, check=True,
                                 env={**os.environ, "SACREBLEU_SEED": "12345", "NO_COLOR": "1"}).stdout
            rows, current = {}, None
            for line in out.splitlines():
                cells = [c.strip() for c in line.split("│")[1:-1]]
                if len(cells) == 3 and cells[0] and cells[0] != "System":
                    current = cells[0].removeprefix("Baseline: ").removesuffix(".txt")
                elif len(cells) == 3 and current and "p =" in line:
                    rows[current] = [float(re.search(r"p = ([0-9.]+)", c).group(1)) for c in cells[1:]]
            label = "--paired-bs" if test == "bs" else "--paired-ar"
            print(f"\np-values against the baseline, 1,000 resamples, seed 12345 (sacrebleu {label}):")
            print(f"{'metric':6} {'system':10} {'sacrebleu':>10} {'ours, sacrebleu rule':>21} {'ours, BK rule':>14}")
            for j, metric in enumerate(("bleu", "chrf")):
                sacre = compare_systems(results[metric], ResamplingSettings(1000, 12345, "sacrebleu")).pairs
                bk = compare_systems(results[metric], ResamplingSettings(1000, 12345, "bk")).pairs
                column = "p_bootstrap" if test == "bs" else "p_randomization"
                for n in names[1:]:
                    mine = sacre[(sacre["a"] == names[0]) & (sacre["b"] == n)][column].iloc[0]
                    theirs_bk = bk[(bk["a"] == names[0]) & (bk["b"] == n)][column].iloc[0]
                    print(f"{metric:6} {n:10} {rows[n][j]:>10.4f} {mine:>21.6f} {theirs_bk:>14.6f}")
        full = compare_systems(results["bleu"], ResamplingSettings(1000, 12345))
        print("\nevery pair, BLEU, Berg-Kirkpatrick rule, 1,000 resamples, seed 12345:")
        print(full.pairs.to_string(index=False))
        if figure:
            from evalcore.figures.style import export
            from evalcore.systems.figures import size_figure
            from evalcore.systems.sizes import size_curves

            curves = size_curves(results["bleu"], ResamplingSettings(1000, 12345))
            fig = size_figure(curves, results["bleu"].metric, n_items=1000, alpha=0.05)
            Path(figure).parent.mkdir(parents=True, exist_ok=True)
            Path(figure).write_bytes(export(fig, "png", width=1000, height=600))
            print(f"\ntest-set-size figure written to {figure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--segments", type=int, default=3000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--agreement", action="store_true")
    parser.add_argument("--figure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = synthetic_test_set(args.segments, args.systems, seed=1)
        write_test_set(folder, data)
        names = list(data.systems)
        print(f"== {args.systems} systems x {args.segments:,} segments, BLEU, {args.resamples:,} resamples ==")
        whole = whole_process(folder, names, args.resamples, args.repeats)
        alone = in_process(folder, names, args.resamples)
    sacre = stats_.median(r["seconds"] for r in whole["runs"]["sacrebleu"])
    ours = stats_.median(r["seconds"] for r in whole["runs"]["evalcore"])
    sacre_cpu = stats_.median(r["cpu"] for r in whole["runs"]["sacrebleu"])
    ours_cpu = stats_.median(r["cpu"] for r in whole["runs"]["evalcore"])
    peak = max(r["peak_mb"] for r in whole["runs"]["evalcore"])
    child = max(r["child_peak_mb"] for r in whole["runs"]["evalcore"])
    sacre_peak = max(r["peak_mb"] for r in whole["runs"]["sacrebleu"])
    print(f"\nwhole process (median of {args.repeats}): sacrebleu --paired-bs {sacre:.1f} s ({len(names) - 1} pairs, "
          f"peak {sacre_peak:.0f} MB); evalcore systems {ours:.1f} s ({alone['pairs']} pairs, bootstrap and "
          f"randomization, peak {peak:.0f} MB, workers {child:.0f} MB)")
    print(f"ratio: evalcore is {sacre / ours:.1f} times faster in wall-clock time (target: at least 8), "
          f"{sacre_cpu / ours_cpu:.1f} times in processor time ({sacre_cpu:.1f} s against {ours_cpu:.1f} s)")
    print(f"extracting sacrebleu's statistics in this process: {alone['extract_1']:.2f} s with one process, "
          f"{alone['extract_2']:.2f} s with two")
    print(f"resampling alone (statistics extracted): {alone['resampling']:.2f} s (runs: "
          f"{', '.join(f'{t:.2f}' for t in alone['resampling_all'])}; target under 1 s), processor time "
          f"{alone['resampling_cpu']:.2f} s (both threads of the matrix products counted), traced peak "
          f"{alone['resampling_traced_mb']:.0f} MB")
    print("p-values against the baseline, sacrebleu's rule, seed 12345 (the same resamples):")
    for name, p in whole["p_sacrebleu"].items():
        if name != names[0]:
            print(f"  {name:10} sacrebleu {p:.4f}  evalcore {whole['p_evalcore'][name]:.6f}")
    if args.agreement:
        agreement(args.figure)
    elif args.figure:
        agreement(args.figure)


if __name__ == "__main__":
    main()
