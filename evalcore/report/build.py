"""One report as one ZIP: figures (print and screen; PDF, SVG, PNG), tables (LaTeX and Markdown), the methods
paragraph, the references, a LaTeX document that puts them together, the signature, the share link and
``data.json`` with every number of the tables.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import asdict, dataclass
from typing import Mapping
from urllib.parse import urlencode

import pandas as pd

from ..candidates import CandidateSet
from ..viewstate import ViewSettings, to_query
from .annotators import Annotators
from .embed import embed_signature
from .figures import FIGURES, FORMATS, figure_captions, render, report_figures
from .latex import report_document
from .methods import Methods, methods_paragraph
from .results import ReportResults, numbers_json, report_curves, report_numbers, report_results, results_digest
from .settings import ReportSettings, display_names
from .signature import Signature, evalcore_version
from .tables import pairwise_table, precision_table

__all__ = ["Report", "build_report", "report_signature", "share_link", "REPORT_FILES"]

# What a report ZIP holds besides its figures (figures/{print,screen}/{precision,confidence,significance}.*).
REPORT_FILES = ("README.md", "methods.md", "methods.tex", "references.bib", "tables/precision.md",
                "tables/precision.tex", "tables/pairwise.md", "tables/pairwise.tex", "figures/captions.md",
                "report.tex", "signature.txt", "link.txt", "data.json")
LOOKS = ("print", "screen")

README = """# evalcore report

Made by evalcore {version}. Signature (also in signature.txt; check the numbers with
`evalcore reproduce "$(cat signature.txt)" DATAFILE`):

    {signature}

- methods.md, methods.tex: the methods paragraph, generated from the settings, with citations;
  references.bib: exactly the works it cites.
- tables/precision.{{md,tex}}: precision with its interval at each n, significance letters;
  tables/pairwise.{{md,tex}}: every pair of measures at each n, with p-values (LaTeX needs booktabs).
- figures/print/: Figures 1-3 for a two-column paper (8.5 cm wide, greyscale), figures/screen/: as the
  dashboard draws them; each as PDF, SVG and PNG with the signature inside (PDF Subject, SVG desc, PNG
  text chunk); figures/captions.md: their captions.
- report.tex: all of it in one LaTeX document
  (pdflatex report && bibtex report && pdflatex report && pdflatex report).
