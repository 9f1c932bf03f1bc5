"""Data for the pages, cached on (the data set and its roles, the frozen view objects a call needs): samples, the
upload store, and calls into evalcore. Nothing here reads session state, so every cache key is the whole input, and
(:func:`cache`) it does not depend on the order of the arguments. Nothing here imports the rest of evalcore_app/.

A request reads down: the view's settings -> :func:`load` (the candidate set of the view's roles) -> rankings ->
tests -> what the page shows. What :func:`load` gives, a :class:`Loaded`, is passed down to every call on the data
and keys its cache by the roles, so nothing below loads again.

The table is parsed once per data set (:func:`raw_table`), the labels and scores read once per choice of columns
(:func:`_labelled`; a change of direction only flips a flag), each measure ranked once per (measure, ties, seed)
(:func:`ranking_of`), a pair tested once per (pair, range, test, resamples) whatever the level (:func:`pair_tests`),
and what depends on the level once per level (:func:`pair`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st

from evalcore import analysis, compare, roc, samples, validate
from evalcore.candidates import CandidateSet
from evalcore.engines import pvalues
from evalcore.errors import ColumnError, EvalcoreError
from evalcore.io import combine_samples, load_candidates, read_table, suggest_roles, text_as_utf8
from evalcore.io.store import DatasetStore
from evalcore.names import DEFAULT_POWER
from evalcore.nspec import grid_sizes
from evalcore.ranking import data_seed
from evalcore.report.signature import file_sha256
from evalcore.text import shown
from evalcore.viewstate import GROUPS, SAMPLE_PREFIX, Display, RankingChoice, Roles, ViewSettings, default_n_range
from evalcore.work import WorkEstimate, WorkModel, check_work
from evalcore.work.commands import reading_estimate
from evalcore_app import costs, jobs
from evalcore_app import serverdata

SAMPLE_DIR = Path(__file__).resolve().parent / "sample_data"  # in a clone a link to its sample_data/
SAMPLES = {"collocations_sim": "collocations_sim.tsv", "experiment_sim": "experiment_sim.tsv.gz"}


def store() -> DatasetStore:
    return DatasetStore()


def dataset_label(dataset: str) -> str:
    """A name to show for a dataset reference."""
    if dataset.startswith(SAMPLE_PREFIX):
        return f"sample {dataset[len(SAMPLE_PREFIX):]}"
    if serverdata.is_server(dataset):
        return f"{dataset[len(serverdata.SERVER_PREFIX):]} (on the server)"
    try:
        return store().get(dataset).name
    except EvalcoreError:
        return f"unknown data set {dataset[:12]}..."


@jobs.cache(work=costs._sample_sha256, max_entries=8)
def _sample_sha256(name: str) -> str:
    return file_sha256(SAMPLE_DIR / SAMPLES[name])


def data_identity(dataset: str) -> str:
    """The data set's identity as a SHA-256, what its default seed is derived from (:func:`default_seed`): an
    upload's store id (the SHA-256 of its bytes; of the table several files uploaded together make), the SHA-256 of
    a shipped sample's file, or a server set's :func:`evalcore_app.serverdata.content_id`. The command line derives the same
    from the same file (:func:`evalcore.cli_steps.data_sha256`)."""
    if dataset.startswith(SAMPLE_PREFIX):
        name = dataset[len(SAMPLE_PREFIX):]
        if name not in SAMPLES:
            raise EvalcoreError(f"There is no sample data set {name!r}; the samples are {', '.join(SAMPLES)}.")
        return _sample_sha256(name)
    if serverdata.is_server(dataset):
        return serverdata.content_id(dataset)
    return dataset


def default_seed(dataset: str) -> int:
    """The seed of random ties a data set opens with (:func:`evalcore.ranking.data_seed` of :func:`data_identity`):
    the same for everyone who opens the same data, and for the command line on the same file."""
    return data_seed(data_identity(dataset))


def _source(dataset: str):
    if dataset.startswith(SAMPLE_PREFIX):
        name = dataset[len(SAMPLE_PREFIX):]
        if name not in SAMPLES:
            raise EvalcoreError(f"There is no sample data set {shown(name)}; the samples are {', '.join(SAMPLES)}.")
        return SAMPLE_DIR / SAMPLES[name], SAMPLES[name]
    stored, data = store().open(dataset)  # the one checked read: SHA-256 against the id
    return data, stored.name


def raw_table(dataset: str, _just_read: tuple | None = None):
    """The data set's table and file name, read (and for a stored data set, checked) once per cache entry;
    ``table.attrs`` holds the format and, for text, the detected encoding and delimiter. A large set on the
    server gives its first rows (the engine counts the rest), read again when its file changes
    (:func:`evalcore_app.serverdata.version` is in the key).

    ``_just_read`` is the (table, name) an upload has just read from these very bytes, so a new data set is not
    read twice; it is not part of the cache key.
    """
    return _raw_table(dataset, serverdata.version(dataset), _just_read)


@jobs.cache(work=costs._raw_table, max_entries=4, show_spinner="Reading the data set ...")
def _raw_table(dataset: str, file_version: str, _just_read: tuple | None = None):
    if _just_read is not None:
        return _just_read
    if serverdata.is_server(dataset):
        return serverdata.preview(dataset, file_version)
    source, name = _source(dataset)
    return read_table(source, name=name), name


raw_table.clear = _raw_table.clear


def left_out(dataset: str) -> tuple:
    """The numeric columns the suggested roles make keys rather than scores (``ColumnRoles.left_out``), of the
    data set's table as it is now (a server set's file version is in the key)."""
    return suggested(dataset).left_out


def suggested(dataset: str):
    """The roles :func:`evalcore.io.suggest_roles` suggests for the data set's table (:func:`raw_table`), once per
    data set: the Data page's roles, its note on the columns left out and each page's check of a fresh set ask for
    them (three passes over every column of a 1,000,000-row upload took 1.3 s of its first run)."""
    return _suggested(dataset, serverdata.version(dataset))


@jobs.cache(work=costs._suggested, max_entries=8, show_spinner=False)
def _suggested(dataset: str, file_version: str):
    return suggest_roles(raw_table(dataset)[0])


def reencoded(dataset: str, encoding: str) -> str:
    """Store the text of ``dataset`` read as ``encoding`` (as UTF-8) and return the new data set's id (within the
    work budget: its reading is estimated before it starts)."""
    check_work(costs.raw_table(dataset))
    source, name = _source(dataset)
    plain = next((name[: -len(s)] for s in (".gz", ".bz2", ".xz") if name.endswith(s)), name)  # (now uncompressed)
    return store().put(text_as_utf8(source, name=name, encoding=encoding), plain, holder=jobs.holder())


def ingest(content: bytes, name: str) -> str:
    """Read an uploaded file and store it only if it reads: a refused file leaves nothing on disk; its reading is
    estimated before it starts, and refused past the work budget.
    Returns the data set's id, with its table already in the cache."""
    check_work(reading_estimate(content, name))
    table = read_table(content, name=name)
    dataset_id = store().put(content, name, holder=jobs.holder())  # pinned for this session at once
    raw_table(dataset_id, _just_read=(table, name))
    return dataset_id


