# Generate reference values from R for tests/test_sampletests.py.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_samples_reference.R
# writes tests/reference/r_samples_reference.json.
#
# Only base R (package stats) is used.  jsonlite is not installed here, so the
# JSON is formatted by hand as in tests/r/generate_reference.R: every double is
# printed with sprintf("%.17g") (exact round trip through Python's json), NaN and
# NA as null, +-Inf as the strings "Inf"/"-Inf".
#
# The input vectors are written to the JSON as well, so the Python tests feed
# evalcore exactly the doubles that R saw (precisions T/N are computed here, by
# R's division).
#
# Sections
#   paired   : cases (a, b) of equal length, the per-sample precisions of two
#              measures on the same samples.  For each:
#                t.test(a, b, paired = TRUE, conf.level =)
#                t.test(a, b, conf.level =)              (Welch)
#                wilcox.test(a, b, paired = TRUE, conf.int = TRUE, conf.level =)
#                binom.test(sum(d > 0), sum(d != 0), conf.level =), d = a - b
#              An R error is recorded as "error": message (values null); R
#              warnings are muffled and recorded in "warnings".
#   welch    : t.test(a, b) for vectors of different lengths.
#   ks       : ks.test(x, "pnorm", mean, sd) (two-sided), statistic, p-value,
#              R's method string, whether x has ties, and the warnings.
#   binom    : binom.test(x, n, p, alternative =, conf.level =): p-value and
#              conf.int, column-wise.

RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions
set.seed(20240611)

