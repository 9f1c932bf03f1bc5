"""The report and the signature in the dashboard: the sidebar's report button and signature, and the signature
written into every download.

The report covers the view's analysis of one candidate set (the pooled samples, or the chosen one): the
Precision page's measures (the first four by default) with the compared pair added, the pair of the
Significance page for Figures 2 and 3, the view's n range (tables at both ends and 1, 5, 10, 50, ... between
them), ties and seed, test, correction, level and interval. The settings come from the view
(:func:`report_settings`). The sidebar's signature names them and the data, without numbers: a visit computes
none of the report's numbers, which are computed when the report's ZIP is asked for (on the pages' cached
rankings).

Downloads carry a signature of their own (:mod:`evalcore.report.parts`): the view's settings, which download it
is, and a digest of that download's table (the figure's numbers), made when the download is clicked. PNG, SVG and
HTML carry it inside (a PNG text chunk, an SVG ``<desc>``, an HTML
``<meta>``). A CSV does not: a comment line would break ``pandas.read_csv`` and every spreadsheet's default
reading (it becomes the header row, and the signature's commas split it into columns), so the signature
comes as a sidecar, ``<name>.signature.txt``, from the button next to the CSV's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import streamlit as st

from evalcore.errors import EvalcoreError
from evalcore.text import markdown_text, shown, spreadsheet_csv
from evalcore.figures import style as figures
from evalcore.report import ReportSettings, build_report, default_sizes, report_results
from evalcore.report.embed import embed_signature, sidecar_name
from evalcore.report.parts import Part, download_settings, part_options, part_signature
from evalcore.report.signature import Signature, evalcore_version, file_sha256
from evalcore.viewstate import DEFAULT_MEASURES, SAMPLE_PREFIX, RankingChoice, Roles, ViewSettings
from evalcore_app import cached, common, costs, jobs, sample

REPORT_FILE = "evalcore-report.zip"


@dataclass(frozen=True)
class CurrentReport:
    """What the sidebar and the downloads need: the settings, the data's hash and the view's signature (its settings
    and data, without numbers: the report's numbers are computed when the report is asked for, a download's digest
    when that download is)."""

    settings: ReportSettings
    data_sha256: str
    signature: str


@jobs.cache(work=costs.data_sha256, max_entries=8)
def data_sha256(dataset: str) -> str:
    """SHA-256 of the data file: the store id of an upload, the hash of a shipped sample's file."""
    if dataset.startswith(SAMPLE_PREFIX):
        name = dataset[len(SAMPLE_PREFIX):]
        if name not in cached.SAMPLES:
            raise EvalcoreError(f"There is no sample data set {shown(name)}.")
        return file_sha256(cached.SAMPLE_DIR / cached.SAMPLES[name])
    return dataset


def report_settings(v: ViewSettings, data, design=None) -> ReportSettings:
    """The report's settings for a view of a loaded candidate set (``data``, a :class:`evalcore_app.cached.Loaded`; see the
    module's docstring): the measures and the pair the pages show (:meth:`evalcore.viewstate.Selection.
    effective_measures` and ``effective_pair``). With a sample design (``design``, :func:`evalcore_app.sample.report_parts`),
    ``data`` is the annotated candidates and the test Fisher's, which is the one test the sample pages use."""
    if design is None:
        candidates = data.candidates
        best = cached.quality(data, v.ranking)
        measures = list(v.selection.effective_measures(best)) or list(best[:DEFAULT_MEASURES])
        if v.a is not None and v.b is not None or len(best) < 2:
            pair = [v.a, v.b] if len(best) > 1 else measures[:2]
        else:  # the pair the pages open on (evalcore_app.widgets.measure_pair)
            pair = list(cached.default_pair(data, v.ranking, tuple(v.selection.effective_measures(best)), tuple(best),
                                            round(1 - v.level, 6), v.a, v.b))
    else:
        candidates = data
        measures = [m for m in v.measures or () if m in candidates.measures] or list(candidates.measures[:4])
        pair = [m for m in (v.a, v.b) if m in candidates.measures]
    measures += [m for m in pair if m not in measures]
    if design is not None and design.pooled:  # (the pool's measures are ranked for it: the report names them)
        measures += [m for m in design.frame if m not in measures]
    if len(pair) != 2 or pair[0] == pair[1]:
        pair = measures[:2]
    n_range = v.selection.n_range(candidates.n_candidates)
    return ReportSettings(
        measures=tuple(measures), label=candidates.label_column, sizes=default_sizes(n_range), n_range=n_range,
        pair=tuple(pair), lower=tuple(m for m in measures if not candidates.higher_is_better(m)),
        exclude_unlabelled=v.exclude_unlabelled,
        sample_column=v.sample_column if candidates.samples is not None else None,
        sample=v.sample, ties=v.ties, seed=v.seed, test=v.test if design is None else "fisher",
        correction=v.correction, level=v.level, interval=v.interval, resamples=v.resamples,
        difference_interval=v.difference_method, power=v.power, design=design, n_step=v.n_step)