def combined(files: list[tuple[bytes, str]]) -> tuple[bytes, str]:
    """Several uploaded files read as one experiment, one sample per file (:func:`evalcore.io.combine_samples`),
    their reading estimated before it starts and refused past the work budget."""
    estimates = [reading_estimate(content, name) for content, name in files]
    check_work(WorkEstimate(f"reading {len(files)} files ({sum(len(c) for c, _ in files):,} bytes)",
                            WorkModel(fixed=sum(e.seconds for e in estimates)),
                            advice="upload fewer or smaller files"))
    return combine_samples(files)


@dataclass(frozen=True, eq=False)
class Loaded:
    """A candidate set loaded for ``roles`` (:func:`load`), as the cached calls on the data take it: keyed by the
    roles (the data set's content id and its columns), which decide the candidates, and for a set in the server's
    folder by ``version``, its file's identity taken before it was loaded (:func:`evalcore_app.serverdata.version`; once per
    load, not per call: a folder of many parts takes a stat of each)."""

    roles: Roles
    candidates: CandidateSet
    version: str = ""


def _roles_key(roles: Roles) -> str:
    """The cache key of a data set's roles: their repr and, for a set in the server's folder, the identity of its
    file (:func:`evalcore_app.serverdata.version`): a file replaced or grown is another key, never its old results."""
    return repr(roles) + serverdata.version(roles.dataset)


#: Cache keys of the frozen view objects: their repr, which names the value of every field. (Streamlit hashes a
#: dataclass through ``dataclasses.asdict`` and then every value on its own, about 5 ms a call on a loaded machine:
#: 0.2 s of a Significance rerun went there.) A loaded candidate set is keyed by its roles and version.
FAST_KEYS = {**{cls: repr for cls in GROUPS.values()}, Roles: _roles_key,
             Loaded: lambda data: repr(data.roles) + data.version}


