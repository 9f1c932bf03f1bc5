"""One number format for the app (issue 10): p-values never as a string of zeros, precision in percent."""

import fnmatch
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalcore import format as fmt


@pytest.mark.parametrize("p, text", [
    (1.0, "1"), (0.5, "0.5"), (0.25285439418811095, "0.253"), (0.0431, "0.0431"), (0.001, "0.001"),
    (0.000999, "1.0e-03"), (2.1e-29, "2.1e-29"), (1e-300, "1.0e-300"), (0.0, "< 1e-300"), (None, "–"),
    (float("nan"), "–"),
])
def test_p_values(p, text):
    assert fmt.p_value(p) == text


def test_pairwise_p_value_of_the_issue_is_short():
    # Pairwise showed 0.00000000000000000000000000001 (issue 10)
    assert fmt.p_value(1e-29) == "1.0e-29"
    assert fmt.p_value(0.0, -412.34) == "< 1e-300 (log10 p = -412.3)"
    assert fmt.p_value(1e-310, -309.99) == "< 1e-300 (log10 p = -310.0)"


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1))
def test_a_p_value_reads_back_within_its_digits(p):
    text = fmt.p_value(p)
    assert "0.0000" not in text and len(text) <= 9
    if p >= 1e-300:
        assert float(text) == pytest.approx(p, rel=0.051)  # 2 significant digits at worst
    else:
        assert text == "< 1e-300"


def test_vectorised_p_values_match_the_scalar():
    p = np.array([0.5, 1e-5, 0.0, np.nan])
    logs = np.array([-0.3, -5.0, -400.0, np.nan])
    assert fmt.p_values(p, logs).tolist() == [fmt.p_value(a, b) for a, b in zip(p, logs)]


def test_percent_count_level_number():
    assert fmt.percent(566 / 5102) == "11.09%" and fmt.percent(None) == "–" and fmt.percent(1) == "100.00%"
    assert fmt.count(5102) == "5,102" and fmt.count(float("nan")) == "–"
    assert fmt.level(0.95) == "95%" and fmt.level(0.999) == "99.9%" and fmt.level(0.9) == "90%"
    assert fmt.number(2.0871) == "2.09" and fmt.number(None) == "–" and fmt.number(math.inf) == "∞"


def test_formatted_table_uses_log10_p_and_leaves_other_columns():
    table = pd.DataFrame({"n": [100, 2000], "precision": [0.42, 0.1109], "p_value": [0.0, 0.3],
                          "log10_p": [-350.0, math.log10(0.3)], "df": [None, 3.0], "measure": ["a", "b"]})
    shown = fmt.formatted_table(table, {"n": "count", "precision": "percent", "p_value": "p", "df": "number"})
    assert shown["p_value"].tolist() == ["< 1e-300 (log10 p = -350.0)", "0.3"]
    assert shown["precision"].tolist() == ["42.00%", "11.09%"]
    assert shown["n"].tolist() == ["100", "2,000"] and shown["df"].tolist() == ["–", "3"]
    assert shown["measure"].tolist() == ["a", "b"] and table["n"].tolist() == [100, 2000]  # the input is untouched



# ---------------------------------------------------------------- every table the pages show, on Krenn's data

from evalcore import analysis, roc, validate  # noqa: E402
from evalcore.io import load_candidates  # noqa: E402
from evalcore.samples import cuts_for, sample_table  # noqa: E402

REPO_SAMPLE = __import__("pathlib").Path(__file__).resolve().parents[1] / "sample_data" / "experiment_sim.tsv.gz"
KRENN_MEASURES = ["log.like", "t.score", "chisq", "freq"]


@pytest.fixture(scope="module")
def krenn(krenn_tsv):
    candidates = load_candidates(krenn_tsv, label="is.colloc", keys=["PP", "verb"],
                                 scores=["freq", "MI", "Dice", "z.score", "t.score", "chisq", "chisq.corr",
                                         "log.like", "Fisher"])
    return candidates, analysis.rankings_for(candidates, KRENN_MEASURES, ties="random", seed=7)