@jobs.cache(work=costs.results, max_entries=16, show_spinner="Computing the report's numbers ...",
            hash_funcs={ReportSettings: repr, **cached.FAST_KEYS})
def results(data: cached.Loaded, settings: ReportSettings, ranking: RankingChoice):
    """The report's numbers (tables and Figure 3's tests; the figures' curves only when the ZIP is built), on the
    pages' cached rankings (by the measures' own names: the display names are the report's to apply)."""
    rankings = cached.rankings(data, settings.measures, ranking)
    return report_results(data.candidates, settings, rankings=rankings)


def current() -> tuple[CurrentReport | None, str]:
    """The view's report settings and signature, or None and why there is none (worked out once per view: the
    sidebar and every download of a page ask for it). It computes no number: the report's are computed when its
    ZIP is asked for, a download's digest when that download is (:func:`downloads`)."""
    v = common.view()
    with jobs.refusals_raised():  # (work past the budget: "No report for these settings: This would take ...")
        if v.dataset is not None and sample.mode(v) == "sample":
            return _current_sample(v, sample.labels_key(v))
        return _current(v)


def sample_results(v: ViewSettings, labels: tuple):
    """The candidates and the report's numbers of a view that estimates from a sample (evalcore_app/sample.py)."""
    candidates, frame, settings = _sample_settings(v)
    return candidates, sample.report_numbers(v.data, labels, v.ranking, settings, candidates, frame)


def _sample_settings(v: ViewSettings):
    candidates, frame, design = sample.report_parts(v)
    if len(candidates.measures) < 2:
        raise EvalcoreError("A report compares at least two measures; choose more score columns on the Data page.")
    return candidates, frame, report_settings(v, candidates, design)


def _view_signature(settings: ReportSettings, sha: str) -> str:
    """The view's signature: version, data and every setting, no ``numbers`` (see :func:`current`)."""
    return str(Signature(evalcore_version(), "report", (sha,), settings.signature_settings()))


@functools.lru_cache(maxsize=64)
def _current_sample(v: ViewSettings, labels: tuple) -> tuple[CurrentReport | None, str]:
    try:
        _, _, settings = _sample_settings(v)
        sha = data_sha256(v.dataset)
        return CurrentReport(settings, sha, _view_signature(settings, sha)), ""
    except EvalcoreError as exc:
        return None, f"No report for these settings: {exc}"


@functools.lru_cache(maxsize=64)
def _current(v: ViewSettings) -> tuple[CurrentReport | None, str]:
    if v.dataset is None:
        return None, "Load a data set to get a report."
    try:
        data = cached.load(v.data)
        if len(data.candidates.measures) < 2:
            return None, "A report compares at least two measures; choose more score columns on the Data page."
        settings = report_settings(v, data)
        sha = data_sha256(v.dataset)
        return CurrentReport(settings, sha, _view_signature(settings, sha)), ""
    except EvalcoreError as exc:
        return None, f"No report for these settings: {exc}"


def _zip(roles: Roles, settings: ReportSettings, ranking: RankingChoice, names: dict, sha: str, link: str,
         view: ViewSettings | None = None) -> bytes:
    """The report ZIP (called when the button is clicked: it draws the figures, a few seconds), with the measures'
    display names."""
    names = {m: t for m, t in names.items() if m in settings.measures}
    if settings.design is not None:  # estimates from a sample: its candidates and numbers (evalcore_app/sample.py)
        from evalcore_app import auth

        candidates, numbers = sample_results(view, sample.labels_key(view))
        who = sample.annotator_names(view)
        return build_report(candidates, numbers.settings, data_sha256=sha, link=link, names=names or None,
                            results=numbers, annotators=auth.report_annotators(who) if who else None).zip_bytes()
    data = cached.load(roles)
    return build_report(data.candidates, settings, data_sha256=sha, link=link, names=names or None,
                        results=results(data, settings, ranking)).zip_bytes()