- data.json: the settings, the signature and every number in the tables.
- link.txt: the dashboard view of this analysis (on a server that holds the same data file).
"""


COLUMNS = {
    "precision": "measure, n, tp, fp, precision = tp / n, lower and upper bound of the interval",
    "pairs": "a, b, n, tp_a, tp_b (TPs in the n-best lists of A and B), tp_d1, fp_d1 (only in A's), tp_d2, fp_d2 "
             "(only in B's), p_value, log10_p, p_adjusted (correction over every row), significant (p_adjusted < "
             "1 - level), diff, diff_low, diff_high (precision of A minus B and its interval, settings' "
             "difference_interval), odds_ratio, or_low, or_high (TPs in D1 against D2, exact conditional interval), "
             "mdd_pi, mdd (the smallest difference of the regions' TP rates, and of precision, that the test finds "
             "with the settings' power at alpha = 1 - level)",
    "figure3": "the pair's test at every n of the range: how many n are significant, and up to which n every one is",
}
SAMPLE_COLUMNS = {
    "precision": "measure, n, m (annotated candidates in the n-best list), k (TPs among them), estimate = k / m, "
                 "lower and upper bound of the interval for the list's precision, in_frame (the list lies in the "
                 "sampling frame), enough (m >= min_annotated)",
    "pairs": "a, b, n, size_d (|D1| = |D2|), m_d1, k_d1, m_d2, k_d2 (annotated candidates and TPs in D1 and D2), "
             "annotated, estimate_d1, estimate_d2 (TP rates of the annotated), p_value, log10_p (Fisher's test on the "
             "annotated counts), p_adjusted (correction over the tested rows), significant, in_frame, enough (tested: "
             "both regions hold at least min_annotated annotated candidates), difference, difference_low, "
             "difference_high (estimate_d1 - estimate_d2 and its interval, settings' difference_interval)",
    "figure3": "the pair's test at every n of the range: how many n are tested (enough annotated) and significant, "
               "and up to which n every one is",
}


def share_link(settings: ReportSettings, data_sha256: str, base: str = "http://localhost:8501",
               page: str = "significance", names: Mapping[str, str] | None = None) -> str:
    """The dashboard link that shows this analysis (the data set id is the file's SHA-256, as in the store), with
    the measures' display names (``names``, ``{"log.like": "G²"}``: ``name=log.like=G²`` in the link) where given."""
    shown = {m: t for m, t in (names or {}).items() if t and t != m}
    view = ViewSettings(
        names=tuple(f"{m}={t}" for m, t in shown.items()),
        dataset=data_sha256, label=settings.label, scores=settings.measures, lower=settings.lower,
        exclude_unlabelled=settings.exclude_unlabelled, ties=settings.ties, seed=settings.seed,
        measures=settings.measures, n_min=settings.n_range[0], n_max=settings.n_range[1], level=settings.level,
        interval=settings.interval, a=settings.pair[0], b=settings.pair[1], test=settings.test,
        correction=settings.correction, resamples=settings.resamples, sample_column=settings.sample_column,
        sample=settings.sample, difference_method=settings.difference_interval, power=settings.power)
    design = settings.design
    if design is not None:
        view = view.set(sample_interval=design.interval, min_annotated=design.min_annotated,
                        ann_sample=design.annotations)
    return f"{base.rstrip('/')}/{page}?{urlencode(to_query(view), doseq=True)}"


def report_signature(results: ReportResults, data_sha256: str, version: str | None = None) -> Signature:
    """The signature of a report: version, data hash, settings and the digest of its numbers."""
    return Signature(version=version or evalcore_version(), command="report", data=(data_sha256,),
                     settings=results.settings.signature_settings(), numbers=results_digest(results))


@dataclass(frozen=True)
class Report:
    """A built report: its files (path -> bytes), signature, results and methods paragraph."""

    files: Mapping[str, bytes]
    signature: Signature
    results: ReportResults
    methods: Methods

    def zip_bytes(self) -> bytes:
        """The report as a ZIP file (deflated), files in a fixed order."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path, data in self.files.items():
                archive.writestr(path, data)
        return buffer.getvalue()


def build_report(candidates: CandidateSet, settings: ReportSettings, *, data_sha256: str,
                 names: Mapping[str, str] | None = None, link: str | None = None, figures: bool = True,
                 version: str | None = None, results: ReportResults | None = None,
                 curves: pd.DataFrame | None = None, annotators: Annotators | None = None) -> Report:
    """Build every file of a report.

    Parameters
    ----------
    candidates : CandidateSet
        Loaded as the settings say (label, measures, lower-is-better, sample).
    settings : ReportSettings
    data_sha256 : str
        SHA-256 of the data file (the dataset store's id of the same file).
    names : mapping of str to str, optional
        Display name per measure (``{"log.like": "G²"}``), used in the text, the tables and the figures.
    link : str, optional
        The dashboard link to this view; :func:`share_link` on localhost by default.
    figures : bool
        Draw the figures (needs kaleido and Chromium); False leaves them out (and ``report.tex`` without
        figures), for a quick look at the numbers and text.
    version : str, optional
        The evalcore version to sign with (the installed one by default).
    results : ReportResults, optional
        Already computed results for these settings (the dashboard caches them).
    curves : DataFrame, optional
        The figures' curves (:func:`evalcore.report.results.report_curves`), if already computed.
    annotators : Annotators, optional
        Who labelled a sample annotated on the server: named in the methods text and in ``data.json``.

    Returns
    -------
    Report
    """
    shown = display_names(settings.measures, names)
    results = results if results is not None else report_results(candidates, settings)
    signature = report_signature(results, data_sha256, version)
    text = str(signature)
    version = signature.version
    methods = methods_paragraph(results, shown, signature=text, version=version, data_sha256=data_sha256,
                                figures=figures, annotators=annotators)
    tables = {"precision": precision_table(results, shown), "pairwise": pairwise_table(results, shown)}
    captions = figure_captions(results, shown)
    link = link or share_link(settings, data_sha256, names=names)

    files: dict[str, bytes] = {"README.md": README.format(version=version, signature=text).encode()}
    files["methods.md"] = methods.markdown().encode()
    files["methods.tex"] = methods.latex().encode()
    files["references.bib"] = methods.bibtex().encode()
    for name, table in tables.items():
        files[f"tables/{name}.md"] = table.markdown().encode()
        files[f"tables/{name}.tex"] = (f"% evalcore signature: {text}\n" + table.latex()).encode()
    files["figures/captions.md"] = "".join(f"**Figure {i}.** {captions[name].md}\n\n"
                                           for i, name in enumerate(FIGURES, start=1)).encode()
    if figures:
        curves = report_curves(results) if curves is None else curves
        drawn = {f"figures/{look}/{name}": (fig, look) for look in LOOKS
                 for name, fig in report_figures(results, shown, look=look, curves=curves).items()}
        for path, data in render(drawn, formats=FORMATS).items():
            files[path] = embed_signature(data, path.rsplit(".", 1)[1], text)
    figure_files = {name: f"figures/print/{name}.pdf" for name in FIGURES} if figures else {}
    files["report.tex"] = report_document(captions, figure_files=figure_files).encode()
    files["signature.txt"] = (text + "\n").encode()
    files["link.txt"] = (link + "\n").encode()
    data = {
        "evalcore": version, "signature": text, "link": link,
        "data": {"sha256": data_sha256, "source": candidates.source},
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(settings).items()},
        "display_names": shown,
        **({"annotators": {"names": list(annotators.names), "signed_in": annotators.signed_in}} if annotators
           else {}),
        "numbers": numbers_json(report_numbers(results)),
        "columns": SAMPLE_COLUMNS if settings.design is not None else COLUMNS,
    }
    if settings.design is None:
        data["power"] = {"power": settings.power, "alpha": settings.alpha, "test": settings.power_test,
                         "difference_interval": settings.difference_interval}
    files["data.json"] = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    return Report(files=files, signature=signature, results=results, methods=methods)