@pytest.fixture(scope="module")
def experiment():
    candidates = load_candidates(REPO_SAMPLE)
    a, b = candidates.measures[:2]
    cuts = cuts_for(candidates, (a, b), "gamma", 50)
    return (candidates, analysis.across_samples(candidates, a, b, cuts[a], cuts[b], seed=1),
            validate.validate(candidates, a, cuts[a], seed=1))


@pytest.fixture(scope="module")
def page_tables(krenn, experiment):
    """Every (page, table) of PAGE_TABLES built by the evalcore function the page calls."""
    candidates, ranked = krenn
    pair = analysis.pair_comparison(ranked["log.like"], ranked["chisq"], (100, 2000))
    row = pair.comparison.iloc[400]
    pairwise = analysis.pairwise(ranked, 1000)
    curves = analysis.curves({m: ranked[m] for m in KRENN_MEASURES[:2]}, range(100, 2001))
    whole, across, validation = experiment
    estimates = pd.DataFrame({"measure": ["a"], "n": [1000], "m": [120], "k": [30], "estimate": [0.25],
                              "lower": [0.18], "upper": [0.33], "enough": [True]})  # the Precision page's sample rows
    return {
        ("data", "summary"): pd.DataFrame([{"Candidates N": candidates.n_candidates, "True positives": candidates.n_tp,
                                            "Baseline precision": candidates.baseline,
                                            "Measures": len(candidates.measures)}]),
        ("data", "per sample"): sample_table(whole),
        ("data", "ties"): analysis.data_summary(candidates, ranked, (100, 2000)),
        ("precision", "values at n"): analysis.precision_at(curves, 1000),
        ("precision", "estimates at n"): estimates,
        ("significance", "counts"): pair.counts,
        ("significance", "2x2"): pd.DataFrame({"": ["D1", "D2"], "TPs": [row.tp_d1, row.tp_d2],
                                               "FPs": [row.fp_d1, row.fp_d2]}),
        ("significance", "members"): analysis.difference_members(candidates, ranked["log.like"], ranked["chisq"],
                                                                 500),
        ("significance", "effect at n"): analysis.effect_at(pair, 500),
        ("threshold", "result"): analysis.threshold_result(ranked["freq"], 50.0),
        ("threshold", "neighbours"): analysis.threshold_neighbours(candidates, ranked["freq"], 2340),
        ("pairwise", "precision"): pairwise.precision,
        ("pairwise", "pairs"): pairwise.pairs,
        ("roc", "areas"): roc.roc_table({m: ranked[m] for m in KRENN_MEASURES[:2]}, resamples=50),
        ("validation", "per sample"): validation.table,
        ("across", "per sample"): across.table,
        ("across", "tests"): across.tests,
    }


def test_every_page_table_is_listed_and_every_listed_column_exists(page_tables):
    assert set(page_tables) == set(fmt.PAGE_TABLES) | {("significance", "effect at n")}
    for key, spec in fmt.PAGE_TABLES.items():
        table = page_tables[key]
        columns = table.columns if isinstance(table, pd.DataFrame) else list(table)
        for pattern in spec.kinds:
            hits = [c for c in columns if c == pattern or fnmatch.fnmatchcase(str(c), pattern)]
            assert hits, f"{key}: the table has no column {pattern!r} (it has {list(columns)})"


def test_no_page_table_shows_none_nan_zeros_or_fractions(page_tables):
    for key, table in page_tables.items():
        shown = fmt.page_table(*key, table)
        spec = fmt.PAGE_TABLES.get(key)
        for column in shown.columns:
            cells = shown[column].astype(str).tolist()
            assert not any(c in ("None", "nan", "NaN", "<NA>") for c in cells), (key, column, cells[:5])
            assert not any("0.0000" in c for c in cells), (key, column)
        if spec is None:
            continue
        for pattern, kind in spec.kinds.items():
            for column in [c for c in shown.columns if fnmatch.fnmatchcase(str(c), pattern)]:
                cells = shown[column].tolist()
                if kind == "percent":
                    assert all(re.fullmatch(r"\d{1,3}\.\d\d%|–", c) for c in cells), (key, column, cells[:5])
                if kind == "count":
                    assert all(re.fullmatch(r"\d{1,3}(,\d{3})*|–", c) for c in cells), (key, column, cells[:5])


