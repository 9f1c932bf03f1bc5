"""The simulator of Evert (2004), §3.1: reproducibility, the baseline, and the binomial model it
promises (interval coverage, Fisher's test under the null), checked on many simulated samples.

Per-sample counts T_A, N_A are computed here directly with a pandas groupby. Statistical
checks allow for binomial error (3 or 4 standard errors), and every simulation has a fixed
seed.
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pandas as pd
import pytest

from evalcore.errors import ParameterError
from evalcore.stats.fisher import fisher_exact
from evalcore.stats.intervals import binomial_interval
from evalcore.io import load_candidates
from evalcore.simulate import DEFAULT_MEASURES, MeasureSpec, simulate, write_tsv

NAMES = [m.name for m in DEFAULT_MEASURES]
K, N = 2000, 500  # many samples: proportions over samples have a standard error of about 0.005


@pytest.fixture(scope="module")
def binomial():
    """The pure binomial model (sample_sd = 0), many samples."""
    return simulate(k=K, n=N, seed=11)


@pytest.fixture(scope="module")
def overdispersed():
    """The same population and draws, with a between-sample shift of the TP logit."""
    return simulate(k=K, n=N, seed=11, sample_sd=0.4)


def counts(data: pd.DataFrame, region: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(T, N) per sample for a boolean region over the rows of ``data``."""
    table = pd.DataFrame({"sample": data["sample"], "n": region, "t": region & data["is_tp"]})
    summed = table.groupby("sample", sort=True)[["t", "n"]].sum()
    return summed["t"].to_numpy(), summed["n"].to_numpy()


def top_gamma(experiment, measure: str, fraction: float) -> float:
    """A threshold accepting about ``fraction`` of the population (its upper quantile)."""
    return float(np.quantile(experiment.population[measure].to_numpy(), 1.0 - fraction))


# --------------------------------------------------------------------------- reproducibility


def test_same_seed_same_experiment_other_seed_other():
    a = simulate(k=5, n=300, seed=3, n_sd=0.1, sample_sd=0.3)
    b = simulate(k=5, n=300, seed=3, n_sd=0.1, sample_sd=0.3)
    pd.testing.assert_frame_equal(a.data, b.data)
    pd.testing.assert_frame_equal(a.population, b.population)
    c = simulate(k=5, n=300, seed=4, n_sd=0.1, sample_sd=0.3)
    assert not np.array_equal(a.population["strength"], c.population["strength"])
    assert not np.array_equal(a.data["candidate"], c.data["candidate"])
    assert a.data["is_tp"].tolist() != c.data["is_tp"].tolist()


def test_sample_sd_changes_labels_only():
    # separate random streams: the same members are drawn whatever sample_sd is
    a = simulate(k=4, n=400, seed=5)
    b = simulate(k=4, n=400, seed=5, sample_sd=0.5)
    assert np.array_equal(a.data["candidate"], b.data["candidate"])
    assert np.array_equal(a.population["good"], b.population["good"])
    assert not np.array_equal(a.data["is_tp"], b.data["is_tp"])


def test_data_layout():
    ex = simulate(k=12, n=50, seed=1)
    assert ex.data.columns.tolist() == ["sample", "candidate", "is_tp", *NAMES]
    assert ex.data["sample"].unique().tolist() == [f"s{i:02d}" for i in range(1, 13)]
    assert ex.data["is_tp"].dtype == bool
    assert all(ex.data[m].dtype == np.float64 for m in NAMES)
    assert len(ex.population) == 50 * 50
    # every row carries its member's fixed scores
    members = ex.population.loc[ex.data["candidate"], NAMES].to_numpy()
    assert np.array_equal(members, ex.data[NAMES].to_numpy())
    assert simulate(k=100, n=1, seed=0).data["sample"].iloc[-1] == "s100"


# --------------------------------------------------------------------------- baseline


@pytest.mark.parametrize("baseline", [0.01, 0.11, 0.6])
@pytest.mark.parametrize("sample_sd", [0.0, 0.5, 1.5])
def test_population_mean_is_the_baseline(baseline, sample_sd):
    ex = simulate(k=1, n=400, baseline=baseline, sample_sd=sample_sd, seed=2)
    assert abs(ex.population["p_tp"].mean() - baseline) < 1e-9


def test_pooled_tp_rate_is_binomial_around_the_baseline(binomial):
    # every draw is a TP with probability mean(p_tp) = baseline, independently
    y = binomial.data["is_tp"].to_numpy()
    sd = math.sqrt(0.11 * 0.89 / y.size)
    assert abs(y.mean() - 0.11) < 4 * sd


