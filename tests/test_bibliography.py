"""Every method a report can name cites the right work, with the right title, year, pages and DOI.

The committed table tests/reference/bibliography.csv (see tests/reference/README.md) says, for each work, its
bibliographic data and the methods it is the reference for; the code's bibliography (evalcore.report.bib) and its
method -> reference table (evalcore.report.references) must agree with it, for every method of every registry
(binomial intervals, intervals of a difference, tests of two n-best lists, corrections, intervals from a sample,
AUC intervals, kappa, the tests of the power calculation). Issue 18, item 1: the methods text cited Newcombe's
paper on the *single* proportion for the interval of a *difference* of proportions.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from evalcore import names
from evalcore.report import ReportSettings, report_results
from evalcore.report.bib import BIBLIOGRAPHY, bibtex, reference_list
from evalcore.report.methods import methods_paragraph
from evalcore.stats.effect import DIFFERENCE_METHODS
from evalcore.stats.intervals import INTERVAL_METHODS
from evalcore.stats.multitest import CORRECTIONS
from evalcore.stats.pairtests import PAIR_TESTS

TABLE = Path(__file__).parent / "reference" / "bibliography.csv"


def _rows() -> dict[str, dict]:
    with TABLE.open(newline="", encoding="utf-8") as handle:
        return {row["key"]: row for row in csv.DictReader(handle)}


ROWS = _rows()
CITED_FOR: dict[tuple[str, str], set[str]] = defaultdict(set)  # (registry, method) -> keys, from the table
for _key, _row in ROWS.items():
    for _item in filter(None, _row["methods"].split(";")):
        _registry, _, _method = _item.partition(":")
        CITED_FOR[(_registry, _method)].add(_key)


def _normal(title: str) -> str:
    """A title for comparison: no LaTeX, χ² as chi2, lower case, letters and digits only."""
    title = title.replace(r"$\chi^2$", "chi2").replace("χ²", "chi2").replace("``", '"').replace("''", '"')
    return re.sub(r"[^a-z0-9]+", " ", title.replace("{", "").replace("}", "").lower()).strip()


def _pages(entry) -> str:
    return (entry.field("pages") or "").replace("--", "-")


# ------------------------------------------------------------------------------------ the code's table

def test_the_table_and_the_bibliography_hold_the_same_works():
    assert set(ROWS) == set(BIBLIOGRAPHY)


@pytest.mark.parametrize("key", sorted(BIBLIOGRAPHY))
def test_each_entry_has_the_tables_title_year_pages_and_doi(key):
    entry, row = BIBLIOGRAPHY[key], ROWS[key]
    assert _normal(entry.field("title")) == _normal(row["title"])
    assert entry.field("year") == row["year"]
    assert (entry.field("volume") or "") == row["volume"]
    assert (entry.field("number") or "") == row["number"]
    assert _pages(entry) == row["pages"]
    assert (entry.doi or "") == row["doi"]
    assert (entry.field("url") or "") == row["url"]
    assert str(entry.reference).startswith(entry.label.split()[0].rstrip(","))  # the list line names the author
    if row["doi"]:
        assert entry.link.startswith("https://doi.org/10.") and "<" not in entry.link and ";" not in entry.link
    # every work with a DOI has it; the others have a stable URL (except three printed books, and a 1998 journal
    # article without a DOI whose archive's address could not be checked: evalcore.report.bib)
    assert entry.link is not None or key in ("krenn2000", "noreen1989", "cochran1977", "korngraubard1998")


def test_the_two_newcombe_papers_are_different_works():
    single, difference = BIBLIOGRAPHY["newcombe1998a"], BIBLIOGRAPHY["newcombe1998b"]
    assert "single proportion" in single.field("title").lower() and _pages(single) == "857-872"
    assert "difference between independent proportions" in difference.field("title").lower()
    assert _pages(difference) == "873-890" and difference.field("number") == "8"


# ---------------------------------------------------------------------------- every method -> its work

def _registries():
    from evalcore.report.references import KAPPA_METHODS, METHOD_REFERENCES, REGISTRIES

    return METHOD_REFERENCES, REGISTRIES, KAPPA_METHODS


#: The core's registries of method choices (kappa: evalcore.stats.agreement's two functions).
CORE = {
    "interval": tuple(INTERVAL_METHODS), "difference": tuple(DIFFERENCE_METHODS), "test": tuple(PAIR_TESTS),
    "correction": tuple(CORRECTIONS), "sample_interval": tuple(names.SAMPLE_INTERVAL_LABELS),
    "auc": tuple(names.AUC_INTERVAL_LABELS), "kappa": ("cohen", "fleiss"), "power": tuple(names.POWER_TESTS),
    "design": ("sample", "pool", "pool+sample", "stratified"),  # evalcore.pooling.design.DESIGN_KINDS (issues 22, 33)
}


def test_the_registries_are_the_cores():
    """The reference table covers exactly the methods the core offers (a new method needs its reference)."""
    refs, registries, _ = _registries()
    expected = {r: set(m) for r, m in CORE.items()}
    assert {r: set(m) for r, m in registries.items()} == expected
    assert {r: set(m) for r, m in refs.items()} == expected


def _methods():
    return [(registry, method) for registry, methods in CORE.items() for method in methods]


@pytest.mark.parametrize("registry, method", _methods())
def test_each_method_cites_the_works_the_table_names(registry, method):
    refs, _, _ = _registries()
    cited = set(refs[registry][method])
    assert cited == CITED_FOR.get((registry, method), set())
    for key in cited:
        assert _normal(BIBLIOGRAPHY[key].field("title")) == _normal(ROWS[key]["title"])
        assert (BIBLIOGRAPHY[key].doi or "") == ROWS[key]["doi"]


def test_each_corpus_metric_cites_the_works_the_table_names():
    """The systems comparison's metrics (evalcore.systems.metrics.METRIC_TABLE, whose ``cites`` its methods text
    uses): BLEU, chrF and TER cite their paper and sacrebleu's (Post 2018), AER Och & Ney; the others none."""
    from evalcore.systems.metrics import METRIC_TABLE

    table_metrics = {method for registry, method in CITED_FOR if registry == "metric"}
    assert table_metrics <= set(METRIC_TABLE)
    for name, metric in METRIC_TABLE.items():
        assert set(metric.cites) == CITED_FOR.get(("metric", name), set()), name
        for key in metric.cites:
            assert _normal(BIBLIOGRAPHY[key].field("title")) == _normal(ROWS[key]["title"])
            assert (BIBLIOGRAPHY[key].doi or "") == ROWS[key]["doi"]


