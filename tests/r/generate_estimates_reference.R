# Reference values from R for tests/test_estimates.py: the exact hypergeometric interval for
# the TPs of a finite list from a sample drawn without replacement, and the phyper tails it uses.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_estimates_reference.R
# writes tests/reference/r_estimates_reference.json. Base R only (stats: phyper, qhyper, rhyper).
#
# The interval (Buonaccorsi 1987): with X ~ Hypergeometric(n candidates, D TPs, m drawn),
#   D_L = min{D : P(X >= k | D) > tail},   D_U = max{D : P(X <= k | D) > tail},
#   tail = alpha / 2 (two-sided) or alpha (one-sided; "less" gives [0, D_U], "greater" [D_L, n]).
# Here every D in 0..n is scanned with phyper (the obviously right way). A tail probability within a
# relative 1e-7 of `tail` counts as above it (FUZZ): hypergeometric probabilities are ratios of
# binomial coefficients and can equal alpha/2 exactly (C(6, 3) = 20 and alpha/2 = 1/20), where
# rounding would otherwise decide; the fuzz keeps such D inside, so the interval is never narrower
# than the exact one. For n <= 5000 the bounds are also found from qhyper,
# P(X >= k | D) > tail  <=>  k - 1 < qhyper(1 - tail, D, n - D, m), as a check inside R: the script
# stops if the two disagree anywhere except at such exact ties.

RNGkind("Mersenne-Twister", "Inversion", "Rejection")
out_path <- file.path("tests", "reference", "r_estimates_reference.json")
if (!dir.exists(dirname(out_path))) stop("run this script from the repository root")
source(file.path("tests", "r", "json.R"))

FUZZ <- 1 - 1e-7
bounds_phyper <- function(k, m, n, tail) {
  D <- 0:n
  up <- phyper(k - 1, D, n - D, m, lower.tail = FALSE)   # P(X >= k | D)
  low <- phyper(k, D, n - D, m)                          # P(X <= k | D)
  c(min(D[up > tail * FUZZ]), max(D[low > tail * FUZZ]))
}
has_tie <- function(k, m, n, tail) {
  D <- 0:n
  p <- c(phyper(k - 1, D, n - D, m, lower.tail = FALSE), phyper(k, D, n - D, m))
  any(abs(p - tail) <= 1e-7 * tail)
}
bounds_qhyper <- function(k, m, n, tail) {
  D <- 0:n
  # P(X >= k) > tail  <=>  P(X <= k - 1) < 1 - tail  <=>  k - 1 < qhyper(1 - tail, ...)
  # P(X <= k) > tail  <=>  qhyper(tail, ...) <= k  (for a tail away from the atoms' sums)
  ok_low <- (k - 1) < qhyper(1 - tail, D, n - D, m)
  ok_high <- qhyper(tail, D, n - D, m) <= k
  c(min(D[ok_low]), max(D[ok_high]))
}

fixed <- rbind(
  c(5, 20, 50), c(0, 0, 10), c(0, 20, 50), c(20, 20, 50), c(3, 3, 3), c(0, 1, 1), c(1, 1, 1),
  c(0, 1, 2), c(1, 2, 2), c(57, 510, 5102), c(566, 5102, 5102), c(200, 500, 1000), c(12, 100, 100000),
  c(1, 10, 11), c(50, 99, 100), c(0, 99, 100), c(99, 99, 100), c(30, 60, 61), c(7, 37, 1268),
  c(1, 2000, 1e5), c(1000, 2000, 1e5)
)
set.seed(20050401)
n_rand <- 120L
rand <- t(vapply(seq_len(n_rand), function(i) {
  n <- max(1, round(10^runif(1, 0, 4.5)))
  m <- sample(0:n, 1)
  D <- sample(0:n, 1)
  k <- rhyper(1, D, n - D, m)
  c(k, m, n)
}, numeric(3)))
cases <- rbind(fixed, rand)
colnames(cases) <- c("k", "m", "n")

levels <- c(0.8, 0.9, 0.95, 0.99)
alternatives <- c("two.sided", "less", "greater")
blocks <- character(0)
for (level in levels) for (alt in alternatives) {
  alpha <- 1 - level
  tail <- if (alt == "two.sided") alpha / 2 else alpha
  res <- t(apply(cases, 1, function(r) {
    b <- bounds_phyper(r[1], r[2], r[3], tail)
    if (r[3] <= 5000) {
      q <- bounds_qhyper(r[1], r[2], r[3], tail)
      if (!identical(as.numeric(b), as.numeric(q)) && !has_tie(r[1], r[2], r[3], tail))
        stop(sprintf("phyper and qhyper bounds differ at k=%d m=%d n=%d", r[1], r[2], r[3]))
    }
    if (alt == "less") b[1] <- 0
    if (alt == "greater") b[2] <- r[3]
    b
  }))
  blocks <- c(blocks, jobj(c(conf_level = jnum(level), alternative = jstr(alt),
                             low_count = jarr(jint(res[, 1]), 10L, "        "),
                             high_count = jarr(jint(res[, 2]), 10L, "        ")), "      "))
}
interval_json <- jobj(c(
  description = jstr(paste("Exact hypergeometric interval [low_count, high_count] for the TPs D of a list of n",
                           "candidates from k TPs among m drawn without replacement; aligned with k/m/n")),
  k = jarr(jint(cases[, 1]), 10L, "    "),
  m = jarr(jint(cases[, 2]), 10L, "    "),
  n = jarr(jint(cases[, 3]), 10L, "    "),
  results = jlist(blocks, "    ")
), "  ")

# phyper itself, both tails, at the arguments the interval uses (x, D, n - D, m), including far tails
set.seed(20050402)
n_p <- 300L
ph <- t(vapply(seq_len(n_p), function(i) {
  n <- max(2, round(10^runif(1, 0.3, 6)))
  m <- sample(1:n, 1)
  D <- sample(0:n, 1)
  lo <- max(0, m - (n - D)); hi <- min(m, D)
  x <- if (i %% 3L == 0L) sample(lo:hi, 1) else round(lo + (hi - lo) * runif(1)^3)
  c(x, D, n, m)
}, numeric(4)))
cdf <- phyper(ph[, 1], ph[, 2], ph[, 3] - ph[, 2], ph[, 4])
sf <- phyper(ph[, 1], ph[, 2], ph[, 3] - ph[, 2], ph[, 4], lower.tail = FALSE)
phyper_json <- jobj(c(
  description = jstr("phyper(x, D, n - D, m) (cdf) and phyper(..., lower.tail = FALSE) (sf)"),
  x = jarr(jint(ph[, 1]), 10L, "    "), D = jarr(jint(ph[, 2]), 10L, "    "),
  n = jarr(jint(ph[, 3]), 10L, "    "), m = jarr(jint(ph[, 4]), 10L, "    "),
  cdf = jarr(jnum(cdf), 4L, "    "), sf = jarr(jnum(sf), 4L, "    ")
), "  ")

header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_estimates_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_estimates_reference.R (from the repository root)"),
  r_version = jstr(R.version.string),
  date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC"))
), "  ")
json <- jobj(c(header = header, hypergeometric_interval = interval_json, phyper = phyper_json))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat(sprintf("wrote %s: %d (k, m, n) cases x %d levels x %d alternatives; %d phyper cases\n",
            out_path, nrow(cases), length(levels), length(alternatives), n_p))
