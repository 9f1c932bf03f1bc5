"""The work of every cached computation of the pages, estimated before a miss computes it (:func:`evalcore_app.jobs.cache`'s
``work=``): one function per cached function, named after it and called with the same arguments, returning a
:class:`evalcore.work.WorkEstimate` from what the arguments hold (the candidates, measures, samples, list sizes,
the stored file's size), never from the computation itself. The models are evalcore's (:mod:`evalcore.work`:
``cost``, ``commands``, ``scoring``, ``pages``); this module only reads their sizes off the pages' arguments.

An estimate that needs a size another cached function gives (a table's rows, the candidates of a sample) asks that
function, which the computation would call first anyway (and which is estimated in turn). The work a cached function
hands on to another cached function is that one's to estimate: each counts only its own.
"""

from __future__ import annotations

from dataclasses import replace

from evalcore.errors import EvalcoreError
from evalcore.work import WorkEstimate, WorkModel, pair_estimate, report_estimate, roc_estimate, systems_estimate
from evalcore.work.commands import (ENGINE_PER_ROW, READ_PER_BYTE, engine_estimate, ranking_estimate,
                                    reading_estimate, sample_estimate)
from evalcore.work.cost import PAIR_PER_SIZE, grid_size, mdd_seconds
from evalcore.work.pages import (call_estimate, curves_estimate, draw_estimate, labels_estimate, members_estimate,
                                 pairwise_estimate, pass_estimate, roc_curves_estimate, samples_estimate,
                                 similarity_estimate, text_estimate, uir_estimate)

#: The grid of list sizes the Significance page computes the minimum detectable difference on (at most).
MDD_GRID = 101


def _sizes(n_range, n_step: int = 1) -> int:
    return grid_size(tuple(int(v) for v in n_range), int(n_step))


def _n(data) -> int:
    return int(data.candidates.n_candidates)


# ---------------------------------------------------------------- evalcore_app/cached.py: reading and the candidates

def raw_table(dataset: str, _just_read=None) -> WorkEstimate:
    """Reading the data set's file: by its size and format (a stored upload, a shipped sample), or a server data
    set's first rows read by DuckDB (which scans the file)."""
    from evalcore.viewstate import SAMPLE_PREFIX
    from evalcore_app import cached, serverdata

    if _just_read is not None:
        return call_estimate("the table just read from the upload")
    if dataset.startswith(SAMPLE_PREFIX):
        name = cached.SAMPLES.get(dataset[len(SAMPLE_PREFIX):])
        if name is None:  # (the computation says there is no such sample)
            return call_estimate("looking for a sample data set")
        return reading_estimate(cached.SAMPLE_DIR / name, name)
    if serverdata.is_server(dataset):
        return server_scan(dataset, "reading the first rows of")
    stored = cached.store().get(dataset)
    return reading_estimate(b"", stored.name, size=stored.size)


#: What a visitor can do when counting a server data set passes the budget: nothing on the page (every candidate is
#: counted, whatever the n), so the message says who can (the estimates of the command line speak of --n instead).
SERVER_ADVICE = ("whoever runs this server can raise its budget (EVALCORE_WORK_BUDGET) for data sets this large; the "
                 "counts are then kept, and a link reopens them in seconds")


def server_scan(dataset: str, what: str) -> WorkEstimate:
    """DuckDB's pass over a server data set's file: its start, and the file's bytes as reading costs them."""
    from evalcore_app import serverdata

    path = serverdata.path_of(dataset)
    start, _ = ENGINE_PER_ROW["duckdb"]
    kind = "parquet" if path.is_dir() or path.name.lower().endswith((".parquet", ".pq")) else "csv"
    size = serverdata._size(path)
    return WorkEstimate(f"{what} {path.name} with DuckDB ({size:,} bytes)",
                        WorkModel(fixed=start + READ_PER_BYTE[kind] * size), advice=SERVER_ADVICE)


def _columns(table, scores: tuple, keys: tuple, *extra) -> int:
    return (len(scores) or table.shape[1]) + 1 + len(keys) + sum(1 for e in extra if e)


def _labelled(dataset: str, label, scores: tuple, keys: tuple, exclude: bool, sample_column) -> WorkEstimate:
    from evalcore_app import cached

    table, name = cached.raw_table(dataset)
    return labels_estimate(name, len(table), _columns(table, scores, keys, sample_column))


def experiment(roles) -> WorkEstimate:
    """The measures' directions set on the checked candidates (the checking and the server's summary are
    estimated by the functions that do them)."""
    return call_estimate("setting which measures are better lower")


