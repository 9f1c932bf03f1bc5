"""The systems comparison for a paper: signature, methods paragraph, tables, figures and one ZIP.

The signature (:func:`systems_signature`) names the evalcore version, the SHA-256 of every input file in order
(references, then the systems' hypotheses; or the one table), each setting that decides a number (metric,
number of reference files, sacrebleu's options of the metric, resamples, seed, the bootstrap's rule, level) and a
digest of the numbers (every score, interval, gain and p-value, in order; the systems' names, which come from file
names, are not part of it), so ``evalcore reproduce SIGNATURE FILE...`` can check a result from the files.

The methods paragraph (:func:`systems_methods`) says, with citations, how each number was computed: the metric
and the library that defines it (Papineni et al. 2002 and Post 2018 for BLEU, Popović 2015 for chrF, Snover et al.
2006 for TER, jiwer for WER, Och & Ney 2003 for AER), the paired bootstrap (Koehn 2004) with Berg-Kirkpatrick et
al.'s (2012) rule or sacrebleu's, approximate randomization (Noreen 1989; Riezler & Maxwell 2005), Holm's
correction (Holm 1979), the percentile intervals, and the test-set-size analysis when it is part of the report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..report.bib import bibtex, reference_list
from ..report.signature import Signature, evalcore_version, numbers_digest
from ..report.text import Rich, cite, number, plain, sym
from .compare import TEST_COLUMNS, SystemsComparison
from .metrics import format_gain, format_score
from .names import ROUGE_METRICS

__all__ = ["systems_signature", "systems_digest", "systems_settings", "systems_methods", "systems_tables",
           "SystemsReport", "build_systems_report", "library_version"]

SYSTEMS_LABEL = "tab:evalcore-systems"
PAIRS_LABEL = "tab:evalcore-system-pairs"


def library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:  # pragma: no cover - both are pinned in requirements.txt
        return "unknown"


def systems_settings(result: SystemsComparison, n_references: int | None) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The signature's settings: the metric and what decides its numbers, then the resampling and the tests."""
    from .rouge import RougeOptions
    from .trec import TrecOptions

    metric = result.metric
    options = result.statistics.options
    fields: list[tuple[str, tuple[str, ...]]] = [("metric", (metric.name,))]
    if n_references is not None:
        fields.append(("refs", (str(n_references),)))
    if isinstance(options, RougeOptions):
        fields += [("rouge-tokenizer", (options.tokenizer,)), ("stemmer", ("yes" if options.stemmer else "no",)),
                   ("rouge-refs", (options.references,)), ("rouge-stat", (options.stat,))]
        if metric.name == "rougeLsum":
            fields.append(("rouge-split", (options.split,)))
    elif isinstance(options, TrecOptions):
        fields += [("qrels", ("1",)), ("missing", (options.missing,)), ("ties", (options.ties,))]
        if options.ties == "random":
            fields.append(("tie-seed", (str(options.tie_seed),)))
    elif options is not None:
        if metric.name == "bleu":
            fields.append(("tokenize", (options.tokenize,)))
        if metric.name in ("bleu", "chrf", "wer"):
            fields.append(("lowercase", ("yes" if options.lowercase else "no",)))
        if metric.name == "chrf":
            fields.append(("chrf-word-order", (str(options.chrf_word_order),)))
        if metric.name == "ter":
            fields.append(("ter-case-sensitive", ("yes" if options.ter_case_sensitive else "no",)))
    s = result.settings
    fields += [("resamples", (str(s.resamples),)), ("seed", (str(s.seed),)), ("rule", (s.rule,)),
               ("level", (repr(float(s.level)),))]
    tests = result.tests
    if tests.tests:
        fields.append(("tests", tests.tests))
    if "wilcoxon" in tests.tests:
        fields += [("zero-method", (tests.zero_method,)), ("wilcoxon-method", (tests.method,)),
                   ("wilcoxon-correction", ("yes" if tests.correction else "no",))]
    return tuple(fields)


def systems_digest(result: SystemsComparison) -> str:
    """The digest of the numbers: n, every system's score and interval, every pair's gain, interval and p-values
    (those of the tests chosen besides too)."""
    extra = [c for test in result.tests.tests for c in TEST_COLUMNS[test]]
    pairs = result.pairs[["delta", "delta_low", "delta_high", "p_bootstrap", "p_randomization", "p_adjusted", *extra]]
    return numbers_digest({"n_items": {"n": result.n_items},
                           "systems": result.systems[["score", "ci_low", "ci_high"]], "pairs": pairs})


