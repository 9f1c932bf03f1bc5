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
from evalcore.report.parts import Part, download_settings, part_of, part_options, part_signature
from evalcore.report.settings import ReportSettings
from evalcore.report.signature import file_sha256, parse_signature

SAMPLE = Path(__file__).resolve().parents[1] / "sample_data" / "collocations_sim.tsv"
MEASURES = ("log_like", "t_score", "chisq", "MI")
EXPERIMENT = SAMPLE.parent / "experiment_sim.tsv.gz"  # (80 samples)
EXPERIMENT_MEASURES = ("sharp", "good", "good_twin", "noisy", "freq")


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


def roc_table(candidates, s: ReportSettings, shows, names, method, resamples, seed):
    """The ROC page's table (evalcore_app/cached.py's roc_table): rankings named by their display names."""
    from evalcore.roc import roc_table as table

    ranked = analysis.rankings_for(candidates, shows, ties=s.ties, seed=s.seed)
    ranked = {names.get(m, m): replace(r, measure=names.get(m, m)) for m, r in ranked.items()}
    return table(ranked, confidence_level=s.level, method=method, resamples=resamples, seed=seed)


def test_a_roc_download_names_its_auc_interval_and_bootstrap_and_reproduces(candidates):
    """The ROC page's table (AUC and AP with their intervals) depends on the AUC interval, the bootstrap's resamples
    and its seed, which the report's settings do not name under stable ties and Fisher's test (no ``seed``, no
    ``resamples``): the download names them, and each is another table."""
    s = settings()  # (stable ties: no seed in the report's settings)
    shows, names = ("log_like", "MI"), {"MI": "PMI"}
    table = roc_table(candidates, s, shows, names, "bootstrap", 200, 7)
    part = Part("roc_curves", shows, names=(("MI", "PMI"),),
                options=part_options({"auc-interval": "bootstrap", "bootstrap": 200, "bootstrap-seed": 7}))
    text = str(part_signature(s, file_sha256(SAMPLE), part, table))
    assert "|part roc_curves|shows log_like,MI|name MI=PMI|auc-interval bootstrap|bootstrap 200|bootstrap-seed 7|" \
           "numbers " in text and "|seed " not in text and "|resamples " not in text
    assert part_of(parse_signature(text).settings) == (s, part)
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    # the DET and PR figures' downloads share the table
    det = str(part_signature(s, file_sha256(SAMPLE), replace(part, stem="det_curves"), table))
    assert reproduce(det)[0] == 0
    for changed in (text.replace("auc-interval bootstrap", "auc-interval delong"),
                    text.replace("|bootstrap 200|", "|bootstrap 300|"),
                    text.replace("|bootstrap-seed 7|", "|bootstrap-seed 8|"),
                    text.replace("|level 0.99|", "|level 0.95|"), text.replace("|name MI=PMI|", "|"),
                    text.replace("shows log_like,MI", "shows log_like,chisq")):
        code, out = reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


@pytest.fixture(scope="module")
def experiment():
    return load_candidates(EXPERIMENT, label="is_tp", scores=list(EXPERIMENT_MEASURES), sample="sample")


def experiment_settings(**changes) -> ReportSettings:
    base = dict(measures=EXPERIMENT_MEASURES[:4], label="is_tp", sample_column="sample", ties="random", seed=11,
                level=0.9, interval="wilson")
    return ReportSettings(**{**base, **changes})


def experiment_reproduce(signature) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["reproduce", str(signature), str(EXPERIMENT)])
    return code, out.getvalue() + err.getvalue()


def test_a_validation_download_names_its_measure_and_cut_and_reproduces(experiment):
    """The Validation page's table (Figure 4's: each sample's precision of one measure cut at its cut-off, with its
    interval) is signed with the measure and its cut-off (``cut``); the other settings it depends on (ties, seed,
    level, interval) are the report's."""
    from evalcore.samples import Cut
    from evalcore.validate import validate

    s = experiment_settings()
    cut = Cut("n", 50)
    table = validate(experiment, "good", cut, ties=s.ties, seed=s.seed, confidence_level=s.level,
                     interval=s.interval).table.assign(measure="Good")
    part = Part("validation", ("good",), names=(("good", "Good"),), options=part_options({"cut": (cut,)}))
    text = str(part_signature(s, file_sha256(EXPERIMENT), part, table))
    assert "|part validation|shows good|name good=Good|cut n:50|numbers " in text
    assert part_of(parse_signature(text).settings) == (s, part)
    code, out = experiment_reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    gamma = validate(experiment, "good", Cut("gamma", 2.25), confidence_level=s.level, interval=s.interval).table
    gamma_text = str(part_signature(s, file_sha256(EXPERIMENT), replace(part, options=part_options(
        {"cut": (Cut("gamma", 2.25),)})), gamma.assign(measure="Good")))
    assert "|cut gamma:2.25|" in gamma_text and experiment_reproduce(gamma_text)[0] == 0
    for changed in (text.replace("|cut n:50|", "|cut n:51|"), text.replace("|cut n:50|", "|cut gamma:2.25|"),
                    gamma_text.replace("|cut gamma:2.25|", "|cut gamma:2.5|"),
                    text.replace("shows good|name good=Good", "shows sharp|name sharp=Good"),
                    text.replace("|seed 11|", "|seed 12|"), text.replace("|level 0.9|", "|level 0.95|"),
                    text.replace("|interval wilson|", "|interval clopper_pearson|")):
        code, out = experiment_reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


