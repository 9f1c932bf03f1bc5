# Reference values from R for tests/test_agreement.py: Cohen's kappa with its large-sample interval
# (vcd::Kappa, confint), Fleiss' kappa (irr::kappam.fleiss) and its interval with Gwet's variance,
# also with missing ratings (irrCAC::fleiss.kappa.raw).
#
# Usage (from the repository root):
#     Rscript tests/r/generate_agreement_reference.R
# writes tests/reference/r_agreement_reference.json.
#
# Packages: vcd (Debian r-cran-vcd), irr 0.84.1 and irrCAC 1.0 (CRAN source packages; not in
# Debian: install with R CMD INSTALL, irr needs Debian's r-cran-lpsolve). Set R_LIBS to where they
# are if not in the default library. The test suite does not need R.
#
# Ratings are written as integer codes 1..q (NA = missing); the Python side uses them as labels.
# The first Fleiss case is Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses
# (irr's data set `diagnoses`); the paper gives kappa = .430.

suppressPackageStartupMessages({library(vcd); library(irr); library(irrCAC)})
RNGkind("Mersenne-Twister", "Inversion", "Rejection")
out_path <- file.path("tests", "reference", "r_agreement_reference.json")
if (!dir.exists(dirname(out_path))) stop("run this script from the repository root")
source(file.path("tests", "r", "json.R"))
levels_ <- c(0.9, 0.95, 0.99)

# ------------------------------------------------------------------------------------ Cohen
cohen_case <- function(a, b, q) {
  tab <- table(factor(a, levels = 1:q), factor(b, levels = 1:q))
  k <- Kappa(tab)
  cis <- lapply(levels_, function(l) confint(k, level = l)[1, ])
  jobj(c(a = jarr(jint(a), 20L, "      "), b = jarr(jint(b), 20L, "      "),
         kappa = jnum1(k$Unweighted[["value"]]), se = jnum1(k$Unweighted[["ASE"]]),
         conf_level = jarr(jnum(levels_)),
         low = jarr(jnum(vapply(cis, `[`, numeric(1), 1))), high = jarr(jnum(vapply(cis, `[`, numeric(1), 2)))),
       "    ")
}
set.seed(1960)
cohen <- character(0)
for (i in 1:40) {
  q <- sample(2:4, 1)
  n <- sample(c(8, 20, 50, 200, 1000), 1)
  a <- sample(1:q, n, replace = TRUE, prob = runif(q))
  agree <- runif(1)
  b <- ifelse(runif(n) < agree, a, sample(1:q, n, replace = TRUE))
  if (length(unique(c(a, b))) < 2) next
  cohen <- c(cohen, cohen_case(a, b, q))
}

