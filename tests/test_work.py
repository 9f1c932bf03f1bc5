"""The work budget (issue 19): cost estimates of the expensive calls, the budget from the environment, a refusal
that offers what fits (and every offer does fit), the step between the tested n as a setting of the analysis, the
report and its signature, and the resampling tests' progress often enough to stop them."""

from __future__ import annotations

import io
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore import analysis
from evalcore.cli import main
from evalcore.errors import ParameterError
from evalcore.nspec import grid_sizes
from evalcore.ranking import rank_scores
from evalcore.report.settings import ReportSettings, settings_from_signature
from evalcore import compare
from evalcore.stats import pairtests
from evalcore.work import (DEFAULT_BUDGET, WorkTooLargeError, check_work, grid_size, pair_estimate, parse_budget,
                           report_estimate, roc_estimate, sizes_estimate, work_budget)


def test_the_link_of_issue_19_is_refused_with_what_fits():
    """200,000 candidates, the bootstrap with 100,000 resamples at every n from 200 to 200,000: hours (the issue
    measured 1.2 s per 20 resamples); the refusal offers fewer resamples that fit the budget."""
    estimate = pair_estimate(200_000, (200, 200_000), "bootstrap", 100_000)
    assert estimate.sizes == 199_801 and 1800 < estimate.seconds < 7200
    with pytest.raises(WorkTooLargeError) as info:
        check_work(estimate, 60)
    message = str(info.value)
    assert message.startswith("This would take about 43 minutes of computing (the paired bootstrap with 100,000 "
                              "resamples at 199,801 list sizes of 200,000 candidates), more than the 60 seconds")
    assert "it was not started. What fits: 2,200 resamples." in message
    assert [o.changes for o in info.value.offers] == [{"resamples": 2_200}]


@pytest.mark.parametrize("test", ["bootstrap", "randomization", "fisher"])
@pytest.mark.parametrize("n_candidates, n_range", [(5_102, (1, 5_102)), (200_000, (200, 200_000)),
                                                   (10**8, (1, 10**8))])
@pytest.mark.parametrize("resamples", [100, 10_000, 100_000])
@pytest.mark.parametrize("budget", [1.0, 60.0, 3600.0])
def test_every_offer_fits_the_budget(test, n_candidates, n_range, resamples, budget):
    estimate = pair_estimate(n_candidates, n_range, test, resamples)
    try:
        check_work(estimate, budget)
    except WorkTooLargeError as exc:
        assert exc.estimate.seconds > budget
        for offer in exc.offers:
            changed = pair_estimate(n_candidates, n_range, test, offer.changes.get("resamples", resamples),
                                    n_step=offer.changes.get("n_step", 1))
            assert changed.seconds <= budget and math.isclose(changed.seconds, offer.seconds)
            assert offer.changes.get("resamples", 100) >= 100  # the page's smallest choice
        if test == "fisher" and n_candidates == 10**8:
            assert exc.offers and "a step of" in exc.offers[0].text  # the only way: fewer n
    else:
        assert estimate.seconds <= budget


def test_a_step_is_offered_when_fewer_resamples_cannot_help():
    """The randomization test's cost per resample is mostly per list size: a step fits where fewer resamples
    alone (at least 100) do not."""
    estimate = pair_estimate(10**7, (1, 10**7), "randomization", 1_000)
    with pytest.raises(WorkTooLargeError) as info:
        check_work(estimate, 60)
    texts = [o.text for o in info.value.offers]
    assert any("a step of" in t for t in texts), texts


def test_roc_and_report_estimates():
    assert roc_estimate(200_000, 10, 100_000).seconds > 3600  # the ROC page's AP bootstrap of ten measures
    with pytest.raises(WorkTooLargeError, match="bootstrap of average precision .* What fits: 1,400 resamples"):
        check_work(roc_estimate(200_000, 10, 100_000), 60)
    report = report_estimate(5_102, (100, 2_000), 4, 6, "bootstrap", 1_000)
    assert report.sizes == 1_901 + 24 and 0 < report.seconds < 60


@given(st.integers(1, 10_000), st.integers(0, 10_000), st.integers(1, 20_000))
def test_grid_size_counts_grid_sizes(lo, extra, step):
    hi = lo + extra
    sizes = grid_sizes((lo, hi), step)
    assert grid_size((lo, hi), step) == len(sizes)
    assert sizes[0] == lo and sizes[-1] == hi and np.all(np.diff(sizes) >= 1)
    assert np.all(np.diff(sizes)[:-1] == step) if len(sizes) > 2 else True


def test_sizes_estimate_sees_a_regular_grid():
    assert sizes_estimate(5_102, np.arange(100, 2_001, 50), "bootstrap", 1_000).n_step == 50
    irregular = sizes_estimate(5_102, [1, 5, 100], "bootstrap", 1_000)
    assert irregular.n_range is None and irregular.sizes == 3 and "at 3 list sizes" in irregular.what