def cache(*, work, **options):
    """:func:`evalcore_app.jobs.cache` with the view objects' fast keys: ``st.cache_resource`` keyed on the arguments by name
    (a call's key is the same whatever the order, or the positional or keyword form, of its arguments, and defaults
    are part of it), whose ``work`` is estimated before a miss computes and refused past the budget. Arguments are
    ids, frozen view objects (:mod:`evalcore.viewstate`) and plain values, all hashable; a leading ``_`` leaves one
    out of the key."""
    return jobs.cache(work=work, **{"hash_funcs": FAST_KEYS, **options})


@cache(work=costs._labelled, max_entries=4, show_spinner="Checking labels and scores ...")
def _labelled(dataset: str, label, scores: tuple, keys: tuple, exclude: bool, sample_column) -> CandidateSet:
    """The labels and scores of the data set's table as the roles name them (every direction: higher is better)."""
    table, name = raw_table(dataset)  # (parsed once per data set: the table the Data page shows)
    return load_candidates(table, name=name, label=label, scores=list(scores) or None, keys=list(keys) or None,
                           exclude_unlabelled=exclude, sample=sample_column or False)


@cache(work=costs.experiment, max_entries=8)
def experiment(roles: Roles) -> CandidateSet:
    """The whole data set, all samples, with the directions of ``roles.lower`` (a change of direction neither reads
    nor parses the table again)."""
    if serverdata.is_server(roles.dataset):  # counted by DuckDB on the server, never read into memory
        return serverdata.candidates(roles)
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


@cache(work=costs.candidates_for, max_entries=8)
def candidates_for(roles: Roles) -> CandidateSet:
    """The candidates the single-sample pages work on: all samples pooled, or the chosen one."""
    full = experiment(roles.whole)
    if roles.sample is None:
        return full
    return full.subset(full.sample_mask(roles.sample), source=f"{full.source}, sample {roles.sample}")


def whole(v: ViewSettings) -> CandidateSet:
    """The whole experiment (every sample), for the multi-sample pages and the sample choice."""
    return experiment(v.data.whole)


def load(roles: Roles) -> Loaded:
    """The candidate set of ``roles`` (:func:`candidates_for`), to pass down to every call on it. (The version is
    taken first: what is loaded is never older than the key it is kept under.)"""
    version = serverdata.version(roles.dataset)
    return Loaded(roles, candidates_for(roles), version)


@cache(work=costs._ranking, max_entries=64, show_spinner="Ranking ...")
def _ranking(data: Loaded, measure: str, ranking: RankingChoice):
    if serverdata.is_server(data.roles.dataset):
        return serverdata.ranking(data.roles, measure, ranking)
    return analysis.rankings_for(data.candidates, (measure,), ties=ranking.ties, seed=ranking.seed)[measure]


def ranking_of(data: Loaded, measure: str, ranking: RankingChoice, display: Display = Display()):
    """One measure's ranking, ranked once per (data, measure, ties, seed): the seed counts only for random ties.
    Named by its display name, so every table and legend built from it shows that."""
    ranked = _ranking(data, measure, RankingChoice(*ranking.key))
    shown = display.of(measure)
    return ranked if shown == measure else replace(ranked, measure=shown)


def rankings(data: Loaded, measures, ranking: RankingChoice, display: Display = Display()) -> dict:
    """Rankings by display name (see :func:`ranking_of`)."""
    out = {}
    for m in measures:
        r = ranking_of(data, m, ranking, display)
        out[r.measure] = r
    return out


@cache(work=costs.quality, max_entries=8)
def quality(data: Loaded, _ranking: RankingChoice | None = None) -> tuple[str, ...]:
    """The measures ordered by average precision, best first (:func:`evalcore.analysis.measure_quality`): the
    order the pages start from. AP is the same under any ties, so ``_ranking`` (the view's) is not in the key: it
    only lets the measures be ranked under the ties the pages rank by next, once: the rankings come from
    :func:`ranking_of`'s cache, which the pages (the Data page every measure's) read too (a server data set is
    counted under those ties)."""
    if serverdata.is_server(data.roles.dataset):
        return serverdata.quality(data.roles, _ranking)
    ranked = rankings(data, data.candidates.measures, _ranking or RankingChoice("stable", None))
    return tuple(analysis.measure_quality(data.candidates, ranked)["measure"])


@cache(work=costs.default_pair, max_entries=32, show_spinner="Choosing the pair ...")
def default_pair(data: Loaded, ranking: RankingChoice, measures: tuple, more: tuple, alpha: float, a=None,
                 b=None) -> tuple[str, str]:
    """The pair the comparison pages open on (:func:`evalcore.compare.default_pair`): the first two of the shared
    selection ``measures`` (then ``more``) whose n-best lists differ enough for Fisher's test to reach ``alpha``
    somewhere in the default range of n, 100 to 2,000; ``a`` or ``b`` where one is chosen."""
    n_range = default_n_range(data.candidates.n_candidates)
    return compare.default_pair(measures, lambda m: ranking_of(data, m, ranking), n_range, alpha, more=more, a=a,
                                b=b)


