"""Data for the pages, cached on (dataset id, settings): samples, the upload store, and calls
into evalcore. Nothing here reads session state, so every cache key is the whole input.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from evalcore import analysis, roc, samples, validate
from evalcore.figures import style as figures
from evalcore.candidates import CandidateSet
from evalcore.errors import EvalcoreError
from evalcore.io import load_candidates, read_table, text_as_utf8
from evalcore.io.store import DatasetStore
from evalcore.text import spreadsheet_csv
from evalcore.viewstate import SAMPLE_PREFIX, ViewSettings

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


@st.cache_resource(max_entries=4, show_spinner="Checking labels and scores ...")
def experiment(dataset: str, label, scores, keys, lower, exclude, sample_column) -> CandidateSet:
    """The whole data set, all samples."""
    table, name = raw_table(dataset)  # (read once: the table the Data page shows)
    return load_candidates(table, name=name, label=label, scores=list(scores) or None, keys=list(keys) or None,
                           lower_is_better=lower, exclude_unlabelled=exclude, sample=sample_column or False)


@st.cache_resource(max_entries=8)
def candidates_for(dataset: str, label, scores, keys, lower, exclude, sample_column, sample) -> CandidateSet:
    """The candidates the single-sample pages work on: all samples pooled, or the chosen one."""
    full = experiment(dataset, label, scores, keys, lower, exclude, sample_column)
    if sample is None:
        return full
    return full.subset(full.sample_mask(sample), source=f"{full.source}, sample {sample}")


def roles(v: ViewSettings) -> tuple:
    return (v.dataset, v.label, v.scores, v.keys, v.lower, v.exclude_unlabelled, v.sample_column, v.sample)


def whole(v: ViewSettings) -> CandidateSet:
    """The whole experiment (every sample), for the multi-sample pages and the sample choice."""
    return experiment(*roles(v)[:-1])


@st.cache_resource(max_entries=16, show_spinner="Ranking ...")
def rankings(role_key: tuple, measures: tuple, ties: str, seed):
    return analysis.rankings_for(candidates_for(*role_key), measures, ties=ties, seed=seed)


@st.cache_resource(max_entries=32, show_spinner="Computing the curves ...")
def curves(role_key: tuple, measures: tuple, ties: str, seed, level: float, interval: str, beta: float,
           n_range: tuple):
    sizes = range(n_range[0], n_range[1] + 1)
    return analysis.curves(rankings(role_key, measures, ties, seed), sizes, confidence_level=level,
                           interval=interval, beta=beta)


@st.cache_resource(max_entries=32, show_spinner="Testing every n ...")
def pair(role_key: tuple, a: str, b: str, ties: str, seed, n_range: tuple, level: float, interval: str,
         test: str = "fisher", correction: str = "none", resamples: int = 1000, _progress=None):
    r = rankings(role_key, (a, b), ties, seed)
    return analysis.pair_comparison(r[a], r[b], n_range, confidence_level=level, interval=interval, test=test,
                                    correction=correction, resamples=resamples, seed=seed or 0, progress=_progress)


def downloads(fig, table, stem: str) -> None:
    """Download buttons: the figure as PNG, SVG and self-contained HTML, the table as CSV, each with the current
    view's signature (drawn by ui/report.py; without a signature, as below).

    Images are rendered only when clicked (deferred data), since that takes a second. The CSV is for
    spreadsheets: text cells that start like a formula get a leading ' (numbers are unchanged).
    """
    from ui import report  # ui/report.py builds on this module

    if report.current()[0] is not None:
        report.downloads(fig, table, stem)
        return
    cols = st.columns(4)
    cols[0].download_button("Figure as PNG", data=lambda: figures.export(fig, "png"), file_name=f"{stem}.png",
                            mime="image/png", on_click="ignore", key=f"dl_png_{stem}")
    cols[1].download_button("Figure as SVG", data=lambda: figures.export(fig, "svg"), file_name=f"{stem}.svg",
                            mime="image/svg+xml", on_click="ignore", key=f"dl_svg_{stem}")
    cols[2].download_button("Figure as HTML", data=lambda: figures.export(fig, "html"),
                            file_name=f"{stem}.html", mime="text/html", on_click="ignore", key=f"dl_html_{stem}")
    cols[3].download_button("Table as CSV", data=lambda: spreadsheet_csv(table), file_name=f"{stem}.csv",
                            mime="text/csv", on_click="ignore", key=f"dl_csv_{stem}")


def whole_roles(v: ViewSettings) -> tuple:
    """The role key of the whole experiment (every sample)."""
    return roles(v)[:-1] + (None,)


@st.cache_resource(max_entries=32)
def gamma_positions(role_key: tuple, measure: str) -> tuple[float, ...]:
    """Slider positions for a threshold: distinct scores at 201 quantiles of all samples pooled."""
    ranking = rankings(role_key, (measure,), "stable", None)[measure]
    return tuple(float(p) for p in analysis.threshold_quantiles(ranking))


@st.cache_resource(max_entries=32)
def default_gammas(role_key: tuple, measures: tuple, n: int) -> dict:
    cuts = samples.cuts_for(candidates_for(*role_key), measures, "gamma", n)
    return {m: c.value for m, c in cuts.items()}


@st.cache_resource(max_entries=32, show_spinner="Validating over the samples ...")
def validation(role_key: tuple, measure: str, cut, ties: str, seed, level: float, interval: str):
    return validate.validate(candidates_for(*role_key), measure, cut, ties=ties, seed=seed, confidence_level=level,
                             interval=interval)


@st.cache_resource(max_entries=32, show_spinner="Testing across the samples ...")
def across(role_key: tuple, a: str, b: str, cut_a, cut_b, ties: str, seed, level: float):
    return analysis.across_samples(candidates_for(*role_key), a, b, cut_a, cut_b, ties=ties, seed=seed,
                                   confidence_level=level)


@st.cache_resource(max_entries=32, show_spinner="Comparing every pair of measures ...")
def uir(role_key: tuple, cuts: tuple, a: str, b: str, betas: tuple, threshold: float, ties: str, seed):
    cut_map = dict(cuts)
    return analysis.uir_analysis(candidates_for(*role_key), tuple(cut_map), cut_map, a, b, betas=betas,
                                 threshold=threshold, ties=ties, seed=seed)


@st.cache_resource(max_entries=32, show_spinner="Testing every pair ...")
def pairwise(role_key: tuple, measures: tuple, ties: str, seed, n: int, level: float, correction: str,
             interval: str):
    return analysis.pairwise(rankings(role_key, measures, ties, seed), n, confidence_level=level,
                             correction=correction, interval=interval)


@st.cache_resource(max_entries=16, show_spinner="Computing the curves ...")
def roc_curves(role_key: tuple, measures: tuple, ties: str, seed, kind: str):
    return roc.curves_table(rankings(role_key, measures, ties, seed), kind)


@st.cache_resource(max_entries=16, show_spinner="Computing AUC and AP with their intervals ...")
def roc_table(role_key: tuple, measures: tuple, ties: str, seed, level: float, method: str, resamples: int):
    return roc.roc_table(rankings(role_key, measures, ties, seed), confidence_level=level, method=method,
                         resamples=resamples, seed=seed or 0)
