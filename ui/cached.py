"""Data for the pages, cached on (the data set and its roles, the frozen view objects a call needs): samples, the
upload store, and calls into evalcore. Nothing here reads session state, so every cache key is the whole input, and
(:func:`cache`) it does not depend on the order of the arguments.

The table is parsed once per data set (:func:`raw_table`), the labels and scores read once per choice of columns
(:func:`_labelled`; a change of direction only flips a flag), each measure ranked once per (measure, ties, seed)
(:func:`ranking_of`), the pair tested once per (pair, range, test and the settings the numbers depend on).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import replace
from pathlib import Path

import streamlit as st

from evalcore import analysis, roc, samples, validate
from evalcore.figures import style as figures
from evalcore.candidates import CandidateSet
from evalcore.errors import ColumnError, EvalcoreError
from evalcore.io import load_candidates, read_table, text_as_utf8
from evalcore.io.store import DatasetStore
from evalcore.names import DEFAULT_POWER
from evalcore.text import spreadsheet_csv
from evalcore.viewstate import GROUPS, SAMPLE_PREFIX, Display, RankingChoice, Roles, ViewSettings

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
SAMPLES = {"collocations_sim": "collocations_sim.tsv", "experiment_sim": "experiment_sim.tsv.gz"}


def store() -> DatasetStore:
    return DatasetStore()


def dataset_label(dataset: str) -> str:
    """A name to show for a dataset reference."""
    if dataset.startswith(SAMPLE_PREFIX):
        return f"sample {dataset[len(SAMPLE_PREFIX):]}"
    try:
        return store().get(dataset).name
    except EvalcoreError:
        return f"unknown data set {dataset[:12]}..."


def _source(dataset: str):
    if dataset.startswith(SAMPLE_PREFIX):
        name = dataset[len(SAMPLE_PREFIX):]
        if name not in SAMPLES:
            raise EvalcoreError(f"There is no sample data set {name!r}; the samples are {', '.join(SAMPLES)}.")
        return SAMPLE_DIR / SAMPLES[name], SAMPLES[name]
    stored, data = store().open(dataset)  # the one checked read: SHA-256 against the id
    return data, stored.name


@st.cache_resource(max_entries=4, show_spinner="Reading the data set ...")
def raw_table(dataset: str, _just_read: tuple | None = None):
    """The data set's table and file name, read (and for a stored data set, checked) once per cache entry;
    ``table.attrs`` holds the format and, for text, the detected encoding and delimiter.

    ``_just_read`` is the (table, name) an upload has just read from these very bytes, so a new data set is not
    read twice; it is not part of the cache key.
    """
    if _just_read is not None:
        return _just_read
    source, name = _source(dataset)
    return read_table(source, name=name), name


def reencoded(dataset: str, encoding: str) -> str:
    """Store the text of ``dataset`` read as ``encoding`` (as UTF-8) and return the new data set's id."""
    source, name = _source(dataset)
    plain = next((name[: -len(s)] for s in (".gz", ".bz2", ".xz") if name.endswith(s)), name)  # (now uncompressed)
    return store().put(text_as_utf8(source, name=name, encoding=encoding), plain)


def ingest(content: bytes, name: str) -> str:
    """Read an uploaded file and store it only if it reads: a refused file leaves nothing on disk.
    Returns the data set's id, with its table already in the cache."""
    table = read_table(content, name=name)
    dataset_id = store().put(content, name)
    raw_table(dataset_id, _just_read=(table, name))
    return dataset_id


#: Cache keys of the frozen view objects: their repr, which names the value of every field. (Streamlit hashes a
#: dataclass through ``dataclasses.asdict`` and then every value on its own, about 5 ms a call on a loaded machine:
#: 0.2 s of a Significance rerun went there.)
FAST_KEYS = {cls: repr for cls in GROUPS.values()}


def cache(**options):
    """``st.cache_resource`` keyed on the arguments by name: a call's key is the same whatever the order (or the
    positional or keyword form) of its arguments, and defaults are part of it. Arguments are ids, frozen view objects
    (:mod:`evalcore.viewstate`) and plain values, all hashable; a leading ``_`` leaves one out of the key."""
    def wrap(fn):
        inner = st.cache_resource(**{"hash_funcs": FAST_KEYS, **options})(fn)
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return inner(*bound.args, **bound.kwargs)

        call.clear = inner.clear
        return call
    return wrap


