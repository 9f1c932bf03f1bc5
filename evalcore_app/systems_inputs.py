"""The Systems page's inputs and settings for summarization and retrieval (issue 31): the TREC qrels and runs
uploaders, ROUGE's settings (tokenizer, stemmer, several references, rougeLsum's sentences, the statistic), the
runs' (missing topics, ties) and the tests besides the resampling (the t-test and Wilcoxon's for means with scipy's
options, Tukey's HSD). Every widget is bound to the view's ``systems`` group (:class:`evalcore.viewstate.SystemsView`),
so each setting is in the link; evalcore_app/systems.py calls these from its sections.
"""

from __future__ import annotations

import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.systems import inputs as sysinputs
from evalcore.systems.names import (MAX_SYSTEMS, PAIR_TESTS, ROUGE_REFERENCES, ROUGE_SPLITS, ROUGE_STATS,
                                    ROUGE_TOKENIZERS, TREC_EXAMPLES, TREC_MISSING, TREC_TIES, WILCOXON_METHODS,
                                    WILCOXON_ZERO_METHODS)
from evalcore.text import markdown_text as esc
from evalcore_app import cached, common, widgets

__all__ = ["trec_uploaders", "rouge_settings", "trec_settings", "tests_settings", "store_qrels", "store_run"]


def store_qrels(upload) -> str:
    """Read an uploaded qrels file (refused with a message unless it reads) and store it; its id."""
    from evalcore.systems.trec import read_qrels

    content = upload.getvalue()
    read_qrels(content, name=upload.name)
    return cached.store().put(content, upload.name)


def store_run(upload) -> str:
    """Read an uploaded run (refused with a message unless it reads) and store it; its id."""
    from evalcore.systems.trec import read_run

    content = upload.getvalue()
    read_run(content, name=upload.name)
    return cached.store().put(content, upload.name)


def _qrels_changed() -> None:
    upload = st.session_state.get("w_sys_qrels_upload")
    common.update(sys_qrels=None if upload is None else store_qrels(upload))


def _runs_changed() -> None:
    files = (st.session_state.get("w_sys_run_upload") or [])[:MAX_SYSTEMS]
    names = sysinputs.unique_names([sysinputs.system_name(f.name) for f in files])
    common.update(sys_runs=tuple(f"{n}={store_run(f)}" for n, f in zip(names, files)), sys_pair=0)


def trec_uploaders(on_upload, stored_name) -> None:
    """The qrels and runs uploaders, and what the view holds now (a link's files too)."""
    left, right = st.columns(2)
    with left:
        st.file_uploader("Qrels: topic 0 document relevance per line (gzip too)", key="w_sys_qrels_upload",
                         on_change=on_upload, args=(_qrels_changed,))
    with right:
        st.file_uploader(f"Runs: topic Q0 document rank score tag per line, one file per run, 2 to {MAX_SYSTEMS}, the "
                         "first is the baseline (its name is the file's stem)", accept_multiple_files=True,
                         key="w_sys_run_upload", on_change=on_upload, args=(_runs_changed,))
    v = common.view()
    if v.sys_qrels or v.sys_runs:
        qrels = stored_name(v.sys_qrels) if v.sys_qrels else "none yet"
        runs = ", ".join(f"{n} ({stored_name(i)})" for n, i in v.systems.runs) or "none yet"
        st.caption(esc(f"Qrels: {qrels}. Runs, the baseline first: {runs}."))


def rouge_settings(metric: str) -> None:
    """ROUGE's settings that change the numbers (a correction where a link asks the corpus ROUGE of ROUGE-L)."""
    v = common.view()
    if v.sys_rouge_stat == "corpus" and metric not in ("rouge1", "rouge2"):
        common.correct(f"The corpus ROUGE (summed matches over summed reference n-grams) is ROUGE-N's; {metric} is "
                       "a mean of the documents' F, so F is used.", sys_rouge_stat="f")
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        widgets.bound(st.selectbox, "ROUGE tokenizer", "sys_rouge_tok", options=list(ROUGE_TOKENIZERS),
                      format_func={"rouge_score": "rouge-score's (a-z, 0-9)", "unicode": "Unicode letters, digits"}.get,
                      help=" ".join(f"{k}: {t}." for k, t in ROUGE_TOKENIZERS.items()))
    with c2:
        widgets.bound(st.selectbox, "Porter stemmer", "sys_stem", options=["auto", "yes", "no"],
                      format_func={"auto": "on with rouge-score's tokenizer, off with Unicode", "yes": "on",
                                   "no": "off"}.get,
                      help="nltk's Porter stemmer is English: on by default only with rouge-score's tokenizer.")
    with c3:
        stats = list(ROUGE_STATS) if metric in ("rouge1", "rouge2") else [k for k in ROUGE_STATS if k != "corpus"]
        widgets.bound(st.selectbox, "ROUGE score", "sys_rouge_stat", options=stats,
                      format_func={"f": "F, mean of documents", "recall": "recall, mean of documents",
                                   "precision": "precision, mean of documents",
                                   "corpus": "corpus ROUGE-N (summed counts)"}.get,
                      help=" ".join(f"{k}: {t}." for k, t in ROUGE_STATS.items()))
    with c4:
        if len(v.sys_refs) > 1:
            widgets.bound(st.selectbox, "Several references", "sys_rouge_refs", options=list(ROUGE_REFERENCES),
                          format_func={"max": "maximum (score_multi)", "mean": "mean over references"}.get)
        if metric == "rougeLsum":
            widgets.bound(st.selectbox, "rougeLsum's sentences", "sys_rouge_split", options=list(ROUGE_SPLITS),
                          format_func={"newline": "at \\n in a line", "punctuation": "also after . ! ?"}.get,
                          help=" ".join(f"{k}: {t}." for k, t in ROUGE_SPLITS.items()))


