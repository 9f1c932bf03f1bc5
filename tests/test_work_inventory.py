"""Issue 29: every command of the command line estimates its work before it starts, reading and scoring included, and
is refused past a set budget with nothing computed. The inventory below names every subcommand of evalcore.cli's
parser (found from the parser itself, so a new command that is not in it fails), with the variants that take
another path (another engine, an annotated sample, another kind of input).

For each variant: run without a budget, recording every estimate checked (:func:`evalcore.work.observe`); there is
at least one, and the first comes before anything is read. Then, for each estimate larger than every one before
it, run again with a budget between them: the run is refused naming that work ("it was not started"), exit code
2, and no table is written."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import build_parser, main
from evalcore.work import observe

OUT = "{tmp}/out.csv"
DATA = ["--label", "gold", "--ties", "stable"]
INVENTORY: dict[str, list[list[str]]] = {
    "curves": [["curves", "{full}", *DATA, "--out", OUT],
               ["curves", "{full}", *DATA, "--kind", "roc", "--out", OUT],
               ["curves", "{full}", *DATA, "--kind", "auc", "--resamples", "50", "--out", OUT],
               ["curves", "{sample}", *DATA, "--annotated-sample", "--n", "1:400", "--out", OUT],
               ["curves", "{sample}", *DATA, "--annotated-sample", "--n", "1:400", "--pool", "a,b:100",
                "--pool-sample", "121", "--out", OUT],  # (the 121 annotated outside the pool: issue 30's check)
               ["curves", "{parquet}", *DATA[:2], "--ties", "hash", "--seed", "1", "--engine", "duckdb", "--n",
                "1:400", "--out", OUT]],
    "compare": [["compare", "{full}", *DATA, "--measure", "a", "--measure", "b", "--out", OUT],
                ["compare", "{full}", *DATA, "--measure", "a", "--measure", "b", "--test", "bootstrap",
                 "--resamples", "50", "--n", "1:600:10", "--out", OUT],
                ["compare", "{sample}", *DATA, "--measure", "a", "--measure", "b", "--annotated-sample", "--n",
                 "1:400", "--out", OUT],
                ["compare", "{parquet}", *DATA[:2], "--ties", "hash", "--seed", "1", "--measure", "a", "--measure",
                 "b", "--engine", "duckdb", "--n", "1:400", "--out", OUT]],
    "auc-test": [["auc-test", "{full}", "--label", "gold", "--out", OUT]],
    "accept": [["accept", "{full}", *DATA, "--gamma", "0,1", "--out", OUT]],
    "summary": [["summary", "{full}", "--label", "gold"]],
    "validate": [["validate", "{experiment}", "--out", OUT]],
    "across": [["across", "{experiment}", "--measure", "sharp", "--measure", "good", "--out", OUT]],
    "uir": [["uir", "{experiment}", "--out", OUT]],
    "power": [["power", "--precision-a", "0.3", "--precision-b", "0.25", "--overlap", "0.8", "--out", OUT],
              ["power", "--precision-a", "0.3", "--precision-b", "0.25", "--overlap", "0.8", "--n", "500,1000",
               "--out", OUT]],
    "simulate": [["simulate", "--k", "5", "--n", "100", "--out", OUT]],
    "report": [["report", "{full}", *DATA, "--measure", "a", "--measure", "b", "--no-figures", "--range", "10:200",
                "--out", "{tmp}/out.zip"]],
    "reproduce": [["reproduce", "{signature}", "{full}"]],
    "systems": [["systems", "--refs", "{refs}", "--hyps", "{hyp_a}", "{hyp_b}", "--metric", "ter", "--resamples",
                 "100", "--json", "{tmp}/out.json"],
                ["systems", "--refs", "{refs}", "--hyps", "{hyp_a}", "{hyp_b}", "--metric", "bleu", "--resamples",
                 "100", "--json", "{tmp}/out.json"],
                ["systems", "{items}", "--metric", "accuracy", "--resamples", "100", "--json", "{tmp}/out.json"],
                ["systems", "--refs", "{refs}", "--hyps", "{hyp_a}", "{hyp_b}", "--metric", "rougeL", "--resamples",
                 "100", "--json", "{tmp}/out.json"],
                ["systems", "--qrels", "{qrels}", "--runs", "{run_a}", "{run_b}", "--metric", "nDCG@10",
                 "--resamples", "100", "--json", "{tmp}/out.json"],
                ["systems", "{scores}", "--metric", "mean", "--tests", "ttest", "wilcoxon", "tukey", "--resamples",
                 "100", "--json", "{tmp}/out.json"]],
    "strata-plan": [["strata-plan", "{sample}", *DATA, "--strata", "a:100,200,rest", "--budget", "100", "--n",
                     "100,300", "--out", OUT]],
    "pool-plan": [["pool-plan", "{sample}", *DATA, "--pool-measures", "a,b", "--budget", "100", "--n", "200",
                   "--out", OUT]],
}


# `app` computes nothing itself: it starts the dashboard's server, whose pages estimate every computation they
# start against the server's budget (tests/app/test_work_page_inventory.py)
SERVER_COMMANDS = {"app"}


def subcommands() -> set[str]:
    """The parser's commands that compute (all but :data:`SERVER_COMMANDS`)."""
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # (no public accessor)
    assert SERVER_COMMANDS <= set(actions[0].choices)
    return set(actions[0].choices) - SERVER_COMMANDS