def systems_signature(result: SystemsComparison, data_sha256: Sequence[str], *, n_references: int | None,
                      version: str | None = None) -> Signature:
    """The signature of a systems comparison (see the module's docstring)."""
    return Signature(version=version or evalcore_version(), command="systems", data=tuple(data_sha256),
                     settings=systems_settings(result, n_references), numbers=systems_digest(result))


# ------------------------------------------------------------------------------------------------ methods

def _metric_text(result: SystemsComparison) -> Rich:
    m, o = result.metric, result.statistics.options
    sacre = plain(f"sacrebleu {library_version('sacrebleu')}")
    if m.name == "bleu":
        case = "lowercased" if o.lowercase else "case-sensitive"
        return ("BLEU" + cite("papineni2002") + " as computed by " + sacre + cite("post2018")
                + plain(f" (tokenizer {o.tokenize}, {case}, exponential smoothing, up to 4-grams, on its 0–100 "
                        "scale)"))
    if m.name == "chrf":
        name = "chrF++" if o.chrf_word_order == 2 else "chrF"
        case = "lowercased" if o.lowercase else "case-sensitive"
        return (plain(name) + cite("popovic2015") + " as computed by " + sacre + cite("post2018")
                + plain(f" (character n-grams up to 6, word n-grams up to {o.chrf_word_order}, β = 2, {case}, on its "
                        "0–100 scale)"))
    if m.name == "ter":
        case = "case-sensitive" if o.ter_case_sensitive else "case-insensitive"
        return ("TER" + cite("snover2006") + " as computed by " + sacre + cite("post2018")
                + plain(f" ({case}, on its 0–100 scale)"))
    if m.name == "wer":
        case = ", text lowercased" if o.lowercase else ""
        return plain(f"the word error rate, the substitutions, deletions and insertions of jiwer "
                     f"{library_version('jiwer')}'s alignment summed over the segments and divided by the summed "
                     f"words of the references{case} (a fraction)")
    if m.name in ROUGE_METRICS:
        return _rouge_text(result)
    if m.kind == "trec":
        o = o or None
        missing = ("a topic of the qrels that a run lacks scored 0, as trec_eval's -c" if o.missing == "zero" else
                   "the topics of the qrels that some run lacks left out for every run")
        ties = {"trec_eval": "equal scores ordered as trec_eval orders them (by document id, decreasing)",
                "rank": "equal scores ordered by the runs' rank column (then by document id, decreasing, as "
                        "trec_eval)",
                "random": f"equal scores ordered at random (seed {o.tie_seed})"}[o.ties]
        return plain(f"{m.label} of each topic as computed by ir-measures {library_version('ir-measures')} "
                     f"(pytrec_eval, trec_eval's code), averaged over the topics ({missing}; {ties})")
    if m.name == "mean":
        return plain("the mean of the given per-item scores")
    formulas = {"f1": "F1 = 2TP / (2TP + FP + FN)", "accuracy": "accuracy = correct / total",
                "uas": "the unlabelled attachment score, correct / total",
                "aer": "the alignment error rate AER = 1 − (|A∩S| + |A∩P|) / (|A| + |S|)"}
    text = plain(formulas[m.name] + " from the per-item counts summed over the items (a fraction)")
    return text + cite("och2003") if m.name == "aer" else text


def _rouge_text(result: SystemsComparison) -> Rich:
    m, o = result.metric, result.statistics.options
    tokenizer = ("rouge-score's tokenizer (lowercased, letters a–z and digits only)" if o.tokenizer == "rouge_score"
                 else "a tokenizer of Unicode letters and digits (lowercased; each Chinese or Japanese character a "
                      "word)")
    stem = "with" if o.stemmer else "without"
    text = (plain(f"{m.label}") + cite("lin2004") + plain(f" as computed by rouge-score {library_version('rouge-score')}"
            f" ({tokenizer}, {stem} the Porter stemmer"))
    if m.name == "rougeLsum":
        text = text + plain(", sentences split at line breaks" + (" and after sentence punctuation"
                                                                  if o.split == "punctuation" else ""))
    refs = ("; with several references, the maximum over them (rouge-score's score_multi)" if o.references == "max"
            else "; with several references, the mean of the per-reference scores")
    if o.stat == "corpus":
        return text + plain(f"{refs}) as the corpus ROUGE-N: the matched n-grams summed over the documents over "
                            "their summed reference n-grams (a fraction)")
    what = {"f": "F", "recall": "recall", "precision": "precision"}[o.stat]
    return text + plain(f"{refs}), the plain mean of the documents' {what} (rouge-score's own aggregator reports the "
                        "median of bootstrap means instead)")


