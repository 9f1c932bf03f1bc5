"""Experiments with several samples: splitting, per-sample acceptance sets, cut-offs, several files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.candidates import CandidateSet
from evalcore.errors import ColumnError, EvalcoreError, ParameterError
from evalcore.stats.intervals import binomial_interval
from evalcore.io import combine_samples, load_candidates
from evalcore.ranking import rank
from evalcore.samples import Cut, cuts_for, default_cut_n, gamma_for_mean_size, per_sample, sample_table, split


def experiment(seed: int = 0, k: int = 5, size: int = 60, ties: bool = True) -> CandidateSet:
    rng = np.random.default_rng(seed)
    n = k * size
    scores = rng.normal(size=n)
    if ties:
        scores = np.round(scores, 1)
    lower = rng.integers(0, 20, size=n).astype(float)
    labels = rng.random(n) < 1 / (1 + np.exp(-(scores * 1.5 - 1.5)))
    samples = np.repeat([f"s{i}" for i in range(k)], size)
    order = rng.permutation(n)  # samples interleaved, as rows of a real file may be
    return CandidateSet(labels=labels[order], scores={"g": scores[order], "p": lower[order]},
                        directions={"p": "lower"}, samples=samples[order], source="exp.tsv")


def slow_per_sample(c: CandidateSet, measure: str, cut: Cut, ties: str, seed) -> list[tuple[int, int]]:
    """Obviously right: select each sample's rows, rank them, count."""
    out = []
    for s in c.sample_ids:
        sub = c.subset(np.array([str(x) == s for x in c.samples]))
        if cut.kind == "gamma":
            scores = sub.scores[measure]
            ok = np.isfinite(scores) & ((scores >= cut.value) if sub.higher_is_better(measure) else (scores <= cut.value))
            out.append((int(ok.sum()), int(sub.labels[ok].sum())))
        else:
            r = rank(sub, measure, ties=ties, seed=seed)
            n = min(int(cut.value), sub.n_candidates)
            out.append((n, int(sub.labels[r.order[:n]].sum())))
    return out


@given(seed=st.integers(0, 10_000), k=st.integers(1, 6), n=st.integers(1, 80),
       ties=st.sampled_from(["random", "stable", "optimistic", "pessimistic"]))
def test_per_sample_n_best_matches_slow_loop(seed, k, n, ties):
    c = experiment(seed, k=k, size=40)
    for measure in ("g", "p"):
        table = per_sample(c, measure, Cut("n", n), ties=ties, seed=seed)
        assert list(zip(table["size"], table["tp"])) == slow_per_sample(c, measure, Cut("n", n), ties, seed)


@given(seed=st.integers(0, 10_000), gamma=st.floats(-2.5, 2.5))
def test_per_sample_gamma_matches_slow_loop(seed, gamma):
    c = experiment(seed)
    for measure, g in (("g", round(gamma, 1)), ("p", float(round(abs(gamma) * 8)))):
        table = per_sample(c, measure, Cut("gamma", g))
        assert list(zip(table["size"], table["tp"])) == slow_per_sample(c, measure, Cut("gamma", g), "stable", None)


def test_per_sample_columns_and_intervals():
    c = experiment(3)
    table = per_sample(c, "g", Cut("gamma", 0.5), confidence_level=0.9, interval="wilson")
    assert list(table.columns) == ["sample", "N", "TPs", "size", "tp", "precision", "recall", "lower", "upper"]
    assert list(table["sample"]) == list(c.sample_ids)
    assert table["N"].sum() == c.n_candidates and table["TPs"].sum() == c.n_tp
    ci = binomial_interval(table["tp"].to_numpy(), table["size"].to_numpy(), 0.9, method="wilson")
    np.testing.assert_array_equal(table["lower"], ci.low)
    np.testing.assert_array_equal(table["precision"], table["tp"] / table["size"])
    np.testing.assert_array_equal(table["recall"], table["tp"] / table["TPs"])


def test_empty_acceptance_set_has_nan_precision_and_interval():
    c = experiment(1)
    table = per_sample(c, "g", Cut("gamma", 99.0))
    assert (table["size"] == 0).all()
    assert table["precision"].isna().all() and table["lower"].isna().all() and table["upper"].isna().all()


def test_n_larger_than_a_sample_takes_the_whole_sample():
    c = experiment(2, size=30)
    table = per_sample(c, "g", Cut("n", 1000))
    assert (table["size"] == 30).all() and (table["tp"] == table["TPs"]).all()


def test_nonfinite_scores_are_never_accepted():
    c = CandidateSet(labels=np.array([True, True, False, True]), scores={"g": np.array([np.nan, np.inf, 1.0, 2.0])},
                     directions={}, samples=np.array(["a", "a", "b", "b"]))
    table = per_sample(c, "g", Cut("gamma", -1e300))
    assert list(table["size"]) == [0, 2]