def candidates_for(roles) -> WorkEstimate:
    from evalcore_app import cached

    if roles.sample is None:
        return call_estimate("taking every sample")
    full = cached.experiment(roles.whole)
    return pass_estimate(f"the candidates of sample {roles.sample}", full.n_candidates, len(full.measures) + 1)


def _ranking(data, measure: str, ranking) -> WorkEstimate:
    from evalcore_app import serverdata

    if serverdata.is_server(data.roles.dataset):  # the count tables, estimated where they are counted
        return call_estimate(f"the counts of {measure} on the server")
    return ranking_estimate(_n(data), 1)


def quality(data, _ranking=None) -> WorkEstimate:
    from evalcore_app import serverdata

    if serverdata.is_server(data.roles.dataset):
        return call_estimate("the measures' average precision from the server's counts")
    return ranking_estimate(_n(data), len(data.candidates.measures), what="the average precision of")


def curves(data, ranking, display, measures: tuple, n_range: tuple, level: float, interval: str,
           beta: float = 1.0) -> WorkEstimate:
    return curves_estimate(_n(data), len(measures), _sizes(n_range))


def pair_reach(data, ranking, a: str, b: str, n_range: tuple, alpha: float) -> WorkEstimate:
    """How far two lists differ (:func:`evalcore.compare.pair_reach`): their overlap at no more than 100,000 n of
    the range, as two curves."""
    return curves_estimate(_n(data), 2, min(_sizes(n_range), 100_000))