def test_pairwise_shows_precision_in_percent_and_short_p_values(page_tables):
    precision = fmt.page_table("pairwise", "precision", page_tables[("pairwise", "precision")])
    raw = page_tables[("pairwise", "precision")]
    assert precision["precision"].tolist() == [f"{100 * p:.2f}%" for p in raw["precision"]]  # 27.10%, not 0.271
    pairs = fmt.page_table("pairwise", "pairs", page_tables[("pairwise", "pairs")])
    for text, p in zip(pairs["p_value"], page_tables[("pairwise", "pairs")]["p_value"]):
        assert text == fmt.p_value(p) and len(text) <= 9
        if p < 1e-3:
            assert re.fullmatch(r"\d\.\de-\d\d", text)
    assert "diff (points)" in pairs.columns and pairs["diff (points)"].str.match(r"[+-]\d+\.\d\d$").all()


def test_across_samples_df_is_a_dash_and_estimates_carry_their_units(page_tables):
    tests = page_tables[("across", "tests")]
    shown = fmt.page_table("across", "tests", tests)
    assert tests["df"].isna().sum() == 2 and shown["df"].tolist()[1:3] == ["–", "–"]  # Wilcoxon and sign test
    assert shown["df"].iloc[0] == "79"
    estimate = shown.columns[shown.columns.str.startswith("estimate")][0]
    assert shown[estimate].iloc[0] == f"{100 * tests['estimate'].iloc[0]:+.2f}"  # points, as the page's sentence
    assert shown[estimate].iloc[2] == f"{100 * tests['estimate'].iloc[2]:.2f}%"  # the sign test: a share
    assert shown["p_value"].tolist() == [fmt.p_value(p) for p in tests["p_value"]]


def test_effect_table_in_points_and_odds_ratio(page_tables):
    raw = page_tables[("significance", "effect at n")]
    shown = fmt.page_table("significance", "effect at n", raw)
    assert shown["estimate"].iloc[0] == f"{raw['estimate'].iloc[0]:+.2f}"
    assert shown["estimate"].iloc[2] == fmt.number(raw["estimate"].iloc[2])  # the odds ratio
    assert shown["low"].iloc[3] == "–" and shown["high"].iloc[3] == "–"  # the MDD has no interval


def test_threshold_result_is_one_row():
    shown = fmt.page_table("threshold", "result", {"gamma": 32.5, "size": 2340, "tp": 356, "fp": 1984,
                                                   "precision": 356 / 2340, "recall": 356 / 566,
                                                   "lower": 0.1378, "upper": 0.1673})
    assert shown.iloc[0].tolist() == ["32.5", "2,340", "356", "1,984", "15.21%", "62.90%", "13.78%", "16.73%"]


def test_unknown_tables_and_formats_are_refused():
    with pytest.raises(ValueError, match="no table 'nothing' on page 'pairwise'"):
        fmt.page_table("pairwise", "nothing", pd.DataFrame())
    with pytest.raises(ValueError, match="unknown format"):
        fmt.formatted_table(pd.DataFrame({"a": [1]}), {"a": "fraction"})
    with pytest.raises(ValueError, match="`kind`"):
        fmt.hover("y", "p")


def test_adjusted_p_values_do_not_borrow_the_raw_log():
    table = pd.DataFrame({"p_value": [0.0], "log10_p": [-400.0], "p_adjusted": [0.0]})
    shown = fmt.formatted_table(table, {"p_value": "p", "p_adjusted": "p"})
    assert shown["p_value"].iloc[0] == "< 1e-300 (log10 p = -400.0)" and shown["p_adjusted"].iloc[0] == "< 1e-300"


def test_p_statement():
    assert fmt.p_statement(2.1e-29) == "p = 2.1e-29" and fmt.p_statement(0.0431) == "p = 0.0431"
    assert fmt.p_statement(0.0, -412.34) == "p < 1e-300 (log10 p = -412.3)"