@cache(work=costs.pair_reach, max_entries=32)
def pair_reach(data: Loaded, ranking: RankingChoice, a: str, b: str, n_range: tuple, alpha: float):
    """How far two measures' n-best lists differ over ``n_range`` (:func:`evalcore.compare.pair_reach`)."""
    return compare.pair_reach(ranking_of(data, a, ranking), ranking_of(data, b, ranking), n_range, alpha)


@cache(work=costs.curves, max_entries=32, show_spinner="Computing the curves ...")
def curves(data: Loaded, ranking: RankingChoice, display: Display, measures: tuple, n_range: tuple, level: float,
           interval: str, beta: float = 1.0):
    if serverdata.is_server(data.roles.dataset):  # chunk by chunk of n, thinned for drawing where the range is long
        return serverdata.curves(rankings(data, measures, ranking, display), n_range, level, interval, beta)
    sizes = range(n_range[0], n_range[1] + 1)
    return analysis.curves(rankings(data, measures, ranking, display), sizes, confidence_level=level,
                           interval=interval, beta=beta)


@cache(work=costs.pair_tests, max_entries=32, show_spinner="Testing every n ...")
def pair_tests(data: Loaded, ranking: RankingChoice, a: str, b: str, n_range: tuple, test: str = "fisher",
               resamples: int = 1000, n_step: int = 1, _progress=None):
    """The test of the pair at every n (every ``n_step``-th), as far as it owes nothing to the level or the
    correction (:func:`evalcore.analysis.pair_tests`): once for every level a slider visits. ``_progress`` (not in
    the key) is :meth:`evalcore_app.jobs.Job.progress`'s callback: it reports and stops work nobody waits for."""
    if serverdata.is_server(data.roles.dataset) and pvalues.cacheable(test):  # kept in the store, chunk by chunk
        return serverdata.pair_tests(data.roles, ranking, a, b, n_range, test, n_step, progress=_progress)
    ra, rb = (ranking_of(data, m, ranking) for m in (a, b))
    return analysis.pair_tests(ra, rb, n_range, test=test, resamples=resamples, seed=ranking.seed or 0,
                               progress=_progress, n_step=n_step)


def pvalue_chunks_to_compute(data: Loaded, ranking: RankingChoice, a: str, b: str, n_range: tuple,
                             test: str = "fisher", n_step: int = 1) -> int:
    """Chunks of p-values :func:`pair_tests` would compute for a server data set (0 for any other set, whose tests
    are kept in this cache only): the page shows their progress and a way to cancel."""
    if not serverdata.is_server(data.roles.dataset):
        return 0
    return serverdata.pvalue_chunks_to_compute(data.roles, ranking, a, b, n_range, test, n_step)


def fill_pvalues(data: Loaded, ranking: RankingChoice, a: str, b: str, n_range: tuple, test: str = "fisher",
                 n_step: int = 1, _progress=None) -> None:
    """Compute and store the p-values of a server data set's pair that :func:`pair_tests` reads (the parts not
    stored yet), outside any cached call: Streamlit replays the elements a cached function drew, so the page's
    progress bar and Cancel button are drawn around this call. ``_progress``: :meth:`evalcore_app.jobs.Job.progress`'s
    callback, which stops the work when its session ends or it is cancelled (the parts done stay stored)."""
    if serverdata.is_server(data.roles.dataset) and pvalues.cacheable(test):
        serverdata.pair_tests(data.roles, ranking, a, b, n_range, test, n_step, progress=_progress)


@cache(work=costs.pair, max_entries=32, show_spinner=False)  # (the test is pair_tests'; the rest takes a moment)
def pair(data: Loaded, ranking: RankingChoice, display: Display, a: str, b: str, n_range: tuple,
         level: float, interval: str, test: str = "fisher", correction: str = "none", resamples: int = 1000,
         power: float = DEFAULT_POWER, difference_method: str = "newcombe", n_step: int = 1, _progress=None):
    """The two measures tested at every n of the range (every ``n_step``-th;
    :func:`evalcore.analysis.pair_comparison`), the test itself from :func:`pair_tests`."""
    ra, rb = (ranking_of(data, m, ranking, display) for m in (a, b))  # (rank first: the test below reuses them)
    tested = pair_tests(data, ranking, a, b, n_range, test, resamples, n_step, _progress=_progress)
    return analysis.pair_comparison(ra, rb, n_range, confidence_level=level, interval=interval, test=test,
                                    correction=correction, resamples=resamples, seed=ranking.seed or 0,
                                    power=power, difference_method=difference_method, tested=tested,
                                    n_step=n_step, curves=pair_curves(data, ranking, display, a, b, n_range, n_step))


