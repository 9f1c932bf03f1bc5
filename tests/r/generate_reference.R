# Generate reference values from R for tests/test_r_reference.py.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_reference.R
# writes tests/reference/r_reference.json.
#
# Only base R (package stats) is used; the JSON is formatted by hand so that no
# extra package (jsonlite) is needed.  Every double is printed with
# sprintf("%.17g"), which round-trips exactly through any correctly rounding
# parser (Python's float/json included), so nothing is lost.
#
# JSON has no Inf/NaN: a non-finite double would be written as the strings
# "Inf" / "-Inf" and NaN/NA as null.  (With the current case lists none occurs:
# confidence bounds lie in [0, 1], p-values in [0, 1 + a few ulp] and the log10
# p-values are finite.)
#
# Sections
#   binom_test : binom.test(k, n, conf.level=, alternative=)$conf.int
#                (Clopper-Pearson interval)
#   prop_test  : prop.test(k, n, conf.level=, alternative=, correct=)$conf.int
#                for correct = FALSE (Wilson score interval) and TRUE (Wilson
#                with continuity correction), default p = 0.5.
#   fisher_test: fisher.test(matrix(c(a, c, b, d), 2), alternative=)$p.value,
#                i.e. the table with rows (a, b) and (c, d); plus log10 of the
#                same p-value computed in log space (see fisher_log10_p below).

RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions

