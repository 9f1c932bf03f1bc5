#!/usr/bin/env python3
"""Generate the shipped sample data set ``collocations_sim.tsv``.

The file is a *synthetic* collocation-candidate set that mimics the evaluation example of
Evert (2004), "Significance tests for the evaluation of ranking methods" (Section 1):
word-pair candidates from a corpus of ca. 40 million words, a cooccurrence frequency
threshold f >= 30, about 11% true positives (TPs), and four association measures
(log-likelihood G², t-score, chi-squared X², frequency) plus MI computed from each
candidate's 2x2 contingency table. No real corpus data is used: every number is drawn from
the random model described below (and in ``README.md``), with a fixed default seed, so the
output is reproducible byte for byte.

Model (in the spirit of the paper's Section 3.1: a candidate set is a random selection
from a large population of hypothetical word pairs)
--------------------------------------------------------------------------------------
* Vocabulary. ``n_w1`` first words w1 (think "prepositional phrase") and ``n_w2`` second
  words w2 (think "verb") with corpus frequencies drawn from truncated log-normal
  (Zipf-like) distributions: ln R = ln(median) + sdlog * z, z ~ N(0, 1), redrawn while
  R > max. Let z1, z2 be the standardised log frequencies of w1 and w2.
* Population. Every pair (w1, w2) of the vocabulary is a potential candidate. Each pair
  gets a latent collocational strength

      s = b1 * z1 + b2 * z2 + sqrt(1 - b1² - b2²) * eta,   eta ~ N(0, 1)

  (true collocations such as support-verb constructions tend to involve frequent words),
  and is a true collocation (TP) with probability  P(TP) = 1 / (1 + exp(-(alpha + beta*s))).
* Association. The pair's log association ratio  lambda = ln(p11 / (p1 * p2))  is the sum
  of a lexical part driven by s and a semantic / selectional part that does not make a
  pair a collocation (think "abfahren um ... Uhr"), which is larger and more variable for
  rare words:

      lambda = kappa * s + sem_mu + sem_scale * exp(-sem_rarity * (z2 + sem_w1 * z1)) * xi

  with xi a Student-t variable (``sem_df`` degrees of freedom) scaled to unit variance.
* Corpus counts. With corpus size N, R1 = f(w1), C1 = f(w2) and E11 = R1*C1/N, the
  cooccurrence frequency is O11 ~ Poisson(min(E11 * exp(lambda), cap * min(R1, C1))),
  clipped to min(R1, C1). The rest of the table follows from the margins:
  O12 = R1 - O11, O21 = C1 - O11, O22 = N - R1 - C1 + O11.
* Candidate set. All pairs with O11 >= 30 (the paper's threshold) are kept.

Association measures (as in Evert's UCS toolkit / www.collocations.de), with expected
frequencies E_ij = R_i * C_j / N and the convention 0 * log 0 = 0:

    freq     = O11
    log_like = G² = 2 * sum_ij O_ij * ln(O_ij / E_ij)                       (2 decimals)
    t_score  = (O11 - E11) / sqrt(O11)                                       (4 decimals)
    chisq    = X² = N * (O11*O22 - O12*O21)² / (R1*R2*C1*C2), no continuity
               correction                                                   (integer)
    MI       = log2(O11 / E11)                                               (5 decimals)

The scores are rounded as the paper's data set is (which produces realistic ties).

Usage
-----
    python sample_data/generate_sample.py            # regenerate the file, then check it
    python sample_data/generate_sample.py --check    # only check the existing file
    python sample_data/generate_sample.py --seed 7 --out /tmp/other.tsv

Licence: the generated data are synthetic and belong to this project (same licence as the
project); no third-party data are contained in or used by this script.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, xlogy
from scipy.stats import fisher_exact

DEFAULT_SEED = 20040723
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "collocations_sim.tsv"
COLUMNS = ["w1", "w2", "is_tp", "freq", "log_like", "t_score", "chisq", "MI"]
MEASURES = ["log_like", "t_score", "chisq", "freq", "MI"]
CHECK_NS = (100, 500, 1000, 2000)


@dataclass(frozen=True)
class Params:
    """Parameters of the random model (defaults produce the shipped file)."""

    N: float = 40_000_000  # corpus size (sample size of every contingency table)
    threshold: int = 30  # cooccurrence frequency threshold f >= 30
    n_w1: int = 1000  # vocabulary size of first words
    n_w2: int = 500  # vocabulary size of second words
    w1_median: float = 450.0  # median corpus frequency of w1 words
    w1_sdlog: float = 1.3  # sd of ln frequency of w1 words
    w1_max: float = 100_000.0  # largest possible w1 frequency
    w2_median: float = 8000.0
    w2_sdlog: float = 2.1
    w2_max: float = 200_000.0
    b1: float = 0.08  # effect of w1 log frequency on collocational strength s
    b2: float = 0.7  # effect of w2 log frequency on s
    alpha: float = -6.45  # P(TP) = logistic(alpha + beta * s)
    beta: float = 1.8
    kappa: float = 1.7  # lexical association (nats) per unit of s
    sem_mu: float = -1.0  # location of the semantic association (nats)
    sem_scale: float = 1.0  # its scale for words of median frequency
    sem_rarity: float = 0.47  # how fast the scale grows for rarer words
    sem_w1: float = 0.9  # weight of w1's rarity relative to w2's
    sem_df: float = 4.0  # degrees of freedom of the Student-t variable xi
    lex_df: float = 4.0  # degrees of freedom of the Student-t variable eta
    cap: float = 0.5  # expected O11 saturates at cap * min(R1, C1)


# --------------------------------------------------------------------------- pseudo-words

ONSETS = ["b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "dr", "fl", "gl", "gr", "kl", "kr", "pl", "pr", "sch", "sl", "sp", "st", "tr"]
INNER_ONSETS = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z"]
NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "i", "o", "au", "ei", "ie"]
CODAS = ["", "", "", "", "", "n", "r", "l", "m", "s"]
LINKS = ["b", "d", "g", "k", "l", "m", "n", "p", "r", "s", "t", "ck", "ff", "ll", "mm", "nd", "nk", "rb", "rg", "rk",
         "ss", "st", "tt", "lz"]
W2_SUFFIXES = ["en", "en", "en", "ern", "eln"]


def _pick(rng: np.random.Generator, items: list[str]) -> str:
    return items[int(rng.integers(len(items)))]


def make_words(rng: np.random.Generator, n: int, kind: str, taken: set[str]) -> list[str]:
    """n distinct made-up words built from syllables.

    w1 words: 2-3 syllables (consonant clusters only at the start); w2 words: 1-2 open
    syllables, a consonant (cluster) and a verb-like ending (-en, -ern, -eln). Words already
    in ``taken`` are skipped, so all words of both vocabularies are distinct.
    """
    words: list[str] = []
    while len(words) < n:
        if kind == "w1":
            w = _pick(rng, ONSETS) + _pick(rng, NUCLEI) + _pick(rng, CODAS)
            for _ in range(1 + int(rng.random() < 0.4)):
                w += _pick(rng, INNER_ONSETS) + _pick(rng, NUCLEI) + _pick(rng, CODAS)
        else:
            w = _pick(rng, ONSETS) + _pick(rng, NUCLEI)
            if rng.random() < 0.35:
                w += _pick(rng, INNER_ONSETS) + _pick(rng, NUCLEI)
            w += _pick(rng, LINKS) + _pick(rng, W2_SUFFIXES)
        w = w.replace("iee", "ie").replace("eie", "ei")
        if w not in taken:
            taken.add(w)
            words.append(w)
    return words


# --------------------------------------------------------------------------- model


def _word_freqs(rng: np.random.Generator, n: int, median: float, sdlog: float, fmax: float):
    """Truncated log-normal word frequencies (integers >= 1) and their standardised log."""
    z = rng.standard_normal(n)
    lo, hi = math.log(1.0), math.log(fmax)
    bad = (math.log(median) + sdlog * z > hi) | (math.log(median) + sdlog * z < lo)
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = (math.log(median) + sdlog * z > hi) | (math.log(median) + sdlog * z < lo)
    f = np.maximum(1.0, np.round(np.exp(math.log(median) + sdlog * z)))
    return f, z


def simulate(p: Params = Params(), seed: int = DEFAULT_SEED, names: bool = True) -> pd.DataFrame:
    """Draw the population of word pairs and return the candidates with O11 >= threshold.

    Returns a DataFrame with w1, w2 (if ``names``), is_tp, O11, R1, C1, in the order
    sorted by (w1, w2) when names are made, else in generation order.
    """
    ss = np.random.SeedSequence(seed)
    s_vocab, s_pairs, s_tp, s_names = (np.random.default_rng(x) for x in ss.spawn(4))
    R, z1 = _word_freqs(s_vocab, p.n_w1, p.w1_median, p.w1_sdlog, p.w1_max)
    C, z2 = _word_freqs(s_vocab, p.n_w2, p.w2_median, p.w2_sdlog, p.w2_max)
    rest = math.sqrt(max(0.0, 1.0 - p.b1**2 - p.b2**2))
    t_norm = math.sqrt((p.sem_df - 2.0) / p.sem_df)
    e_norm = math.sqrt((p.lex_df - 2.0) / p.lex_df)

    found_i, found_j, found_o, found_s = [], [], [], []
    block = max(1, 2_000_000 // p.n_w1)  # w2 words per chunk
    for j0 in range(0, p.n_w2, block):
        j1 = min(p.n_w2, j0 + block)
        shape = (p.n_w1, j1 - j0)
        eta = s_pairs.standard_t(p.lex_df, shape) * e_norm
        xi = s_pairs.standard_t(p.sem_df, shape) * t_norm
        s = p.b1 * z1[:, None] + p.b2 * z2[None, j0:j1] + rest * eta
        sem_sd = p.sem_scale * np.exp(-p.sem_rarity * (z2[None, j0:j1] + p.sem_w1 * z1[:, None]))
        lam = p.kappa * s + p.sem_mu + sem_sd * xi
        r1 = R[:, None]
        c1 = C[None, j0:j1]
        mmax = np.minimum(r1, c1)
        # expected O11 under association lambda, saturating smoothly at cap * min(R1, C1)
        raw = r1 * c1 / p.N * np.exp(np.minimum(lam, 50.0))
        sat = p.cap * mmax
        mu = raw * sat / (raw + sat)
        # only pairs with a non-negligible chance to reach the threshold get a count
        ii, jj = np.nonzero(mu > p.threshold / 10.0)
        o = s_pairs.poisson(mu[ii, jj])
        o = np.minimum(o, mmax[ii, jj])
        keep = o >= p.threshold
        found_i.append(ii[keep])
        found_j.append(j0 + jj[keep])
        found_o.append(o[keep])
        found_s.append(s[ii[keep], jj[keep]])
    i = np.concatenate(found_i)
    j = np.concatenate(found_j)
    o11 = np.concatenate(found_o).astype(np.int64)
    s = np.concatenate(found_s)
    is_tp = s_tp.random(len(i)) < expit(p.alpha + p.beta * s)
    df = pd.DataFrame({"i": i, "j": j, "is_tp": is_tp, "O11": o11,
                       "R1": R[i].astype(np.int64), "C1": C[j].astype(np.int64), "s": s})
    if names:
        taken: set[str] = set()
        w1_names = np.array(make_words(s_names, p.n_w1, "w1", taken))
        w2_names = np.array(make_words(s_names, p.n_w2, "w2", taken))
        df.insert(0, "w1", w1_names[i])
        df.insert(1, "w2", w2_names[j])
        df = df.sort_values(["w1", "w2"], kind="stable").reset_index(drop=True)
    return df


def association_measures(o11, r1, c1, n: float) -> dict[str, np.ndarray]:
    """The UCS association scores of 2x2 tables given O11, R1, C1 and N, rounded like the paper's data."""
    o11 = np.asarray(o11, dtype=float)
    r1 = np.asarray(r1, dtype=float)
    c1 = np.asarray(c1, dtype=float)
    o12, o21 = r1 - o11, c1 - o11
    o22 = n - r1 - c1 + o11
    r2, c2 = n - r1, n - c1
    e11, e12, e21, e22 = r1 * c1 / n, r1 * c2 / n, r2 * c1 / n, r2 * c2 / n
    g2 = 2.0 * (xlogy(o11, o11 / e11) + xlogy(o12, o12 / e12) + xlogy(o21, o21 / e21) + xlogy(o22, o22 / e22))
    x2 = n * (o11 * o22 - o12 * o21) ** 2 / (r1 * r2 * c1 * c2)
    t = (o11 - e11) / np.sqrt(o11)
    mi = np.log2(o11 / e11)
    return {
        "freq": o11.astype(np.int64),
        "log_like": np.round(g2, 2),
        "t_score": np.round(t, 4),
        "chisq": np.round(x2).astype(np.int64),
        "MI": np.round(mi, 5),
    }


