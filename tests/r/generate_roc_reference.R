# Generate reference values from R's pROC for tests/test_roc.py.
#
# Usage (from the repository root):
#     Rscript tests/r/generate_roc_reference.R
# writes tests/reference/r_roc_reference.json.
#
# Needs the package pROC (Debian: apt-get install r-cran-proc). The test suite only reads
# the JSON file, so running the tests never needs R.
#
# Every ROC curve is built as
#     roc(response = labels, predictor = scores, levels = c(0, 1), direction = d, quiet = TRUE)
# with 0 = FP (pROC's "controls") and 1 = TP ("cases"), and direction "<" when higher
# scores are better (controls < cases) or ">" when lower scores are better. The direction
# is always given: pROC's default "auto" would choose it from the medians.
#
# Sections
#   datasets : small data sets made here (seeded), stored with their labels and scores so
#              that Python ranks exactly the same numbers. Per data set and measure:
#              auc(r); ci.auc(r, conf.level = cl, method = "delong") for several levels
#              (low and high; pROC's middle value is the AUC); and for every pair of
#              measures roc.test(r1, r2, method = "delong", paired = TRUE): statistic (Z)
#              and p.value (two-sided).
#   krenn    : the same for Krenn's PP-verb data (../shared/data/krenn_ppv.tsv, label
#              is.colloc, read only; only results are stored, never the data).

suppressPackageStartupMessages(library(pROC))
RNGkind("Mersenne-Twister", "Inversion", "Rejection")  # stable across R versions

out_path <- file.path("tests", "reference", "r_roc_reference.json")
if (!dir.exists(dirname(out_path))) {
  stop("run this script from the repository root (tests/reference/ not found)")
}
source(file.path("tests", "r", "json.R"))  # jnum, jint, jstr, jarr, jobj, jlist, ...

levels_ci <- c(0.8, 0.9, 0.95, 0.99)

make_roc <- function(labels, scores, higher) {
  roc(response = labels, predictor = scores, levels = c(0, 1),
      direction = if (higher) "<" else ">", quiet = TRUE)
}

results_json <- function(labels, measures, indent) {
  rocs <- lapply(measures, function(m) make_roc(labels, m$scores, m$higher))
  names(rocs) <- vapply(measures, function(m) m$name, character(1))
  aucs <- vapply(rocs, function(r) as.numeric(auc(r)), numeric(1))
  ci_blocks <- lapply(levels_ci, function(cl) {
    ci <- vapply(rocs, function(r) as.numeric(suppressWarnings(ci.auc(r, conf.level = cl, method = "delong"))),
                 numeric(3))
    jobj(c(conf_level = jnum(cl),
           low = jarr(jnum(ci[1, ]), 4L, paste0(indent, "    ")),
           high = jarr(jnum(ci[3, ]), 4L, paste0(indent, "    "))), paste0(indent, "    "))
  })
  pairs <- if (length(rocs) > 1) combn(length(rocs), 2) else matrix(0L, 2, 0)
  test_blocks <- lapply(seq_len(ncol(pairs)), function(k) {
    i <- pairs[1, k]; j <- pairs[2, k]
    tt <- suppressWarnings(roc.test(rocs[[i]], rocs[[j]], method = "delong", paired = TRUE))
    jobj(c(a = jstr(names(rocs)[i]), b = jstr(names(rocs)[j]),
           statistic = jnum1(unname(tt$statistic)), p_value = jnum1(tt$p.value)),
         paste0(indent, "    "))
  })
  c(auc = jarr(jnum(aucs), 4L, paste0(indent, "  ")),
    delong_ci = jlist(ci_blocks, paste0(indent, "  ")),
    delong_test = jlist(test_blocks, paste0(indent, "  ")))
}

datasets <- list()
add <- function(name, labels, measures, note = "") {
  labels <- as.integer(labels)
  stopifnot(all(labels %in% c(0L, 1L)), sum(labels) >= 2, sum(1L - labels) >= 2)
  mj <- lapply(measures, function(m) jobj(c(
    name = jstr(m$name), higher_is_better = jbool(m$higher),
    scores = jarr(jnum(m$scores), 6L, "          ")), "        "))
  datasets[[length(datasets) + 1L]] <<- jobj(c(
    name = jstr(name), note = jstr(note),
    labels = jarr(jint(labels), 30L, "      "),
    measures = jlist(mj, "      "),
    results_json(labels, measures, "    ")), "    ")
}
m <- function(name, scores, higher = TRUE) list(name = name, scores = as.numeric(scores), higher = higher)