def test_p_tp_is_logistic_in_the_strength_without_sample_sd(binomial):
    z = binomial.population["strength"].to_numpy()
    a, b = binomial.settings["intercept"], binomial.settings["slope"]
    np.testing.assert_allclose(binomial.population["p_tp"], 1 / (1 + np.exp(-(a + b * z))), rtol=1e-13)


# --------------------------------------------------------------------------- the binomial model


@pytest.mark.parametrize("measure", NAMES)
def test_pooled_precision_estimates_true_precision(binomial, measure):
    gamma = top_gamma(binomial, measure, 0.1)
    t, n = counts(binomial.data, binomial.data[measure] >= gamma)
    pi = binomial.true_precision(measure, gamma)
    assert abs(t.sum() / n.sum() - pi) < 4 * math.sqrt(pi * (1 - pi) / n.sum())


@pytest.mark.parametrize("measure", NAMES)
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_clopper_pearson_intervals_cover_true_precision(binomial, measure, level):
    gamma = top_gamma(binomial, measure, 0.1)  # about 50 accepted per sample
    t, n = counts(binomial.data, binomial.data[measure] >= gamma)
    assert n.min() >= 1
    pi = binomial.true_precision(measure, gamma)
    ci = binomial_interval(t, n, level)
    coverage = np.mean((ci.low <= pi) & (pi <= ci.high))
    # Clopper-Pearson is conservative: coverage >= level, up to binomial error over K samples
    assert coverage >= level - 3 * math.sqrt(level * (1 - level) / K)
    assert coverage <= 1 - 0.4 * (1 - level)  # and not trivially wide: some misses do happen


def test_precision_varies_as_the_binomial_predicts_without_sample_sd(binomial):
    gamma = top_gamma(binomial, "good", 0.1)
    t, n = counts(binomial.data, binomial.data["good"] >= gamma)
    p = t / n
    predicted = math.sqrt(p.mean() * (1 - p.mean()) / n.mean())
    # E[1/N_A] * mean N_A is about 1 + 1/50 here; the SD of an SD over 2000 samples is ~1.6%
    assert p.std(ddof=1) / predicted == pytest.approx(1.0, abs=0.06)


def test_sample_sd_adds_variation_beyond_the_binomial(overdispersed):
    gamma = top_gamma(overdispersed, "good", 0.1)
    t, n = counts(overdispersed.data, overdispersed.data["good"] >= gamma)
    p = t / n
    predicted = math.sqrt(p.mean() * (1 - p.mean()) / n.mean())
    ratio = p.std(ddof=1) / predicted
    assert ratio > 1.15
    # the true precision stays the average precision: E[T_A | N_A] = N_A pi_A
    pi = overdispersed.true_precision("good", gamma)
    assert abs(p.mean() - pi) < 4 * ratio * predicted / math.sqrt(K)
    ci = binomial_interval(t, n, 0.95)
    misses = np.sum((ci.low > pi) | (ci.high < pi))
    assert misses > 2 * 0.05 * K  # the 95% intervals miss far more often than 5%


# --------------------------------------------------------------------------- twins and Fisher's test


def test_twins_are_mirrored_pairs(binomial):
    pop = binomial.population
    even, odd = pop.iloc[0::2], pop.iloc[1::2]
    for column in ["strength", "p_tp", "sharp", "noisy", "freq"]:
        assert np.array_equal(even[column].to_numpy(), odd[column].to_numpy())
    assert np.array_equal(even["good"].to_numpy(), odd["good_twin"].to_numpy())
    assert np.array_equal(even["good_twin"].to_numpy(), odd["good"].to_numpy())
    assert not np.array_equal(even["good"].to_numpy(), even["good_twin"].to_numpy())


@pytest.mark.parametrize("fraction", [0.02, 0.1, 0.3])
def test_twins_have_equal_precision_in_their_difference_regions(binomial, fraction):
    pop = binomial.population
    gamma = top_gamma(binomial, "good", fraction)
    d1 = (pop["good"] >= gamma) & (pop["good_twin"] < gamma)
    d2 = (pop["good_twin"] >= gamma) & (pop["good"] < gamma)
    assert d1.sum() == d2.sum() > 0
    assert pop.loc[d1, "p_tp"].mean() == pytest.approx(pop.loc[d2, "p_tp"].mean(), rel=1e-12)
    assert binomial.true_precision("good", gamma) == pytest.approx(
        binomial.true_precision("good_twin", gamma), rel=1e-12)
    # while the better measure is really better in its difference region
    g_sharp = top_gamma(binomial, "sharp", fraction)
    sharp_only = (pop["sharp"] >= g_sharp) & (pop["good"] < gamma)
    good_only = (pop["good"] >= gamma) & (pop["sharp"] < g_sharp)
    assert pop.loc[sharp_only, "p_tp"].mean() > pop.loc[good_only, "p_tp"].mean() + 0.05