def default_pair(data, ranking, measures: tuple, more: tuple, alpha: float, a=None, b=None) -> WorkEstimate:
    """The pair the comparison pages open on (:func:`evalcore.compare.default_pair`): at most every pair of the
    measures looked at as :func:`pair_reach` over the default range (it stops at the first that differs enough)."""
    from evalcore.viewstate import default_n_range

    m = len(measures) + len(more)
    pairs = max(1, m * (m - 1) // 2)
    one = pair_reach(data, ranking, "", "", default_n_range(_n(data)), alpha)
    return WorkEstimate(f"choosing the pair to open on among up to {pairs} pairs of {_n(data):,} candidates",
                        WorkModel(fixed=one.seconds * pairs))


def pair_tests(data, ranking, a: str, b: str, n_range: tuple, test: str = "fisher", resamples: int = 1000,
               n_step: int = 1, _progress=None) -> WorkEstimate:
    return pair_estimate(_n(data), tuple(n_range), test, resamples, n_step=n_step)


def pair_curves(data, ranking, display, a: str, b: str, n_range: tuple, n_step: int = 1) -> WorkEstimate:
    """The level-free columns of the pair's two curves (no interval: less than two curves' estimate)."""
    return curves_estimate(_n(data), 2, _sizes(n_range, n_step))


def pair(data, ranking, display, a: str, b: str, n_range: tuple, level: float, interval: str, test: str = "fisher",
         correction: str = "none", resamples: int = 1000, power: float = 0.8, difference_method: str = "newcombe",
         n_step: int = 1, _progress=None) -> WorkEstimate:
    """The curves of the pair, the effect sizes and their intervals at every tested n, and the minimum detectable
    difference on a grid of at most 101 n (the test itself is :func:`pair_tests`')."""
    n, sizes = _n(data), _sizes(n_range, n_step)
    curve = curves_estimate(n, 2, sizes)
    seconds = curve.seconds + PAIR_PER_SIZE * sizes + min(MDD_GRID, sizes) * mdd_seconds(n)
    return WorkEstimate(f"the curves, effect sizes and minimum detectable differences of the pair at {sizes:,} list "
                        f"sizes of {n:,} candidates", WorkModel(fixed=seconds), advice=curve.advice)


def members(data, ranking, a: str, b: str, n: int) -> WorkEstimate:
    return members_estimate(_n(data), int(n))


def gamma_positions(data, measure: str) -> WorkEstimate:
    return pass_estimate("the slider's thresholds", _n(data))


def default_gammas(data, measures: tuple, n: int) -> WorkEstimate:
    return ranking_estimate(_n(data), len(measures), what="the thresholds of an average n-best list:")


def _samples(data) -> int:
    return max(1, len(data.candidates.sample_ids))


def validation(data, ranking, measure: str, cut, level: float, interval: str) -> WorkEstimate:
    return samples_estimate(f"validating the binomial model for {measure}", _n(data), 1, _samples(data))


def across(data, ranking, a: str, b: str, cut_a, cut_b, level: float) -> WorkEstimate:
    return samples_estimate("comparing two measures across the samples", _n(data), 2, _samples(data))


def uir(data, ranking, cuts: tuple, a: str, b: str, threshold: float) -> WorkEstimate:
    return uir_estimate(_n(data), len(cuts), _samples(data))


def pairwise(data, ranking, display, measures: tuple, n: int, level: float, correction: str, interval: str,
             difference_method: str = "newcombe") -> WorkEstimate:
    return pairwise_estimate(_n(data), len(measures))


def roc_curves(data, ranking, display, measures: tuple, kind: str) -> WorkEstimate:
    return roc_curves_estimate(_n(data), len(measures))


def roc_table(data, ranking, display, measures: tuple, level: float, method: str, resamples: int) -> WorkEstimate:
    return roc_estimate(_n(data), len(measures), resamples)


# ---------------------------------------------------------------- evalcore_app/sample.py: estimates from a sample

def annotated_sample(dataset: str, label, scores: tuple, keys: tuple, lower: tuple) -> WorkEstimate:
    from evalcore_app import cached

    table, name = cached.raw_table(dataset)
    return labels_estimate(name, len(table), _columns(table, scores, keys))


def _label_state(dataset: str, label) -> WorkEstimate:
    from evalcore_app import cached

    table, name = cached.raw_table(dataset)
    return pass_estimate(f"finding the empty labels of {name}", len(table))


def sample_labelled(roles, labels: tuple) -> WorkEstimate:
    """The annotation sample's marks read from the database and laid over the candidates."""
    from evalcore_app import sample

    if not labels:
        return call_estimate("the file's labels")
    n = sample.annotated_sample(roles.dataset, roles.label, roles.scores, roles.keys, roles.lower).candidates
    return pass_estimate(f"the labels of annotation sample {labels[0]}", n.n_candidates, 2)


def _sample_n(roles, labels: tuple) -> int:
    from evalcore_app import sample

    return sample._labelled(roles, labels)[0].n_candidates


def sample_ranking(roles, labels: tuple, measure: str, ranking) -> WorkEstimate:
    return ranking_estimate(_sample_n(roles, labels), 1)


def frame_mask(roles, labels: tuple) -> WorkEstimate:
    from evalcore_app import sample

    candidates, frame, _ = sample._labelled(roles, labels)
    if not frame.measures:
        return call_estimate("the whole set as the sampling frame")
    return ranking_estimate(candidates.n_candidates, len(frame.measures), what="the sampling frame: ranking")


def sample_pair(roles, labels: tuple, ranking, a: str, b: str, n_range: tuple, level: float, min_annotated: int,
                correction: str = "none", difference_method: str = "newcombe") -> WorkEstimate:
    return sample_estimate(_sample_n(roles, labels), 1, _sizes(n_range), "fisher")


def sample_estimates(roles, labels: tuple, ranking, measures: tuple, n_range: tuple, level: float, interval: str,
                     min_annotated: int) -> WorkEstimate:
    return sample_estimate(_sample_n(roles, labels), len(measures), _sizes(n_range), interval)


def design_of(roles, labels: tuple) -> WorkEstimate:
    return call_estimate("the annotation sample's design")


def strata(roles, labels: tuple) -> WorkEstimate:
    from evalcore_app import sample

    design = sample._design_of(roles, labels)
    n = _sample_n(roles, labels)
    if not design.frame.measures:
        return pass_estimate("the design over the candidates", n)
    return ranking_estimate(n, len(design.frame.measures), what="the pool of the design: ranking")


def report_numbers(roles, labels: tuple, ranking, settings, _candidates, _frame) -> WorkEstimate:
    return report_results(_candidates.n_candidates, settings)


def report_results(n_candidates: int, settings) -> WorkEstimate:
    """A report's numbers (:func:`evalcore.report.report_results`), with a sample's estimates where it has one."""
    estimate = report_estimate(n_candidates, settings.n_range, len(settings.sizes), len(settings.pairs),
                               settings.test, settings.resamples, settings.n_step)
    if settings.design is None:
        return estimate
    sizes = grid_size(settings.n_range, settings.n_step) + len(settings.sizes)
    extra = sample_estimate(n_candidates, len(settings.measures) + len(settings.pairs), sizes,
                            settings.design.interval)
    return replace(estimate, model=estimate.model + extra.model,
                   what=f"{estimate.what}, estimated from the annotated sample")


# ---------------------------------------------------------------- evalcore_app/annotate.py

def plan(roles, labels: tuple, measures: tuple, ties: str, tie_seed, budget: int, n: int,
         guess: float) -> WorkEstimate:
    return ranking_estimate(_sample_n(roles, labels), 4 * len(measures), what="planning the pool of")


def draw(n_candidates: int, drawn: int) -> WorkEstimate:
    return draw_estimate(n_candidates, drawn)


def strata_bands(roles, measures: tuple, widths: tuple, ties: str, tie_seed) -> WorkEstimate:
    """evalcore_app/strata.py's ``_bands``: the candidates ranked by each of the bands' measures."""
    from evalcore_app.sample import annotated_sample

    n = annotated_sample(roles.dataset, roles.label, roles.scores, roles.keys, roles.lower).candidates.n_candidates
    return ranking_estimate(n, len(measures), what="the rank bands: ranking")


def strata_plan(roles, labels: tuple, measures: tuple, targets: tuple, ties: str, tie_seed, widths: tuple,
                budget: int, ns: tuple, guess: tuple) -> WorkEstimate:
    """evalcore_app/strata.py's ``_plan``: the bands' and targets' rankings, and the predicted widths at each n."""
    return ranking_estimate(_sample_n(roles, labels), 2 * len(set(measures) | set(targets)) + len(ns),
                            what="planning the bands of")


# ---------------------------------------------------------------- evalcore_app/report.py

def data_sha256(dataset: str) -> WorkEstimate:
    from evalcore.viewstate import SAMPLE_PREFIX
    from evalcore_app import cached

    name = cached.SAMPLES.get(dataset[len(SAMPLE_PREFIX):]) if dataset.startswith(SAMPLE_PREFIX) else None
    if name is None:  # an upload's id is its SHA-256
        return call_estimate("the data set's SHA-256 (its id)")
    return reading_estimate(cached.SAMPLE_DIR / name, name, kind="text")


def results(data, settings, ranking) -> WorkEstimate:
    return report_results(_n(data), settings)


# ---------------------------------------------------------------- evalcore_app/serverdata.py

def _server_rows(dataset: str) -> int | None:
    """A server data set's rows from its Parquet metadata (None for text, or where the footer does not read)."""
    from evalcore_app import serverdata

    path = serverdata.path_of(dataset)
    files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    if not all(f.name.lower().endswith((".parquet", ".pq")) for f in files):
        return None
    try:
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(f).metadata.num_rows for f in files)
    except Exception:  # noqa: BLE001 - a file that is no Parquet: the reading says so, estimated by its bytes
        return None


