# Generate reference values from R for tests/test_effect.py and tests/test_power.py.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_effect_reference.R > tests/reference/r_effect_transcript.txt
# writes tests/reference/r_effect_reference.json (and the transcript to standard output).
#
# Needs base R (stats) and statmod (Debian: r-cran-statmod). The JSON is written with the
# helpers of tests/r/json.R: every double printed with sprintf("%.17g") (exact round trip
# through Python's json), NaN and NA as null, +-Inf as the strings "Inf"/"-Inf".
#
# Sections
#   fisher       : fisher.test(matrix(c(a, c, b, d), 2))$estimate and $conf.int for the
#                  table [[a, b], [c, d]], for each alternative and conf.level 0.9, 0.95,
#                  0.99.  R solves every root with uniroot (tol = .Machine$double.eps^0.25,
#                  about 1.2e-4) on t = psi (psi < 1) or t = 1/psi (psi > 1), so its values
#                  are exact only to about 1e-4 on that scale.  Tables: the difference
#                  regions of Krenn's PP-verb data (KrennPPV of the R package corpora, ties
#                  broken by file order) computed by evalcore.compare.compare_rankings, and
#                  random tables of several sizes, extreme and degenerate ones.  Where
#                  fisher.test stops with an error, "error" holds its message.
#   power_t      : power.t.test(type = "paired") for n (given power) and power (given n),
#                  strict = FALSE and TRUE.  n comes from uniroot with the same tolerance.
#   power_fisher : statmod::power.fisher.test(p1, p2, d, d, alpha, nsim): the power of
#                  Fisher's exact test on two binomial samples of size d, by simulation
#                  (a Monte Carlo reference, nsim draws each).

RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions
set.seed(20040823)