def _tests_text(result: SystemsComparison) -> list[Rich]:
    """The sentences of the tests chosen besides."""
    tests, k = result.tests, len(result.statistics.systems)
    pairs = k * (k - 1) // 2
    unit = result.metric.unit
    out: list[Rich] = []
    means = []
    if "ttest" in tests.tests:
        means.append(plain("the paired t-test") + cite("student1908") + plain(" (scipy's ttest_rel, two-sided)"))
    if "wilcoxon" in tests.tests:
        options = (f"zero_method {tests.zero_method}, method {tests.method}, "
                   f"{'with' if tests.correction else 'without'} continuity correction")
        means.append(plain("the Wilcoxon signed-rank test") + cite("wilcoxon1945")
                     + plain(f" (scipy {library_version('scipy')}'s wilcoxon, two-sided, {options})"))
    if means:
        joined = means[0] if len(means) == 1 else means[0] + plain(" and ") + means[1]
        out.append(plain(f"The {unit}' scores of each pair are also compared by ") + joined
                   + plain(f", each adjusted by Holm's method over the {pairs} pairs."))
    if "tukey" in tests.tests:
        out.append(plain("All pairs are further tested as one family by the randomized Tukey HSD test")
                   + cite("carterette2012")
                   + plain(f" ({number(result.settings.resamples)} random permutations of the systems' statistics "
                           f"within each of the {unit}, the largest difference of the permuted systems' scores as the "
                           "statistic; its p-values need no further correction). The gains' bootstrap intervals are "
                           "not simultaneous intervals."))
    return out


def systems_methods(result: SystemsComparison, *, signature: str, version: str, data_sha256: Sequence[str],
                    curves: bool = False) -> Rich:
    """The methods paragraph of a systems comparison (Markdown and LaTeX, with the works it cites).

    Parameters
    ----------
    result : SystemsComparison
    signature : str
        The comparison's signature (named at the end).
    version : str
        The evalcore version.
    data_sha256 : sequence of str
        SHA-256 of the input files (their first 12 digits are named).
    curves : bool
        Whether the report holds the test-set-size figure.
    """
    s = result.settings
    names = list(result.statistics.systems)
    k = len(names)
    unit = result.metric.unit
    level = f"{100 * s.level:g}%"
    parts: list[Rich] = []
    how = (", the mean over the test set of each item's score." if result.metric.mean else
           ", a corpus score computed from the per-item statistics summed over the test set (not a mean of item "
           "scores).")
    parts.append(plain(f"We compare {k} systems (") + plain(", ".join(names)) + plain(f"; the first is the baseline) "
                 f"on a test set of {number(result.n_items)} {unit} by ") + _metric_text(result) + plain(how))
    if s.rule == "bk":
        rule = ("one-sided in the direction of the observed gain δ, p = (1 + #{sign(δ)·δ* > 2|δ|}) / (R + 1) over the "
                "resampled gains δ*, as Berg-Kirkpatrick et al." + cite("bergkirkpatrick2012")
                + " propose (a gain of 0 gives p = 1; sacrebleu's rule" + cite("post2018")
                + ", p = (1 + #{|δ*| − mean|δ*| > |δ|}) / (R + 1), agrees with it below p ≈ 0.05 and gives smaller "
                "p-values above about 0.1)")
    else:
        rule = ("by sacrebleu's rule" + cite("post2018") + " (that of the Moses script), p = (1 + #{|δ*| − mean|δ*| "
                "> |δ|}) / (R + 1); it agrees with Berg-Kirkpatrick et al.'s rule" + cite("bergkirkpatrick2012")
                + " below p ≈ 0.05 and gives smaller p-values above about 0.1")
    pairs = k * (k - 1) // 2
    parts.append(plain(f"Each of the {pairs} pairs of systems is tested with the paired bootstrap") + cite("koehn2004")
                 + plain(f", R = {number(s.resamples)} resamples of the {unit} with replacement (the same resamples for "
                         "every system, seed ") + plain(f"{s.seed}), ") + rule
                 + plain(", and with two-sided paired approximate randomization") + cite("noreen1989", "riezler2005")
                 + plain(f" (R = {number(s.resamples)} random swaps of the two systems' statistics per item)."))
    parts.append(plain(f"The bootstrap p-values of all {pairs} pairs are adjusted by Holm's method") + cite("holm1979")
                 + plain(f"; a difference counts as significant where the adjusted p-value is below α = {s.alpha:g}. "
                         f"Each score's and each gain's {level} interval is the percentile interval of its bootstrap "
                         "resamples."))
    parts += _tests_text(result)
    if curves:
        parts.append(plain("For the test-set size needed to find a gain, test sets of 10% to 100% of the items "
                           "(growing subsets of one random order) and of up to four times as many (drawn with "
                           "replacement) are each bootstrapped; the smallest gain significant at α is the (1 − α) "
                           "quantile of the resampled gains minus that test set's gain, the 2δ rule read backwards")
                     + cite("bergkirkpatrick2012") + plain("."))
    digests = ", ".join(d[:12] + "…" for d in data_sha256)
    parts.append(plain(f"All numbers were computed with evalcore {version} from the files with SHA-256 {digests}; "
                       "the signature (file signature.txt) names every setting and lets ")
                 + sym("`evalcore reproduce`", r"\texttt{evalcore reproduce}") + plain(" check the numbers."))
    paragraph = parts[0]
    for part in parts[1:]:
        paragraph = paragraph + " " + part
    return paragraph