out_path <- file.path("tests", "reference", "r_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}

source(file.path("tests", "r", "json.R"))  # jnum, jint, jstr, jarr, jobj, jlist, ...

# ------------------------------------------------------------- binomial cases
levels <- c(0.8, 0.9, 0.95, 0.99, 0.999)
alternatives <- c("two.sided", "less", "greater")

fixed_kn <- rbind(
  c(0, 1), c(1, 1), c(0, 10), c(10, 10), c(1, 10), c(9, 10), c(3, 7),
  c(200, 500),                  # Evert (2004) sec. 3.2: 35.7% -- 44.4%
  c(57, 500), c(566, 5102), c(0, 5102), c(5102, 5102),
  c(12345, 100000), c(1, 1000000), c(111000, 1000000),
  # k = n/2: prop.test's continuity correction is capped at |k - n/2| = 0
  c(1, 2), c(5, 10), c(250, 500), c(500000, 1000000),
  # one away from the ends
  c(1, 1000), c(999, 1000), c(999999, 1000000)
)
fixed_kn <- unique(fixed_kn)

set.seed(20040101)
n_rand <- 30L
rand_n <- pmax(1, round(10^runif(n_rand, 0, 6)))
rand_p <- c(runif(10),                        # typical proportions
            10^runif(10, -5, -1),             # small proportions
            1 - 10^runif(10, -5, -1))         # proportions close to 1
rand_k <- rbinom(n_rand, rand_n, rand_p)
kn <- rbind(fixed_kn, cbind(rand_k, rand_n))
colnames(kn) <- c("k", "n")
kn_k <- as.numeric(kn[, "k"])
kn_n <- as.numeric(kn[, "n"])
n_kn <- nrow(kn)

ci_block <- function(fun, level, alt) {
  low <- high <- numeric(n_kn)
  for (i in seq_len(n_kn)) {
    ci <- tryCatch(suppressWarnings(fun(kn_k[i], kn_n[i], level, alt)),
                   error = function(e) c(NA_real_, NA_real_))
    low[i] <- ci[1]
    high[i] <- ci[2]
  }
  jobj(c(conf_level = jnum(level), alternative = jstr(alt),
         low = jarr(jnum(low), 4L, "        "),
         high = jarr(jnum(high), 4L, "        ")), "      ")
}

binom_fun <- function(k, n, level, alt) {
  as.numeric(binom.test(k, n, conf.level = level, alternative = alt)$conf.int)
}
prop_fun <- function(correct) {
  function(k, n, level, alt) {
    as.numeric(prop.test(k, n, conf.level = level, alternative = alt,
                         correct = correct)$conf.int)
  }
}

blocks_for <- function(fun) {
  objs <- character(0)
  for (level in levels) for (alt in alternatives) {
    objs <- c(objs, ci_block(fun, level, alt))
  }
  jlist(objs, "    ")
}

binom_json <- jobj(c(
  description = jstr(paste(
    "binom.test(k, n, conf.level = conf_level, alternative = alternative)$conf.int",
    "(Clopper-Pearson); results[i].low/high are aligned with k/n")),
  k = jarr(jint(kn_k), 10L, "    "),
  n = jarr(jint(kn_n), 10L, "    "),
  results = blocks_for(binom_fun)
), "  ")

prop_json <- jobj(c(
  description = jstr(paste(
    "prop.test(k, n, conf.level = conf_level, alternative = alternative,",
    "correct = correct)$conf.int with default p = 0.5, warnings suppressed;",
    "correct = FALSE is the Wilson score interval, correct = TRUE Wilson with",
    "continuity correction 0.5/n, which prop.test caps at |k - n*p|/n",
    "(so it vanishes for k = n/2). null would mark a case where prop.test errors.")),
  k = jarr(jint(kn_k), 10L, "    "),
  n = jarr(jint(kn_n), 10L, "    "),
  correct_false = blocks_for(prop_fun(FALSE)),
  correct_true = blocks_for(prop_fun(TRUE))
), "  ")

# --------------------------------------------------------------- fisher cases
# A table is (a, b, c, d) = rows (a, b) and (c, d) = matrix(c(a, c, b, d), 2).
tabs <- list()
add <- function(a, b, c, d, group) {
  tabs[[length(tabs) + 1L]] <<- list(t = c(a, b, c, d), group = group)
}

# degenerate: a zero row or column margin (support of a single point)
add(0, 0, 3, 4, "degenerate"); add(0, 3, 0, 4, "degenerate")
add(5, 0, 0, 0, "degenerate"); add(0, 0, 0, 0, "degenerate")
add(0, 0, 0, 7, "degenerate"); add(3, 4, 0, 0, "degenerate")
add(2, 0, 5, 0, "degenerate")
# tiny
add(1, 0, 0, 1, "tiny"); add(3, 1, 1, 3, "tiny"); add(0, 5, 5, 0, "tiny")
add(2, 3, 4, 1, "tiny"); add(0, 1, 1, 0, "tiny"); add(1, 0, 0, 0, "tiny")
add(0, 1, 0, 0, "tiny"); add(1, 1, 1, 1, "tiny"); add(1, 2, 3, 4, "tiny")
add(5, 0, 0, 5, "tiny"); add(0, 2, 3, 0, "tiny")
# medium
add(20, 80, 40, 60, "medium"); add(3, 97, 12, 88, "medium")
add(45, 5, 30, 20, "medium"); add(10, 90, 10, 90, "medium")
# symmetric margins, as two n-best lists of the same size m produce:
# rows (t1, m - t1) and (t2, m - t2)
for (m in c(50, 200, 1000, 20000)) {
  tv <- unique(c(0, 1, round(m * 0.1), round(m * 0.45), m / 2,
                 round(m * 0.55), m - 1, m))
  for (t1 in tv) for (t2 in tv) add(t1, m - t1, t2, m - t2, "symmetric_margins")
}
# near ties: tables at / next to the mode, where the two-sided rule
# d <= d_obs * (1 + 1e-7) decides which equal-density points are counted
add(10, 10, 10, 10, "near_tie"); add(50, 50, 50, 50, "near_tie")
add(1000, 1000, 1001, 999, "near_tie"); add(1001, 999, 1000, 1000, "near_tie")
add(3, 7, 7, 3, "near_tie"); add(7, 3, 3, 7, "near_tie")
add(11, 9, 9, 11, "near_tie"); add(500, 500, 501, 499, "near_tie")
add(2500, 2500, 2499, 2501, "near_tie"); add(4, 6, 6, 4, "near_tie")
add(100, 200, 200, 400, "near_tie"); add(101, 199, 199, 401, "near_tie")
# asymmetric margins (acceptance sets of different sizes)
add(30, 70, 150, 250, "asymmetric_margins"); add(12, 38, 400, 1600, "asymmetric_margins")
add(90, 10, 1800, 3200, "asymmetric_margins"); add(0, 20, 50, 950, "asymmetric_margins")
add(20, 0, 50, 950, "asymmetric_margins"); add(7, 3, 4000, 1000, "asymmetric_margins")
add(300, 700, 30, 70, "asymmetric_margins"); add(1, 999, 1, 9, "asymmetric_margins")
# large, tiny p (R's p underflows to 0 for some alternatives)
add(5000, 1000, 1000, 5000, "large"); add(1000, 5000, 5000, 1000, "large")
add(2000, 500, 800, 1700, "large"); add(2500, 0, 0, 2500, "large")
add(300, 4700, 600, 4400, "large")
# random tables, row sums from 1 to 5000 (log-uniform), half under the null
set.seed(20040102)
n_rand_tab <- 200L
for (i in seq_len(n_rand_tab)) {
  r1 <- max(1, round(10^runif(1, 0, log10(5000))))
  r2 <- max(1, round(10^runif(1, 0, log10(5000))))
  p1 <- runif(1)
  p2 <- if (i %% 2L == 0L) p1 else runif(1)
  x1 <- rbinom(1, r1, p1)
  x2 <- rbinom(1, r2, p2)
  add(x1, r1 - x1, x2, r2 - x2, "random")
}

fisher_p <- function(t, alt) {
  fisher.test(matrix(t[c(1, 3, 2, 4)], 2), alternative = alt,
              conf.int = FALSE)$p.value
}

# log10 of fisher.test's p-value, computed in log space so that it stays
# finite where fisher.test's p underflows to 0.  One-sided: exactly the
# phyper() call fisher.test makes (ncp = 1), with log.p = TRUE.  Two-sided:
# fisher.test's own algorithm (densities relative to the mode, points with
# d <= d_obs * (1 + 1e-7)) carried out with log-sum-exp.
logsumexp <- function(v) { mx <- max(v); mx + log(sum(exp(v - mx))) }
fisher_log10_p <- function(t, alt) {
  x <- t[1]; m <- t[1] + t[3]; n <- t[2] + t[4]; k <- t[1] + t[2]
  lo <- max(0, k - n); hi <- min(k, m)
  lp <- switch(alt,
    less = phyper(x, m, n, k, log.p = TRUE),
    greater = phyper(x - 1, m, n, k, lower.tail = FALSE, log.p = TRUE),
    two.sided = {
      support <- lo:hi
      logd <- dhyper(support, m, n, k, log = TRUE)
      logd <- logd - max(logd)
      sel <- logd <= logd[x - lo + 1] + log(1 + 10^(-7))
      logsumexp(logd[sel]) - logsumexp(logd)
    })
  lp / log(10)
}

ft <- t(vapply(tabs, function(z) z$t, numeric(4)))
groups <- vapply(tabs, function(z) z$group, character(1))
n_tab <- nrow(ft)

fisher_blocks <- character(0)
for (alt in alternatives) {
  p <- vapply(seq_len(n_tab), function(i)
    tryCatch(fisher_p(ft[i, ], alt), error = function(e) NA_real_), numeric(1))
  lp <- vapply(seq_len(n_tab), function(i) fisher_log10_p(ft[i, ], alt), numeric(1))
  fisher_blocks <- c(fisher_blocks, jobj(c(
    alternative = jstr(alt),
    p_value = jarr(jnum(p), 4L, "        "),
    log10_p = jarr(jnum(lp), 4L, "        ")
  ), "      "))
}

fisher_json <- jobj(c(
  description = jstr(paste(
    "fisher.test(matrix(c(a, c, b, d), 2), alternative = alternative)$p.value for",
    "the table with rows (a, b) and (c, d). p_value is R's value as is (for 2x2",
    "tables fisher.test does not clip it, so it can exceed 1 by a few ulp; it is",
    "exactly 0 where the computation underflows). log10_p is log10 of the same",
    "p-value computed in log space (one-sided: phyper(..., log.p = TRUE);",
    "two-sided: fisher.test's relErr = 1 + 1e-7 algorithm with log-sum-exp).")),
  a = jarr(jint(ft[, 1]), 10L, "    "),
  b = jarr(jint(ft[, 2]), 10L, "    "),
  c = jarr(jint(ft[, 3]), 10L, "    "),
  d = jarr(jint(ft[, 4]), 10L, "    "),
  group = jarr(jstr(groups), 6L, "    "),
  results = jlist(fisher_blocks, "    ")
), "  ")

# --------------------------------------------------------------------- write
header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_reference.R (from the repository root)"),
  r_version = jstr(R.version.string),
  date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC")),
  number_format = jstr(paste(
    "doubles printed with sprintf('%.17g') (exact round trip);",
    "a non-finite double would be written as \"Inf\"/\"-Inf\", NaN/NA as null"))
), "  ")

json <- jobj(c(
  header = header,
  binom_test = binom_json,
  prop_test = prop_json,
  fisher_test = fisher_json
))

con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con, useBytes = FALSE)
close(con)
cat(sprintf("wrote %s: %d k/n cases x %d levels x %d alternatives; %d Fisher tables\n",
            out_path, n_kn, length(levels), length(alternatives), n_tab))
