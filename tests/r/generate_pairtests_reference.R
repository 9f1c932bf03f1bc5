# Generate reference values from R for tests/test_pairtests.py and tests/test_multitest.py.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_pairtests_reference.R
# writes tests/reference/r_pairtests_reference.json.
#
# Only base R (package stats) is used; the JSON is written with the helpers of
# tests/r/json.R: every double printed with sprintf("%.17g") (exact round trip
# through Python's json), NaN and NA as null, +-Inf as the strings "Inf"/"-Inf".
#
# Sections
#   mcnemar_exact : binom.test(tp_d1, tp_d1 + tp_d2)$p.value (p = 1/2, two-sided),
#                   the exact McNemar test on the discordant TPs.  R stops with an
#                   error at tp_d1 = tp_d2 = 0; that case is recorded with p_value
#                   null and R's message in "error".
#   mcnemar_test  : mcnemar.test(matrix(c(a, c, b, d), 2), correct =)$statistic and
#                   $p.value for the paired table TP-in-A x TP-in-B with rows (a, b)
#                   and (c, d), b = tp_d1, c = tp_d2; correct = TRUE and FALSE.  R
#                   gives NaN (null here) where b + c = 0.
#   chisq_test    : chisq.test(matrix(c(tp_a, n_a - tp_a, tp_b, n_b - tp_b), 2),
#                   correct =)$statistic and $p.value (warnings muffled), the two
#                   n-best lists as independent samples; NaN (null) on a zero margin.
#   p_adjust      : p.adjust(p, "holm") and p.adjust(p, "BH") for named vectors p
#                   (ties, NA, tiny values, length 1, length 5000).

RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions
set.seed(20120712)