def build_table(p: Params = Params(), seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """The candidate table with the shipped columns, in file order."""
    sim = simulate(p, seed)
    scores = association_measures(sim["O11"], sim["R1"], sim["C1"], p.N)
    out = pd.DataFrame({"w1": sim["w1"], "w2": sim["w2"], "is_tp": sim["is_tp"].to_numpy()})
    for name in COLUMNS[3:]:
        out[name] = scores[name]
    return out


def write_tsv(df: pd.DataFrame, path: Path) -> None:
    lines = ["\t".join(COLUMNS)]
    for row in df.itertuples(index=False):
        lines.append("\t".join([
            row.w1, row.w2, "TRUE" if row.is_tp else "FALSE", str(int(row.freq)),
            f"{row.log_like:.2f}", f"{row.t_score:.4f}", str(int(row.chisq)), f"{row.MI:.5f}",
        ]))
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))


# --------------------------------------------------------------------------- check


def read_tsv(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, sep="\t", dtype={"w1": str, "w2": str, "is_tp": str}, keep_default_na=False)
    if list(df.columns) != COLUMNS:
        raise SystemExit(f"{path}: columns are {list(df.columns)}, expected {COLUMNS}")
    df["is_tp"] = df["is_tp"].map({"TRUE": True, "FALSE": False})
    if df["is_tp"].isna().any():
        raise SystemExit(f"{path}: is_tp must be TRUE or FALSE")
    return df