def trec_settings() -> None:
    """The measure (ir-measures' name), missing topics and ties of the runs."""
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1])
    with c1:
        widgets.bound(st.text_input, "Measure (ir-measures)", "sys_measure", max_chars=80,
                      help=f"Any measure ir-measures names whose mean over topics is its score, e.g. "
                           f"{', '.join(TREC_EXAMPLES)}; trec_eval's names (map, ndcg_cut_10, P_10) work too.")
    with c2:
        widgets.bound(st.selectbox, "Topics a run lacks", "sys_missing", options=list(TREC_MISSING),
                      format_func={"zero": "score 0 (trec_eval -c)", "omit": "left out for every run"}.get,
                      help=" ".join(f"{k}: {t}." for k, t in TREC_MISSING.items()))
    with c3:
        widgets.bound(st.selectbox, "Ties of equal scores", "sys_ties", options=list(TREC_TIES),
                      format_func={"trec_eval": "as trec_eval (document id)", "rank": "by the rank column",
                                   "random": "at random (seed)"}.get,
                      help=" ".join(f"{k}: {t}." for k, t in TREC_TIES.items()))
    with c4:
        if common.view().sys_ties == "random":
            widgets.bound(st.number_input, "Seed of ties", "sys_tie_seed", min_value=0, max_value=2**32 - 1, step=1,
                          convert=int)


def tests_settings(mean: bool, label: str) -> None:
    """The tests besides the bootstrap and randomization: the t-test and Wilcoxon's for a mean (with scipy's
    options), Tukey's HSD for any metric; a link's t-test or Wilcoxon for a ratio of sums is corrected."""
    v = common.view()
    offered = [t for t in PAIR_TESTS if mean or t == "tukey"]
    if not mean and any(t in v.sys_tests for t in ("ttest", "wilcoxon")):
        common.correct(f"The paired t-test and the Wilcoxon test compare item values; {label} is a ratio of sums "
                       "over the items, so they are left out.",
                       sys_tests=tuple(t for t in v.sys_tests if t in offered))
    c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
    with c1:
        chosen = widgets.bound(st.multiselect, "Tests besides the bootstrap and randomization", "sys_tests",
                               options=offered, convert=lambda x: tuple(t for t in PAIR_TESTS if t in x),
                               format_func={"ttest": "paired t-test (Holm)", "wilcoxon": "Wilcoxon signed-rank (Holm)",
                                            "tukey": "randomized Tukey HSD"}.get,
                               help=" ".join(f"{k}: {t}." for k, t in PAIR_TESTS.items() if k in offered))
    if "wilcoxon" in chosen:
        with c2:
            widgets.bound(st.selectbox, "Wilcoxon zero_method", "sys_wx_zero", options=list(WILCOXON_ZERO_METHODS),
                          help="scipy.stats.wilcoxon: wilcox drops zero differences, pratt ranks them and drops "
                               "them, zsplit splits their ranks.")
        with c3:
            widgets.bound(st.selectbox, "Wilcoxon method", "sys_wx_method", options=list(WILCOXON_METHODS),
                          help="scipy's method: exact (slow past a few hundred items), asymptotic, or auto.")
        with c4:
            widgets.bound(st.checkbox, "Continuity correction", "sys_wx_corr")


def notes(statistics) -> None:
    """What the input does to the numbers (text the tokenizer drops, topics scored 0 or left out), as warnings."""
    for note in statistics.notes:
        st.warning(esc(note))


def safe_measure() -> tuple[str | None, str]:
    """The view's TREC measure checked by ir-measures: (its name, "") or (None, why)."""
    from evalcore.systems.trec import trec_measure

    try:
        return str(trec_measure(common.view().sys_measure)), ""
    except EvalcoreError as exc:
        return None, str(exc)