@pytest.mark.parametrize("text, seconds", [("60", 60), ("90s", 90), ("5min", 300), ("1.5h", 5400), (" 2 m ", 120),
                                           ("unlimited", math.inf), (30, 30)])
def test_parse_budget(text, seconds):
    assert parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["", "-5", "0", "ten", "5 weeks", "nan", True])
def test_a_bad_budget_names_the_variable(text):
    with pytest.raises(ParameterError, match="EVALCORE_WORK_BUDGET must be"):
        parse_budget(text)


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    assert work_budget() == DEFAULT_BUDGET == 60
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "10min")
    assert work_budget() == 600
    estimate = pair_estimate(200_000, (200, 200_000), "bootstrap", 10_000)  # about 4 minutes
    check_work(estimate)
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "1min")
    with pytest.raises(WorkTooLargeError):
        check_work(estimate)


# -- the step between the tested n --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(3)
    labels = rng.random(3_000) < 0.2
    return (rank_scores(labels, labels + rng.normal(size=3_000), ties="stable"),
            rank_scores(labels, 0.6 * labels + rng.normal(size=3_000), ties="stable"))


def test_a_step_tests_the_grid_with_the_same_numbers(pair):
    a, b = pair
    every = analysis.pair_comparison(a, b, (100, 1_000)).comparison.set_index("n")
    stepped = analysis.pair_comparison(a, b, (100, 1_000), n_step=200).comparison
    assert stepped["n"].tolist() == [100, 300, 500, 700, 900, 1_000]
    for column in ("tp_a", "tp_b", "tp_d1", "fp_d1", "p_value", "diff", "diff_low"):
        np.testing.assert_allclose(stepped[column].to_numpy(), every.loc[stepped["n"], column].to_numpy())


def test_the_step_is_in_the_report_signature_and_round_trips():
    base = dict(measures=("a", "b"), label="gold", sizes=(100, 500), n_range=(100, 2_000), ties="stable")
    plain = ReportSettings(**base)
    assert "step" not in dict(plain.signature_settings())  # old signatures stay valid
    stepped = ReportSettings(**base, n_step=50)
    fields = stepped.signature_settings()
    assert ("step", ("50",)) in fields and settings_from_signature(fields) == stepped
    with pytest.raises(ParameterError, match="`n_step`"):
        ReportSettings(**base, n_step=0)


def test_the_step_is_a_link_setting():
    from evalcore.viewstate import ViewSettings, from_query, to_query

    v = ViewSettings().set(n_step=25)
    assert to_query(v)["n_step"] in ("25", ["25"]) and from_query(to_query(v))[0] == v
    fixed, problems = from_query({"n_step": ["0"]})
    assert fixed.n_step == 1 and "step between the tested n" in problems[0]


# -- progress often enough to stop ---------------------------------------------------------------------------------


@pytest.mark.parametrize("function", [compare.paired_bootstrap, compare.approximate_randomization])
def test_progress_comes_at_least_every_quarter_second(function, pair, monkeypatch):
    """A 5% step of a long test can take minutes; the callback (where work nobody waits for stops) must come
    every 0.25 s whatever the share done. The clock is driven: every reading is 0.3 s later."""
    clock = iter(np.arange(0, 10_000, 0.3))
    monkeypatch.setattr(pairtests.time, "monotonic", lambda: float(next(clock)))
    calls = []
    a, b = pair
    function(a, b, [500], resamples=40, progress=lambda done, total: calls.append(done))
    assert len(calls) >= (40 if function is compare.paired_bootstrap else 20) and calls[-1] == 40  # (chunks of 2)

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop

    with pytest.raises(Stop):  # the callback stops the work
        function(a, b, [500], resamples=40, progress=stop)


# -- the command line applies the budget --------------------------------------------------------------------------


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_refuses_past_the_budget_and_the_flag_raises_it(krenn_tsv, tmp_path, monkeypatch):
    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    argv = ["compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq", "--test",
            "bootstrap", "--resamples", "5000", "--ties", "stable", "--out", tmp_path / "t.csv"]
    code, _, err = run(*argv, "--work-budget", "2")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "more than the 2 seconds this command may use (raise it with --work-budget SECONDS or " \
           "EVALCORE_WORK_BUDGET); it was not started" in err and "on this server" not in err  # (its own words)
    assert "What fits: 2,800 resamples; or a step of 5 between the tested n." in err
    code, _, err = run(*argv[:-2], "--n", "1:5102:500", "--out", tmp_path / "t.csv", "--work-budget", "2")
    assert code == 0, err
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "60")  # (without it or the flag, a command line has no budget)
    code, _, err = run("curves", krenn_tsv, "--label", "is.colloc", "--kind", "auc", "--resamples", "100000",
                       "--out", tmp_path / "auc.csv")
    assert code == 2 and "bootstrap of average precision" in err and "it was not started" in err
    monkeypatch.delenv("EVALCORE_WORK_BUDGET")
    code, _, err = run("report", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                       "--test", "randomization", "--resamples", "100000", "--seed", "1", "--no-figures",
                       "--out", tmp_path / "r.zip", "--work-budget", "5")
    assert code == 2 and "the report's numbers" in err and "What fits" in err and not (tmp_path / "r.zip").exists()
    assert "this command may use (raise it with --work-budget" in err and "on this server" not in err