def _p(p: float) -> Rich:
    text = "–" if not np.isfinite(p) else (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}")
    return plain(text)


def systems_tables(result: SystemsComparison) -> dict:
    """Table 1: every system's score with its interval; Table 2: every pair's gain, interval and p-values."""
    from ..report.tables import DAGGER, Column, Table  # (scipy behind it: only when a report is built)

    m, s = result.metric, result.settings
    level = f"{100 * s.level:g}%"
    rows = tuple((plain(str(r.name)), plain(format_score(m, r.score)),
                  plain(f"[{format_score(m, r.ci_low)}, {format_score(m, r.ci_high)}]"))
                 for r in result.systems.itertuples(index=False))
    def header(text: str, align: str = "r") -> Column:
        return Column(plain(text), lambda row, c: plain(""), align)

    scores = Table(SYSTEMS_LABEL, 1,
                   plain(f"{m.label} of each system on {number(result.n_items)} {m.unit}, with the {level} percentile "
                         f"interval of {number(s.resamples)} bootstrap resamples."),
                   (header("system", "l"), header(m.label), header(f"{level} interval")), rows)
    extra = [c for test in result.tests.tests for c in TEST_COLUMNS[test]]
    pair_rows = []
    for r in result.pairs.itertuples(index=False):
        adjusted = _p(r.p_adjusted) + (DAGGER if r.significant else sym("", ""))
        pair_rows.append((plain(str(r.a)), plain(str(r.b)), plain(format_gain(m, r.delta)),
                          plain(f"[{format_gain(m, r.delta_low)}, {format_gain(m, r.delta_high)}]"),
                          _p(r.p_bootstrap), _p(r.p_randomization), adjusted,
                          *(_p(getattr(r, c)) for c in extra)))
    names = {"p_ttest": "p t-test", "p_ttest_adjusted": "p t-test, Holm", "p_wilcoxon": "p Wilcoxon",
             "p_wilcoxon_adjusted": "p Wilcoxon, Holm", "p_tukey": "p Tukey HSD"}
    rule = "Berg-Kirkpatrick et al.'s rule" if s.rule == "bk" else "sacrebleu's rule"
    pairs = Table(PAIRS_LABEL, 2,
                  plain(f"Every pair of systems: the gain δ = {m.label}(B) − {m.label}(A) with its {level} bootstrap "
                        f"interval, the paired bootstrap's p-value ({rule}), approximate randomization's and the "
                        f"bootstrap's Holm-adjusted over the pairs"
                        + ("; then the tests chosen besides" if extra else "") + "; ") + DAGGER
                  + plain(f" marks a significant difference by the bootstrap, Holm-adjusted (α = {s.alpha:g})."),
                  (header("A", "l"), header("B", "l"), header("δ"), header(f"{level} interval"),
                   header("p bootstrap"), header("p randomization"), header("p Holm"),
                   *(header(names[c]) for c in extra)), tuple(pair_rows))
    return {"systems": scores, "pairs": pairs}


# ------------------------------------------------------------------------------------------------ the ZIP