out_path <- file.path("tests", "reference", "r_samples_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}

source(file.path("tests", "r", "json.R"))  # jnum, jint, jstr, jarr, jobj, jlist, ...


# Evaluate expr; muffle and record warnings; turn an error into a record.
capture <- function(expr) {
  warns <- character(0)
  value <- withCallingHandlers(
    tryCatch(expr, error = function(e) structure(list(message = conditionMessage(e)),
                                                 class = "r_error")),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  list(value = value, warnings = unique(warns))
}
is_error <- function(v) inherits(v, "r_error")
jwarn <- function(w) if (length(w) == 0L) "[]" else jarr(jstr(w), 1L, "        ")

# --------------------------------------------------------------- paired cases
cases <- list()
add <- function(name, a, b, conf_level = 0.95, note = "") {
  stopifnot(length(a) == length(b))
  cases[[length(cases) + 1L]] <<- list(name = name, a = a, b = b,
                                       conf_level = conf_level, note = note)
}
# continuous values: no ties, no zero differences (Wilcoxon exact for n < 50)
cont <- function(n, shift, sd_diff = 0.03) {
  a <- runif(n, 0.2, 0.5)
  list(a = a, b = a - rnorm(n, shift, sd_diff))
}
precision <- function(k, N, pa, pb) {
  list(a = rbinom(k, N, pa) / N, b = rbinom(k, N, pb) / N)
}

v <- cont(2, 0.02);  add("exact_n2", v$a, v$b, note = "smallest n")
v <- cont(3, 0.02);  add("exact_n3", v$a, v$b,
                         note = "95% not achievable: R widens the Wilcoxon interval")
v <- cont(4, -0.01); add("exact_n4", v$a, v$b)
v <- cont(8, 0.02);  add("exact_n8", v$a, v$b)
v <- cont(10, -0.03); add("exact_n10_negative", v$a, v$b)
v <- cont(12, 0.01); add("exact_n12_conf90", v$a, v$b, conf_level = 0.90)
v <- cont(15, 0.005); add("exact_n15", v$a, v$b)
v <- cont(20, 0.01); add("exact_n20_conf99", v$a, v$b, conf_level = 0.99)
v <- cont(30, 0.05, 0.01); add("exact_n30_large_shift", v$a, v$b,
                               note = "every difference positive: tiny p-values")
v <- cont(49, 0.004); add("exact_n49", v$a, v$b, note = "largest n of the exact Wilcoxon path")
v <- cont(50, 0.004); add("approx_n50", v$a, v$b, note = "smallest n of the normal approximation")
v <- cont(75, -0.006); add("approx_n75", v$a, v$b)
v <- cont(99, 0.0); add("approx_n99_null", v$a, v$b)
v <- cont(120, 0.008); add("approx_n120", v$a, v$b)
v <- cont(250, 0.003, 0.05); add("approx_n250", v$a, v$b)
v <- cont(60, 0.01); add("approx_n60_conf80", v$a, v$b, conf_level = 0.80)

a <- round(runif(20, 0.2, 0.5), 2); b <- round(a - rnorm(20, 0.02, 0.03), 2)
add("ties_rounded_n20", a, b, note = "values with two decimals")
a <- runif(20, 0.2, 0.5); b <- a - rnorm(20, 0.02, 0.03); b[c(3, 7, 11, 19)] <- a[c(3, 7, 11, 19)]
add("zeros_n20", a, b, note = "four zero differences, otherwise continuous")
a <- runif(70, 0.2, 0.5); b <- a - rnorm(70, 0.01, 0.03); b[1:5] <- a[1:5]
add("zeros_n70", a, b)

v <- precision(10, 20, 0.30, 0.25);  add("precision_k10_N20", v$a, v$b)
v <- precision(20, 50, 0.30, 0.25);  add("precision_k20_N50", v$a, v$b)
v <- precision(40, 100, 0.15, 0.12); add("precision_k40_N100", v$a, v$b)
v <- precision(60, 100, 0.30, 0.30); add("precision_k60_N100_null", v$a, v$b)
v <- precision(120, 200, 0.12, 0.10); add("precision_k120_N200", v$a, v$b)
v <- precision(30, 80, 0.05, 0.05); add("precision_k30_N80_rare", v$a, v$b,
                                        note = "precision near the paper's 5%: many zeros")
a <- c(3, 5, 7, 9, 4, 6) / 10; b <- c(1, 3, 5, 7, 2, 4) / 10
add("precision_float_ties", a, b,
    note = "differences are 0.2 on paper but not in floating point: R ranks them as distinct")

a <- c(0.5, 0.25, 0.75, 0.125, 0.375); b <- a
add("all_zero", a, b, note = "a == b: every test degenerate")
a <- c(0.5, 0.25, 0.75, 0.125, 0.375); b <- a - 0.125
add("constant_difference", a, b, note = "d == 0.125 exactly: t.test errors")
a <- c(0.3, 0.5, 0.7); b <- c(0.2, 0.4, 0.6)
add("essentially_constant", a, b, note = "d equal up to rounding: t.test errors")
a <- c(0.5, 0.25, 0.75, 0.125, 0.375, 0.625); b <- a; b[4] <- 0.25
add("one_nonzero", a, b)
a <- c(0.5, 0.75, 1, 0.5); b <- c(0.25, 0.5, 0.5, 0.5)
add("tied_n3_with_zero", a, b, note = "d = 0.25, 0.25, 0.5, 0: normal approximation at n = 3")
a <- c(0.5, 0.75, 0.5, 0.25, 0.625, 0.375); b <- c(0.25, 1, 0.25, 0.5, 0.5, 0.5)
add("symmetric_ties", a, b, note = "V = n (n + 1) / 4: z = 0, no continuity correction")
a <- c(0.5, 0.75, 1, 0.25, 0.75, 0.5, 1, 0.75); b <- a - c(0.25, 0.25, 0.5, -0.25, 0.5, 0.25, 0.75, 0.25)
add("ties_small_n8", a, b, note = "normal approximation with heavy ties at n = 8")
a <- c(rep(0.5, 10), 0.25); b <- c(rep(0.25, 10), 0.5)
add("all_tied_abs", a, b, note = "|d| all equal")

paired_block <- function(cs) {
  a <- cs$a; b <- cs$b; level <- cs$conf_level
  d <- a - b
  pt <- capture(t.test(a, b, paired = TRUE, conf.level = level))
  wt <- capture(t.test(a, b, conf.level = level))
  wx <- capture(wilcox.test(a, b, paired = TRUE, conf.int = TRUE, conf.level = level))
  sg <- capture(binom.test(sum(d > 0), sum(d != 0), conf.level = level))

  t_fields <- function(r, welch) {
    v <- r$value
    if (is_error(v)) {
      return(jobj(c(error = jstr(v$message), warnings = jwarn(r$warnings)), "      "))
    }
    est <- if (welch) unname(v$estimate[1] - v$estimate[2]) else unname(v$estimate)
    jobj(c(error = "null",
           statistic = jnum1(v$statistic), df = jnum1(v$parameter),
           p_value = jnum1(v$p.value), estimate = jnum1(est),
           low = jnum1(v$conf.int[1]), high = jnum1(v$conf.int[2]),
           stderr = jnum1(v$stderr), warnings = jwarn(r$warnings)), "      ")
  }
  wv <- wx$value
  stopifnot(!is_error(wv))
  w_json <- jobj(c(
    statistic = jnum1(wv$statistic), p_value = jnum1(wv$p.value),
    estimate = jnum1(wv$estimate), estimate_name = jstr(names(wv$estimate)),
    low = jnum1(wv$conf.int[1]), high = jnum1(wv$conf.int[2]),
    conf_level_achieved = jnum1(attr(wv$conf.int, "conf.level")),
    method = jstr(wv$method), warnings = jwarn(wx$warnings)), "      ")
  sv <- sg$value
  s_json <- if (is_error(sv)) {
    jobj(c(x = jint(sum(d > 0)), n = jint(sum(d != 0)), error = jstr(sv$message)), "      ")
  } else {
    jobj(c(x = jint(sum(d > 0)), n = jint(sum(d != 0)), error = "null",
           p_value = jnum1(sv$p.value), estimate = jnum1(sv$estimate),
           low = jnum1(sv$conf.int[1]), high = jnum1(sv$conf.int[2])), "      ")
  }
  jobj(c(name = jstr(cs$name), note = jstr(cs$note), n = jint(length(a)),
         conf_level = jnum1(level),
         a = jarr(jnum(a), 4L, "      "), b = jarr(jnum(b), 4L, "      "),
         paired_t = t_fields(pt, FALSE), welch_t = t_fields(wt, TRUE),
         wilcoxon = w_json, sign = s_json), "    ")
}
paired_json <- jlist(vapply(cases, paired_block, character(1)), "  ")

# ----------------------------------------------------- Welch, unequal lengths
welch_cases <- list(
  list(name = "welch_5_9", a = runif(5, 0.2, 0.4), b = runif(9, 0.1, 0.6), conf_level = 0.95),
  list(name = "welch_12_30_unequal_var", a = rnorm(12, 0.3, 0.01), b = rnorm(30, 0.28, 0.1),
       conf_level = 0.95),
  list(name = "welch_40_25_conf90", a = rbinom(40, 50, 0.3) / 50, b = rbinom(25, 100, 0.25) / 100,
       conf_level = 0.90),
  list(name = "welch_2_3_constant_a", a = c(0.25, 0.25), b = c(0.5, 0.25, 0.75), conf_level = 0.95)
)
welch_block <- function(cs) {
  r <- capture(t.test(cs$a, cs$b, conf.level = cs$conf_level))
  v <- r$value
  stopifnot(!is_error(v))
  jobj(c(name = jstr(cs$name), conf_level = jnum1(cs$conf_level),
         a = jarr(jnum(cs$a), 4L, "      "), b = jarr(jnum(cs$b), 4L, "      "),
         statistic = jnum1(v$statistic), df = jnum1(v$parameter),
         p_value = jnum1(v$p.value), estimate = jnum1(unname(v$estimate[1] - v$estimate[2])),
         low = jnum1(v$conf.int[1]), high = jnum1(v$conf.int[2])), "    ")
}
welch_json <- jlist(vapply(welch_cases, welch_block, character(1)), "  ")

# ------------------------------------------------------------------ KS cases
ks_cases <- list()
add_ks <- function(name, x, mean, sd, note = "") {
  ks_cases[[length(ks_cases) + 1L]] <<- list(name = name, x = x, mean = mean, sd = sd, note = note)
}
add_ks("exact_n1", 0.31, 0.3, 0.05)
add_ks("exact_n2", c(0.27, 0.36), 0.3, 0.05)
add_ks("exact_n10", rnorm(10, 0.3, 0.05), 0.3, 0.05)
add_ks("exact_n30_shifted", rnorm(30, 0.33, 0.05), 0.3, 0.05)
add_ks("exact_n50_far", rnorm(50, 0.4, 0.05), 0.3, 0.05, "p of order 1e-10: R's 1 - K(n, D) cancels")
add_ks("exact_n80_far", rnorm(80, 0.38, 0.04), 0.3, 0.05)
add_ks("exact_n99", rnorm(99, 0.3, 0.06), 0.3, 0.05, "largest n of the exact path")
add_ks("exact_n20_wide", rnorm(20, 0.3, 0.2), 0.3, 0.05, "D close to 1")
add_ks("asymptotic_n100", rnorm(100, 0.3, 0.05), 0.3, 0.05,
       "smallest n of the asymptotic path; sqrt(n) D < 1 (the small-x series)")
add_ks("asymptotic_n250_shifted", rnorm(250, 0.31, 0.05), 0.3, 0.05)
add_ks("asymptotic_n500_far", rnorm(500, 0.33, 0.05), 0.3, 0.05)
add_ks("asymptotic_n120_null", rnorm(120, 0.3, 0.05), 0.3, 0.05)
p0 <- 0.3
add_ks("ties_precision_k20_N50", rbinom(20, 50, p0) / 50, p0, sqrt(p0 * (1 - p0) / 50),
       "precisions T/N with ties: asymptotic although n < 100")
add_ks("ties_precision_k80_N100", rbinom(80, 100, 0.12) / 100, 0.12, sqrt(0.12 * 0.88 / 100))
add_ks("ties_precision_k150_N200", rbinom(150, 200, 0.1) / 200, 0.1, sqrt(0.1 * 0.9 / 200))
add_ks("ties_precision_k40_N80_wrong_p", rbinom(40, 80, 0.15) / 80, 0.05, sqrt(0.05 * 0.95 / 80))
add_ks("ties_rounded_n40", round(rnorm(40, 0.3, 0.05), 2), 0.3, 0.05)
add_ks("ties_n3", c(0.25, 0.25, 0.5), 0.3, 0.1)

ks_block <- function(cs) {
  r <- capture(ks.test(cs$x, "pnorm", cs$mean, cs$sd))
  v <- r$value
  stopifnot(!is_error(v))
  jobj(c(name = jstr(cs$name), note = jstr(cs$note), n = jint(length(cs$x)),
         mean = jnum1(cs$mean), sd = jnum1(cs$sd), x = jarr(jnum(cs$x), 4L, "      "),
         statistic = jnum1(v$statistic), p_value = jnum1(v$p.value),
         exact = jbool(v$exact), ties = jbool(anyDuplicated(cs$x) > 0),
         method = jstr(v$method), warnings = jwarn(r$warnings)), "    ")
}
ks_json <- jlist(vapply(ks_cases, ks_block, character(1)), "  ")

# --------------------------------------------------------------- binom.test
bx <- bn <- bp <- blev <- numeric(0); balt <- character(0)
addb <- function(x, n, p, alt = "two.sided", level = 0.95) {
  bx <<- c(bx, x); bn <<- c(bn, n); bp <<- c(bp, p); balt <<- c(balt, alt); blev <<- c(blev, level)
}
# the paper's kind of coverage test: k of 80 intervals miss at nominal 5%
for (x in c(12, 9, 4)) for (alt in c("two.sided", "less", "greater")) addb(x, 80, 0.05, alt)
addb(7, 10, 0.5)                     # sign test on 7 positive of 10
for (n in c(10, 80, 200)) for (x in unique(c(0, 1, 3, 7, 10, 20, 40, 80, n))) {
  if (x > n) next
  for (p in c(0.05, 0.3, 0.5, 0.9)) for (alt in c("two.sided", "less", "greater")) addb(x, n, p, alt)
}
for (level in c(0.8, 0.9, 0.99)) addb(12, 80, 0.05, "two.sided", level)
addb(0, 10, 0); addb(1, 10, 0); addb(10, 10, 1); addb(9, 10, 1)   # p on the boundary
addb(5, 10, 0.5); addb(40, 80, 0.5); addb(4, 80, 0.05)            # x == n p
addb(1, 3, 1 / 3)

bres <- lapply(seq_along(bx), function(i) {
  r <- binom.test(bx[i], bn[i], bp[i], alternative = balt[i], conf.level = blev[i])
  c(r$p.value, r$conf.int[1], r$conf.int[2])
})
bres <- do.call(rbind, bres)
binom_json <- jobj(c(
  description = jstr(paste(
    "binom.test(x, n, p, alternative = alternative, conf.level = conf_level):",
    "p_value (not clipped: R's two-sided value can exceed 1 by a few ulp),",
    "low/high = conf.int (Clopper-Pearson)")),
  x = jarr(jint(bx), 10L, "    "), n = jarr(jint(bn), 10L, "    "),
  p = jarr(jnum(bp), 4L, "    "), alternative = jarr(jstr(balt), 6L, "    "),
  conf_level = jarr(jnum(blev), 4L, "    "),
  p_value = jarr(jnum(bres[, 1]), 4L, "    "),
  low = jarr(jnum(bres[, 2]), 4L, "    "), high = jarr(jnum(bres[, 3]), 4L, "    ")
), "  ")

# --------------------------------------------------------------------- write
header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_samples_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_samples_reference.R (from the repository root)"),
  r_version = jstr(R.version.string),
  date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC")),
  seed = jstr("set.seed(20240611) with RNGkind('Mersenne-Twister', 'Inversion', 'Rejection')"),
  number_format = jstr(paste(
    "doubles printed with sprintf('%.17g') (exact round trip);",
    "NaN/NA written as null, +-Inf as \"Inf\"/\"-Inf\""))
), "  ")

json <- jobj(c(
  header = header,
  paired = paired_json,
  welch = welch_json,
  ks = ks_json,
  binom = binom_json
))

con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con, useBytes = FALSE)
close(con)
cat(sprintf("wrote %s: %d paired cases, %d Welch cases, %d KS cases, %d binom.test cases\n",
            out_path, length(cases), length(welch_cases), length(ks_cases), length(bx)))