def server_summary(dataset: str, label, scores: tuple, lower: tuple, file_identity: str = "") -> WorkEstimate:
    rows = _server_rows(dataset)
    if rows is None:
        return server_scan(dataset, "counting the candidates and TPs of")
    return replace(engine_estimate("duckdb", rows, 1, 0, what="counting the candidates and TPs"), advice=SERVER_ADVICE)


def server_counts(dataset: str, label, scores: tuple, lower: tuple, ties: str, seed, file_identity: str = "") -> WorkEstimate:
    """Every ranking and pair of a server data set counted by DuckDB, unless its count tables are stored."""
    from evalcore_app import serverdata

    measures = len(scores) or 1
    if ties != "random":
        file_identity = file_identity or serverdata.identity(serverdata.path_of(dataset))
        name = f"counts-{serverdata._key(dataset, file_identity, label, scores, lower, ties, seed)}.npz"
        if any(s.name == name for s in _stored_records()):
            return call_estimate("reading the stored count tables")
    rows = _server_rows(dataset)
    pairs = measures * (measures - 1) // 2
    if rows is None:
        scan = server_scan(dataset, "ranking")
        return replace(scan, model=WorkModel(fixed=scan.seconds * (measures + pairs)),
                       what=f"{scan.what}, {measures} measures and their pairs")
    return replace(engine_estimate("duckdb", rows, measures + pairs, 0, what="counting every ranking and pair"),
                   advice=SERVER_ADVICE)


def _stored_records():
    from evalcore.io.store import DatasetStore, StoreError

    store = DatasetStore()
    for dataset_id in store.ids():
        try:
            yield store.peek(dataset_id)  # a look at every entry, not an open of each
        except (StoreError, EvalcoreError, OSError):
            continue


# ---------------------------------------------------------------- evalcore_app/systems.py

def _stored(file_id: str):
    from evalcore_app import systems

    return systems._record(file_id)


def segments(file_id: str) -> WorkEstimate:
    stored = _stored(file_id)
    return reading_estimate(b"", stored.name, kind="text", size=stored.size)


