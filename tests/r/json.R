# JSON writing helpers shared by the reference scripts (base R only; jsonlite is not needed).
# Numbers are written with 17 significant digits, so Python reads back exactly the doubles R had.

jnum <- function(x) {
  if (length(x) == 0L) return(character(0))
  vapply(as.numeric(x), function(v) {
    if (is.na(v)) "null"                      # NA and NaN
    else if (is.infinite(v)) if (v > 0) "\"Inf\"" else "\"-Inf\""
    else sprintf("%.17g", v)
  }, character(1))
}
jnum1 <- function(x) if (is.null(x)) "null" else jnum(x)[1L]
jint <- function(x) {
  stopifnot(all(x == round(x)), all(abs(x) < 2^53))
  sprintf("%.0f", x)
}
jstr <- function(s) {
  if (is.null(s)) return("null")
  stopifnot(length(s) > 0L)
  s <- gsub("\\\\", "\\\\\\\\", s)
  s <- gsub("\"", "\\\\\"", s)
  s <- gsub("\n", "\\\\n", s)
  paste0("\"", s, "\"")
}
jbool <- function(b) if (isTRUE(b)) "true" else "false"
jarr <- function(items, per_line = 4L, indent = "      ") {
  if (length(items) == 0L) return("[]")
  groups <- split(items, ceiling(seq_along(items) / per_line))
  lines <- vapply(groups, paste, character(1), collapse = ", ")
  paste0("[\n", indent, "  ",
         paste(lines, collapse = paste0(",\n", indent, "  ")),
         "\n", indent, "]")
}
jobj <- function(fields, indent = "") {
  inner <- paste0(indent, "  ", jstr(names(fields)), ": ", fields)
  paste0("{\n", paste(inner, collapse = ",\n"), "\n", indent, "}")
}
jlist <- function(objs, indent = "") {
  if (length(objs) == 0L) return("[]")
  paste0("[\n", indent, "  ",
         paste(objs, collapse = paste0(",\n", indent, "  ")),
         "\n", indent, "]")
}
