"""Every link gives a valid view: any query string, opened on any page, either applies or is corrected with a
message on the page, and never raises.

A hypothesis property over the query space (every parameter the view knows, valid and invalid values, hostile
text, huge and non-numeric numbers, NaN and infinities, repeated keys, unknown parameters) runs against every page
under AppTest, opened directly at its path as a shared link is; an explicit list covers the cases named in the
issue. For each run: no exception; the corrected view round-trips through the URL (``from_query(to_query(v)) ==
(v, [])``) and passes the data checks again unchanged; every widget bound to the view shows the view's value; and
where the view differs from what the link asked for, the page shows a message.

The data: a small experiment (3 samples of 40 candidates) with 13 measures (more than a page draws), one whose
scores are all NaN, one constant, one lower-is-better, and the shipped single-sample data set (a slider step of 10).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from evalcore.io.store import DatasetStore
from evalcore.viewstate import (FIELD_GROUP, QUERY_NAMES, _kind, _parse, check_settings,
                                from_query, to_query)
from hostile import HOSTILE

APP = str(Path(__file__).resolve().parents[2] / "app.py")
PAGES = ["pages/data.py", "pages/precision.py", "pages/confidence.py", "pages/significance.py",
         "pages/threshold.py", "pages/pairwise.py", "pages/roc.py", "pages/validation.py", "pages/across.py",
         "pages/uir.py", "pages/annotate.py", "pages/systems.py"]
MEASURES = ("good", "noisy", "flat", "all_nan", "reverse") + tuple(f"m{i:02d}" for i in range(8))
SAMPLE_SIM = "sample:collocations_sim"
EXAMPLES_PER_PAGE = 15


def experiment_tsv() -> bytes:
    rng = np.random.default_rng(3)
    lines = ["sample\tword\tis_tp\t" + "\t".join(MEASURES)]
    for s in ("s1", "s2", "s3"):
        tp = rng.random(40) < 0.3
        tp[:2] = (True, False)
        for i in range(40):
            scores = [rng.normal(tp[i], 1.0), rng.normal(tp[i], 3.0), 1.0, "NaN", -rng.normal(tp[i], 1.0)]
            scores += [round(rng.normal(tp[i] * k / 8, 1.0), 2) for k in range(8)]
            lines.append(f"{s}\t{s}w{i}\t{'TRUE' if tp[i] else 'FALSE'}\t" + "\t".join(map(str, scores)))
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """The experiment in a module-wide store (hypothesis reruns the test body, so no function-scoped fixtures)."""
    store = tmp_path_factory.mktemp("store")
    saved = {k: os.environ.get(k) for k in ("EVALCORE_STORE", "EVALCORE_DEFAULT_DATASET")}
    os.environ["EVALCORE_STORE"] = str(store)
    os.environ.pop("EVALCORE_DEFAULT_DATASET", None)
    try:
        yield {"experiment": DatasetStore().put(experiment_tsv(), "links.tsv"), "sim": SAMPLE_SIM}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---------------------------------------------------------------- the query space

NUMBERS = ["0", "1", "-1", "2", "5", "40", "99", "100", "101", "333", "1000", "2000", "5000", "6348", "1e3", "1.5",
           " 7 ", "9" * 30, "-" + "9" * 25, "9" * 5000, "nan", "NaN", "inf", "-inf", "1e400", "x", "", "0x10"]
FLOATS = ["0.95", "0.9", "0.8", "0.999", "0.9557", "1", "1.5", "0", "-0.5", "0.5", "2", "10", "11", "0.1", "0.05",
          "0.25", "2.5", "-3", "1e308", "1e400", "nan", "inf", "-inf", "x", "", "1_0"]
CHOICES = {
    "ties": ["random", "stable", "optimistic", "pessimistic"], "interval": ["clopper_pearson", "wilson", "jeffreys"],
    "threshold_mode": ["gamma", "n"], "test": ["fisher", "mcnemar", "chi2", "bootstrap", "randomization"],
    "correction": ["none", "holm", "bh"], "curve_kind": ["roc", "det", "pr"], "auc_method": ["delong", "bootstrap"],
    "cut_mode": ["gamma", "n"], "sample": ["s1", "s2", "s3"],
    "label": ["is_tp", "word", "good", "sample"], "sample_column": ["sample", "is_tp", "word"],
    "keys": ["word", "sample", "is_tp", "good"], "dataset": [],
    "names": ["good=G²", "noisy=N", "nope=x", "good=", "flat=noisy"],
    "difference_method": ["newcombe", "agresti_caffo"],
    "ann_rule": ["annotator", "majority", "agreed"], "ann_sample": ["s7", "s1-top5-abc", "x y"],
    "ann_of": ["a0123456789ab", "alice"], "ann_context": ["word", "sample", "nope"],
    "sample_interval": ["hypergeometric", "clopper_pearson"],
    "sys_mode": ["text", "table", "trec"],
    "sys_metric": ["bleu", "chrf", "ter", "wer", "f1", "aer", "rouge1", "rougeLsum", "mean"],
    "sys_tokenize": ["13a", "intl", "char"], "sys_rule": ["bk", "sacrebleu"],
    "sys_matrix": ["p_adjusted", "p_randomization", "p_tukey", "p_ttest"], "sys_refs": ["a" * 64],
    "sys_table": ["b" * 64], "sys_hyps": ["a=" + "a" * 64, "b=" + "c" * 64, "=" + "d" * 64, "x=y"],
    "sys_qrels": ["b" * 64], "sys_runs": ["r=" + "a" * 64, "s=" + "c" * 64, "x=y"],
    "sys_measure": ["nDCG@10", "ap", "P(rel=2)@5", "bleu", "NumQ"], "sys_missing": ["zero", "omit"],
    "sys_ties": ["trec_eval", "rank", "random"], "sys_rouge_tok": ["rouge_score", "unicode"],
    "sys_stem": ["auto", "yes", "no"], "sys_rouge_refs": ["max", "mean"], "sys_rouge_split": ["newline", "punctuation"],
    "sys_rouge_stat": ["f", "recall", "corpus"], "sys_tests": ["ttest", "wilcoxon", "tukey", "anova"],
    "sys_wx_zero": ["wilcox", "pratt", "zsplit"], "sys_wx_method": ["auto", "exact", "asymptotic"],
}
MEASURE_FIELDS = {"scores", "lower", "measures", "a", "b", "threshold_measure", "compare_measure",
                  "v_measure", "ann_measures"}
ODD_TEXT = ["", "nope", "x" * 500, "\u2060", "é", *HOSTILE[:8]]
SPECIAL_MEASURES = ["all_nan", "flat", "good", "noisy", "log_like", "nope", HOSTILE[0]]
PAGE_FIELDS = {  # the settings each page reads, drawn more often on that page
    "pages/data.py": ("label", "scores", "keys", "lower", "exclude_unlabelled", "ties", "seed", "sample_column",
                      "sample", "names"),
    "pages/precision.py": ("measures", "n_min", "n_max", "n_at", "show_recall", "show_f", "beta", "sample"),
    "pages/confidence.py": ("measures", "n_min", "n_max", "level", "interval", "sample"),
    "pages/significance.py": ("a", "b", "level", "n_min", "n_max", "test", "correction", "resamples", "look_n",
                              "sample", "difference_method", "power"),
    "pages/threshold.py": ("threshold_measure", "threshold_mode", "gamma", "threshold_n", "compare_measure",
                           "compare_gamma", "level", "interval", "sample"),
    "pages/pairwise.py": ("measures", "correction", "pairs_n", "level", "sample"),
    "pages/roc.py": ("measures", "curve_kind", "auc_method", "resamples", "level", "sample"),
    "pages/validation.py": ("v_measure", "level", "cut_mode", "cut_n", "cut_gammas", "interval"),
    "pages/across.py": ("a", "b", "level", "cut_mode", "cut_n", "cut_gammas"),
    "pages/uir.py": ("a", "b", "uir_threshold", "cut_mode", "cut_n", "cut_gammas"),
    "pages/annotate.py": ("ann_sample", "ann_of", "ann_seed", "ann_size", "ann_k", "ann_measures", "ann_context",
                          "ann_rule", "level"),
    "pages/systems.py": ("sys_mode", "sys_refs", "sys_hyps", "sys_table", "sys_metric", "sys_tokenize",
                         "sys_lowercase", "sys_word_order", "sys_resamples", "sys_seed", "sys_rule", "sys_level",
                         "sys_pair", "sys_matrix", "sys_qrels", "sys_runs", "sys_measure", "sys_missing", "sys_ties",
                         "sys_tie_seed", "sys_rouge_tok", "sys_stem", "sys_rouge_stat", "sys_tests", "sys_wx_zero"),
}


def values_for(field: str):
    kind = _kind(field)
    if field in MEASURE_FIELDS:
        pool = list(MEASURES) + ["log_like", "t_score", "chisq", "MI", "freq"] + ODD_TEXT
        one = st.one_of(st.sampled_from(SPECIAL_MEASURES), st.sampled_from(pool))
        return st.lists(one, max_size=14) if kind == "list" else st.one_of(one, st.lists(one, min_size=2, max_size=3))
    if field == "resamples":  # (a huge count is clamped to 100,000: tried on the small data in EXPLICIT)
        pool = ["100", "150", "99", "0", "-1", "x", "nan", "1.5", ""]
    elif field == "sys_resamples":  # (the Systems page's choices; a huge count would be the largest, 100,000)
        pool = ["100", "200", "150", "0", "-1", "x", "nan", "1.5", "", "9" * 30]
    elif kind == "int":
        pool = NUMBERS
    elif kind == "float":
        pool = FLOATS
    elif kind == "bool":
        pool = ["0", "1", "true", "false", "maybe", ""]
    elif field == "cut_gammas":
        pool = [f"{m}={g}" for m in ("good", "flat", "all_nan", "nope") for g in ("0.5", "-1", "nan", "1e400", "x")]
    else:
        pool = CHOICES.get(field, []) + ODD_TEXT
    one = st.sampled_from(pool)
    if kind == "list":
        return st.lists(one, max_size=14)
    return st.one_of(one, st.lists(one, min_size=2, max_size=3))  # a list: the key repeated in the link


ROLES = ("label", "scores", "keys", "lower", "sample_column", "exclude_unlabelled")
SETTINGS = tuple(sorted(set(QUERY_NAMES) - set(ROLES) - {"dataset"}))


def queries(dataset_ids: list[str], page: str):
    """Links: mostly to a data set that exists (so that the pages get past loading), with up to 5 of the page's own
    settings and 3 others, sometimes a column role, a repeated key or a parameter the dashboard does not know."""
    def params(names, max_size):
        return st.lists(st.sampled_from(names), max_size=max_size, unique=True).flatmap(
            lambda chosen: st.fixed_dictionaries({QUERY_NAMES[f]: values_for(f) for f in chosen}))

    wrong = st.sampled_from(["sample:nope", "A" * 64, "../../etc/passwd", ""])
    dataset = st.one_of(st.sampled_from(dataset_ids), st.sampled_from(dataset_ids), st.sampled_from(dataset_ids), wrong)
    unknown = st.dictionaries(st.sampled_from(["utm_source", "page", "m ", "Ties", "n_range"]), st.just("1"),
                              max_size=1)
    every_measure = st.sampled_from([{}, {"score": list(MEASURES)}])  # all_nan is not suggested as a score
    return st.tuples(dataset, every_measure, params(SETTINGS, 3), params(ROLES, 1), params(PAGE_FIELDS[page], 5),
                     unknown).map(lambda t: {"dataset": t[0], **t[1], **t[2], **t[3], **t[4], **t[5]})


# ---------------------------------------------------------------- one link on one page

def open_link(page: str, query: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(page)  # the link's path: the page runs first, as in a browser opening the link
    at.run()
    return at


def messages(at: AppTest) -> list[str]:
    return [m.value for m in [*at.warning, *at.error, *at.info]]


def asked(query: dict) -> dict:
    """What the link asked for, field by field, parsed but not checked."""
    by_query = {q: f for f, q in QUERY_NAMES.items()}
    out = {}
    for key, raw in query.items():
        if key in by_query:
            raw = [raw] if isinstance(raw, str) else list(raw)
            if raw:
                out[by_query[key]] = _parse(by_query[key], raw, [])
    return out


WIDGET_FIELDS = set(FIELD_GROUP)
# Settings a page shows a default for while the view has none (None: not chosen; the measures and the pair are the
# shared selection's defaults, shown without being written: tests/app/test_faithful.py)
SHOWN_DEFAULTS = {"n_at", "look_n", "pairs_n", "gamma", "log_score", "measures", "a", "b",
                  "n_min", "n_max"}  # (the ends of the default range, typed: issue 30)


def check_valid_view(at: AppTest, query: dict) -> None:
    assert not at.exception, [e.value for e in at.exception]
    v = at.session_state["view"]
    assert from_query(to_query(v)) == (v, [])  # the corrected view round-trips through the URL
    assert check_settings(v) == (v, [])
    # every widget bound to the view shows it (Streamlit would quietly show another value)
    for field in WIDGET_FIELDS:
        key = f"w_{field}"
        if key in at.session_state:
            shown = at.session_state[key]
            wanted = getattr(v, field)
            if isinstance(wanted, tuple):
                shown = tuple(shown)
            # (None: the page shows the value it derives: an n, a gamma, the log score axis of heavy-tailed scores,
            # the shared selection's measures and pair)
            assert shown == wanted or (wanted is None and field in SHOWN_DEFAULTS), (field, shown, wanted)
    # where the view is not what the link asked for, the page says so
    changed = [f for f, value in asked(query).items()
               if getattr(v, f) != value and not (isinstance(value, float) and math.isnan(value))]
    if changed:
        assert messages(at), f"{changed} changed without a message: asked {asked(query)}, shows {v}"


@pytest.mark.parametrize("page", PAGES)
def test_any_link_gives_a_valid_view_on_every_page(page, datasets):
    ids = [datasets["experiment"], datasets["sim"]]

    @settings(max_examples=EXAMPLES_PER_PAGE, derandomize=True, deadline=None, database=None)
    @given(queries(ids, page))
    def run(query):
        check_valid_view(open_link(page, query), query)

    run()


ALL = list(MEASURES)
EXPLICIT = {  # the cases the issue names, and others found while writing this
    "only n_min": {"n_min": "50"},
    "only n_max": {"n_max": "110"},
    "only n_min, above the default n_max": {"n_min": "115"},
    "only n_max, below the default n_min": {"n_max": "20"},
    "an empty range": {"n_min": "70", "n_max": "70"},
    "an empty range at the top": {"n_min": "120", "n_max": "120"},
    "a reversed range": {"n_min": "90", "n_max": "30"},
    "more measures than a page shows": {"m": ALL, "band": ALL[:6]},
    "repeated keys": {"ties": ["stable", "optimistic"], "level": ["0.9", "0.8"], "a": ["good", "noisy"]},
    "huge numbers": {"n": "9" * 40, "seed": "9" * 40, "resamples": "9" * 40, "t_n": "9" * 40, "cut_n": "9" * 40,
                     "n_min": "9" * 40, "gamma": "1e308", "t_compare_gamma": "-1e308", "beta": "1e300"},
    "absurdly long numbers": {"n_max": "9" * 5000, "seed": "1" * 4400},
    "non-numeric values": {"n": "ten", "level": "high", "seed": "abc", "gamma": "x", "recall": "maybe",
                           "uir_t": "0.3x", "cut_n": "1.5"},
    "NaN and infinities": {"level": "nan", "gamma": "inf", "t_compare_gamma": "-inf", "beta": "nan", "uir_t": "inf",
                           "cut_gamma": ["good=nan", "noisy=inf"]},
    "negative and zero": {"n": "0", "t_n": "-3", "cut_n": "0", "n_min": "-10", "resamples": "-1", "seed": "-1"},
    "a measure whose scores are all NaN": {"score": ["good", "all_nan", "flat"], "m": ["all_nan", "flat"],
                                           "band": ["all_nan"], "a": "all_nan", "b": "flat",
                                           "t_measure": "all_nan", "v_m": "all_nan", "t_compare": "all_nan"},
    "a constant measure everywhere": {"m": ["flat"], "band": ["flat"], "a": "flat", "b": "good", "t_measure": "flat",
                                      "v_m": "flat", "t_compare": "flat", "cut": "gamma"},
    "the same measure twice": {"a": "good", "b": "good"},
    "unknown measures": {"m": ["nope", "good"], "a": "nope", "b": "gone", "t_measure": "x", "v_m": "y",
                         "cut_gamma": ["nope=1"], "lower": ["nope"]},
    "unknown names of methods": {"ties": "jitter", "interval": "exact", "test": "t", "correction": "sidak",
                                 "kind": "lift", "auc_ci": "x", "cut": "top", "t_mode": "both"},
    "an unknown sample": {"sample": "s9"},
    "a sample column with one candidate per sample": {"sample_col": "word"},
    "the label as sample column": {"sample_col": "is_tp"},
    "a score as label": {"label": "good"},
    "an unknown label and scores": {"label": "nope", "score": ["gone", "good"], "key": ["nowhere"]},
    "the label as a score": {"label": "is_tp", "score": ["is_tp", "good"], "key": ["is_tp"]},
    "unknown parameters": {"utm_source": "mail", "page": "precision", "Ties": "stable"},
    "every setting at once": {"m": ALL[:3], "band": ALL[:2], "a": "noisy", "b": "good", "t_measure": "good",
                              "t_mode": "n", "t_n": "60", "t_compare": "noisy", "t_compare_gamma": "0.5",
                              "n_min": "10", "n_max": "100", "n": "50", "level": "0.9", "interval": "wilson",
                              "ties": "stable", "sample": "s2", "cut": "n", "cut_n": "30", "v_m": "noisy",
                              "uir_t": "0.5", "test": "mcnemar", "correction": "holm",
                              "kind": "pr", "auc_ci": "bootstrap", "resamples": "200", "recall": "1", "f": "1",
                              "beta": "2"},
}


def pages_for(query: dict) -> list[str]:
    """The pages that read a setting of the query (every page reads the data set's roles and checks them)."""
    by_query = {q: f for f, q in QUERY_NAMES.items()}
    asked_fields = {by_query.get(key) for key in query}
    if asked_fields & set(ROLES) or None in asked_fields:  # roles, or unknown parameters: every page
        return PAGES
    return [p for p in PAGES if p == "pages/data.py" or asked_fields & set(PAGE_FIELDS[p])]


@pytest.mark.parametrize("case", list(EXPLICIT))
def test_the_cases_the_issue_names_on_every_page(case, datasets):
    """Each case on every page that reads one of its settings (and the Data page)."""
    query = {"dataset": datasets["experiment"], **EXPLICIT[case]}
    for page in pages_for(EXPLICIT[case]):
        at = open_link(page, query)
        try:
            check_valid_view(at, query)
        except AssertionError as error:
            raise AssertionError(f"{page}: {error}") from None
