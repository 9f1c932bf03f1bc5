"""A candidate set that stays on disk: a Parquet file, a folder of Parquet parts, or a CSV/TSV file.

The engines that read it (DuckDB, Spark) see the same thing: one row per candidate, numbered 0.. in file order (a
folder's parts in the order of their names), a label column and score columns. The label column uses the words
evalcore reads everywhere (:data:`evalcore.io.cells.LABEL_VOCABULARY`); an empty label is an unannotated candidate
where the set is an annotated sample, a row left out where unlabelled rows are excluded (one SQL filter; the rows
kept keep their numbers, so the hash of seed and row breaks ties as the memory engine's does), an error elsewhere.
The SQL that turns cells into labels and sort keys is written once here for both engines' dialects.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import ColumnError, FileFormatError, ParameterError
from ..text import cut, listed, shown
from ..io.cells import FALSE_WORDS, LABEL_NAMES, LABEL_VOCABULARY, TRUE_WORDS, key_like_name

PARQUET_SUFFIXES = (".parquet", ".pq")
ROW = "__evalcore_row"  # the 0-based row of each candidate in file order, added by the engines' scans
TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".csv.gz", ".tsv.gz", ".txt.gz")


def quote(name: str) -> str:
    """A column name as a quoted SQL identifier (both dialects: DuckDB "...", Spark `...`)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class TableSource:
    """A candidate set on disk and the roles of its columns.

    Parameters
    ----------
    path : str or Path
        A Parquet file, a folder of ``*.parquet`` parts, or a CSV/TSV file (optionally gzip-compressed).
    label : str, optional
        The label column; by default the first of :data:`evalcore.io.cells.LABEL_NAMES` present.
    scores : sequence of str, optional
        The score columns (measures); by default every numeric column but the label and the keys: a column named
        like one (:func:`evalcore.io.cells.key_like_name`) or holding distinct integers (a candidate's id).
    lower : sequence of str
        Measures where a lower score is better.
    annotated_sample : bool
        Empty labels mark unannotated candidates (a partly annotated set) instead of an error.
    exclude_unlabelled : bool
        Rows with an empty label are left out (counted, as ``excluded`` of the checks) instead of an error, as the
        memory engine's ``exclude_unlabelled``.
    name : str, optional
        The name shown in messages (default: the file or folder name, never the server's path).
    """

    path: Path
    label: str | None = None
    scores: tuple[str, ...] = ()
    lower: tuple[str, ...] = ()
    annotated_sample: bool = False
    name: str = ""
    exclude_unlabelled: bool = False
    _files: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        path = Path(self.path)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "scores", tuple(self.scores or ()))
        object.__setattr__(self, "lower", tuple(self.lower or ()))
        if not self.name:
            object.__setattr__(self, "name", path.name)
        if self.annotated_sample and self.exclude_unlabelled:
            raise ParameterError(f"{self.name}: leaving out the rows with an empty label and reading them as "
                                 "unannotated candidates of a sample exclude each other; choose one")
        if path.is_dir():
            parts = sorted(p for p in path.iterdir() if p.name.lower().endswith(PARQUET_SUFFIXES) and p.is_file())
            if not parts:
                raise ParameterError(f"{self.name}: the folder holds no Parquet parts (*.parquet)")
            files = tuple(parts)
        elif path.is_file():
            if not path.name.lower().endswith(PARQUET_SUFFIXES + TEXT_SUFFIXES):
                raise ParameterError(f"{self.name}: the engines read Parquet (a file or a folder of parts) and CSV/TSV; "
                                     "convert the file to Parquet")
            files = (path,)
            if path.stat().st_size == 0:
                raise FileFormatError(f"{self.name} is empty (0 bytes): a copy may have just begun. Open it again "
                                      "once it is complete.")
        else:
            raise ParameterError(f"{self.name}: no such file or folder")
        object.__setattr__(self, "_files", files)

    @property
    def files(self) -> tuple[Path, ...]:
        return self._files

    @property
    def format(self) -> str:
        return "parquet" if self.files[0].name.lower().endswith(PARQUET_SUFFIXES) else "csv"

    @property
    def delimiter(self) -> str | None:
        name = self.files[0].name.lower()
        return "\t" if name.endswith((".tsv", ".tsv.gz")) else None

    def size_bytes(self) -> int:
        return sum(os.stat(f).st_size for f in self.files)

    def with_roles(self, **changes) -> "TableSource":
        values = {"path": self.path, "label": self.label, "scores": self.scores, "lower": self.lower,
                  "annotated_sample": self.annotated_sample, "name": self.name,
                  "exclude_unlabelled": self.exclude_unlabelled, **changes}
        return TableSource(**values)