# ------------------------------------------------------------------------------ the text cites them

@pytest.fixture(scope="module")
def small():
    """120 candidates, 30 TPs, two measures that disagree (no data file needed)."""
    import pandas as pd

    from evalcore.io import build_candidate_set

    rng = np.random.default_rng(7)
    labels = np.zeros(120, dtype=bool)
    labels[rng.choice(120, 30, replace=False)] = True
    frame = pd.DataFrame({"key": [f"k{i}" for i in range(120)], "gold": labels,
                          "a": labels * 2.0 + rng.normal(size=120), "b": rng.normal(size=120)})
    return build_candidate_set(frame, label="gold", scores=["a", "b"])


def _cited_titles(settings, candidates) -> dict[str, str]:
    results = report_results(candidates, settings)
    methods = methods_paragraph(results, {}, signature="SIG", version="0", data_sha256="0" * 64, figures=False)
    return {key: _normal(dict(BIBLIOGRAPHY[key].fields)["title"]) for key in methods.cites}


@pytest.mark.parametrize("method", list(names.DIFFERENCE_INTERVALS))
def test_the_methods_text_cites_the_work_of_its_difference_interval(small, method):
    """The paragraph's interval of a difference of precision cites the work that defines it (on today's main
    it cited Newcombe's single-proportion paper, pages 857-872, for Newcombe's interval of a difference)."""
    settings = ReportSettings(("a", "b"), "gold", sizes=(20, 60), ties="stable",
                              **({"difference_interval": method} if method != "newcombe" else {}))
    titles = set(_cited_titles(settings, small).values())
    for key in CITED_FOR[("difference", method)]:
        assert _normal(ROWS[key]["title"]) in titles
    assert _normal(ROWS["newcombe1998a"]["title"]) not in titles  # the single proportion is not cited here


@pytest.mark.parametrize("registry, method", [("interval", m) for m in INTERVAL_METHODS]
                         + [("test", t) for t in PAIR_TESTS] + [("correction", c) for c in CORRECTIONS])
def test_the_methods_text_cites_each_chosen_method(small, registry, method):
    field = {"interval": "interval", "test": "test", "correction": "correction"}[registry]
    extra = {"seed": 1, "resamples": 100} if method in ("bootstrap", "randomization") else {}
    settings = ReportSettings(("a", "b"), "gold", sizes=(20, 60), ties="stable", **{field: method}, **extra)
    titles = set(_cited_titles(settings, small).values())
    for key in CITED_FOR[(registry, method)]:
        assert _normal(ROWS[key]["title"]) in titles


def test_the_bibtex_and_the_list_carry_the_doi():
    text = bibtex(["newcombe1998b", "holm1979"])
    assert "doi     = {10.1002/(SICI)1097-0258(19980430)17:8<873::AID-SIM779>3.0.CO;2-I}" in text
    assert "url     = {https://www.jstor.org/stable/4615733}" in text
    listed = reference_list(["newcombe1998b"])
    assert "(https://doi.org/10.1002/%28SICI%291097-0258%2819980430%2917:8%3C873::AID-SIM779%3E3.0.CO%3B2-I)" in listed
    assert "\\<873" in listed  # the DOI's angle brackets are text, not HTML
