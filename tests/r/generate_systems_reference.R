# Generate reference values from R for tests/test_systems.py (the systems comparison, evalcore.systems).
#
# Usage (from the repository root):
#     Rscript tests/r/generate_systems_reference.R
# writes tests/reference/r_systems_reference.json.
#
# Only base R (package stats) is used; the JSON is written with the helpers of tests/r/json.R (every double
# with 17 significant digits, so Python reads back exactly the doubles R had).
#
# Sections
#   holm      : p.adjust(p, "holm") for families of p-values shaped like a systems comparison's: the k(k-1)/2
#               pairs of k = 2, 3, 4, 10 and 20 systems, resampling p-values (1 + c) / (R + 1) for R = 1000 and
#               10000 with ties, p = 1 for a gain of 0, and the smallest p-value 1 / (R + 1).
#   quantile  : quantile(x, probs, type = 7) (R's default, numpy's "linear"): the percentile intervals of
#               bootstrap scores and gains at levels 0.8, 0.9, 0.95, 0.99 and 0.999, on draws with ties.

RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions
set.seed(20121012)

out_path <- file.path("tests", "reference", "r_systems_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}
source(file.path("tests", "r", "json.R"))

resampling_p <- function(pairs, R) {
  # (1 + count) / (R + 1): counts from 0 (the smallest p-value) to R, with repeats; a few exact 1s (gain 0)
  counts <- sample(c(0L, 0L, 1L, 2L, 5L, rbinom(pairs, R, runif(pairs, 0, 0.3))), pairs, replace = TRUE)
  p <- (1 + counts) / (R + 1)
  p[sample.int(pairs, max(1L, pairs %/% 10L))] <- 1
  p
}

families <- list(
  list(name = "two systems", p = c(0.000999000999000999)),
  list(name = "three systems", p = c(0.000999000999000999, 0.000999000999000999, 0.0979020979020979)),
  list(name = "four systems, ties and a gain of 0", p = c(0.000999000999000999, 0.0979020979020979,
                                                          0.001998001998002, 0.000999000999000999, 1,
                                                          0.00499500499500500)),
  list(name = "ten systems, R = 1000", p = resampling_p(45L, 1000L)),
  list(name = "ten systems, R = 10000", p = resampling_p(45L, 10000L)),
  list(name = "twenty systems, R = 1000", p = resampling_p(190L, 1000L)),
  list(name = "all equal", p = rep(1, 6L))
)
holm_json <- jlist(lapply(families, function(f) {
  jobj(c(name = jstr(f$name), p = jarr(jnum(f$p)), holm = jarr(jnum(p.adjust(f$p, "holm")))), indent = "  ")
}), indent = "  ")

levels <- c(0.8, 0.9, 0.95, 0.99, 0.999)
samples <- list(
  list(name = "normal, 1000", x = rnorm(1000L, 38, 1.2)),
  list(name = "rounded with ties, 999", x = round(rnorm(999L, 0.5, 0.8), 1)),
  list(name = "small, 20", x = rexp(20L)),
  list(name = "uniform, 3000", x = runif(3000L, -3, 3))
)
quantile_json <- jlist(lapply(samples, function(s) {
  rows <- lapply(levels, function(l) {
    q <- unname(quantile(s$x, c((1 - l) / 2, (1 + l) / 2), type = 7))
    jobj(c(level = jnum1(l), low = jnum1(q[1]), high = jnum1(q[2])), indent = "      ")
  })
  jobj(c(name = jstr(s$name), x = jarr(jnum(s$x)), intervals = jlist(rows, indent = "    ")), indent = "  ")
}), indent = "  ")

json <- jobj(c(generator = jstr("tests/r/generate_systems_reference.R"),
               r_version = jstr(R.version.string),
               holm = holm_json, quantile = quantile_json))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat("wrote", out_path, "\n")