@dataclass(frozen=True)
class Roles:
    """The columns resolved against the file's schema: label, measures, and how to read each."""

    label: str
    label_kind: str  # "bool", "number" or "text"
    measures: tuple[str, ...]
    score_kinds: Mapping[str, str]
    higher: Mapping[str, bool]
    left_out: tuple[tuple[str, str], ...] = ()  # numeric columns not taken as scores, and why (io.roles.KEY_REASONS)


def resolve(source: TableSource, schema: Mapping[str, str], keys: Mapping[str, str] | None = None) -> Roles:
    """Check the roles against ``schema`` (column -> "bool" | "number" | "text" | "other").

    Without named scores, the numeric columns but the label are, less the keys: those named like one and those in
    ``keys`` (column -> reason, e.g. ``"distinct"`` from :func:`distinct_integers`), listed in ``Roles.left_out``.
    """
    columns = list(schema)
    label = source.label
    if label is None:
        label = next((c for c in columns if c.lower() in LABEL_NAMES), None)
        if label is None:
            raise ColumnError(f"{source.name}: no label column found (looked for {', '.join(LABEL_NAMES)}; the columns "
                              f"are {listed(columns)}); name it")
    if label not in schema:
        raise ColumnError(f"{source.name}: there is no column {shown(label)}; the columns are {listed(columns, cut)}")
    if schema[label] not in ("bool", "number", "text"):
        raise ColumnError(f"{source.name}: the label column {shown(label)} holds no single values (booleans, numbers or text; "
                          "it holds lists, structures, intervals, dates or the like); use "
                          f"{LABEL_VOCABULARY}")
    numeric = [c for c in columns if c != label and schema[c] == "number"]
    left_out = () if source.scores else tuple(
        (c, "name" if key_like_name(c) else (keys or {})[c]) for c in numeric
        if key_like_name(c) or c in (keys or {}))
    measures = source.scores or tuple(c for c in numeric if c not in dict(left_out))
    if not measures:
        kept_out = ("; the numeric columns " + listed([c for c, _ in left_out]) + " are keys (named like one or "
                    "holding distinct integers): name the score columns") if left_out else ""
        raise ColumnError(f"{source.name}: no numeric score column besides the label {shown(label)} (a score column holds "
                          f"single numbers, not lists, structures or intervals){kept_out}")
    for m in measures:
        if m not in schema:
            raise ColumnError(f"{source.name}: no score column {shown(m)}; the columns are {listed(columns, cut)}")
        if m == label:
            raise ColumnError(f"{source.name}: {shown(m)} is the label column; it cannot be a score as well")
        if schema[m] not in ("number", "text"):
            raise ColumnError(f"{source.name}: score column {shown(m)} does not hold single numbers")
    unknown = [m for m in source.lower if m not in measures]
    if unknown:
        raise ColumnError(f"{source.name}: lower-is-better names {listed(unknown)}, which are not "
                          "score columns")
    return Roles(label=label, label_kind=schema[label], measures=tuple(measures),
                 score_kinds={m: schema[m] for m in measures}, higher={m: m not in source.lower for m in measures},
                 left_out=left_out)


def integer_type(type_name: str) -> bool:
    """Whether a DuckDB or Spark/Arrow type name is an integer type (a candidate's id may be one)."""
    t = type_name.lower()
    return t.startswith(("tinyint", "smallint", "int", "bigint", "hugeint", "utinyint", "usmallint", "uinteger",
                         "ubigint", "uhugeint", "long", "short", "byte", "uint"))


def id_candidates(source: TableSource, types: Mapping[str, str]) -> list[str]:
    """The integer columns whose values :func:`distinct_integers` must look at: none when the scores are named;
    not the label (given or named like one), nor a column already a key by its name."""
    if source.scores:
        return []
    return [c for c, t in types.items() if c != ROW and c != source.label and c.lower() not in LABEL_NAMES
            and integer_type(t) and not key_like_name(c)]