README = """# evalcore systems report

Made by evalcore {version}. Signature (also in signature.txt; check the numbers with
`evalcore reproduce "$(cat signature.txt)" FILE...`, the files in the order the signature names them):

    {signature}

- methods.md, methods.tex: the methods paragraph, with citations; references.bib: exactly the works it cites.
- tables/systems.{{md,tex}}: each system's score with its interval; tables/pairs.{{md,tex}}: every pair's gain,
  interval and p-values (LaTeX needs booktabs).
- figures/print/ (8.5 cm, greyscale) and figures/screen/: scores, p-values, the first pair's resampled gains and
  the test-set-size curves, as PDF, SVG and PNG with the signature inside.
- report.tex: all of it in one LaTeX document; data.json: the settings, the signature and every number.
- link.txt: the dashboard view (on a server that holds the same files).
"""


@dataclass(frozen=True)
class SystemsReport:
    files: Mapping[str, bytes]
    signature: Signature
    methods: Rich

    def zip_bytes(self) -> bytes:
        """The report as a ZIP file, as a candidate set's report writes one."""
        from ..report.build import Report

        return Report.zip_bytes(self)  # (it reads only ``files``)


def _records(table: pd.DataFrame) -> list[dict]:
    out = []
    for row in table.to_dict("records"):
        out.append({k: (None if isinstance(v, float) and not np.isfinite(v) else
                        (bool(v) if isinstance(v, (bool, np.bool_)) else v)) for k, v in row.items()})
    return out


def build_systems_report(result: SystemsComparison, *, data_sha256: Sequence[str], n_references: int | None,
                         link: str = "", curves: pd.DataFrame | None = None, figures: bool = True,
                         version: str | None = None) -> SystemsReport:
    """Every file of a systems report (see ``README`` above); ``figures=False`` leaves the images out."""
    from ..report.embed import embed_signature
    from ..report.figures import render
    from ..report.latex import report_document
    from . import figures as sysfig

    signature = systems_signature(result, data_sha256, n_references=n_references, version=version)
    text = str(signature)
    version = signature.version
    paragraph = systems_methods(result, signature=text, version=version, data_sha256=data_sha256,
                                curves=curves is not None)
    tables = systems_tables(result)
    cites = paragraph.cites
    files: dict[str, bytes] = {"README.md": README.format(version=version, signature=text).encode()}
    files["methods.md"] = (f"## Methods\n\n{paragraph.md}\n\nSignature: `{text}`\n\n### References\n\n"
                           f"{reference_list(cites)}").encode()
    files["methods.tex"] = (f"% Generated by evalcore. Cites: {', '.join(cites)}\n% signature: {text}\n"
                            f"{paragraph.tex}\n").encode()
    files["references.bib"] = bibtex(cites).encode()
    for name, table in tables.items():
        files[f"tables/{name}.md"] = table.markdown().encode()
        files[f"tables/{name}.tex"] = (f"% evalcore signature: {text}\n" + table.latex()).encode()
    figure_paths = []
    if figures:
        drawn = {"scores": sysfig.scores_figure(result), "pvalues": sysfig.pvalue_figure(result),
                 "gains": sysfig.gains_figure(result, 0)}
        if curves is not None:
            drawn["sizes"] = sysfig.size_figure(curves, result.metric, n_items=result.n_items,
                                                alpha=result.settings.alpha)
        jobs = {}
        for name, fig in drawn.items():
            jobs[f"figures/screen/{name}"] = (fig, "screen")
            jobs[f"figures/print/{name}"] = (sysfig.for_print(fig), "print")
        for path, data in render(jobs).items():
            files[path] = embed_signature(data, path.rsplit(".", 1)[1], text)
        figure_paths = [f"figures/print/{name}.pdf" for name in drawn]
    document = report_document({}, figure_files={}, table_files=("tables/systems.tex", "tables/pairs.tex"))
    graphics = "".join(rf"\begin{{figure}}[tbp]\centering\includegraphics{{{p}}}\end{{figure}}" + "\n"
                       for p in figure_paths)
    files["report.tex"] = document.replace(r"\bibliographystyle{plain}", graphics + r"\bibliographystyle{plain}").encode()
    files["signature.txt"] = (text + "\n").encode()
    files["link.txt"] = (link + "\n").encode()
    data = {"evalcore": version, "signature": text, "link": link, "metric": result.metric.name,
            "metric_label": result.metric.label, "n_items": result.n_items, "unit": result.metric.unit,
            "data_sha256": list(data_sha256), "settings": {k: list(v) for k, v in signature.settings},
            "systems": _records(result.systems), "pairs": _records(result.pairs)}
    if curves is not None:
        data["test_set_sizes"] = _records(curves)
    files["data.json"] = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    return SystemsReport(files=files, signature=signature, methods=paragraph)