def test_an_across_samples_download_names_its_pair_and_cuts_and_reproduces(experiment):
    """The Across samples page's table (the pair's precision sample by sample, its columns named by the display
    names as the page names them) is signed with the pair (``shows``) and each one's cut-off."""
    from evalcore.samples import Cut

    s = experiment_settings()
    cuts = (Cut("gamma", 2.25), Cut("n", 80))
    result = analysis.across_samples(experiment, "good", "noisy", *cuts, ties=s.ties, seed=s.seed,
                                     confidence_level=s.level)
    names = {"_a": "Good", "_b": "noisy"}  # (as evalcore_app.present.pair_named names them)
    table = result.table.rename(columns={c: f"{c[:-2]} ({names[c[-2:]]})" for c in result.table.columns
                                         if c[-2:] in names})
    assert "precision (Good)" in table.columns and "tp (noisy)" in table.columns
    part = Part("across_samples", ("good", "noisy"), names=(("good", "Good"),), options=part_options({"cut": cuts}))
    text = str(part_signature(s, file_sha256(EXPERIMENT), part, table))
    assert "|part across_samples|shows good,noisy|name good=Good|cut gamma:2.25,n:80|numbers " in text
    code, out = experiment_reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    for changed in (text.replace("cut gamma:2.25,n:80", "cut gamma:2.5,n:80"),
                    text.replace("cut gamma:2.25,n:80", "cut gamma:2.25,n:81"),
                    text.replace("shows good,noisy", "shows good,sharp"), text.replace("|seed 11|", "|seed 12|")):
        code, out = experiment_reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


def test_a_uir_download_names_its_cuts_betas_and_threshold_and_reproduces(experiment):
    """The UIR page's table (UIR of every pair of the measures, each cut at its own cut-off) is signed with every
    measure's cut-off and the threshold; an older download also with the F-betas the page once compared besides
    precision and recall (no longer offered), and it still reproduces. Two of them decide no
    number of the table, so a signature with other values still reproduces: the threshold decides which cells the
    figure stars, and an F-beta is increasing in precision and in recall, so A >= B on both means A >= B on every
    F-beta too, and UIR (Amigo et al. 2011: the share of samples where A >= B on every metric, less the share where
    B >= A) is the same with or without them."""
    from evalcore.samples import cuts_for

    s = experiment_settings(ties="stable", seed=None)
    cuts = cuts_for(experiment, EXPERIMENT_MEASURES, "gamma", 60)
    result = analysis.uir_analysis(experiment, list(EXPERIMENT_MEASURES), cuts, "sharp", "good", betas=(0.5, 2.0),
                                   threshold=0.3, ties=s.ties)
    table = result.matrix.rename(index={"freq": "f"}, columns={"freq": "f"}).reset_index(names="measure")
    part = Part("uir", EXPERIMENT_MEASURES, names=(("freq", "f"),),
                options=part_options({"cut": tuple(cuts.values()), "uir-beta": (0.5, 2.0), "uir-threshold": 0.3}))
    text = str(part_signature(download_settings(s, part), file_sha256(EXPERIMENT), part, table))
    assert "|measures sharp,good,good_twin,noisy,freq|" in text  # (freq added: the report compares four)
    assert "|uir-beta 0.5,2.0|uir-threshold 0.3|numbers " in text
    code, out = experiment_reproduce(text)
    assert code == 0 and "numbers: match" in out, out
    for same in (text.replace("|uir-threshold 0.3|", "|uir-threshold 0.5|"), text.replace("|uir-beta 0.5,2.0|", "|")):
        code, out = experiment_reproduce(same)
        assert code == 0 and "numbers: match" in out, (same, out)
    first = part.options[0][1][0]
    for changed in (text.replace(f"cut {first},", "cut gamma:1.0,"), text.replace("|name freq=f|", "|")):
        code, out = experiment_reproduce(changed)
        assert code == 1 and "DO NOT match" in out, (changed, out)