def distinct_sql(columns: Sequence[str], d: "Dialect") -> list[str]:
    """Aggregates (four per column) that :func:`distinct_integers` reads: min, max, count, approximate distinct count."""
    out = []
    for c in columns:
        q = d.quote(c)
        out += [f"min({q})", f"max({q})", f"count({q})", f"approx_count_distinct({q})"]
    return out


def distinct_integers(columns: Sequence[str], values: Sequence) -> dict[str, str]:
    """The columns holding distinct integers that number the candidates, from :func:`distinct_sql`'s values, by
    the rule of the memory engine's readers (:func:`evalcore.io.roles.key_reason`): at least
    :data:`~evalcore.io.roles.ID_MIN_ROWS` cells, as many possible values in their range as cells, and an estimated
    distinct count (HyperLogLog, a few percent off) of at least 90% of the cells (a score with integer values has
    ties: counts, frequencies, grades)."""
    from ..io.roles import ID_MIN_ROWS

    found = {}
    for i, c in enumerate(columns):
        low, high, count, approx = values[4 * i: 4 * i + 4]
        if count and count >= ID_MIN_ROWS and int(high) - int(low) + 1 >= count and approx >= 0.9 * count:
            found[c] = "distinct"
    return found


# ------------------------------------------------------------------------------------------- read errors
# What an engine says when a file does not read, in words: (pattern of its message, lower case; what it means).
_READ_ERRORS = (
    (re.compile(r"no magic bytes|too small to be a parquet file|not a parquet file|invalid parquet|parquet magic|"
                r"footer|magic number"),
     "not a complete Parquet file (it does not end in a Parquet footer): a copy may still be in progress, or the "
     "file is in another format though its name ends in .parquet. Wait until the copy is complete, or convert the "
     "file to Parquet"),
    (re.compile(r"not a gzip stream|gzip|zlib|inflate"),
     "not gzip-compressed text, though its name ends in .gz. Compress it with gzip, or leave .gz out of its name"),
    (re.compile(r"invalid unicode|utf-?8|byte sequence"),
     "not UTF-8 text; save it as UTF-8 (or convert it to Parquet)"),
    (re.compile(r"sniff|csv error|dialect|maximum line size|unterminated quote"),
     "not a table of CSV/TSV text that can be read (no consistent delimiter, quoting and number of fields in its "
     "lines: is it text at all?). Check the file, or convert it to Parquet"),
    (re.compile(r"out of memory|could not allocate"),
     "more than the memory this server lets the engine use; ask the host for more (EVALCORE_DUCKDB_MEMORY)"),
    (re.compile(r"no space left"),
     "not readable now: the disk for the engine's temporary files is full; try again later"),
)
_CSV_LINE = re.compile(r"csv error on line: *(\d+)", re.IGNORECASE)
_CSV_CONVERT = re.compile(r'converting column "(.*?)"\. *could not convert string "(.*?)" to \W*(\w+)',
                          re.IGNORECASE | re.DOTALL)
_CSV_FIELDS = re.compile(r"expected number of columns: *(\d+) *found: *(\d+)", re.IGNORECASE)
# An absolute path left in an engine's message (after the source's own files were named): never shown
_ABSOLUTE_PATH = re.compile(r"""(?<![\w.~-])(?:/|[A-Za-z]:\\)[^\s'"`]*""")


def _content_problem(path: Path, expected: str) -> str | None:
    """What the first bytes of ``path`` say is wrong with it as ``expected`` ("parquet" or "csv"), or None."""
    from ..io.formats import FORMATS, compression_of, extension, sniff_format

    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return None
    if not head:
        return "empty (0 bytes): a copy may have just begun. Open it again once it is complete"
    if path.name.lower().endswith(".gz"):
        return None  # (compressed: the engine's words say whether it is gzip, and what is inside)
    packed = compression_of(head)
    found = None if packed else sniff_format(head)
    want = "Parquet" if expected == "parquet" else "CSV/TSV text"
    if packed:
        return f"{packed}-compressed, though its name does not say so; add .gz to its name (or uncompress it)"
    if found == "parquet" and expected == "parquet":
        return None  # (it begins as Parquet: the engine's words say what is wrong, e.g. no footer)
    if found == "text" and expected == "parquet":
        return "text, not Parquet as its name says; if it is CSV or TSV, name it .csv or .tsv"
    if found not in (None, "text"):
        return (f"an {FORMATS[found].title}, not {want} as its name says ({extension(path.name) or 'no extension'}); "
                f"name it {FORMATS[found].extensions[0]}")
    if found is None and expected != "parquet":
        return "binary content, not CSV/TSV text (it has NUL bytes, which text never has); check what the file is"
    return None