def test_a_report_with_a_step_names_it_in_the_signature_and_methods(krenn_tsv, tmp_path):
    import zipfile

    code, _, err = run("report", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq",
                       "--ties", "stable", "--range", "100:2000", "--step", "100", "--no-figures",
                       "--out", tmp_path / "r.zip", "--signature")
    assert code == 0, err
    signature = next(line for line in err.splitlines() if "signature: " in line).split("signature: ", 1)[1]
    assert "|step 100|" in signature
    archive = zipfile.ZipFile(tmp_path / "r.zip")
    assert "at every n from 100 to 2,000 in steps of 100" in archive.read("methods.md").decode()
    code, out, _ = run("reproduce", signature, krenn_tsv)
    assert code == 0 and out.rstrip().endswith("reproduced")
    code, out, _ = run("reproduce", signature.replace("|step 100|", "|step 50|"), krenn_tsv)
    assert code == 1 and "DO NOT match" in out


def test_the_command_line_has_a_budget_only_where_asked_and_reproduce_always(krenn_tsv, tmp_path, monkeypatch):
    """Issue 29: a command on a user's own machine runs what it is asked (no budget unless --work-budget or
    EVALCORE_WORK_BUDGET is set: the 10^8 runs of the speed issue must not be refused by default); reproduce always
    has one (60 s unless set), since a signature may come from anyone. Every estimate is still made and checked:
    ``observe`` sees the budget each was checked against."""
    from evalcore.work import command_budget, observe

    monkeypatch.delenv("EVALCORE_WORK_BUDGET", raising=False)
    assert command_budget() == math.inf and command_budget(always=True) == 60 and command_budget(5.0) == 5
    argv = ["compare", krenn_tsv, "--label", "is.colloc", "--measure", "log.like", "--measure", "chisq", "--ties",
            "stable", "--n", "1:5102:100", "--out", tmp_path / "t.csv", "--signature", tmp_path / "sig.txt"]
    with observe() as seen:
        code, _, err = run(*argv)
    assert code == 0, err
    assert seen and {budget for _, budget in seen} == {math.inf}
    signature = (tmp_path / "sig.txt").read_text().strip()
    with observe() as seen:
        code, out, err = run("reproduce", signature, krenn_tsv)
    assert code == 0 and out.rstrip().endswith("reproduced"), err
    assert seen and {budget for _, budget in seen} == {60.0}
    monkeypatch.setenv("EVALCORE_WORK_BUDGET", "90s")
    with observe() as seen:
        run(*argv)
    assert {budget for _, budget in seen} == {90.0}
    with observe() as seen:
        run(*argv, "--work-budget", "2min")
    assert {budget for _, budget in seen} == {120.0}


def test_every_metric_of_text_has_a_scoring_cost():
    """A new metric of text (evalcore.systems.names.TEXT_METRICS) cannot be scored before its cost is estimated:
    it needs its entry in evalcore.work.scoring.SCORING_COSTS (issue 29)."""
    from evalcore.systems.names import TEXT_METRICS
    from evalcore.work.scoring import SCORING_COSTS, scoring_estimate

    assert set(TEXT_METRICS) <= set(SCORING_COSTS), set(TEXT_METRICS) - set(SCORING_COSTS)
    references, hypotheses = [["a b c d"] * 5], [["a b c e"] * 5, ["a b c d e f"] * 5]
    for metric in SCORING_COSTS:
        estimate = scoring_estimate(metric, references, hypotheses)
        assert estimate.seconds > 0 and estimate.what == f"scoring 10 segments of 2 systems with {metric} (50 words)"


def test_rouge_l_grows_with_the_product_of_the_words_and_rouge_n_with_their_sum():
    """ROUGE's entries (issue 31's constants): ROUGE-L's table of the longest common subsequence is summary words
    times reference words, ROUGE-1 and -2 count n-grams."""
    from evalcore.work.scoring import ROUGE_COST, scoring_estimate

    def seconds(metric, words):
        return scoring_estimate(metric, [[" ".join(["w"] * words)]], [[" ".join(["v"] * words)]]).seconds

    each, per_word, per_product = ROUGE_COST
    for metric in ("rouge1", "rouge2"):
        assert seconds(metric, 200) - seconds(metric, 100) == pytest.approx(per_word * 200)
    for metric in ("rougeL", "rougeLsum"):
        assert seconds(metric, 200) - seconds(metric, 100) == pytest.approx(per_word * 200 + per_product * 30_000)
