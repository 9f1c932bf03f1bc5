# Writes the small R data files used by tests/test_io.py.
# Run from the repository root:  Rscript tests/data/make_r_fixtures.R
# The values must match REFERENCE in tests/test_io.py.
cands <- data.frame(
  PP = c("in:Frage", "zur:Verf\u00fcgung", "mit:Hilfe", "auf:Tisch", "unter:Druck"),
  verb = factor(c("kommen", "stellen", "kommen", "legen", "setzen")),
  is.colloc = c(TRUE, TRUE, FALSE, FALSE, TRUE),
  freq = c(30L, 120L, 45L, 33L, 61L),
  log.like = c(12.5, 300.25, NaN, -Inf, 0.125),
  stringsAsFactors = FALSE
)
other <- data.frame(x = 1:3, y = c("a", "b", "c"))
note <- "two data frames and a character vector"

saveRDS(cands, "tests/data/small.rds")
save(cands, file = "tests/data/small.rda")
save(cands, other, note, file = "tests/data/multi.rda")
saveRDS(c(1.5, 2.5), "tests/data/vector.rds")