out_path <- file.path("tests", "reference", "r_pairtests_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}

source(file.path("tests", "r", "json.R"))  # jnum, jint, jstr, jarr, jobj, jlist, ...

# ----------------------------------------------------------- exact McNemar
fixed_bc <- rbind(
  c(0, 0),                                  # R: error; evalcore: p = 1
  c(0, 1), c(1, 0), c(1, 1), c(0, 5), c(5, 0), c(2, 3), c(3, 7), c(10, 10),
  c(1, 2), c(2, 1), c(50, 49), c(49, 50),
  # D1/D2 TP counts of Krenn's G2 vs X2 (Evert 2004, Figure 3) at n = 100, 1250,
  # 1300, 1600, 1800, 1950
  c(32, 15), c(44, 26), c(36, 26), c(25, 25), c(15, 14), c(9, 10),
  c(300, 240), c(240, 300),                 # the balanced synthetic case of the tests
  c(1000, 0), c(0, 1000),                   # p = 2^-999 (about 1.9e-301)
  c(0, 1100),                               # p underflows to 0
  c(5000, 4900), c(123456, 123000),        # large m
  c(10000000, 10000002)                     # m > 2e7: relErr adds the mode, p = 1
)
rand_m <- pmax(1, round(10^runif(40, 0, 4)))
rand_b <- rbinom(40, rand_m, runif(40, 0.2, 0.8))
bc <- rbind(fixed_bc, cbind(rand_b, rand_m - rand_b))
mc_p <- numeric(nrow(bc))
mc_err <- character(nrow(bc))
for (i in seq_len(nrow(bc))) {
  r <- tryCatch(binom.test(bc[i, 1], bc[i, 1] + bc[i, 2])$p.value,
                error = function(e) conditionMessage(e))
  if (is.character(r)) {
    mc_p[i] <- NA_real_
    mc_err[i] <- r
  } else {
    mc_p[i] <- r
    mc_err[i] <- NA_character_
  }
}
errors_json <- jarr(vapply(mc_err, function(e) if (is.na(e)) "null" else jstr(e),
                           character(1)), 4L, "    ")
exact_json <- jobj(c(
  description = jstr("binom.test(tp_d1, tp_d1 + tp_d2)$p.value; error: R's message where binom.test stops"),
  tp_d1 = jarr(jint(bc[, 1]), 10L, "    "),
  tp_d2 = jarr(jint(bc[, 2]), 10L, "    "),
  p_value = jarr(jnum(mc_p), 4L, "    "),
  error = errors_json
), "  ")

# ------------------------------------------------------------- mcnemar.test
fixed_abcd <- rbind(
  c(10, 0, 0, 20),                         # b + c = 0: NaN in R
  c(5, 3, 3, 9),                           # b = c: no correction, statistic 0
  c(1, 1, 0, 1), c(0, 0, 1, 0),            # |b - c| = 1
  c(4, 2, 5, 8), c(1093, 44, 26, 3939),    # Krenn, n = 1250 (a = overlap TPs)
  c(1149, 36, 26, 3891), c(12, 300, 240, 40),
  c(0, 500, 0, 0), c(7, 1, 30, 2), c(100, 5000, 4900, 100)
)
rand_abcd <- cbind(rpois(25, 50), rpois(25, 10^runif(25, 0, 3)),
                   rpois(25, 10^runif(25, 0, 3)), rpois(25, 200))
abcd <- rbind(fixed_abcd, rand_abcd)
mcnemar_block <- function(correct) {
  stat <- p <- numeric(nrow(abcd))
  for (i in seq_len(nrow(abcd))) {
    x <- abcd[i, ]
    r <- mcnemar.test(matrix(c(x[1], x[3], x[2], x[4]), 2), correct = correct)
    stat[i] <- r$statistic
    p[i] <- r$p.value
  }
  jobj(c(statistic = jarr(jnum(stat), 4L, "      "),
         p_value = jarr(jnum(p), 4L, "      ")), "    ")
}
mcnemar_json <- jobj(c(
  description = jstr(paste(
    "mcnemar.test(matrix(c(a, c, b, d), 2), correct =): the table with rows (a, b), (c, d);",
    "b = tp_d1, c = tp_d2; null where R gives NaN (b + c = 0)")),
  a = jarr(jint(abcd[, 1]), 10L, "    "),
  b = jarr(jint(abcd[, 2]), 10L, "    "),
  c = jarr(jint(abcd[, 3]), 10L, "    "),
  d = jarr(jint(abcd[, 4]), 10L, "    "),
  correct_true = mcnemar_block(TRUE),
  correct_false = mcnemar_block(FALSE)
), "  ")

# --------------------------------------------------------------- chisq.test
fixed_lists <- rbind(
  # tp_a, n_a, tp_b, n_b
  c(331, 1250, 313, 1250), c(339, 1300, 329, 1300),   # Krenn, G2 vs X2
  c(42, 100, 25, 100), c(467, 2000, 466, 2000),
  c(200, 500, 170, 500), c(3, 7, 4, 8), c(1, 5, 0, 5), c(0, 3, 2, 4),
  c(5, 10, 5, 10),                                    # O = E: Yates' term capped at 0
  c(5, 10, 6, 10),                                    # |O - E| = 0.5
  c(2, 2, 0, 2), c(9, 10, 1, 10),
  c(0, 10, 0, 12), c(10, 10, 12, 12),                 # zero margin: NaN
  c(900, 1000, 100, 1000),                            # tiny p
  c(57, 500, 566, 5102), c(1, 1000000, 30, 1000000)
)
rand_n <- pmax(1, round(10^runif(25, 0.5, 4)))
rand_n2 <- pmax(1, round(rand_n * runif(25, 0.5, 2)))
pr <- runif(25, 0.05, 0.6)
rand_lists <- cbind(rbinom(25, rand_n, pr), rand_n, rbinom(25, rand_n2, pr * runif(25, 0.7, 1.3)), rand_n2)
lists <- rbind(fixed_lists, rand_lists)
chisq_block <- function(correct) {
  stat <- p <- numeric(nrow(lists))
  for (i in seq_len(nrow(lists))) {
    x <- lists[i, ]
    r <- suppressWarnings(chisq.test(matrix(c(x[1], x[2] - x[1], x[3], x[4] - x[3]), 2),
                                     correct = correct))
    stat[i] <- r$statistic
    p[i] <- r$p.value
  }
  jobj(c(statistic = jarr(jnum(stat), 4L, "      "),
         p_value = jarr(jnum(p), 4L, "      ")), "    ")
}
chisq_json <- jobj(c(
  description = jstr(paste(
    "chisq.test(matrix(c(tp_a, n_a - tp_a, tp_b, n_b - tp_b), 2), correct =), warnings",
    "suppressed; null where R gives NaN (a zero margin)")),
  tp_a = jarr(jint(lists[, 1]), 10L, "    "),
  n_a = jarr(jint(lists[, 2]), 10L, "    "),
  tp_b = jarr(jint(lists[, 3]), 10L, "    "),
  n_b = jarr(jint(lists[, 4]), 10L, "    "),
  correct_false = chisq_block(FALSE),
  correct_true = chisq_block(TRUE)
), "  ")

# ----------------------------------------------------------------- p.adjust
vectors <- list(
  basic = c(0.01, 0.04, 0.03, 0.2, 0.5),
  ties = c(0.02, 0.01, 0.02, 0.01, 0.02, 0.5, 0.5, 1),
  missing = c(0.01, NA, 0.03, NaN, 0.2, 0.04),       # NA not counted in m
  tiny = c(1e-300, 5e-301, 1e-200, 0.5, 1e-310, 0, 1e-300),
  length1 = c(0.03),
  one_present = c(NA, 0.03, NA),
  all_missing = c(NA_real_, NA_real_),
  ones = c(1, 1, 1),
  two = c(0.6, 0.02),
  length5000 = c(runif(3000), 10^-runif(1500, 0, 12), round(runif(500), 2))
)
adjust_obj <- function(name) {
  p <- vectors[[name]]
  jobj(c(name = jstr(name),
         p = jarr(jnum(p), 4L, "      "),
         holm = jarr(jnum(p.adjust(p, "holm")), 4L, "      "),
         bh = jarr(jnum(p.adjust(p, "BH")), 4L, "      ")), "    ")
}
adjust_json <- jobj(c(
  description = jstr(paste(
    "p.adjust(p, \"holm\") and p.adjust(p, \"BH\"); NA/NaN written as null (R counts",
    "only the non-missing p-values in n: its default n = length(p) is evaluated after",
    "the NAs are dropped)")),
  cases = jlist(vapply(names(vectors), adjust_obj, character(1)), "  ")
), "  ")

# --------------------------------------------------------------------- write
header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_pairtests_reference.R — do not edit"),
  regenerate = jstr("Rscript tests/r/generate_pairtests_reference.R (from the repository root)"),
  r_version = jstr(R.version.string),
  date = jstr(format(Sys.Date())),
  seed = jstr("set.seed(20120712) with RNGkind('Mersenne-Twister', 'Inversion', 'Rejection')"),
  number_format = jstr(paste("doubles printed with sprintf('%.17g') (exact round trip);",
                             "NaN/NA written as null, +-Inf as \"Inf\"/\"-Inf\""))
), "  ")
json <- jobj(c(header = header, mcnemar_exact = exact_json, mcnemar_test = mcnemar_json,
               chisq_test = chisq_json, p_adjust = adjust_json))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat("wrote", out_path, "\n")
