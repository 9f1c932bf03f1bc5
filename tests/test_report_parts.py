"""A download's signature (evalcore.report.parts): the view's settings, the part and the digest of that download's
table; `evalcore reproduce` recomputes the table from the data file and says whether the digests match, and a
tampered signature does not reproduce. The tables are built here as the pages build them (evalcore_app/cached.py: curves on
rankings named by their display names; the pair tested at every n of the range); the browser test
(tests/browser/test_browser_report.py) reproduces a figure downloaded from the Significance page itself."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from evalcore import analysis
from evalcore.cli import main
from evalcore.errors import ParameterError
from evalcore.io import load_candidates
from evalcore.report.parts import Part, part_of, part_signature
from evalcore.report.settings import ReportSettings
from evalcore.report.signature import file_sha256, parse_signature

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "collocations_sim.tsv"
MEASURES = ("log_like", "t_score", "chisq", "MI")


@pytest.fixture(scope="module")
def candidates():
    return load_candidates(SAMPLE, label="is_tp", scores=list(MEASURES))


def settings(**changes) -> ReportSettings:
    base = dict(measures=MEASURES, label="is_tp", sizes=(200, 500, 1000, 1500), n_range=(200, 1500),
                pair=("log_like", "MI"), ties="stable", level=0.99, interval="wilson", test="fisher",
                correction="holm")
    return ReportSettings(**{**base, **changes})


def reproduce(signature) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["reproduce", str(signature), str(SAMPLE)])
    return code, out.getvalue() + err.getvalue()


def precision_table(candidates, s: ReportSettings, shows, names, beta):
    """The Precision page's table (evalcore_app/cached.py's curves): rankings named by their display names."""
    ranked = analysis.rankings_for(candidates, shows, ties=s.ties, seed=s.seed)
    ranked = {names.get(m, m): replace(r, measure=names.get(m, m)) for m, r in ranked.items()}
    return analysis.curves(ranked, range(s.n_range[0], s.n_range[1] + 1), confidence_level=s.level,
                           interval=s.interval, beta=beta)


def significance_table(candidates, s: ReportSettings, a: str, b: str):
    """The Significance page's table (its two figures' downloads)."""
    ranked = analysis.rankings_for(candidates, (a, b), ties=s.ties, seed=s.seed)
    result = analysis.pair_comparison(ranked[a], ranked[b], s.n_range, confidence_level=s.level, interval=s.interval,
                                      test=s.test, correction=s.correction, power=s.power,
                                      difference_method=s.difference_interval)
    return result.table().assign(difference_interval=s.difference_interval, mdd_power=result.power)


def test_a_precision_download_reproduces_with_display_names_and_beta(candidates):
    s = settings()
    shows, names = ("log_like", "chisq", "MI"), {"log_like": "G²"}
    table = precision_table(candidates, s, shows, names, 2.0)
    part = Part("precision", shows, 2.0, (("log_like", "G²"),))
    signature = part_signature(s, file_sha256(SAMPLE), part, table)
    text = str(signature)
    assert "|part precision|shows log_like,chisq,MI|beta 2.0|name log_like=G²|numbers " in text
    assert parse_signature(text) == signature and part_of(signature.settings) == (s, part)
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    # what the download shows decides its digest: another beta, measure or display name is another table
    for changed in (text.replace("|beta 2.0|", "|"), text.replace("shows log_like,chisq,MI", "shows log_like,MI"),
                    text.replace("log_like=G²", "log_like=G2")):
        code, out = reproduce(changed)
        assert code == 1 and "DO NOT match" in out, out


def test_a_significance_download_reproduces_and_a_tampered_one_fails(candidates):
    s = settings()
    table = significance_table(candidates, s, "log_like", "MI")
    text = str(part_signature(s, file_sha256(SAMPLE), Part("difference", ("log_like", "MI")), table))
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    digest = parse_signature(text).numbers
    tampered = [text.replace(f"|numbers {digest}", f"|numbers {digest[::-1]}"),  # the digest itself
                text.replace("|level 0.99|", "|level 0.95|"),  # a setting
                text.replace("|corr holm|", "|corr none|"),
                text.replace("shows log_like,MI", "shows log_like,chisq")]  # another pair
    for changed in tampered:
        code, out = reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)
    # the table of a download is its own: the report's numbers have another digest
    assert digest != str(part_signature(s, file_sha256(SAMPLE), Part("difference", ("log_like", "MI")),
                                        table.head(10))).rsplit(" ", 1)[-1]


def test_a_threshold_download_reproduces_at_its_cut_off(candidates):
    """The Threshold page's table (the candidates next to the cut-off, its score column by the display name) is
    signed with the list size of its cut-off (``at``), which reproduce needs: another size, measure or display name
    is another table."""
    from evalcore.analysis import rankings_for, threshold_neighbours

    s = settings()
    ranking = rankings_for(candidates, ("log_like",), ties=s.ties, seed=s.seed)["log_like"]
    table = threshold_neighbours(candidates, ranking, 137).rename(columns={"log_like": "G²"})  # (widgets.displayed)
    part = Part("threshold", ("log_like",), 1.0, (("log_like", "G²"),), 137)
    text = str(part_signature(s, file_sha256(SAMPLE), part, table))
    assert "|part threshold|shows log_like|name log_like=G²|at 137|numbers " in text
    assert part_of(parse_signature(text).settings) == (s, part)
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    for changed in (text.replace("|at 137|", "|at 138|"), text.replace("shows log_like", "shows MI"),
                    text.replace("log_like=G²", "log_like=G2")):
        code, out = reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


def test_a_pairwise_download_reproduces_at_its_n(candidates):
    """The Pairwise page's table (every pair of the measures it shows at n = ``at``, corrected across the pairs)."""
    from dataclasses import replace

    from evalcore.analysis import pairwise, rankings_for

    s = settings()
    ranked = rankings_for(candidates, ("log_like", "MI", "t_score"), ties=s.ties, seed=s.seed)
    ranked["log_like"] = replace(ranked["log_like"], measure="G²")
    pairs = pairwise({r.measure: r for r in ranked.values()}, 300, confidence_level=s.level, correction=s.correction,
                     interval=s.interval, difference_method=s.difference_interval).pairs
    table = pairs.assign(difference_interval=s.difference_interval)
    part = Part("pairwise", ("log_like", "MI", "t_score"), 1.0, (("log_like", "G²"),), 300)
    text = str(part_signature(s, file_sha256(SAMPLE), part, table))
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    for changed in (text.replace("|at 300|", "|at 301|"), text.replace("|corr holm|", "|corr none|"),
                    text.replace("shows log_like,MI,t_score", "shows log_like,MI")):
        code, out = reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