out_path <- file.path("tests", "reference", "r_effect_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}
source(file.path("tests", "r", "json.R"))  # jnum, jint, jstr, jarr, jobj, jlist, ...
suppressPackageStartupMessages(library(statmod))

# ------------------------------------------------------------------ fisher.test
# Krenn's data, ties stable: log.like (G2) vs chisq (X2) at n = 100, 150, ..., 2000 and 1268;
# chisq vs Dice at n = 100, 500, 1000, 1700, 2000, 3000; t.score vs MI and log.like vs freq at
# n = 100 and 1000.  Rows: tp_d1, fp_d1, tp_d2, fp_d2.
krenn <- rbind(
  c(32, 36, 15, 53), c(35, 52, 17, 70), c(48, 57, 20, 85), c(50, 76, 23, 103), c(54, 90, 21, 123),
  c(57, 99, 22, 134), c(58, 116, 26, 148), c(60, 119, 30, 149), c(63, 129, 34, 158), c(69, 128, 33, 164),
  c(67, 136, 31, 172), c(65, 136, 27, 174), c(66, 142, 26, 182), c(70, 144, 28, 186), c(72, 151, 29, 194),
  c(69, 149, 30, 188), c(64, 143, 28, 179), c(64, 139, 30, 173), c(61, 133, 29, 165), c(66, 131, 28, 169),
  c(66, 124, 29, 161), c(60, 115, 27, 148), c(56, 105, 25, 136), c(44, 113, 26, 131), c(36, 115, 26, 125),
  c(34, 106, 22, 118), c(34, 106, 26, 114), c(30, 107, 24, 113), c(27, 107, 22, 112), c(24, 102, 22, 104),
  c(25, 92, 25, 92), c(27, 89, 22, 94), c(22, 88, 18, 92), c(21, 81, 16, 86), c(15, 81, 14, 82),
  c(15, 72, 13, 74), c(13, 71, 10, 74), c(9, 72, 10, 71), c(9, 67, 8, 68), c(39, 116, 24, 131),
  c(7, 14, 3, 18), c(52, 103, 11, 144), c(102, 174, 12, 264), c(201, 215, 1, 415), c(217, 257, 3, 471),
  c(198, 393, 3, 588),
  c(38, 59, 19, 78), c(165, 421, 100, 486), c(17, 35, 2, 50), c(111, 395, 32, 474)
)
extreme <- rbind(
  c(50, 0, 1, 60), c(60, 1, 0, 50), c(1, 100, 0, 100), c(0, 10, 10, 0), c(10, 0, 0, 10),
  c(3000, 2, 1, 3000), c(2, 3000, 3000, 1), c(1, 0, 0, 1), c(1, 1, 1, 1), c(0, 1, 1, 0),
  c(1, 2000, 2000, 1), c(400, 1, 2, 400), c(5, 995, 0, 1000)
)
degenerate <- rbind(c(0, 0, 3, 4), c(0, 5, 0, 7), c(3, 4, 0, 0), c(5, 0, 6, 0), c(0, 0, 0, 0), c(4, 0, 0, 0))
rand_small <- matrix(sample(0:12, 160, replace = TRUE), ncol = 4)
rand_medium <- matrix(round(10^runif(120, 0, 2.5)), ncol = 4)
rand_large <- matrix(round(10^runif(40, 2, 3.7)), ncol = 4)
tables <- rbind(krenn, extreme, degenerate, rand_small, rand_medium, rand_large)
kinds <- c(rep("krenn", nrow(krenn)), rep("extreme", nrow(extreme)), rep("degenerate", nrow(degenerate)),
           rep("small", nrow(rand_small)), rep("medium", nrow(rand_medium)), rep("large", nrow(rand_large)))

alternatives <- c("two.sided", "less", "greater")
levels <- c(0.9, 0.95, 0.99)
fisher_cases <- character(0)
for (i in seq_len(nrow(tables))) {
  cell <- tables[i, ]
  for (alt in alternatives) {
    for (lev in levels) {
      r <- tryCatch(fisher.test(matrix(c(cell[1], cell[3], cell[2], cell[4]), 2), alternative = alt,
                                conf.level = lev),
                    error = function(e) conditionMessage(e))
      if (is.character(r)) {
        fields <- c(estimate = "null", low = "null", high = "null", p_value = "null", error = jstr(r))
      } else {
        fields <- c(estimate = jnum1(unname(r$estimate)), low = jnum1(r$conf.int[1]),
                    high = jnum1(r$conf.int[2]), p_value = jnum1(r$p.value), error = "null")
      }
      fisher_cases <- c(fisher_cases, jobj(c(
        kind = jstr(kinds[i]), a = jint(cell[1]), b = jint(cell[2]), c = jint(cell[3]), d = jint(cell[4]),
        alternative = jstr(alt), conf_level = jnum1(lev), fields), "    "))
    }
  }
}
fisher_json <- jobj(c(
  description = jstr(paste(
    "fisher.test(matrix(c(a, c, b, d), 2), alternative =, conf.level =): estimate, conf.int",
    "(low, high) and p.value for the table [[a, b], [c, d]]; error: R's message where it stops")),
  cases = jlist(fisher_cases, "  ")
), "  ")
k100 <- fisher.test(matrix(c(32, 15, 36, 53), 2))
cat("fisher.test, Krenn G2 vs X2 at n = 100, [[32, 36], [15, 53]]:\n")
print(k100[c("estimate", "conf.int", "p.value")])
k1700 <- fisher.test(matrix(c(201, 1, 215, 415), 2))
cat("fisher.test, Krenn chisq vs Dice at n = 1700, [[201, 215], [1, 415]]:\n")
print(k1700[c("estimate", "conf.int", "p.value")])

# ------------------------------------------------------------------ power.t.test (paired)
n_cases <- rbind(  # delta, sd, sig.level, power
  c(1, 2, 0.05, 0.8), c(0.5, 1, 0.05, 0.9), c(0.02, 0.05, 0.01, 0.8), c(3, 1, 0.05, 0.8),
  c(0.1, 1, 0.05, 0.8), c(-0.4, 1, 0.05, 0.8), c(0.035, 0.02, 0.05, 0.95), c(1, 1, 0.001, 0.99)
)
power_cases <- rbind(  # n, delta, sd, sig.level
  c(20, 1, 2, 0.05), c(5, 1, 1, 0.05), c(2.5, 2, 1, 0.05), c(100, 0.1, 0.5, 0.05), c(1000, 0.05, 1, 0.01),
  c(80, 0.01, 0.03, 0.05), c(3, 0.1, 1, 0.2), c(12.7, 0.6, 1.1, 0.05)
)
t_objs <- character(0)
for (strict in c(FALSE, TRUE)) {
  for (i in seq_len(nrow(n_cases))) {
    r <- power.t.test(delta = n_cases[i, 1], sd = n_cases[i, 2], sig.level = n_cases[i, 3],
                      power = n_cases[i, 4], type = "paired", strict = strict)
    t_objs <- c(t_objs, jobj(c(solve = jstr("n"), strict = jbool(strict), n = jnum1(r$n),
                               delta = jnum1(n_cases[i, 1]), sd = jnum1(n_cases[i, 2]),
                               sig_level = jnum1(n_cases[i, 3]), power = jnum1(n_cases[i, 4])), "    "))
  }
  for (i in seq_len(nrow(power_cases))) {
    r <- power.t.test(n = power_cases[i, 1], delta = power_cases[i, 2], sd = power_cases[i, 3],
                      sig.level = power_cases[i, 4], type = "paired", strict = strict)
    t_objs <- c(t_objs, jobj(c(solve = jstr("power"), strict = jbool(strict), n = jnum1(power_cases[i, 1]),
                               delta = jnum1(power_cases[i, 2]), sd = jnum1(power_cases[i, 3]),
                               sig_level = jnum1(power_cases[i, 4]), power = jnum1(r$power)), "    "))
  }
}
power_t_json <- jobj(c(
  description = jstr(paste(
    "power.t.test(type = \"paired\", alternative = \"two.sided\", strict =): n for a given power",
    "(solve = n; uniroot, tol about 1.2e-4) or power for a given n (solve = power)")),
  cases = jlist(t_objs, "  ")
), "  ")
cat("\npower.t.test(delta = 1, sd = 2, power = 0.8, type = \"paired\"):\n")
print(power.t.test(delta = 1, sd = 2, power = 0.8, type = "paired"))

# ------------------------------------------------------------------ statmod::power.fisher.test
sim_cases <- rbind(  # p1, p2, d, alpha
  c(0.5, 0.2, 50, 0.05), c(0.3, 0.15, 100, 0.05), c(0.11, 0.11, 150, 0.05), c(0.47, 0.22, 68, 0.05),
  c(0.2, 0.1, 200, 0.05), c(0.9, 0.7, 30, 0.05), c(0.05, 0.01, 300, 0.05), c(0.3, 0.15, 100, 0.01),
  c(0.25, 0.25, 80, 0.1)
)
nsim <- 20000L
sim_objs <- character(0)
for (i in seq_len(nrow(sim_cases))) {
  s <- sim_cases[i, ]
  value <- power.fisher.test(s[1], s[2], s[3], s[3], alpha = s[4], nsim = nsim)
  sim_objs <- c(sim_objs, jobj(c(p1 = jnum1(s[1]), p2 = jnum1(s[2]), d = jint(s[3]), alpha = jnum1(s[4]),
                                 nsim = jint(nsim), power = jnum1(value)), "    "))
  cat(sprintf("power.fisher.test(%g, %g, %d, %d, alpha = %g, nsim = %d) = %.4f\n",
              s[1], s[2], s[3], s[3], s[4], nsim, value))
}
power_fisher_json <- jobj(c(
  description = jstr(paste(
    "statmod::power.fisher.test(p1, p2, n1 = d, n2 = d, alpha, nsim): the share of nsim simulated",
    "pairs of binomial samples where fisher.test gives p < alpha (two-sided)")),
  statmod_version = jstr(as.character(packageVersion("statmod"))),
  cases = jlist(sim_objs, "  ")
), "  ")

# --------------------------------------------------------------------- write
header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_effect_reference.R — do not edit"),
  regenerate = jstr(paste("Rscript tests/r/generate_effect_reference.R > tests/reference/r_effect_transcript.txt",
                          "(from the repository root)")),
  r_version = jstr(R.version.string),
  date = jstr(format(Sys.Date())),
  seed = jstr("set.seed(20040823) with RNGkind('Mersenne-Twister', 'Inversion', 'Rejection')"),
  number_format = jstr(paste("doubles printed with sprintf('%.17g') (exact round trip);",
                             "NaN/NA written as null, +-Inf as \"Inf\"/\"-Inf\""))
), "  ")
json <- jobj(c(header = header, fisher = fisher_json, power_t = power_t_json, power_fisher = power_fisher_json))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat("\nwrote", out_path, "\n")
cat(R.version.string, "; statmod", as.character(packageVersion("statmod")), "\n")