def read_error(source: TableSource, error: BaseException) -> FileFormatError:
    """An engine's failure to read ``source`` as a message in words: it names the file (or the part of a folder)
    by its name (:attr:`TableSource.name`), says what is wrong and what to do, and shows no path of the machine and
    none of the engine's SQL (where nothing known fits, the engine's own words: its first line, the paths taken
    out, cut to 200 characters; names and values quoted from the file cut by :func:`evalcore.text.shown`)."""
    text = str(error)
    part = next((f for f in source.files if str(f) in text), None)
    where = source.name if part is None or part == source.path else f"{source.name} (part {part.name})"
    line = _CSV_LINE.search(text)
    if line:
        at = f"{where}, line {int(line.group(1)):,}"
        convert, fields = _CSV_CONVERT.search(text), _CSV_FIELDS.search(text)
        if convert:
            column, value, kind = convert.groups()
            return FileFormatError(f"{at}, column {shown(column)}: {shown(value)} cannot be read as {kind.upper()}, "
                                   "the type the lines before it have in that column. Correct the value, or convert "
                                   "the file to Parquet with the column's type set.")
        if fields:
            expected, found = (int(g) for g in fields.groups())
            return FileFormatError(f"{at}: {found:,} fields where the lines before it have {expected:,}. Every line "
                                   "needs as many fields as the header (quote a field that holds the delimiter).")
        return FileFormatError(f"{at}: not a line of CSV/TSV text that can be read. Check the file there, or "
                               "convert the file to Parquet.")
    content = _content_problem(part or source.files[0], source.format)
    if content:
        return FileFormatError(f"{where} is {content}.")
    lower = text.lower()
    for pattern, meaning in _READ_ERRORS:
        if pattern.search(lower):
            return FileFormatError(f"{where} is {meaning}.")
    first = text.strip().split("\n", 1)[0]
    for f in sorted(source.files, key=lambda f: -len(str(f))):
        first = first.replace(str(f), f.name)
    first = _ABSOLUTE_PATH.sub("…", first.replace(str(source.path), source.name))
    return FileFormatError(f"{where} cannot be read: {cut(first, 200)}")


# ------------------------------------------------------------------------------------------- SQL
class Dialect:
    """What differs between DuckDB's and Spark's SQL in the expressions below."""

    def __init__(self, name: str) -> None:
        self.name = name

    def try_double(self, expr: str) -> str:
        return f"TRY_CAST({expr} AS DOUBLE)"

    def finite(self, expr: str) -> str:
        if self.name == "duckdb":
            return f"isfinite({expr})"
        return f"({expr} IS NOT NULL AND NOT isnan({expr}) AND abs({expr}) != double('inf'))"

    def infinity(self) -> str:
        return "'inf'::DOUBLE" if self.name == "duckdb" else "double('inf')"

    def quote(self, name: str) -> str:
        if self.name == "spark":
            return "`" + name.replace("`", "``") + "`"
        return quote(name)


def _words(words) -> str:
    return ", ".join(literal(w) for w in sorted(words))


def label_sql(roles: Roles, d: Dialect) -> dict[str, str]:
    """SQL for the label column: ``value`` (TRUE/FALSE, NULL where missing or bad), ``missing``, ``bad``."""
    c = d.quote(roles.label)
    if roles.label_kind == "bool":
        return {"value": c, "missing": f"({c} IS NULL)", "bad": "FALSE"}
    if roles.label_kind == "number":
        x = f"CAST({c} AS DOUBLE)"
        missing = f"({c} IS NULL OR isnan({x}))"
        return {"value": f"(CASE WHEN {x} = 1 THEN TRUE WHEN {x} = 0 THEN FALSE END)", "missing": missing,
                "bad": f"(NOT {missing} AND {x} != 1 AND {x} != 0)"}
    t = f"lower(trim({c}))"
    number = d.try_double(t)
    true = f"({t} IN ({_words(TRUE_WORDS)}) OR coalesce({number} = 1, FALSE))"
    false = f"({t} IN ({_words(FALSE_WORDS)}) OR coalesce({number} = 0, FALSE))"
    missing = f"({c} IS NULL OR {t} IN ('', 'na'))"
    return {"value": f"(CASE WHEN {true} THEN TRUE WHEN {false} THEN FALSE END)", "missing": missing,
            "bad": f"(NOT {missing} AND NOT {true} AND NOT {false})"}