# ----------------------------------------------------------------------------------- Fleiss
fleiss_case <- function(r, source) {
  est <- fleiss.kappa.raw(r)$est
  cis <- lapply(levels_, function(l) {
    e <- fleiss.kappa.raw(r, conflev = l)$est
    as.numeric(strsplit(gsub("[()]", "", e$conf.int), ",")[[1]])
  })
  # irrCAC returns the bounds as text rounded to 3 digits and the se rounded to 5: both are kept, and
  # the se is also recomputed unrounded by gwet_se (irrCAC's own lines)
  kappa <- (est$pa - est$pe) / (1 - est$pe)
  complete <- all(!is.na(r))
  irr_kappa <- if (complete) kappam.fleiss(r)$value else NA_real_
  jobj(c(source = jstr(source), ratings = jarr(jnum(as.vector(t(r))), 24L, "      "),
         raters = jint(ncol(r)), kappa = jnum1(kappa), irr_kappa = jnum1(irr_kappa),
         pa = jnum1(est$pa), pe = jnum1(est$pe), se_rounded = jnum1(est$coeff.se),
         conf_level = jarr(jnum(levels_)),
         low_rounded = jarr(jnum(vapply(cis, `[`, numeric(1), 1))),
         high_rounded = jarr(jnum(vapply(cis, `[`, numeric(1), 2))),
         se = jnum1(gwet_se(r))), "    ")
}
# irrCAC::fleiss.kappa.raw's variance, unrounded (its est$coeff.se is rounded to 5 digits):
# the lines of its source that compute var.fleiss, for unweighted kappa, N = Inf.
gwet_se <- function(ratings) {
  ratings.mat <- as.matrix(ratings)
  n <- nrow(ratings.mat); r <- ncol(ratings.mat)
  categ <- sort(unique(na.omit(as.vector(ratings.mat)))); q <- length(categ)
  weights.mat <- diag(q)
  agree.mat <- matrix(0, nrow = n, ncol = q)
  for (k in 1:q) {
    categ.is.k <- (ratings.mat == categ[k])
    agree.mat[, k] <- (replace(categ.is.k, is.na(categ.is.k), FALSE)) %*% rep(1, r)
  }
  agree.mat.w <- t(weights.mat %*% t(agree.mat))
  ri.vec <- agree.mat %*% rep(1, q)
  sum.q <- (agree.mat * (agree.mat.w - 1)) %*% rep(1, q)
  n2more <- sum(ri.vec >= 2)
  pa <- sum(sum.q[ri.vec >= 2] / ((ri.vec * (ri.vec - 1))[ri.vec >= 2])) / n2more
  pi.vec <- t(t(rep(1 / n, n)) %*% (agree.mat / (ri.vec %*% t(rep(1, q)))))
  pe <- sum(weights.mat * (pi.vec %*% t(pi.vec)))
  fleiss.kappa <- (pa - pe) / (1 - pe)
  den.ivec <- ri.vec * (ri.vec - 1)
  den.ivec <- den.ivec - (den.ivec == 0)
  pa.ivec <- sum.q / den.ivec
  pe.r2 <- pe * (ri.vec >= 2)
  kappa.ivec <- (n / n2more) * (pa.ivec - pe.r2) / (1 - pe)
  pi.vec.w <- (weights.mat %*% pi.vec + t(weights.mat) %*% pi.vec) / 2
  pe.ivec <- (agree.mat %*% pi.vec.w) / ri.vec
  kappa.ivec.x <- kappa.ivec - 2 * (1 - fleiss.kappa) * (pe.ivec - pe) / (1 - pe)
  stopifnot(abs(fleiss.kappa - (fleiss.kappa.raw(ratings)$est$pa - fleiss.kappa.raw(ratings)$est$pe) /
                  (1 - fleiss.kappa.raw(ratings)$est$pe)) < 1e-14)
  sqrt((1 / (n * (n - 1))) * sum((kappa.ivec.x - fleiss.kappa)^2))
}

data(diagnoses, package = "irr")
# the columns are factors whose level sets differ, so map the diagnoses (as text) to one code set
diag_text <- as.matrix(data.frame(lapply(diagnoses, as.character), stringsAsFactors = FALSE))
diag_codes <- matrix(match(diag_text, sort(unique(as.vector(diag_text)))), nrow(diag_text))
stopifnot(abs(kappam.fleiss(diag_codes)$value - kappam.fleiss(diagnoses)$value) < 1e-15)
fleiss <- c(fleiss_case(diag_codes, "Fleiss (1971), Table 1 (irr::diagnoses)"))
set.seed(1971)
for (i in 1:30) {
  q <- sample(2:3, 1); raters <- sample(3:6, 1); n <- sample(c(10, 30, 100, 400), 1)
  truth <- sample(1:q, n, replace = TRUE, prob = runif(q))
  acc <- runif(1, 0.3, 0.95)
  r <- sapply(1:raters, function(j) ifelse(runif(n) < acc, truth, sample(1:q, n, replace = TRUE)))
  if (i %% 2 == 0) {  # missing ratings, as when not every annotator marks every candidate
    r[matrix(runif(n * raters) < 0.3, n)] <- NA
    r <- r[rowSums(!is.na(r)) >= 2, , drop = FALSE]   # subjects rated by >= 2 (as Python keeps)
  }
  if (length(unique(na.omit(as.vector(r)))) < 2) next
  fleiss <- c(fleiss, fleiss_case(r, if (i %% 2 == 0) "random, 30% missing" else "random, complete"))
}

header <- jobj(c(
  generated_by = jstr("generated by tests/r/generate_agreement_reference.R \u2014 do not edit"),
  regenerate = jstr("Rscript tests/r/generate_agreement_reference.R (from the repository root)"),
  r_version = jstr(R.version.string), date = jstr(format(Sys.time(), "%Y-%m-%d", tz = "UTC")),
  packages = jstr(sprintf("vcd %s, irr %s, irrCAC %s", packageVersion("vcd"), packageVersion("irr"),
                          packageVersion("irrCAC")))
), "  ")
json <- jobj(c(header = header, cohen = jlist(cohen, "  "), fleiss = jlist(fleiss, "  ")))
con <- file(out_path, open = "w", encoding = "UTF-8")
writeLines(json, con)
close(con)
cat(sprintf("wrote %s: %d Cohen cases, %d Fleiss cases\n", out_path, length(cohen), length(fleiss)))