@cache(max_entries=4, show_spinner="Checking labels and scores ...")
def _labelled(dataset: str, label, scores: tuple, keys: tuple, exclude: bool, sample_column) -> CandidateSet:
    """The labels and scores of the data set's table as the roles name them (every direction: higher is better)."""
    table, name = raw_table(dataset)  # (parsed once per data set: the table the Data page shows)
    return load_candidates(table, name=name, label=label, scores=list(scores) or None, keys=list(keys) or None,
                           exclude_unlabelled=exclude, sample=sample_column or False)


@cache(max_entries=8)
def experiment(roles: Roles) -> CandidateSet:
    """The whole data set, all samples, with the directions of ``roles.lower`` (a change of direction neither reads
    nor parses the table again)."""
    full = _labelled(roles.dataset, roles.label, roles.scores, roles.keys, roles.exclude_unlabelled,
                     roles.sample_column)
    unknown = [m for m in roles.lower if m not in full.scores]
    if unknown:
        raise ColumnError(f"lower-is-better names {', '.join(map(repr, unknown))}, which are not score columns; "
                          "choose them among the scores on the Data page.")
    if not roles.lower:
        return full
    return replace(full, directions={m: "lower" if m in roles.lower else "higher" for m in full.scores},
                   content_hash="")


@cache(max_entries=8)
def candidates_for(roles: Roles) -> CandidateSet:
    """The candidates the single-sample pages work on: all samples pooled, or the chosen one."""
    full = experiment(roles.whole)
    if roles.sample is None:
        return full
    return full.subset(full.sample_mask(roles.sample), source=f"{full.source}, sample {roles.sample}")


def whole(v: ViewSettings) -> CandidateSet:
    """The whole experiment (every sample), for the multi-sample pages and the sample choice."""
    return experiment(v.data.whole)


@cache(max_entries=64, show_spinner="Ranking ...")
def _ranking(roles: Roles, measure: str, ranking: RankingChoice):
    return analysis.rankings_for(candidates_for(roles), (measure,), ties=ranking.ties, seed=ranking.seed)[measure]


def ranking_of(roles: Roles, measure: str, ranking: RankingChoice, display: Display = Display()):
    """One measure's ranking, ranked once per (data, measure, ties, seed): the seed counts only for random ties.
    Named by its display name, so every table and legend built from it shows that."""
    ranked = _ranking(roles, measure, RankingChoice(*ranking.key))
    shown = display.of(measure)
    return ranked if shown == measure else replace(ranked, measure=shown)


def rankings(roles: Roles, measures, ranking: RankingChoice, display: Display = Display()) -> dict:
    """Rankings by display name (see :func:`ranking_of`)."""
    out = {}
    for m in measures:
        r = ranking_of(roles, m, ranking, display)
        out[r.measure] = r
    return out


@cache(max_entries=8)
def quality(roles: Roles) -> tuple[str, ...]:
    """The measures ordered by average precision, best first (:func:`evalcore.analysis.measure_quality`): the
    order the pages start from."""
    return tuple(analysis.measure_quality(candidates_for(roles))["measure"])


@cache(max_entries=32, show_spinner="Computing the curves ...")
def curves(roles: Roles, ranking: RankingChoice, display: Display, measures: tuple, n_range: tuple, level: float,
           interval: str, beta: float = 1.0):
    sizes = range(n_range[0], n_range[1] + 1)
    return analysis.curves(rankings(roles, measures, ranking, display), sizes, confidence_level=level,
                           interval=interval, beta=beta)


@cache(max_entries=32, show_spinner="Testing every n ...")
def pair(roles: Roles, ranking: RankingChoice, display: Display, a: str, b: str, n_range: tuple, level: float,
         interval: str, test: str = "fisher", correction: str = "none", resamples: int = 1000,
         power: float = DEFAULT_POWER, difference_method: str = "newcombe", _progress=None):
    """The two measures tested at every n of the range (the test runs once per call:
    :func:`evalcore.analysis.pair_comparison`; the other tests' counts come from the same table)."""
    ra, rb = ranking_of(roles, a, ranking, display), ranking_of(roles, b, ranking, display)
    return analysis.pair_comparison(ra, rb, n_range, confidence_level=level, interval=interval, test=test,
                                    correction=correction, resamples=resamples, seed=ranking.seed or 0,
                                    progress=_progress, power=power, difference_method=difference_method)