# ---------------------------------------------------------------- hovers: the same digits as the formatter

@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0, max_value=1), st.floats(min_value=-1, max_value=1), st.integers(0, 10**9))
def test_d3_formats_write_the_formatters_digits(x, d, k):
    # d3-format and Python's format mini-language agree on these specifiers (fixed, percent, sign, grouping)
    assert format(float(np.float64(100 * x)), fmt.D3["percent"]) + "%" == fmt.percent(x)
    assert format(x, fmt.D3["proportion"]) == fmt.percent(x)
    if abs(100 * d) >= 0.005:  # (where d3 would write a signed zero the formatter keeps more digits; the
        assert format(100 * d, fmt.D3["points"]) == fmt.points(d)  # figures write those as text: issue 30)
    assert format(k, fmt.D3["count"]) == fmt.count(k)
    assert format(x, fmt.D3["decimal"]) == fmt.decimal(x)


def test_points_decimal_score():
    assert fmt.points(0.058) == "+5.80" and fmt.points(-0.0123) == "-1.23" and fmt.points(None) == "–"
    assert fmt.decimal(0.797741) == "0.798" and fmt.score(32.5) == "32.5" and fmt.score(1 / 81) == "0.0123457"


# ---------------------------------------------------------------- never a signed zero (issue 30)

def test_a_bound_that_rounds_to_zero_keeps_its_side_of_zero():
    # Significance at n = 1,269 of Krenn's data read "+1.10 [-0.00, +2.19]": is zero in the interval or not?
    assert fmt.points(-4e-6) == "-0.0004" and fmt.points(4e-5) == "+0.004" and fmt.points(-3e-5) == "-0.003"
    assert fmt.points(0.0) == "0.00" and fmt.points(-0.0) == "0.00" and fmt.points(-1e-17) == "0.00"
    assert fmt.points(-1e-9) == "-0.0000"  # below four decimals: still on its side
    assert fmt.signed(-0.004, 1) == "-0.004" and fmt.signed(-0.0004, 1) == "-0.000" and fmt.signed(0.0, 1) == "0.0"
    assert fmt.number(-0.0) == "0" and fmt.number(-math.inf) == "-∞"  # one minus sign: the hyphen-minus


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-1, max_value=1, allow_nan=False))
def test_points_never_write_a_signed_zero_and_keep_the_sign(d):
    text = fmt.points(d)
    assert not re.fullmatch(r"[-+]0\.00", text) and "−" not in text
    if abs(100 * d) < fmt.ZERO_TOLERANCE:
        assert text == "0.00"
    else:
        assert text[0] == ("+" if d > 0 else "-")
        decimals = len(text.split(".")[1])
        assert 2 <= decimals <= 4 and abs(float(text) - 100 * d) <= 0.5 * 10 ** -decimals + 1e-12


def test_the_effect_table_of_krenn_at_1269_shows_which_side_of_zero(krenn_tsv):
    from evalcore import analysis
    from evalcore.io import load_candidates

    candidates = load_candidates(krenn_tsv, label="is.colloc", scores=["log.like", "chisq"])
    rankings = analysis.rankings_for(candidates, ("log.like", "chisq"), ties="stable", seed=None)
    result = analysis.pair_comparison(rankings["log.like"], rankings["chisq"], (1200, 1300), confidence_level=0.95,
                                      interval="clopper_pearson", test="fisher", correction="none")
    effects = analysis.effect_at(result, 1269)
    raw = effects[effects["effect"].str.contains("points")].iloc[0]
    shown = fmt.page_table("significance", "effect at n", effects)
    row = shown[shown["effect"] == raw["effect"]].iloc[0]
    assert -0.005 < raw["low"] < 0  # the lower bound of Newcombe's interval: just below zero
    assert row["low"] != "-0.00" and row["low"].startswith("-") and float(row["low"]) == pytest.approx(raw["low"],
                                                                                                        abs=5e-5)
    assert row["estimate"] == "+1.10"
