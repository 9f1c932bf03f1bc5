"""The Systems page's glue (pages/systems.py draws it): its uploads into the store, its widgets bound to the view's
``systems`` group (:class:`evalcore.viewstate.SystemsView`), the cached calls into :mod:`evalcore.systems`, the
downloads with the comparison's signature, and the sidebar's signature and report for this page.

Every input file is stored like a candidate set (content-addressed, within the store's quota), so the link
(``sys_ref``, ``sys_hyp`` = ``name=<id>``, ``sys_table``) reopens the same files for anyone on the server. The
numbers are cached on the files' ids and two small frozen objects (:class:`SystemsInput`: the files, the metric
and sacrebleu's options; :class:`~evalcore.systems.compare.ResamplingSettings`), so a link opened twice, by anyone,
computes once. Work per request is bounded: scoring by its estimate (:func:`scoring_work`, per metric from the words
and characters of the segments: :mod:`evalcore.work.scoring`), run in a child process that a closed tab ends; the
resampling by the host's work budget (:mod:`evalcore.work`, ``EVALCORE_WORK_BUDGET``, as on the
other pages): :func:`within_budget` refuses it before it starts and offers fewer resamples that fit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.figures import style as figstyle
from evalcore.io.store import UnknownDatasetError
from evalcore.report.embed import embed_signature, sidecar_name
from evalcore.systems import figures as sysfig
from evalcore.systems import inputs as sysinputs
from evalcore.systems.compare import (TEST_COLUMNS, PairTests, ResamplingSettings, SystemsComparison,
                                     compare_systems, pvalue_columns)
from evalcore.systems.metrics import TextOptions
from evalcore.systems.names import (MAX_SYSTEMS, METRIC_NAMES, METRICS, RESAMPLE_CHOICES, ROUGE_METRICS, RULES,
                                    TABLE_METRICS, TEXT_METRICS, TOKENIZERS)
from evalcore.systems.rouge import RougeOptions
from evalcore.systems.trec import TrecOptions
from evalcore.systems.report import build_systems_report, systems_signature
from evalcore.systems.similarity import similarity
from evalcore.systems.sizes import size_curves
from evalcore.systems.statistics import ItemStatistics, table_statistics, text_jobs, text_statistics
from evalcore.text import markdown_text as esc
from evalcore.viewstate import LEVEL_MAX, LEVEL_MIN, LEVEL_STEP, ViewSettings
from evalcore.work import (WorkEstimate, WorkModel, check_work, systems_estimate, tukey_estimate, wilcoxon_estimate,
                           work_budget)
from evalcore.work.child import run_stoppable
from evalcore.work.commands import reading_estimate
from evalcore.work.scoring import scoring_estimate
from evalcore_app import cached, common, costs, figcache, jobs, uploads, widgets
from evalcore_app import systems_inputs as sysui

REPORT_FILE = "evalcore-systems-report.zip"
#: What the scoring's child processes start with (imported once by their fork server).
SCORING_MODULES = ("numpy", "sacrebleu", "jiwer", "evalcore.systems.statistics")


@dataclass(frozen=True)
class SystemsInput:
    """What the per-item statistics depend on: the files (store ids), the metric and the scorer's options
    (sacrebleu's, rouge-score's or the TREC runs')."""

    mode: str
    refs: tuple[str, ...]
    systems: tuple[tuple[str, str], ...]
    table: str | None
    metric: str
    options: TextOptions | RougeOptions | TrecOptions | None
    qrels: str | None = None

    @property
    def data_ids(self) -> tuple[str, ...]:
        """The store ids (SHA-256) of the files in signature order: references, then systems; the table; or the
        qrels, then the runs."""
        if self.mode == "table":
            return (self.table,) if self.table else ()
        if self.mode == "trec":
            return ((self.qrels,) if self.qrels else ()) + tuple(i for _, i in self.systems)
        return self.refs + tuple(i for _, i in self.systems)

    @property
    def unit(self) -> str:
        if self.mode == "trec":
            return "topics"
        if self.mode == "table":
            return "items"
        return "documents" if self.metric in ROUGE_METRICS else "segments"

    @property
    def mean(self) -> bool:
        """Whether the metric is a mean of item values (the t-test and Wilcoxon's test apply)."""
        if self.mode == "trec" or self.metric == "mean":
            return True
        return self.metric in ROUGE_METRICS and self.options is not None and self.options.stat != "corpus"


def rouge_options(s) -> RougeOptions:
    """The view's ROUGE settings (the corpus ROUGE-N only for ROUGE-N: settings_section corrects the link)."""
    stat = s.sys_rouge_stat if s.sys_rouge_stat != "corpus" or s.sys_metric in ("rouge1", "rouge2") else "f"
    stemmer = {"auto": None, "yes": True, "no": False}[s.sys_stem]
    return RougeOptions(tokenizer=s.sys_rouge_tok, stemmer=stemmer, references=s.sys_rouge_refs,
                        split=s.sys_rouge_split, stat=stat).for_metric(s.sys_metric)


def input_of(v: ViewSettings) -> SystemsInput:
    s = v.systems
    if s.sys_mode == "table":
        return SystemsInput("table", (), (), s.sys_table, s.sys_metric, None)
    if s.sys_mode == "trec":
        return SystemsInput("trec", (), s.runs, None, s.sys_measure,
                            TrecOptions(missing=s.sys_missing, ties=s.sys_ties, tie_seed=s.sys_tie_seed), s.sys_qrels)
    if s.sys_metric in ROUGE_METRICS:
        return SystemsInput("text", s.sys_refs, s.systems, None, s.sys_metric, rouge_options(s))
    options = TextOptions(tokenize=s.sys_tokenize, lowercase=s.sys_lowercase, chrf_word_order=s.sys_word_order,
                          ter_case_sensitive=s.sys_ter_case).for_metric(s.sys_metric)
    return SystemsInput("text", s.sys_refs, s.systems, None, s.sys_metric, options)


def tests_of(v: ViewSettings, inp: SystemsInput | None = None) -> PairTests:
    """The tests besides that the view chooses (the t-test and Wilcoxon's only for a mean)."""
    s = v.systems
    tests = s.sys_tests if inp is None or inp.mean else tuple(t for t in s.sys_tests if t == "tukey")
    return PairTests(tests, zero_method=s.sys_wx_zero, method=s.sys_wx_method, correction=s.sys_wx_corr)


def resampling_of(v: ViewSettings) -> ResamplingSettings:
    s = v.systems
    return ResamplingSettings(resamples=s.sys_resamples, seed=s.sys_seed, rule=s.sys_rule, level=s.sys_level)


_KEYS = {SystemsInput: repr, ResamplingSettings: repr, PairTests: repr}


# ---------------------------------------------------------------- files in the store

def open_file(file_id: str):
    """A stored input file (the store's checked read), or a message that says to upload it again here."""
    try:
        return cached.store().open(file_id)
    except UnknownDatasetError as exc:  # removed to make room, set aside as damaged, or never stored here
        raise UnknownDatasetError(str(exc).replace("data set", "file").replace(
            "on the Data page", "on this page")) from None


def _record(file_id: str):
    """A stored input file's record (name and size, no bytes read), or a message that says to upload it again."""
    try:
        return cached.store().get(file_id)
    except UnknownDatasetError as exc:
        raise UnknownDatasetError(str(exc).replace("data set", "file").replace(
            "on the Data page", "on this page")) from None


@jobs.cache(work=costs.segments, max_entries=32, show_spinner=False)
def segments(file_id: str) -> tuple[str, tuple[str, ...]]:
    """A stored text file's name and segments (read and checked once per file)."""
    stored, data = open_file(file_id)
    return stored.name, tuple(sysinputs.read_segments(data, name=stored.name))


@jobs.cache(work=costs.item_table, max_entries=8, show_spinner=False)
def item_table(file_id: str, metric: str | None) -> sysinputs.ItemTable:
    stored, data = open_file(file_id)
    return sysinputs.read_item_table(data, metric, name=stored.name)


def store_text(upload) -> str:
    """Read an uploaded text file (refused with a message unless it reads, or past the work budget) and store it;
    its id."""
    content = upload.getvalue()
    check_work(reading_estimate(content, upload.name, kind="text"))
    sysinputs.read_segments(content, name=upload.name)
    return cached.store().put(content, upload.name)


def store_table(upload) -> tuple[str, str | None]:
    """Read an uploaded per-item table and store it; its id and the metric its columns suggest."""
    from evalcore.io import read_table

    content = upload.getvalue()
    check_work(reading_estimate(content, upload.name))
    frame = read_table(content, name=upload.name)
    if "item" not in [str(c) for c in frame.columns]:
        sysinputs.table_from_frame(frame, None, name=upload.name)  # raises the message naming the column
    return cached.store().put(content, upload.name), sysinputs.suggest_table_metric(frame.columns)


# ---------------------------------------------------------------- cached numbers

def work_estimate(n_items: int, n_systems: int, settings: ResamplingSettings, curves: bool = False,
                  tests: PairTests = PairTests(), statistics: int = 2):
    """The resampling's estimated cost (:func:`evalcore.work.systems_estimate`), offering only the slider's choices;
    with Tukey's HSD and Wilcoxon's test when chosen (not with the curves, which resample without them)."""
    from evalcore.work import WorkEstimate

    estimate = systems_estimate(n_items, n_systems, settings.resamples, curves=curves, choices=RESAMPLE_CHOICES)
    extras = []
    if not curves and "tukey" in tests.tests:
        extras.append(tukey_estimate(n_items, n_systems, statistics, settings.resamples))
    if not curves and "wilcoxon" in tests.tests:
        extras.append(wilcoxon_estimate(n_items, n_systems * (n_systems - 1) // 2, tests.method))
    for extra in extras:
        estimate = WorkEstimate(estimate.what + " and " + extra.what, estimate.model + extra.model,
                                estimate.resamples, resample_choices=estimate.resample_choices)
    return estimate


def check_scoring(estimate) -> None:
    """Refuse scoring (rouge-score, ir-measures, a table's scores) whose estimate (evalcore.work.cost) is past the
    host's work budget, pointing to the command line."""
    from evalcore.work import duration_text, work_budget

    budget = work_budget()
    if estimate.seconds > budget:
        raise EvalcoreError(f"This would take about {duration_text(estimate.seconds)} of computing ({estimate.what}), "
                            f"more than the {duration_text(budget)} one request may use on this server "
                            "(EVALCORE_WORK_BUDGET, set by whoever runs this server); use the command line (python -m "
                            "evalcore systems), or fewer documents, topics or systems")


def check_budget(inp: SystemsInput, n_items: int, n_systems: int, settings: ResamplingSettings | None = None, *,
                 curves: bool = False, tests: PairTests = PairTests()) -> None:
    """Refuse resampling past the work budget (:class:`evalcore.work.WorkTooLargeError`); the scoring has its own
    estimate (:func:`scoring_work`)."""
    if settings is not None:
        check_work(work_estimate(n_items, n_systems, settings, curves, tests),
                   how_to_raise="EVALCORE_WORK_BUDGET, set by whoever runs this server")


def within_budget(inp: SystemsInput, settings: ResamplingSettings, *, curves: bool = False,
                  tests: PairTests = PairTests()) -> None:
    """Stop the page where the resampling (with ``curves``: and the test-set-size curves) is past the work budget,
    saying what it would cost and offering fewer resamples (buttons that set them); go on otherwise."""
    stats = statistics(inp)
    jobs.within_budget(work_estimate(stats.n_items, stats.n_systems, settings, curves, tests,
                                     len(stats.metric.statistics)),
                       "systems_curves" if curves else "systems", names={"resamples": "sys_resamples"})


@jobs.cache(work=costs.qrels_file, max_entries=8, show_spinner=False)
def qrels_file(file_id: str):
    from evalcore.systems.trec import read_qrels

    stored, data = open_file(file_id)
    return read_qrels(data, name=stored.name)


@jobs.cache(work=costs.run_file, max_entries=24, show_spinner=False)
def run_file(file_id: str):
    from evalcore.systems.trec import read_run

    stored, data = open_file(file_id)
    return read_run(data, name=stored.name)


def _trec_statistics(inp: SystemsInput) -> ItemStatistics:
    from evalcore.systems.trec import trec_statistics
    from evalcore.work import trec_estimate

    qrels = qrels_file(inp.qrels)
    runs = [run_file(i) for _, i in inp.systems]
    check_scoring(trec_estimate(sum(r.n_lines for r in runs), len(qrels.topics), len(runs)))
    return trec_statistics(qrels, runs, inp.metric, inp.options, names=[name for name, _ in inp.systems])


@jobs.cache(work=costs.text_input, max_entries=4, show_spinner=False, hash_funcs=_KEYS)
def text_input(inp: SystemsInput) -> sysinputs.TextInput:
    """The view's text files read (each within its reading estimate: :func:`segments`) and checked together."""
    refs = [segments(i) for i in inp.refs]
    hyps = [(name, segments(i)[1]) for name, i in inp.systems]
    return sysinputs.check_text_input([(n, lines) for n, lines in refs],
                                      [(f"{name} ({segments(i)[0]})", lines) for (name, i), (_, lines)
                                       in zip(inp.systems, hyps)],
                                      inp.metric, names=[name for name, _ in inp.systems])


@jobs.cache(work=costs.scoring_work, max_entries=8, show_spinner=False, hash_funcs=_KEYS)
def scoring_work(inp: SystemsInput) -> WorkEstimate:
    """What scoring the view's text will cost (:func:`evalcore.work.scoring.scoring_estimate`: per metric, from the
    words and characters of every segment, ROUGE's too), before a segment is scored; a table's counts need no
    scoring, and TREC runs are estimated as they are read (:func:`_trec_statistics`)."""
    if inp.mode == "table":
        return WorkEstimate("reading the per-item table's counts", WorkModel())
    if inp.mode == "trec":
        return WorkEstimate("evaluating the TREC runs (estimated when they are read)", WorkModel())
    data = text_input(inp)
    estimate = scoring_estimate(inp.metric, data.references, data.hypotheses, inp.options,
                                label=METRIC_NAMES[inp.metric])
    return replace(estimate, advice="use fewer or shorter segments, or run python -m evalcore systems on your own "
                                    "machine")


def within_scoring_budget(inp: SystemsInput) -> None:
    """Stop the page where scoring the text is past the work budget, saying what it would cost."""
    jobs.within_budget(scoring_work(inp), "systems_scoring")


@jobs.cache(work=costs.statistics, max_entries=4, show_spinner=False, hash_funcs=_KEYS)
def _statistics(inp: SystemsInput, _progress=None) -> ItemStatistics:
    """The per-item statistics, scored within the work budget in a child process that a closed tab ends
    (:func:`evalcore.work.child.run_stoppable`; ``_progress``, not in the key: :meth:`evalcore_app.jobs.Job.progress`)."""
    if inp.mode == "table":
        table = item_table(inp.table, inp.metric)
        if table.metric == "mean":
            from evalcore.work import mean_estimate

            check_scoring(mean_estimate(table.n_items, len(table.systems)))
        return table_statistics(table)
    if inp.mode == "trec":
        return _trec_statistics(inp)
    estimate = scoring_work(inp)
    check_work(estimate, how_to_raise="EVALCORE_WORK_BUDGET, set by whoever runs this server")
    data = text_input(inp)
    if inp.metric in ROUGE_METRICS:
        from evalcore.systems.rouge import rouge_statistics as scorer
    else:
        scorer = text_statistics
    return run_stoppable(scorer, data, inp.metric, inp.options, workers=1, progress=_progress,
                         total=text_jobs(data), cpu_limit=work_budget(), preload=SCORING_MODULES)


def statistics(inp: SystemsInput, show=None) -> ItemStatistics:
    """The per-item statistics (:func:`_statistics`), computed once for every session that asks for them (a second
    session waits for the first's), stopped when no session waits any more; ``show(done, total)`` shows the
    progress in this session."""
    with jobs.attend(("scoring", inp)) as job:
        return _statistics(inp, _progress=job.progress(show))


@jobs.cache(work=costs.comparison, max_entries=8, show_spinner="Resampling ...", hash_funcs=_KEYS)
def comparison(inp: SystemsInput, settings: ResamplingSettings, tests: PairTests = PairTests(),
               _progress=None) -> SystemsComparison:
    """``_progress`` (not in the key): :meth:`evalcore_app.jobs.Job.progress`'s callback, which stops work nobody waits for."""
    stats = statistics(inp)
    check_budget(inp, stats.n_items, stats.n_systems, settings, tests=tests)
    return compare_systems(stats, settings, progress=_progress, tests=tests)


@jobs.cache(work=costs.systems_curves, max_entries=8, show_spinner="Resampling test sets of every size ...",
            hash_funcs=_KEYS)
def curves(inp: SystemsInput, settings: ResamplingSettings, _progress=None) -> pd.DataFrame:
    stats = statistics(inp)
    check_budget(inp, stats.n_items, stats.n_systems, settings, curves=True)
    return size_curves(stats, settings, progress=_progress)


@jobs.cache(work=costs.similar, max_entries=8, show_spinner=False, hash_funcs=_KEYS)
def similar(inp: SystemsInput) -> pd.DataFrame:
    return similarity(statistics(inp))


# ---------------------------------------------------------------- inputs

def _on_upload(handle) -> None:
    """An uploader's change (files added or removed): store what reads, or keep the message of what does not."""
    try:
        handle()
    except EvalcoreError as exc:
        st.session_state["sys_upload_error"] = str(exc)
    else:
        st.session_state.pop("sys_upload_error", None)


def _references_changed() -> None:
    files = st.session_state.get("w_sys_ref_upload") or []
    common.update(sys_refs=tuple(dict.fromkeys(store_text(f) for f in files)))


def _hypotheses_changed() -> None:
    files = (st.session_state.get("w_sys_hyp_upload") or [])[:MAX_SYSTEMS]
    names = sysinputs.unique_names([sysinputs.system_name(f.name) for f in files])
    common.update(sys_hyps=tuple(f"{n}={store_text(f)}" for n, f in zip(names, files)), sys_pair=0)


def _table_changed() -> None:
    upload = st.session_state.get("w_sys_table_upload")
    if upload is None:
        common.update(sys_table=None)
        return
    file_id, metric = store_table(upload)
    changes = {"sys_table": file_id, "sys_pair": 0}
    if common.view().sys_metric not in TABLE_METRICS:
        changes["sys_metric"] = metric or "f1"
    common.update(**changes)
    st.session_state.pop("w_sys_metric", None)


def _stored_name(file_id: str) -> str:
    try:
        return cached.store().get(file_id).name
    except EvalcoreError:
        return f"a file not stored here ({file_id[:12]}…)"


def inputs_section() -> None:
    """The uploaders (text or table), what the view holds now (a link's files too), and a message for a file that
    does not read."""
    widgets.bound(st.radio, "Input", "sys_mode", options=["text", "table", "trec"], horizontal=True,
                  format_func={"text": "text files: references and one hypotheses file per system (MT, ASR, "
                                       "summaries)",
                               "table": "a per-item table (counts, or any score)",
                               "trec": "TREC runs with qrels"}.get)
    v = common.view()
    if v.sys_mode == "trec":
        sysui.trec_uploaders(_on_upload, _stored_name)
    elif v.sys_mode == "text":
        left, right = st.columns(2)
        with left:
            st.file_uploader("References: one segment per line, UTF-8 (several files: several references per "
                             "segment)", accept_multiple_files=True, key="w_sys_ref_upload",
                             on_change=_on_upload, args=(_references_changed,))
        with right:
            st.file_uploader(f"Hypotheses: one file per system, 2 to {MAX_SYSTEMS}, the first is the baseline (its "
                             "name is the file's stem)", accept_multiple_files=True, key="w_sys_hyp_upload",
                             on_change=_on_upload, args=(_hypotheses_changed,))
        v = common.view()
        if v.sys_refs or v.sys_hyps:
            refs = ", ".join(_stored_name(i) for i in v.sys_refs) or "none yet"
            systems = ", ".join(f"{n} ({_stored_name(i)})" for n, i in v.systems.systems) or "none yet"
            st.caption(esc(f"References: {refs}. Systems, the baseline first: {systems}."))
    else:
        st.file_uploader("Per-item table: CSV, TSV, Parquet, Excel, R; a column item and <system>.<count> columns "
                         "(or <system>.score, any per-item score)",
                         key="w_sys_table_upload", on_change=_on_upload, args=(_table_changed,))
        v = common.view()
        if v.sys_table:
            st.caption(esc(f"Table: {_stored_name(v.sys_table)}."))
    uploads.show_refusal()
    if "sys_upload_error" in st.session_state:
        st.error(esc(st.session_state["sys_upload_error"]))


def _metric_choices(mode: str) -> list[str]:
    return list(TEXT_METRICS if mode == "text" else TABLE_METRICS)


def settings_section() -> None:
    """The metric and the options that change its numbers (sacrebleu's, rouge-score's, the runs'), the tests and
    the resampling: each bound to the view."""
    v = common.view()
    if v.sys_mode == "trec":
        sysui.trec_settings()
        _resampling_settings(rule=True)
        measure, _ = sysui.safe_measure()
        sysui.tests_settings(True, measure or "the measure")
        return
    choices = _metric_choices(v.sys_mode)
    if v.sys_metric not in choices:
        wanted = choices[0]
        if v.sys_mode == "table" and v.sys_table:
            try:
                wanted = sysinputs.suggest_table_metric(_table_columns(v.sys_table)) or wanted
            except EvalcoreError:
                pass
        common.correct(f"The metric {v.sys_metric!r} does not apply to {'text files' if v.sys_mode == 'text' else 'a per-item table'}; "
                       f"using {wanted}.", sys_metric=wanted)
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        metric = widgets.bound(st.selectbox, "Metric", "sys_metric", options=choices, format_func=METRICS.get)
    with c2:
        if metric == "bleu":
            widgets.bound(st.selectbox, "BLEU tokenizer", "sys_tokenize", options=list(TOKENIZERS),
                          format_func=TOKENIZERS.get)
        elif metric == "chrf":
            widgets.bound(st.selectbox, "chrF word n-gram order", "sys_word_order", options=[0, 1, 2],
                          format_func={0: "0 (chrF)", 1: "1", 2: "2 (chrF++)"}.get)
    with c3:
        if metric in ("bleu", "chrf", "wer"):
            widgets.bound(st.checkbox, "Lowercase (case-insensitive)", "sys_lowercase")
        elif metric == "ter":
            widgets.bound(st.checkbox, "Case-sensitive TER (sacrebleu: not by default)", "sys_ter_case")
    with c4:
        _rule()
    if metric in ROUGE_METRICS:
        sysui.rouge_settings(metric)
    _resampling_settings()
    inp = input_of(common.view())
    sysui.tests_settings(inp.mean, METRIC_NAMES[metric])


def _rule() -> None:
    widgets.bound(st.radio, "Bootstrap p-value", "sys_rule", options=list(RULES),
                  format_func={"bk": "Berg-Kirkpatrick et al. (2012)", "sacrebleu": "sacrebleu (Moses)"}.get,
                  help=f"{RULES['bk']}. {RULES['sacrebleu']}. The two agree below p ≈ 0.05 and differ above "
                       "0.1.")


def _resampling_settings(rule: bool = False) -> None:
    """The resamples, the seed and the level (and the bootstrap's rule, where the metric's row has no room)."""
    if rule:
        _rule()
    c5, c6, c7 = st.columns([2, 1, 2])
    with c5:
        widgets.bound(st.select_slider, "Resamples", "sys_resamples", options=list(RESAMPLE_CHOICES),
                      format_func=lambda r: f"{r:,}")
    with c6:
        widgets.bound(st.number_input, "Seed", "sys_seed", min_value=0, max_value=2**32 - 1, step=1, convert=int)
    with c7:
        widgets.bound(st.slider, "Confidence level (alpha = 1 - level)", "sys_level", min_value=LEVEL_MIN,
                      max_value=LEVEL_MAX, step=LEVEL_STEP, format="%.3f", convert=lambda x: round(float(x), 3))


@jobs.cache(work=costs.table_columns, max_entries=8, show_spinner=False)
def _table_columns(file_id: str) -> tuple[str, ...]:
    from evalcore.io import read_table

    stored, data = open_file(file_id)
    return tuple(str(c) for c in read_table(data, name=stored.name).columns)


def baseline_choice(names: list[str]) -> None:
    """A selectbox for the baseline: the chosen system moves first (the link's order changes with it)."""
    v = common.view()
    if v.sys_mode not in ("text", "trec") or len(names) < 2:
        return
    key = "w_sys_baseline"
    widgets.refill(key, names[0])
    field = "sys_runs" if v.sys_mode == "trec" else "sys_hyps"

    def changed() -> None:
        chosen = st.session_state[key]
        view = common.view()
        entries = list(getattr(view, field))
        pairs = view.systems.runs if field == "sys_runs" else view.systems.systems
        first = next(e for e, (n, _) in zip(entries, pairs) if n == chosen)
        common.update(**{field: tuple([first] + [e for e in entries if e != first]), "sys_pair": 0})

    st.selectbox("Baseline (the first system; every pair is tested)", names, key=key, on_change=changed)


def current() -> tuple[SystemsInput | None, str]:
    """The input of the view, or None and why there is none yet."""
    v = common.view()
    inp = input_of(v)
    if inp.mode == "text":
        if not inp.refs and not inp.systems:
            return None, "Upload a references file and two or more hypotheses files (one per system) to start."
        if not inp.refs:
            return None, "Upload the references file (one reference segment per line)."
        if len(inp.systems) < 2:
            return None, "Upload at least two hypotheses files, one per system (the first is the baseline)."
    elif inp.mode == "trec":
        if inp.qrels is None and not inp.systems:
            return None, "Upload a qrels file and two or more runs (one file per run) to start."
        if inp.qrels is None:
            return None, "Upload the qrels (topic 0 document relevance per line)."
        if len(inp.systems) < 2:
            return None, "Upload at least two runs, one file per run (the first is the baseline)."
        measure, why = sysui.safe_measure()
        if measure is None:
            return None, why
        from dataclasses import replace

        inp = replace(inp, metric=measure)  # (its canonical name: one cache key for ndcg@10 and nDCG@10)
    elif inp.table is None:
        return None, "Upload a per-item table with a column item and <system>.<count> columns."
    return inp, ""


# ---------------------------------------------------------------- downloads and the sidebar

def signature_text(inp: SystemsInput, result: SystemsComparison) -> str:
    return str(systems_signature(result, inp.data_ids, n_references=len(inp.refs) if inp.mode == "text" else None))


def comparison_of(inp: SystemsInput, settings: ResamplingSettings, tests: PairTests) -> SystemsComparison:
    """The cached comparison (the sidebar's: a page that asks first computed it)."""
    return comparison(inp, settings, tests)


def downloads(fig, table: pd.DataFrame, stem: str, signature: str) -> None:
    """The figure as PNG, SVG and HTML with the signature inside, the table as CSV with it beside (a sidecar)."""
    from evalcore.text import spreadsheet_csv

    image = fig
    if common.view().caption:  # the sidebar's "Caption under exported figures"
        image = figstyle.captioned(fig, caption_text())

    def signed(fmt: str):
        return lambda: embed_signature(figstyle.export(image if fmt != "html" else fig, fmt), fmt, signature)

    row = st.container(horizontal=True)  # one block: the buttons side by side
    for fmt, mime in zip(("png", "svg", "html"), ("image/png", "image/svg+xml", "text/html")):
        row.download_button(f"Figure as {fmt.upper()}", data=signed(fmt), file_name=f"{stem}.{fmt}", mime=mime,
                            on_click="ignore", key=f"dl_{fmt}_{stem}")
    row.download_button("Table as CSV", data=lambda: spreadsheet_csv(table), file_name=f"{stem}.csv",
                        mime="text/csv", on_click="ignore", key=f"dl_csv_{stem}")
    row.download_button("Signature (.txt)", data=signature + "\n", file_name=sidecar_name(f"{stem}.csv"),
                        mime="text/plain", on_click="ignore", key=f"dl_sig_{stem}")


def caption_text() -> str:
    """The caption under exported figures: the metric, the files' number, the resampling."""
    v = common.view()
    inp = input_of(v)
    s = resampling_of(v)
    files = {"text": f"{len(inp.systems)} systems, {len(inp.refs)} reference file{'s' if len(inp.refs) != 1 else ''}",
             "trec": f"{len(inp.systems)} runs with qrels", "table": "a per-item table"}[inp.mode]
    tests = tests_of(v, inp).tests
    return (f"{METRIC_NAMES.get(inp.metric, inp.metric)} · {files} · {s.resamples:,} resamples, seed {s.seed} · "
            f"bootstrap rule: {RULES[s.rule].split(':')[0]} · level {100 * s.level:g}%"
            + (f" · also {', '.join(tests)}" if tests else ""))


def sidebar() -> None:
    """The Systems page's signature and report in the sidebar (app.py, in place of the candidate set's)."""
    st.markdown("**Signature**")
    inp, why = current()
    if inp is None:
        st.caption(esc(why))
        return
    try:
        settings = resampling_of(common.view())
        result = comparison(inp, settings, tests_of(common.view(), inp))
    except EvalcoreError as exc:
        st.caption(esc(f"No signature: {exc}"))
        return
    text = signature_text(inp, result)
    st.text(text)
    st.caption("It names the evalcore version, every file's SHA-256 and every setting; evalcore reproduce checks "
               "the numbers with it.")
    link = common.share_link()

    def report() -> bytes:
        try:
            sizes = curves(inp, settings)
        except EvalcoreError:  # past the page's bound for test sets four times as large: the report goes without
            sizes = None
        return build_systems_report(result, data_sha256=inp.data_ids,
                                    n_references=len(inp.refs) if inp.mode == "text" else None, link=link,
                                    curves=sizes).zip_bytes()

    st.download_button("Report (ZIP)", data=report, file_name=REPORT_FILE, mime="application/zip", on_click="ignore",
                       key="sys_report_zip", icon=":material/description:",
                       help="Figures for a paper (PDF, SVG, PNG), LaTeX and Markdown tables, a methods paragraph "
                            "with references, the signature and every number, in one ZIP.")


# ---------------------------------------------------------------- results

def scores_table(result: SystemsComparison) -> pd.DataFrame:
    m = result.metric
    level = f"{100 * result.settings.level:g}%"
    return pd.DataFrame({"system": result.systems["name"],
                         m.label: [sysfig.format_score(m, x) for x in result.systems["score"]],
                         f"{level} interval": [f"[{sysfig.format_score(m, lo)}, {sysfig.format_score(m, hi)}]"
                                               for lo, hi in zip(result.systems["ci_low"], result.systems["ci_high"])]})


def pairs_table(result: SystemsComparison, similar_: pd.DataFrame) -> pd.DataFrame:
    from evalcore import format as fmt

    m = result.metric
    p = result.pairs
    level = f"{100 * result.settings.level:g}%"
    return pd.DataFrame({
        "A": p["a"], "B": p["b"], "gain B − A": [sysfig.format_gain(m, x) for x in p["delta"]],
        f"{level} interval": [f"[{sysfig.format_gain(m, lo)}, {sysfig.format_gain(m, hi)}]"
                              for lo, hi in zip(p["delta_low"], p["delta_high"])],
        "p bootstrap": [fmt.p_value(x) for x in p["p_bootstrap"]],
        "p randomization": [fmt.p_value(x) for x in p["p_randomization"]],
        "p Holm": [fmt.p_value(x) for x in p["p_adjusted"]],
        **{TEST_LABELS[c]: [fmt.p_value(x) for x in p[c]] for test in result.tests.tests for c in TEST_COLUMNS[test]},
        "significant": ["yes" if s else "no" for s in p["significant"]],
        "identical outputs": [fmt.percent(x) for x in similar_["identical"]],
        "correlation": ["undefined (no variation)" if pd.isna(x) else f"{x:.3f}" for x in similar_["correlation"]],
    })


#: How the page names the p-value columns (the matrix's choices and the pairs' table).
TEST_LABELS = {"p_adjusted": "bootstrap, Holm", "p_bootstrap": "bootstrap", "p_randomization": "randomization",
               "p_ttest": "p t-test", "p_ttest_adjusted": "p t-test, Holm", "p_wilcoxon": "p Wilcoxon",
               "p_wilcoxon_adjusted": "p Wilcoxon, Holm", "p_tukey": "p Tukey HSD"}


def matrix_choices(result: SystemsComparison) -> list[str]:
    """The p-values the matrix can show: the bootstrap's and randomization's, and each chosen test's."""
    return list(pvalue_columns(result.tests))


def needed_table(curves_: pd.DataFrame, result: SystemsComparison) -> pd.DataFrame:
    """Per pair: the observed gain and the smallest tested test set that finds it ("how many topics")."""
    from evalcore.systems.sizes import needed_sizes

    m = result.metric
    needed = needed_sizes(curves_)
    unit = m.unit
    return pd.DataFrame({
        "A": needed["a"], "B": needed["b"], "gain B − A": [sysfig.format_gain(m, x) for x in needed["observed"]],
        f"{unit} needed": [f"about {int(x):,}" if pd.notna(x) else f"more than {int(top):,} (not found up to 4 times "
                           "these)" for x, top in zip(needed["needed"], needed["largest"])]})


def figure(result, kind: str, *args):
    """A figure of a cached result, built once per result (evalcore_app/figcache.py)."""
    builders = {"scores": lambda: sysfig.scores_figure(result),
                "pvalues": lambda: sysfig.pvalue_figure(result, column=args[0]),
                "gains": lambda: sysfig.gains_figure(result, args[0])}
    return figcache.memo(result, builders[kind], kind, *args)


def sizes_figure(curves_: pd.DataFrame, result: SystemsComparison):
    return figcache.memo(curves_, lambda: sysfig.size_figure(curves_, result.metric, n_items=result.n_items,
                                                             alpha=result.settings.alpha, unit=result.metric.unit),
                         "sizes")