def item_table(file_id: str, metric) -> WorkEstimate:
    stored = _stored(file_id)
    return reading_estimate(b"", stored.name, size=stored.size)


def table_columns(file_id: str) -> WorkEstimate:
    return item_table(file_id, None)


def text_input(inp) -> WorkEstimate:
    characters = sum(_stored(i).size for i in inp.data_ids)
    return text_estimate("checking the references and systems together", characters)


def scoring_work(inp) -> WorkEstimate:
    """The scoring estimate's own work (for TER, an alignment of every pair's words)."""
    from evalcore.work.scoring import estimating_estimate
    from evalcore_app import systems

    if inp.mode == "table":
        return call_estimate("a per-item table's counts need no scoring")
    if inp.mode == "trec":
        return call_estimate("TREC runs are estimated when they are read")
    data = systems.text_input(inp)
    return estimating_estimate(inp.metric, data.references, data.hypotheses)


def statistics(inp, _progress=None) -> WorkEstimate:
    from evalcore_app import systems

    if inp.mode == "table":
        table = systems.item_table(inp.table, inp.metric)
        return pass_estimate("the per-item table's statistics", len(table.items), len(table.systems))
    if inp.mode == "trec":  # (reading the files is theirs to estimate; evaluating them, trec_estimate's, checked
        return call_estimate("the TREC runs' statistics")  # before ir-measures starts)
    return systems.scoring_work(inp)


def comparison(inp, settings, tests=None, _progress=None) -> WorkEstimate:
    """The resampling, with Tukey's HSD and Wilcoxon's test where chosen (the same parameters in the same order as
    ``evalcore_app.systems.comparison``: the cache calls this with the bound arguments)."""
    from evalcore.systems.meantests import PairTests
    from evalcore_app import systems

    stats = systems.statistics(inp)
    return systems.work_estimate(stats.n_items, stats.n_systems, settings, tests=tests or PairTests(),
                                 statistics=len(stats.metric.statistics))


def systems_curves(inp, settings, _progress=None) -> WorkEstimate:
    from evalcore_app import systems

    stats = systems.statistics(inp)
    return systems.work_estimate(stats.n_items, stats.n_systems, settings, curves=True)


def similar(inp) -> WorkEstimate:
    from evalcore_app import systems

    stats = systems.statistics(inp)
    return similarity_estimate(stats.n_items, stats.n_systems)


# ---------------------------------------------------------------- for the merge with issue 31 and the server folder
# Cached functions that main has and this branch does not yet (the lead declares them with work= at the merge):
# evalcore_app/cached.py's _raw_table, _suggested (a server set's file version in the key) and _sample_sha256, evalcore_app/systems.py's
# qrels_file and run_file (TREC). Their estimates are here so the merge only names them.

def _raw_table(dataset: str, file_version: str = "", _just_read=None) -> WorkEstimate:
    """evalcore_app/cached.py's ``_raw_table`` (main): :func:`raw_table`, the file's version only in the key."""
    return raw_table(dataset, _just_read)


def _suggested(dataset: str, file_version: str = "") -> WorkEstimate:
    """evalcore_app/cached.py's ``_suggested`` (main): the suggested roles of the table's columns, one pass over each."""
    from evalcore_app import cached

    table, name = cached.raw_table(dataset)
    return pass_estimate(f"suggesting the roles of the columns of {name}", len(table), max(1, table.shape[1]))


def qrels_file(file_id: str) -> WorkEstimate:
    """evalcore_app/systems.py's ``qrels_file`` (main): TREC qrels read and checked, by the file's bytes as delimited text."""
    stored = _stored(file_id)
    return reading_estimate(b"", stored.name, kind="csv", size=stored.size)


def run_file(file_id: str) -> WorkEstimate:
    """evalcore_app/systems.py's ``run_file`` (main): a TREC run read and checked, by the file's bytes as delimited text
    (its evaluation with ir-measures is :func:`evalcore.work.trec_estimate`'s, in the statistics)."""
    stored = _stored(file_id)
    return reading_estimate(b"", stored.name, kind="csv", size=stored.size)


def _sample_sha256(name: str) -> WorkEstimate:
    """evalcore_app/cached.py's ``_sample_sha256`` (main): a shipped sample's file hashed, by its bytes."""
    from evalcore_app import cached

    file = cached.SAMPLES.get(name)
    if file is None:
        return call_estimate("looking for a sample data set")
    return reading_estimate(cached.SAMPLE_DIR / file, file, kind="text")