def fisher_rejection_rate(experiment, a: str, b: str, fraction: float, alpha: float = 0.05) -> float:
    data = experiment.data
    in_a = data[a] >= top_gamma(experiment, a, fraction)
    in_b = data[b] >= top_gamma(experiment, b, fraction)
    t1, n1 = counts(data, in_a & ~in_b)
    t2, n2 = counts(data, in_b & ~in_a)
    p = fisher_exact(t1, n1 - t1, t2, n2 - t2).pvalue
    return float(np.mean(p < alpha))


def test_fisher_keeps_its_level_for_equally_good_measures(binomial):
    rate = fisher_rejection_rate(binomial, "good", "good_twin", 0.1)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / K)


def test_fisher_has_power_for_measures_of_different_quality(binomial):
    null = fisher_rejection_rate(binomial, "good", "good_twin", 0.1)
    power = fisher_rejection_rate(binomial, "sharp", "noisy", 0.1)
    assert power > 0.6
    assert power > 10 * max(null, 0.01)


# --------------------------------------------------------------------------- ties, sizes


def test_rounding_makes_ties_and_no_rounding_does_not():
    rounded = simulate(k=1, n=200, seed=6).population.iloc[0::2]  # one member per pair
    plain = simulate(k=1, n=200, seed=6, measures=[MeasureSpec("good", 1.0)]).population.iloc[0::2]
    assert plain["good"].nunique() == len(plain)
    assert rounded["good"].nunique() < 0.2 * len(rounded)  # 2 decimals: about 700 values for 5000 members
    assert rounded["noisy"].nunique() < rounded["good"].nunique()
    freq = rounded["freq"]
    assert freq.min() == 4 and np.array_equal(freq, np.round(freq))
    assert freq.nunique() < 0.05 * len(freq) and (freq <= 6).mean() > 0.3  # a frequency-like pile-up at the bottom


def test_frequency_transform_keeps_the_ranking():
    # the same seed and position give the same noise, so the two columns differ only by the transform
    freq = simulate(k=1, n=300, measures=[MeasureSpec("x", 3.0, transform="frequency")], seed=8).population
    raw = simulate(k=1, n=300, measures=[MeasureSpec("x", 3.0)], seed=8).population
    order = np.argsort(raw["x"].to_numpy()[0::2])  # one member per pair: distinct values
    assert np.all(np.diff(freq["x"].to_numpy()[0::2][order]) > 0)
    assert freq["x"].min() >= 4.0


def test_sample_sizes_vary_with_n_sd_only():
    fixed = simulate(k=50, n=300, seed=9).data.groupby("sample").size()
    assert (fixed == 300).all()
    varying = simulate(k=50, n=300, seed=9, n_sd=0.2).data.groupby("sample").size()
    assert varying.nunique() > 20
    assert 0.12 < varying.std() / 300 < 0.3
    assert abs(np.log(varying).mean() - np.log(300)) < 4 * 0.2 / math.sqrt(50)
    assert (simulate(k=20, n=1, seed=9, n_sd=2.0).data.groupby("sample").size() >= 1).all()


# --------------------------------------------------------------------------- helpers


def test_gamma_for_accepts_about_that_many(binomial):
    for measure in ["sharp", "freq"]:
        gamma = binomial.gamma_for(measure, 25)
        n = counts(binomial.data, binomial.data[measure] >= gamma)[1]
        assert 24 < n.mean() < (35 if measure == "freq" else 26.5)  # freq: ties at the threshold