def score_sql(roles: Roles, measure: str, d: Dialect) -> dict[str, str]:
    """SQL for one score: ``value`` (DOUBLE, NULL where missing), ``bad`` (text that is not a number)."""
    c = d.quote(measure)
    if roles.score_kinds[measure] == "number":
        return {"value": f"CAST({c} AS DOUBLE)", "bad": "FALSE"}
    t = f"trim({c})"
    value = d.try_double(t)
    return {"value": value, "bad": f"({c} IS NOT NULL AND {t} != '' AND {value} IS NULL)"}


def key_sql(score: str, higher: bool, d: Dialect) -> str:
    """The sort key of a score: ascending = best first; non-finite and missing scores +inf (last, one group).

    ``+ 0.0`` turns -0.0 into 0.0, so that 0 and -0 are one tie group, as in NumPy.
    """
    signed = f"(-({score}))" if higher else f"({score})"
    return f"(CASE WHEN {d.finite(score)} THEN {signed} + 0.0 ELSE {d.infinity()} END)"


def check_counts(source: TableSource, roles: Roles, counts: Mapping[str, int | None]) -> dict[str, int | None]:
    """Refuse bad labels and scores, and empty labels outside an annotated sample, naming row and column; returns the
    counts of the rows kept.

    ``counts`` holds ``rows``, ``bad_label``, ``first_bad_label`` (0-based row or None), ``missing``,
    ``first_missing``, and for each measure ``bad:<m>``, ``first_bad:<m>`` and ``nonfinite:<m>``, over the rows kept
    (:func:`check_sql`) but ``missing``, over every row. Where the source excludes unlabelled rows, those are the
    returned ``excluded``, and ``missing`` is 0 (none of the rows kept lacks a label).
    """
    counts = dict(counts)
    if source.exclude_unlabelled:
        counts["excluded"], counts["missing"], counts["first_missing"] = counts["missing"], 0, None
    else:
        counts["excluded"] = 0
    if counts["bad_label"]:
        raise ColumnError(f"{source.name}: row {counts['first_bad_label'] + 1:,}, column {shown(roles.label)}: "
                          f"{counts['bad_label']:,} labels are not one of {LABEL_VOCABULARY}")
    for m in roles.measures:
        if counts[f"bad:{m}"]:
            raise ColumnError(f"{source.name}: row {counts[f'first_bad:{m}'] + 1:,}, column {shown(m)}: "
                              f"{counts[f'bad:{m}']:,} scores are not numbers")
    if counts["missing"] and not source.annotated_sample:
        raise ColumnError(f"{source.name}: row {counts['first_missing'] + 1:,}, column {shown(roles.label)}: "
                          f"{counts['missing']:,} labels are empty; if the set is an annotated random sample, open it "
                          "as one (--annotated-sample): the empty labels are then unannotated candidates")
    if counts["rows"] == 0:
        if counts["excluded"]:
            raise ColumnError(f"{source.name}: every one of the {counts['excluded']:,} rows has an empty label in "
                              f"column {roles.label!r}, so leaving them out leaves nothing")
        raise ColumnError(f"{source.name}: the table has no rows")
    return counts


def kept_sql(source: TableSource, roles: Roles, d: Dialect) -> str:
    """The SQL condition of the rows the engines count: every row, or those with a label
    (``exclude_unlabelled``)."""
    return f"NOT {label_sql(roles, d)['missing']}" if source.exclude_unlabelled else "TRUE"