def sidebar() -> None:
    """The signature under the share link and the report button (app.py's sidebar)."""
    report, why = current()
    st.markdown("**Signature**")
    if report is None:
        st.caption(markdown_text(why))  # it quotes link values and names
        return
    st.text(report.signature)
    st.caption("It names the evalcore version, the data's SHA-256 and every setting. The report and each download "
               "carry it with a digest of their own numbers, which the command evalcore reproduce checks.")
    v = common.view()
    link = common.share_link()
    st.download_button("Report (ZIP)", data=lambda: _zip(v.data, report.settings, v.ranking, v.display.mapping,
                                                         report.data_sha256, link, v),
                       file_name=REPORT_FILE, mime="application/zip", on_click="ignore", key="report_zip",
                       icon=":material/description:",
                       help="Figures for a paper (PDF, SVG, PNG), LaTeX and Markdown tables, a methods paragraph "
                            "with references, the signature and every number, in one ZIP.")


def download_signature(report: CurrentReport, table, stem: str, shows=(), beta: float = 1.0,
                       at: int | None = None, options=None) -> str:
    """The signature of one download (:func:`evalcore.report.parts.part_signature`): the view's settings
    (:func:`evalcore.report.parts.download_settings`: with the measures it shows, of every sample on the pages of
    several samples), which download it is, the measures it shows (and the list size of its one cut-off, ``at``;
    the page's own settings, ``options``: :data:`evalcore.report.parts.PART_SETTINGS` key -> value) and a digest of
    its table alone (the figure is drawn from it)."""
    v = common.view()
    names = v.display.mapping
    part = Part(stem, tuple(shows), beta, tuple((m, names[m]) for m in shows if m in names),
                None if at is None else int(at), part_options(options or {}))
    settings = download_settings(report.settings, part, lower=v.data.lower)
    return str(part_signature(settings, report.data_sha256, part, table))


def downloads(fig, table, stem: str, image=None, shows=(), beta: float = 1.0, at: int | None = None,
              options=None) -> None:
    """Download buttons in one row: the figure as PNG, SVG and HTML with the download's signature inside, the table
    as CSV with the signature as a sidecar file; without a report (no signature for this view: :func:`current`),
    the same buttons plain and no sidecar. Images and the signature are made only when clicked (deferred data):
    the signature's digest is of ``table``, the numbers this download shows (``shows``: the measures it shows, by
    their own names; ``beta``: the F-beta of a Precision table; ``at``: the list size of a table of one cut-off;
    ``options``: the page's own settings that change its numbers, :func:`download_signature`). PNG and SVG draw
    ``image`` (the figure with a
    caption, evalcore_app/present.py) where given."""
    report, _ = current()

    made: list = []  # (once per run, whichever button asks first: a digest of this table, as cheap as its bytes)

    def signature() -> str | None:
        if not made:
            made.append(download_signature(report, table, stem, shows, beta, at, options) if report else None)
        return made[0]

    def signed(fmt: str):
        def data() -> bytes:
            raw = figures.export(image if image is not None and fmt in ("png", "svg") else fig, fmt)
            return embed_signature(raw, fmt, signature()) if report else raw
        return data

    row = st.container(horizontal=True)  # one block: the buttons side by side
    row.download_button("Figure as PNG", data=signed("png"), file_name=f"{stem}.png", mime="image/png",
                        on_click="ignore", key=f"dl_png_{stem}")
    row.download_button("Figure as SVG", data=signed("svg"), file_name=f"{stem}.svg", mime="image/svg+xml",
                        on_click="ignore", key=f"dl_svg_{stem}")
    row.download_button("Figure as HTML", data=signed("html"), file_name=f"{stem}.html", mime="text/html",
                        on_click="ignore", key=f"dl_html_{stem}")
    row.download_button("Table as CSV", data=lambda: spreadsheet_csv(table), file_name=f"{stem}.csv",
                        mime="text/csv", on_click="ignore", key=f"dl_csv_{stem}")
    if report:
        row.download_button("Signature (.txt)", data=lambda: signature() + "\n", file_name=sidecar_name(f"{stem}.csv"),
                            mime="text/plain", on_click="ignore", key=f"dl_sig_{stem}",
                            help="The signature of these numbers, to keep beside the CSV")