@pytest.mark.parametrize("text, message", [
    ("|part roc_curves", "recomputes the downloads of precision, confidence, significance, difference, threshold and "
                         "pairwise"),
    ("|part threshold|shows MI", "names no list size of its cut-off ('at')"),
    ("|part threshold|shows MI|at 7000", "cut-off after rank 7,000 lies beyond the data file's 6,348 candidates"),
    ("|part threshold|shows MI|at ten", "at is a list size, a whole number"),
    ("|part pairwise|shows MI|at 10", "names 1 measure(s) it shows ('shows'); it shows at least 2"),
    ("|part significance|shows log_like", "names 1 measure(s) it shows ('shows'); it shows 2"),
    ("|part precision|shows nope", "are not score columns of the data file"),
    ("|shows log_like,MI", "belong to a download's signature, which names its 'part'"),
    ("|part precision|shows MI|beta many", "beta must be a number"),
    ("|part precision|shows MI|name MI", "display names read measure=name"),
])
def test_a_download_signature_it_cannot_honour_is_one_line(text, message):
    signature = str(part_signature(settings(), file_sha256(SAMPLE), Part("precision", ("MI",)),
                                   precision_table(load_candidates(SAMPLE, label="is_tp", scores=list(MEASURES)),
                                                   settings(), ("MI",), {}, 1.0)))
    head, numbers = signature.split("|part precision|shows MI")
    code, out = reproduce(head + text + numbers)
    assert code == 2 and message in out, out


def test_a_part_needs_a_stem():
    with pytest.raises(ParameterError, match="file stem"):
        Part("")