def nbest_order(scores: np.ndarray) -> np.ndarray:
    """Ranking by score, descending; ties keep file order (stable sort)."""
    return np.argsort(-np.asarray(scores, dtype=float), kind="stable")


def check(df: pd.DataFrame, out=sys.stdout) -> dict:
    """Print (and return) the summary statistics of a candidate table."""
    y = df["is_tp"].to_numpy(dtype=bool)
    n_cand, n_tp = len(y), int(y.sum())
    res: dict = {"N": n_cand, "TPs": n_tp, "baseline": n_tp / n_cand, "precision": {}, "ties": {}}
    pr = lambda *a: print(*a, file=out)  # noqa: E731
    pr(f"candidates N = {n_cand}, TPs = {n_tp}, baseline precision = {100 * n_tp / n_cand:.2f}%")
    pr("n-best precision (%), ties broken by file order:")
    pr(f"  {'measure':<9}" + "".join(f"{'n=' + str(n):>9}" for n in CHECK_NS))
    orders = {}
    for m in MEASURES:
        o = nbest_order(df[m].to_numpy())
        orders[m] = o
        prec = [float(y[o[:n]].mean()) for n in CHECK_NS]
        res["precision"][m] = prec
        pr(f"  {m:<9}" + "".join(f"{100 * v:>9.1f}" for v in prec))
    pr("tied values (distinct values occurring more than once / rows they cover):")
    for m in MEASURES:
        counts = df[m].value_counts()
        tied = counts[counts > 1]
        res["ties"][m] = (int(len(tied)), int(tied.sum()))
        pr(f"  {m:<9} {len(tied):>5} values, {int(tied.sum()):>5} rows")
    # G2 vs X2: two-sided Fisher test on the difference regions of the n-best lists (Evert 2004, 3.3)
    grid = list(range(100, 2001, 50))
    sig = []
    for n in grid:
        a = np.zeros(n_cand, bool)
        b = np.zeros(n_cand, bool)
        a[orders["log_like"][:n]] = True
        b[orders["chisq"][:n]] = True
        d1, d2 = a & ~b, b & ~a
        table = [[int(y[d1].sum()), int((~y[d1]).sum())], [int(y[d2].sum()), int((~y[d2]).sum())]]
        sig.append(bool(fisher_exact(table)[1] < 0.05))
    res["g2_vs_x2_significant"] = dict(zip(grid, sig))
    marks = "".join("*" if s else "." for s in sig)
    pr(f"log_like vs chisq, Fisher's exact test p < 0.05 for n = 100, 150, ..., 2000:\n  {marks}")
    pr(f"  significant for {sum(sig)} of {len(grid)} list sizes; "
       f"{sum(sig[: grid.index(1250) + 1])} of {grid.index(1250) + 1} with n <= 1250")
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output file (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="only check the existing output file, do not regenerate")
    args = ap.parse_args(argv)
    if not args.check:
        df = build_table(Params(), args.seed)
        write_tsv(df, args.out)
        print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes, {len(df)} candidates, seed {args.seed})")
    check(read_tsv(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
