# Reference values from R for tests/test_strata_estimators.py (issue 33): the stratified estimate of a total or a
# proportion and its design-based variance (survey::svytotal, svymean with strata and finite population
# corrections), Korn & Graubard's interval (survey::svyciprop(method = "beta")), and the score test of two
# proportions (prop.test without continuity correction).
#
# Usage (from the repository root):
#     Rscript tests/r/generate_strata_reference.R
# writes tests/reference/r_strata_reference.json. Packages: survey (Debian r-cran-survey). The suite does not need R.
#
# Each case is a candidate set cut into cells (a band's part of a list, and the rest of the band), each cell sampled
# without replacement (sizes given), with 0/1 labels. R estimates the list's TPs as svytotal(~y_in_list) of a design
# with the cells as strata and their sizes as fpc: the within-cell ratio estimator of evalcore's stratified design,
# and Cochran's unbiased variance with the finite population correction (evalcore's cell_totals with prior_weight 0).
# The whole set's proportion: svymean(~y) with the bands as strata; Korn & Graubard's bounds from R's coefficient and
# variance, n.eff = p (1 - p) / var, qbeta(alpha/2, n.eff p, n.eff (1 - p) + 1) and qbeta(1 - alpha/2, n.eff p + 1,
# n.eff (1 - p)) (evalcore's effective_clopper_pearson; svyciprop's own bounds, which also scale n.eff by the ratio of
# t quantiles with nrow - 1 and degf degrees of freedom, are written beside them).

suppressPackageStartupMessages(library(survey))
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
out_path <- file.path("tests", "reference", "r_strata_reference.json")
if (!dir.exists(dirname(out_path))) stop("run this script from the repository root")
source(file.path("tests", "r", "json.R"))

set.seed(33)
make_case <- function(N_in, N_out, m_in, m_out, p_band) {
  # one band per position: its part in the list (N_in), the rest (N_out), the sampled counts of each, a TP rate
  H <- length(N_in)
  rows <- list()
  for (h in seq_len(H)) {
    for (part in c("in", "out")) {
      size <- if (part == "in") N_in[h] else N_out[h]
      m <- if (part == "in") m_in[h] else m_out[h]
      if (size == 0) next
      y <- rbinom(m, 1, p_band[h])
      rows[[length(rows) + 1L]] <- data.frame(band = h, part = part, cell = paste(h, part), size = size, y = y,
                                               band_size = N_in[h] + N_out[h], stringsAsFactors = FALSE)
    }
  }
  d <- do.call(rbind, rows)
  d$y_in <- d$y * (d$part == "in")
  d
}
cases <- list(
  list(N_in = c(100, 60, 40), N_out = c(0, 340, 1460), m_in = c(50, 12, 5), m_out = c(0, 63, 175),
       p = c(0.45, 0.3, 0.1)),
  list(N_in = c(30, 200, 700, 900), N_out = c(70, 200, 800, 2200), m_in = c(12, 30, 80, 60),
       m_out = c(30, 32, 95, 140), p = c(0.5, 0.35, 0.2, 0.04)),
  list(N_in = c(10, 5, 3), N_out = c(40, 95, 847), m_in = c(6, 2, 2), m_out = c(20, 18, 82), p = c(0.6, 0.3, 0.05))
)
blocks <- lapply(cases, function(cs) {
  d <- make_case(cs$N_in, cs$N_out, cs$m_in, cs$m_out, cs$p)
  cells <- svydesign(ids = ~1, strata = ~cell, fpc = ~size, data = d)
  total <- svytotal(~y_in, cells)
  bands <- svydesign(ids = ~1, strata = ~band, fpc = ~band_size, data = d)
  whole <- svymean(~y, bands)
  p <- coef(whole)[[1]]; v <- vcov(whole)[1, 1]
  neff <- p * (1 - p) / v
  kg <- c(qbeta(0.025, neff * p, neff * (1 - p) + 1), qbeta(0.975, neff * p + 1, neff * (1 - p)))
  svy <- as.numeric(attr(svyciprop(~y, bands, method = "beta", level = 0.95), "ci"))
  cell_counts <- function(part) vapply(seq_along(cs$N_in), function(h) {
    sel <- d$band == h & d$part == part
    c(sum(sel), sum(d$y[sel]))
  }, numeric(2))
  inside <- cell_counts("in"); outside <- cell_counts("out")
  jobj(c(N_in = jarr(jint(cs$N_in), 10L, "      "), N_out = jarr(jint(cs$N_out), 10L, "      "),
         m_in = jarr(jint(inside[1, ]), 10L, "      "), k_in = jarr(jint(inside[2, ]), 10L, "      "),
         m_out = jarr(jint(outside[1, ]), 10L, "      "), k_out = jarr(jint(outside[2, ]), 10L, "      "),
         list_total = jnum1(coef(total)[[1]]), list_total_variance = jnum1(vcov(total)[1, 1]),
         proportion = jnum1(p), proportion_variance = jnum1(v),
         korn_graubard = jarr(jnum(kg), 2L, "      "), svyciprop_beta = jarr(jnum(svy), 2L, "      ")), "    ")
})
strata_json <- jobj(c(
  description = jstr(paste("Cells of a list (N_in, sampled m_in with k_in TPs per band) and of the rest of each band",
                           "(N_out, m_out, k_out): the list's total TPs and its variance (svytotal, cells as strata);",
                           "the whole set's proportion and variance (svymean, bands as strata); Korn & Graubard's",
                           "bounds at level 0.95 from them; svyciprop(method = 'beta')'s own (df-scaled) bounds")),
  cases = jlist(blocks, "    ")
), "  ")

# prop.test(correct = FALSE): Pearson's chi-square of two proportions = the two-sample score test (two-sided)
two <- rbind(c(12, 40, 5, 38), c(30, 100, 30, 100), c(0, 25, 6, 30), c(17, 21, 3, 19), c(50, 400, 71, 380))
pt <- apply(two, 1, function(r) suppressWarnings(prop.test(c(r[1], r[3]), c(r[2], r[4]), correct = FALSE)$p.value))
score_json <- jobj(c(
  description = jstr("prop.test(c(x1, x2), c(n1, n2), correct = FALSE)$p.value"),
  x1 = jarr(jint(two[, 1]), 10L, "    "), n1 = jarr(jint(two[, 2]), 10L, "    "),
  x2 = jarr(jint(two[, 3]), 10L, "    "), n2 = jarr(jint(two[, 4]), 10L, "    "),
  p_value = jarr(jnum(pt), 4L, "    ")
), "  ")

header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_strata_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_strata_reference.R (from the repository root)"),
  r_version = jstr(R.version.string),
  survey_version = jstr(as.character(packageVersion("survey"))),
  date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC"))
), "  ")
json <- jobj(c(header = header, stratified = strata_json, score_test = score_json))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat(sprintf("wrote %s: %d stratified cases, %d score tests\n", out_path, length(cases), nrow(two)))