def test_a_download_is_signed_with_the_measures_it_shows_and_every_sample():
    """A measure the download shows that the report does not compare is read too (``measures``, with its
    direction in ``lower``); a download of every sample names no ``sample`` (the report may be of one)."""
    s = ReportSettings(measures=("a", "b"), label="tp", lower=("b",), sample_column="run", sample="r1", ties="stable")
    part = Part("uir", ("a", "c", "d"))
    signed = download_settings(s, part, lower=("b", "d"))
    assert signed.measures == ("a", "b", "c", "d") and signed.lower == ("b", "d") and signed.sample is None
    assert signed.sample_column == "run" and signed.pair == s.pair
    assert download_settings(s, Part("precision", ("a",)), lower=("b", "d")) == s
    assert download_settings(s, Part("threshold", ("c",))).sample == "r1"


def test_a_threshold_download_of_a_measure_the_report_does_not_compare_reproduces(candidates):
    """freq is not among the report's measures here: the Threshold page's table of it reproduces, its column read
    because the download's signature adds it to ``measures``."""
    from evalcore.analysis import rankings_for, threshold_neighbours

    s = settings()
    assert "freq" not in s.measures
    every = load_candidates(SAMPLE, label="is_tp")
    ranking = rankings_for(every, ("freq",), ties=s.ties, seed=s.seed)["freq"]
    part = Part("threshold", ("freq",), at=300)
    table = threshold_neighbours(every, ranking, 300)
    text = str(part_signature(download_settings(s, part), file_sha256(SAMPLE), part, table))
    code, out = reproduce(text)
    assert code == 0 and "numbers: match" in out, out


def test_a_page_setting_is_read_back_checked():
    from evalcore.samples import Cut

    part = Part("validation", ("good",), options=(("cut", ("gamma:02.50",)),))
    assert part.options == (("cut", ("gamma:2.5",)),) and part.option("cut") == (Cut("gamma", 2.5),)
    assert part_options({"uir-beta": (), "uir-threshold": None}) == ()
    with pytest.raises(ParameterError, match="names no setting 'beta'"):
        part_options({"beta": 2})
    with pytest.raises(ParameterError, match="each of its settings once"):
        Part("roc_curves", options=(("bootstrap", ("100",)), ("bootstrap", ("200",))))


@pytest.mark.parametrize("text, message", [
    ("|part power_estimates", "recomputes the downloads of precision, confidence, significance, difference, threshold, "
                              "pairwise, roc_curves"),
    ("|part roc_curves|shows MI|bootstrap 100|bootstrap-seed 1", "names no 'auc-interval'"),
    ("|part roc_curves|shows MI|auc-interval median|bootstrap 100|bootstrap-seed 1",
     "auc-interval is one of delong, bootstrap; got 'median'"),
    ("|part roc_curves|shows MI|auc-interval delong|bootstrap 0|bootstrap-seed 1",
     "bootstrap is a whole number from 1"),
    ("|part roc_curves|shows MI|auc-interval delong|bootstrap 100|bootstrap-seed -1",
     "bootstrap-seed is a whole number from 0 to 4,294,967,295; got '-1'"),
    ("|part roc_curves|shows MI|auc-interval delong|bootstrap ²|bootstrap-seed 1", "bootstrap is a whole number"),
    ("|part roc_curves|shows MI|auc-interval delong|bootstrap 100|bootstrap-seed " + "9" * 5000,
     "bootstrap-seed is a whole number from 0"),
    ("|part roc_curves|shows MI|auc-interval delong|bootstrap 100000000|bootstrap-seed 1", "would take"),
    ("|part validation|shows MI", "names no 'cut'"),
    ("|part validation|shows MI|cut n:10", "has no sample column"),
    ("|part validation|shows MI|cut n:10,n:20", "names 2 cut-off(s) and it shows 1 measure(s)"),
    ("|part validation|shows MI|cut top:10", "cut reads n:SIZE or gamma:THRESHOLD"),
    ("|part validation|shows MI|cut n:0.5", "whole number >= 1"),
    ("|part across_samples|shows MI|cut n:10", "names 1 measure(s) it shows ('shows'); it shows 2"),
    ("|part uir|shows MI,chisq|cut n:1,n:2|uir-threshold 2", "uir-threshold is a |UIR| in (0, 1]"),
    ("|part uir|shows MI,chisq|cut n:1,n:2|uir-beta 0|uir-threshold 0.25", "uir-beta holds the F-beta values"),
    ("|cut n:10", "belong to a download's signature, which names its 'part'"),
    ("|part threshold|shows MI", "names no list size of its cut-off ('at')"),
    ("|part threshold|shows MI|at 7000", "cut-off after rank 7,000 lies beyond the data file's 6,348 candidates"),
    ("|part threshold|shows MI|at ten", "at is a list size, a whole number"),
    ("|part threshold|shows MI|at ²", "at is a list size, a whole number"),  # (was Python's ValueError)
    ("|part threshold|shows MI|at " + "9" * 5000, "at is a list size, a whole number"),  # (the same)
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