# hand-made, with ties in both measures and across labels
add("hand_ties",
    c(1, 0, 1, 1, 0, 0, 1, 0, 0, 0),
    list(m("a", c(0.9, 0.8, 0.8, 0.7, 0.6, 0.6, 0.4, 0.3, 0.3, 0.1)),
         m("b", c(3, 5, 1, 2, 1, 2, 4, 1, 0, 0))),
    "ten candidates, ties within and across labels")

# the smallest case DeLong's variance allows: 2 TPs, 2 FPs
add("two_by_two", c(1, 0, 1, 0),
    list(m("a", c(4, 3, 2, 1)), m("b", c(1, 2, 4, 3))))

set.seed(20040823)
n <- 300
lab <- rbinom(n, 1, 0.25)
a <- rnorm(n, mean = 1.2 * lab)
b <- 0.7 * a + rnorm(n, sd = 0.7) + 0.3 * lab
p <- pnorm(-(0.5 * a + rnorm(n)))  # a p-value: lower is better
add("continuous", lab,
    list(m("a", a), m("b", b), m("p_value", p, higher = FALSE)),
    "correlated continuous scores; p_value is lower-is-better (direction '>')")

n <- 500
lab <- rbinom(n, 1, 0.1)
add("heavy_ties", lab,
    list(m("pois", pmin(4, rpois(n, 1 + 1.5 * lab))),
         m("round", round(2 * runif(n) + lab)),
         m("noise", sample(0:2, n, replace = TRUE)),
         m("rank", rank(-(lab + rnorm(n)), ties.method = "min"), higher = FALSE)),
    "integer scores with a handful of values; rank is lower-is-better")

n <- 2000
lab <- rbinom(n, 1, 0.05)
x <- rnorm(n, mean = 1.5 * lab)
add("rare_tps", lab,
    list(m("x", x), m("x_rounded", round(x, 1)), m("y", x + rnorm(n, sd = 1.5))),
    "about 5% TPs, as in the paper's setting")

add("perfect", c(rep(1, 6), rep(0, 6)),
    list(m("a", c(10:15, 1:6)), m("b", c(21:26, 11:16)), m("c", c(10:14, 2, 1, 3:6, 15))),
    "a and b separate perfectly: CI [1, 1], z = 0, p = 1 (pROC warns)")

# ------------------------------------------------------------------ Krenn's data
krenn_path <- file.path("..", "shared", "data", "krenn_ppv.tsv")
krenn_json <- "null"
if (file.exists(krenn_path)) {
  kr <- read.delim(krenn_path, check.names = FALSE, stringsAsFactors = FALSE)
  measures <- c("freq", "MI", "Dice", "z.score", "t.score", "chisq", "chisq.corr", "log.like", "Fisher")
  klab <- as.integer(as.logical(kr[["is.colloc"]]))
  stopifnot(!anyNA(klab), all(vapply(measures, function(v) all(is.finite(kr[[v]])), logical(1))))
  kms <- lapply(measures, function(v) m(v, kr[[v]]))
  krenn_json <- jobj(c(
    source = jstr("../shared/data/krenn_ppv.tsv"), label = jstr("is.colloc"),
    n_candidates = jint(length(klab)), n_tp = jint(sum(klab)),
    measures = jarr(jstr(measures), 5L, "    "),
    results_json(klab, kms, "  ")), "  ")
} else {
  message("../shared/data/krenn_ppv.tsv not found: the krenn section is left null")
}

# --------------------------------------------------------------------- write
header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_roc_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_roc_reference.R (from the repository root; needs pROC)"),
  r_version = jstr(R.version.string),
  proc_version = jstr(as.character(packageVersion("pROC"))),
  date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC")),
  seed = jstr("set.seed(20040823) with RNGkind('Mersenne-Twister', 'Inversion', 'Rejection')"),
  roc = jstr("roc(response = labels, predictor = scores, levels = c(0, 1), direction = '<' if higher_is_better else '>')"),
  number_format = jstr(paste(
    "doubles printed with sprintf('%.17g') (exact round trip);",
    "NaN/NA written as null, +-Inf as \"Inf\"/\"-Inf\""))
), "  ")

json <- jobj(c(
  header = header,
  datasets = jlist(datasets, "  "),
  krenn = krenn_json
))

con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con, useBytes = FALSE)
close(con)
cat(sprintf("wrote %s: %d data sets%s\n", out_path, length(datasets),
            if (krenn_json == "null") "" else " and Krenn's data"))