def check_sql(roles: Roles, d: Dialect, kept: str = "TRUE") -> list[tuple[str, str]]:
    """(name, aggregate SQL) pairs whose values :func:`check_counts` reads (over a scan with :data:`ROW`): over the
    rows where ``kept`` holds (:func:`kept_sql`), but ``missing``, over every row."""
    lab = label_sql(roles, d)

    def among(condition: str) -> str:
        return condition if kept == "TRUE" else f"({kept}) AND {condition}"

    out = [("rows", f"sum(CASE WHEN {kept} THEN 1 ELSE 0 END)"),
           ("bad_label", f"sum(CASE WHEN {among(lab['bad'])} THEN 1 ELSE 0 END)"),
           ("first_bad_label", f"min(CASE WHEN {among(lab['bad'])} THEN {ROW} END)"),
           ("missing", f"sum(CASE WHEN {lab['missing']} THEN 1 ELSE 0 END)"),
           ("first_missing", f"min(CASE WHEN {lab['missing']} THEN {ROW} END)")]
    for i, m in enumerate(roles.measures):
        bad = score_sql(roles, m, d)["bad"]
        out.append((f"bad:{m}", f"sum(CASE WHEN {among(bad)} THEN 1 ELSE 0 END)"))
        out.append((f"first_bad:{m}", f"min(CASE WHEN {among(bad)} THEN {ROW} END)"))
        sc = score_sql(roles, m, d)["value"]
        nonfinite = f"(CASE WHEN {d.finite(sc)} THEN 0 ELSE 1 END)"  # (a missing score too: finite is NULL)
        out.append((f"nonfinite:{m}", f"sum({nonfinite})" if kept == "TRUE" else
                    f"sum(CASE WHEN {kept} THEN {nonfinite} ELSE 0 END)"))
    return out


def base_columns(roles: Roles, d: Dialect) -> list[str]:
    """The select list of the normalised table: :data:`ROW`, label, annotated and the sort keys ``k0, k1, ...``."""
    lab = label_sql(roles, d)
    cols = [ROW, f"coalesce({lab['value']}, FALSE) AS label", f"NOT {lab['missing']} AS annotated"]
    for i, m in enumerate(roles.measures):
        cols.append(f"{key_sql(score_sql(roles, m, d)['value'], roles.higher[m], d)} AS k{i}")
    return cols


# Scalar types by kind, as DuckDB, Spark (``simpleString``) and Arrow name them; anything else (lists, arrays,
# structs, maps, unions, intervals, dates, blobs, ...) is "other": never a score or a label. Matched whole, not by
# prefix: DuckDB's DOUBLE[] starts with "double" and INTERVAL with "int", Spark's "interval day to second" too.
_KINDS = {
    "bool": {"boolean", "bool", "logical"},
    "number": {"tinyint", "smallint", "integer", "int", "bigint", "hugeint", "utinyint", "usmallint", "uinteger",
               "ubigint", "uhugeint", "bignum", "varint", "float", "double", "real", "decimal", "numeric", "long", "short",
               "byte",
               "int1", "int2", "int4", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float4", "float8", "float16", "float32", "float64", "halffloat", "double precision"},
    "text": {"varchar", "string", "text", "char", "bpchar", "nvarchar", "large_string", "utf8", "large_utf8",
             "string_view"},
}
_SIZED = {"number": re.compile(r"(?:decimal|numeric)\(\s*\d+\s*(?:,\s*\d+\s*)?\)"),
          "text": re.compile(r"(?:varchar|char|nvarchar)\(\s*\d+\s*\)")}


def schema_kind(type_name: str) -> str:
    """"bool", "number", "text" or "other" for a DuckDB or Spark/Arrow type name: only scalar booleans, numbers and
    text are anything but "other" (``DOUBLE[]``, ``INTERVAL``, ``STRUCT(...)``, ``array<double>`` are "other").

    Examples
    --------
    >>> [schema_kind(t) for t in ("DOUBLE", "DECIMAL(18,3)", "DOUBLE[]", "INTERVAL", "STRUCT(x DOUBLE)", "VARCHAR")]
    ['number', 'number', 'other', 'other', 'other', 'text']
    """
    t = " ".join(str(type_name).lower().split())
    for kind, names in _KINDS.items():
        if t in names or (kind in _SIZED and _SIZED[kind].fullmatch(t)):
            return kind
    return "other"


def measures_in(roles: Roles, measures: Sequence[str] | None) -> tuple[str, ...]:
    if not measures:
        return roles.measures
    unknown = [m for m in measures if m not in roles.measures]
    if unknown:
        raise ColumnError(f"no score column {shown(unknown[0])}; the score columns are {listed(roles.measures, cut)}")
    return tuple(measures)