def run(argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """Small inputs of every kind the commands read."""
    folder = tmp_path_factory.mktemp("inventory")
    rng = np.random.default_rng(29)
    n = 600
    labels = rng.random(n) < 0.2
    full = pd.DataFrame({"gold": np.where(labels, "TP", "FP"), "a": np.round(labels + rng.normal(size=n), 4),
                         "b": np.round(0.7 * labels + rng.normal(size=n), 4)})
    full.to_csv(folder / "full.tsv", sep="\t", index=False)
    full.to_parquet(folder / "full.parquet")
    sample = full.copy()
    sample.loc[rng.random(n) > 0.3, "gold"] = ""
    top = set(sample["a"].rank(ascending=False).nsmallest(100).index) | set(
        sample["b"].rank(ascending=False).nsmallest(100).index)
    sample.loc[list(top), "gold"] = full.loc[list(top), "gold"]  # the pool annotated whole
    sample.to_csv(folder / "sample.tsv", sep="\t", index=False)
    paths = {"full": str(folder / "full.tsv"), "sample": str(folder / "sample.tsv"),
             "parquet": str(folder / "full.parquet")}
    code, _, err = run(["simulate", "--k", "6", "--n", "200", "--seed", "2", "--out", folder / "experiment.tsv"])
    assert code == 0, err
    paths["experiment"] = str(folder / "experiment.tsv")
    from evalcore.systems.synthetic import synthetic_test_set, write_test_set

    refs, hyps = write_test_set(folder / "text", synthetic_test_set(40, 2, seed=3))
    paths.update(refs=str(refs), hyp_a=str(hyps[0]), hyp_b=str(hyps[1]))
    items = pd.DataFrame({"item": [f"i{k}" for k in range(200)]})
    for name, rate in (("base", 0.6), ("new", 0.7)):
        items[f"{name}.correct"], items[f"{name}.total"] = rng.binomial(10, rate, 200), 10
    items.to_csv(folder / "items.csv", index=False)
    paths["items"] = str(folder / "items.csv")
    scores = pd.DataFrame({"item": [f"i{k}" for k in range(60)], "comet.score": rng.normal(0.3, 0.2, 60),
                           "bleurt.score": rng.normal(0.35, 0.2, 60)})
    scores.to_csv(folder / "scores.csv", index=False)
    paths["scores"] = str(folder / "scores.csv")
    qrels = [f"q{t} 0 d{d} {int(rng.random() < 0.3)}" for t in range(20) for d in range(30)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths["qrels"] = str(folder / "qrels.txt")
    for name in ("run_a", "run_b"):
        lines = [f"q{t} Q0 d{d} {r + 1} {30 - r + rng.random():.4f} {name}" for t in range(20)
                 for r, d in enumerate(rng.permutation(30))]
        (folder / f"{name}.run").write_text("\n".join(lines) + "\n")
        paths[name] = str(folder / f"{name}.run")
    code, _, err = run(["compare", paths["full"], *DATA, "--measure", "a", "--measure", "b", "--out",
                        folder / "c.csv", "--signature", folder / "sig.txt"])
    assert code == 0, err
    paths["signature"] = (folder / "sig.txt").read_text().strip()
    return paths


def test_the_inventory_names_every_command_of_the_parser():
    """A new command must be added here, with the variants that take another path, and estimate its work."""
    assert subcommands() == set(INVENTORY), "add the new command(s) to INVENTORY: " + ", ".join(
        sorted(subcommands() ^ set(INVENTORY)))


CASES = [(command, k) for command, variants in INVENTORY.items() for k in range(len(variants))]


@pytest.mark.parametrize("command, variant", CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_every_command_is_estimated_and_refused_past_a_set_budget(command, variant, files, tmp_path, monkeypatch):
    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    argv = [a.format(tmp=tmp_path, **files) for a in INVENTORY[command][variant]]
    with observe() as seen:
        code, _, err = run(argv)
    assert code == 0, err
    estimates = [e for e, _ in seen]
    assert estimates, f"{command} computed without estimating its work"
    written = [p for p in tmp_path.iterdir()]
    for p in written:
        p.unlink()
    largest = 0.0
    refused = 0
    for estimate in estimates:
        if estimate.seconds <= largest * 1.001 or estimate.seconds <= 0:
            continue
        budget = (largest + estimate.seconds) / 2 if largest else estimate.seconds / 2
        code, out, err = run([*argv, "--work-budget", f"{budget:.12f}"])
        assert code == 2, (estimate.what, err)
        errors = [line for line in err.splitlines() if line.startswith("evalcore: error: ")]
        assert len(errors) == 1, err  # one sentence, one line (after the notes of what was read)
        assert f"({estimate.what})" in errors[0] and "it was not started" in errors[0], err
        assert "this command may use (raise it with --work-budget" in errors[0] and "server" not in errors[0], err
        assert not list(tmp_path.iterdir()) and not out.strip()  # nothing written
        largest = estimate.seconds
        refused += 1
    assert refused >= 1


def test_reproduce_has_a_budget_even_when_none_is_set(files, monkeypatch):
    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    with observe() as seen:
        code, out, err = run(["reproduce", files["signature"], files["full"]])
    assert code == 0 and out.rstrip().endswith("reproduced"), err
    assert {budget for _, budget in seen} == {60.0}


def test_scoring_past_the_budget_never_starts(files, tmp_path, monkeypatch):
    """TER of two systems: refused at its estimate, the scoring function is never called."""
    from evalcore.systems import statistics

    calls = []
    original = statistics.text_statistics
    monkeypatch.setattr(statistics, "text_statistics", lambda *a, **k: calls.append(1) or original(*a, **k))
    argv = ["systems", "--refs", files["refs"], "--hyps", files["hyp_a"], files["hyp_b"], "--metric", "ter",
            "--json", tmp_path / "o.json"]
    with observe() as seen:
        assert run(argv)[0] == 0 and calls == [1]
    scoring = next(e for e, _ in seen if e.what.startswith("scoring "))
    code, _, err = run([*argv, "--work-budget", f"{scoring.seconds / 2:.12f}"])
    assert code == 2 and "(scoring 80 segments of 2 systems with TER" in err and calls == [1]