def downloads(fig, table, stem: str) -> None:
    """Download buttons: the figure as PNG, SVG and self-contained HTML, the table as CSV, each with the current
    view's signature (drawn by ui/report.py; without a signature, as below).

    Images are rendered only when clicked (deferred data), since that takes a second. The CSV is for
    spreadsheets: text cells that start like a formula get a leading ' (numbers are unchanged).
    """
    from ui import present, report  # ui/report.py and ui/present.py build on this module

    image = present.for_export(fig, stem)  # PNG and SVG: with a caption when the view asks for one
    if report.current()[0] is not None:
        report.downloads(fig, table, stem, image=image)
        return
    cols = st.columns(4)
    cols[0].download_button("Figure as PNG", data=lambda: figures.export(image, "png"), file_name=f"{stem}.png",
                            mime="image/png", on_click="ignore", key=f"dl_png_{stem}")
    cols[1].download_button("Figure as SVG", data=lambda: figures.export(image, "svg"), file_name=f"{stem}.svg",
                            mime="image/svg+xml", on_click="ignore", key=f"dl_svg_{stem}")
    cols[2].download_button("Figure as HTML", data=lambda: figures.export(fig, "html"),
                            file_name=f"{stem}.html", mime="text/html", on_click="ignore", key=f"dl_html_{stem}")
    cols[3].download_button("Table as CSV", data=lambda: spreadsheet_csv(table), file_name=f"{stem}.csv",
                            mime="text/csv", on_click="ignore", key=f"dl_csv_{stem}")


@cache(max_entries=32)
def gamma_positions(roles: Roles, measure: str) -> tuple[float, ...]:
    """Slider positions for a threshold: distinct scores at 201 quantiles of all samples pooled."""
    ranked = ranking_of(roles, measure, RankingChoice("stable", None))
    return tuple(float(p) for p in analysis.threshold_quantiles(ranked))


@cache(max_entries=32)
def default_gammas(roles: Roles, measures: tuple, n: int) -> dict:
    cuts = samples.cuts_for(candidates_for(roles), measures, "gamma", n)
    return {m: c.value for m, c in cuts.items()}


@cache(max_entries=32, show_spinner="Validating over the samples ...")
def validation(roles: Roles, ranking: RankingChoice, measure: str, cut, level: float, interval: str):
    return validate.validate(candidates_for(roles), measure, cut, ties=ranking.ties, seed=ranking.seed,
                             confidence_level=level, interval=interval)


@cache(max_entries=32, show_spinner="Testing across the samples ...")
def across(roles: Roles, ranking: RankingChoice, a: str, b: str, cut_a, cut_b, level: float):
    return analysis.across_samples(candidates_for(roles), a, b, cut_a, cut_b, ties=ranking.ties, seed=ranking.seed,
                                   confidence_level=level)


@cache(max_entries=32, show_spinner="Comparing every pair of measures ...")
def uir(roles: Roles, ranking: RankingChoice, cuts: tuple, a: str, b: str, betas: tuple, threshold: float):
    cut_map = dict(cuts)
    return analysis.uir_analysis(candidates_for(roles), tuple(cut_map), cut_map, a, b, betas=betas,
                                 threshold=threshold, ties=ranking.ties, seed=ranking.seed)


@cache(max_entries=32, show_spinner="Testing every pair ...")
def pairwise(roles: Roles, ranking: RankingChoice, display: Display, measures: tuple, n: int, level: float,
             correction: str, interval: str, difference_method: str = "newcombe"):
    return analysis.pairwise(rankings(roles, measures, ranking, display), n, confidence_level=level,
                             correction=correction, interval=interval, difference_method=difference_method)


@cache(max_entries=16, show_spinner="Computing the curves ...")
def roc_curves(roles: Roles, ranking: RankingChoice, display: Display, measures: tuple, kind: str):
    return roc.curves_table(rankings(roles, measures, ranking, display), kind)


@cache(max_entries=16, show_spinner="Computing AUC and AP with their intervals ...")
def roc_table(roles: Roles, ranking: RankingChoice, display: Display, measures: tuple, level: float, method: str,
              resamples: int):
    return roc.roc_table(rankings(roles, measures, ranking, display), confidence_level=level, method=method,
                         resamples=resamples, seed=ranking.seed or 0)