def test_sample_table_and_split():
    c = experiment(4, k=3, size=50)
    t = sample_table(c)
    assert list(t["sample"]) == list(c.sample_ids) and list(t["N"]) == [50, 50, 50]
    parts = split(c)
    assert [p.n_tp for p in parts.values()] == list(t["TPs"])
    np.testing.assert_allclose(t["baseline"], t["TPs"] / 50)
    # the rows of each part are the source rows of its candidates
    for s, part in parts.items():
        assert set(part.rows) == set(c.rows[np.asarray(c.samples).astype(str) == s])


def test_gamma_for_mean_size_is_the_pooled_nk_th_score():
    c = experiment(5, k=4, size=100, ties=False)
    gamma = gamma_for_mean_size(c, "g", 10)
    assert gamma == np.sort(c.scores["g"])[::-1][39]
    assert per_sample(c, "g", Cut("gamma", gamma))["size"].mean() == 10
    # lower is better: the 40th smallest
    assert gamma_for_mean_size(c, "p", 10) == np.sort(c.scores["p"])[39]


def test_cuts_for_and_default_n():
    c = experiment(6, k=3, size=50)
    assert default_cut_n(c) == 50  # smaller than the paper's 100
    assert cuts_for(c, ["g", "p"], "n", 7) == {"g": Cut("n", 7), "p": Cut("n", 7)}
    cuts = cuts_for(c, ["g", "p"], "gamma", 10, {"p": 3.0})
    assert cuts["p"] == Cut("gamma", 3.0) and cuts["g"] == Cut("gamma", gamma_for_mean_size(c, "g", 10))
    with pytest.raises(ParameterError, match="'n' or 'gamma'"):
        cuts_for(c, ["g"], "top", 10)


@pytest.mark.parametrize("kind, value, message", [("x", 1, "'n' or 'gamma'"), ("n", 0, ">= 1"), ("n", 2.5, "whole"),
                                                  ("gamma", float("nan"), "finite")])
def test_bad_cut(kind, value, message):
    with pytest.raises(ParameterError, match=message):
        Cut(kind, value)


def test_no_sample_column_says_what_to_do():
    c = CandidateSet(labels=np.array([True, False]), scores={"g": np.array([1.0, 2.0])}, directions={}, source="x.csv")
    with pytest.raises(ColumnError, match="no sample column.*Data page") as raised:
        per_sample(c, "g", Cut("n", 1))
    assert "--" not in str(raised.value)  # pages show it: their controls, never a command-line flag (issue 10)
    with pytest.raises(ColumnError, match="no sample 'z'"):
        experiment().sample_mask("z")


def test_combine_samples_round_trip(tmp_path):
    a = b"w\tis_tp\tscore\nx\tTRUE\t0.1\ny\tFALSE\t1e-300\nv\tTRUE\t\n"
    b = b"w\tscore\tis_tp\nz\t3.141592653589793\tT\nq\t-2.5e17\tF\n"
    data, name = combine_samples([(a, "run1.tsv"), (b, "run2.tsv")])
    assert name == "2 files (run1.tsv, run2.tsv).tsv"
    c = load_candidates(data, name=name)
    assert c.sample_ids == ("run1", "run2")
    np.testing.assert_array_equal(c.scores["score"], [0.1, 1e-300, np.nan, 3.141592653589793, -2.5e17])
    np.testing.assert_array_equal(c.labels, [True, False, True, True, False])
    # a file on disk works as well as bytes
    path = tmp_path / "run3.csv"
    path.write_text("w,is_tp,score\nr,1,5\n")
    data, _ = combine_samples([(a, "run1.tsv"), (path, "run3.csv")])
    assert load_candidates(data, name="x.tsv").sample_ids == ("run1", "run3")


def test_combine_samples_errors():
    a = b"w\tis_tp\tscore\nx\tTRUE\t0.1\n"
    with pytest.raises(EvalcoreError, match="b.tsv has other columns than a.tsv; it lacks 'score'"):
        combine_samples([(a, "a.tsv"), (b"w\tis_tp\nx\tTRUE\n", "b.tsv")])
    with pytest.raises(EvalcoreError, match="c.tsv already has a column 'sample'"):
        combine_samples([(a, "a.tsv"), (b"sample\tw\tis_tp\tscore\n1\tx\tTRUE\t0.1\n", "c.tsv")])
    with pytest.raises(EvalcoreError, match="same name"):
        combine_samples([(a, "a.tsv"), (a, "a.tsv")])
    with pytest.raises(EvalcoreError, match="bad.tsv"):
        combine_samples([(a, "a.tsv"), (b"", "bad.tsv")])
    # two stems alike: the whole names tell the samples apart
    data, _ = combine_samples([(a, "x.tsv"), (a, "x.csv")])
    assert load_candidates(data, name="y.tsv").sample_ids == ("x.tsv", "x.csv")