@cache(work=costs.pair_curves, max_entries=8, show_spinner=False)
def pair_curves(data: Loaded, ranking: RankingChoice, display: Display, a: str, b: str, n_range: tuple,
                n_step: int = 1):
    """The pair's curves at every tested n as far as they owe nothing to the level
    (:func:`evalcore.analysis.pair_curves`): once for every level a slider visits (a level adds the intervals; the
    tables share these columns, so the levels kept in :func:`pair`'s cache hold them once)."""
    ra, rb = (ranking_of(data, m, ranking, display) for m in (a, b))
    return analysis.pair_curves(ra, rb, grid_sizes(n_range, n_step))


@cache(work=costs.members, max_entries=32)
def members(data: Loaded, ranking: RankingChoice, a: str, b: str, n: int):
    """The candidates of D1 and D2 of the two n-best lists (:func:`evalcore.analysis.difference_members`), columns
    named by the measures' own names: the same at every level."""
    return analysis.difference_members(data.candidates, ranking_of(data, a, ranking), ranking_of(data, b, ranking), n)


@cache(work=costs.gamma_positions, max_entries=32)
def gamma_positions(data: Loaded, measure: str) -> tuple[float, ...]:
    """Slider positions for a threshold: distinct scores at 201 quantiles of all samples pooled."""
    ranked = ranking_of(data, measure, RankingChoice("stable", None))
    return tuple(float(p) for p in analysis.threshold_quantiles(ranked))


@cache(work=costs.default_gammas, max_entries=32)
def default_gammas(data: Loaded, measures: tuple, n: int) -> dict:
    cuts = samples.cuts_for(data.candidates, measures, "gamma", n)
    return {m: c.value for m, c in cuts.items()}


@cache(work=costs.validation, max_entries=32, show_spinner="Validating over the samples ...")
def validation(data: Loaded, ranking: RankingChoice, measure: str, cut, level: float, interval: str):
    return validate.validate(data.candidates, measure, cut, ties=ranking.ties, seed=ranking.seed,
                             confidence_level=level, interval=interval)


@cache(work=costs.across, max_entries=32, show_spinner="Testing across the samples ...")
def across(data: Loaded, ranking: RankingChoice, a: str, b: str, cut_a, cut_b, level: float):
    return analysis.across_samples(data.candidates, a, b, cut_a, cut_b, ties=ranking.ties, seed=ranking.seed,
                                   confidence_level=level)


@cache(work=costs.uir, max_entries=32, show_spinner="Comparing every pair of measures ...")
def uir(data: Loaded, ranking: RankingChoice, cuts: tuple, a: str, b: str, threshold: float):
    cut_map = dict(cuts)
    return analysis.uir_analysis(data.candidates, tuple(cut_map), cut_map, a, b, threshold=threshold,
                                 ties=ranking.ties, seed=ranking.seed)


@cache(work=costs.pairwise, max_entries=32, show_spinner="Testing every pair ...")
def pairwise(data: Loaded, ranking: RankingChoice, display: Display, measures: tuple, n: int, level: float,
             correction: str, interval: str, difference_method: str = "newcombe"):
    return analysis.pairwise(rankings(data, measures, ranking, display), n, confidence_level=level,
                             correction=correction, interval=interval, difference_method=difference_method)


@cache(work=costs.roc_curves, max_entries=16, show_spinner="Computing the curves ...")
def roc_curves(data: Loaded, ranking: RankingChoice, display: Display, measures: tuple, kind: str):
    return roc.curves_table(rankings(data, measures, ranking, display), kind)


def roc_seed(ranking: RankingChoice) -> int:
    """The seed of the ROC page's bootstrap (AP, and the AUC where chosen): the view's seed, 0 where it has none
    (its download's signature names it: ``bootstrap-seed``)."""
    return ranking.seed or 0


@cache(work=costs.roc_table, max_entries=16, show_spinner="Computing AUC and AP with their intervals ...")
def roc_table(data: Loaded, ranking: RankingChoice, display: Display, measures: tuple, level: float, method: str,
              resamples: int):
    return roc.roc_table(rankings(data, measures, ranking, display), confidence_level=level, method=method,
                         resamples=resamples, seed=roc_seed(ranking))