def test_written_file_loads_and_is_byte_reproducible(tmp_path):
    ex = simulate(k=3, n=200, n_sd=0.1, seed=4, measures=[*DEFAULT_MEASURES, MeasureSpec("exact", 0.7)])
    path = tmp_path / "ex.tsv.gz"
    write_tsv(ex, path)
    raw = path.read_bytes()
    assert raw[3] & 0x08 == 0 and raw[4:8] == b"\0\0\0\0"  # gzip header: no file name, mtime 0
    write_tsv(ex, tmp_path / "again.tsv.gz")
    assert (tmp_path / "again.tsv.gz").read_bytes() == raw
    assert gzip.decompress(raw).decode().splitlines()[1].split("\t")[2] in ("TRUE", "FALSE")
    cs = load_candidates(path, label="is_tp", sample="sample", keys=["candidate"])
    assert np.array_equal(cs.labels, ex.data["is_tp"])
    assert np.array_equal(cs.samples.astype(str), ex.data["sample"].to_numpy(dtype=str))
    assert list(cs.scores) == [*NAMES, "exact"]
    for name in cs.scores:  # the printed decimals read back to the same floats
        assert np.array_equal(cs.scores[name], ex.data[name].to_numpy())
    ids = cs.keys["candidate"].to_numpy(dtype=str)
    assert all(len(i) == 5 and i[0] == "c" for i in ids)  # population 10,000: c0000 to c9999
    assert np.array_equal(np.char.lstrip(ids, "c").astype(int), ex.data["candidate"].to_numpy())
    # without any roles given, the file is read as meant: candidate is a key, not a score
    auto = load_candidates(path)
    assert auto.label_column == "is_tp" and list(auto.scores) == [*NAMES, "exact"]
    assert list(auto.keys.columns) == ["candidate"] and auto.samples is not None


def test_defaults_draw_every_candidate():  # the speed is measured in bench/bench_small.py
    ex = simulate(k=80, n=5000)
    assert len(ex.data) == 400_000


# --------------------------------------------------------------------------- parameter errors


@pytest.mark.parametrize("kwargs, name", [
    (dict(k=0), "`k`"),
    (dict(k=2.0), "`k`"),
    (dict(n=0), "`n`"),
    (dict(n=True), "`n`"),
    (dict(baseline=0.0), "`baseline`"),
    (dict(baseline=1.0), "`baseline`"),
    (dict(baseline=float("nan")), "`baseline`"),
    (dict(population=3), "`population`"),
    (dict(population=0), "`population`"),
    (dict(n_sd=-0.1), "`n_sd`"),
    (dict(sample_sd=float("inf")), "`sample_sd`"),
    (dict(seed=-1), "`seed`"),
    (dict(seed=1.5), "`seed`"),
    (dict(measures=()), "`measures`"),
    (dict(measures=["good"]), "`measures`"),
    (dict(measures=[MeasureSpec("a", 1.0), MeasureSpec("a", 2.0)]), "`measures`"),
    (dict(measures=[MeasureSpec("is_tp", 1.0)]), "'is_tp'"),
    (dict(measures=[MeasureSpec("a", 1.0, twin_of="b")]), "`twin_of`"),
    (dict(measures=[MeasureSpec("a", 1.0), MeasureSpec("b", 2.0, twin_of="a")]), "`twin_of`"),
    (dict(measures=[MeasureSpec("a", 1.0), MeasureSpec("b", 1.0, twin_of="a"),
                    MeasureSpec("c", 1.0, twin_of="a")]), "`twin_of`"),
])
def test_bad_parameters_are_named(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        simulate(**{"k": 2, "n": 10, **kwargs})


@pytest.mark.parametrize("kwargs, name", [
    (dict(name="", noise=1.0), "`name`"),
    (dict(name="a", noise=-1.0), "`noise`"),
    (dict(name="a", noise=float("nan")), "`noise`"),
    (dict(name="a", noise=1.0, decimals=-1), "`decimals`"),
    (dict(name="a", noise=1.0, decimals=1.5), "`decimals`"),
    (dict(name="a", noise=1.0, transform="log"), "`transform`"),
    (dict(name="a", noise=1.0, twin_of="a"), "`twin_of`"),
])
def test_bad_measure_specs_are_named(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        MeasureSpec(**kwargs)


def test_bad_arguments_of_the_experiment_are_named():
    ex = simulate(k=2, n=50, seed=0)
    with pytest.raises(ParameterError, match=r"`measure`.*'best'"):
        ex.true_precision("best", 0.0)
    with pytest.raises(ParameterError, match="`gamma`"):
        ex.true_precision("good", 1e9)
    with pytest.raises(ParameterError, match="`gamma`"):
        ex.true_precision("good", float("nan"))
    with pytest.raises(ParameterError, match="`accepted`"):
        ex.gamma_for("good", 0)
    with pytest.raises(ParameterError, match="`accepted`"):
        ex.gamma_for("good", 51)
    with pytest.raises(ParameterError, match=r"`measure`.*'best'"):
        ex.gamma_for("best", 10)
