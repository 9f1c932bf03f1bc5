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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import ColumnError, ParameterError
from ..io.cells import FALSE_WORDS, LABEL_NAMES, LABEL_VOCABULARY, TRUE_WORDS

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
        The score columns (measures); by default every numeric column but the label.
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


def resolve(source: TableSource, schema: Mapping[str, str]) -> Roles:
    """Check the roles against ``schema`` (column -> "bool" | "number" | "text" | "other")."""
    columns = list(schema)
    label = source.label
    if label is None:
        label = next((c for c in columns if c.lower() in LABEL_NAMES), None)
        if label is None:
            raise ColumnError(f"{source.name}: no label column found (looked for {', '.join(LABEL_NAMES)}); name it")
    if label not in schema:
        raise ColumnError(f"{source.name}: there is no column {label!r}; the columns are {', '.join(columns)}")
    if schema[label] not in ("bool", "number", "text"):
        raise ColumnError(f"{source.name}: the label column {label!r} holds neither numbers nor text; use "
                          f"{LABEL_VOCABULARY}")
    measures = source.scores or tuple(c for c in columns if c != label and schema[c] == "number")
    if not measures:
        raise ColumnError(f"{source.name}: no numeric score column besides the label {label!r}")
    for m in measures:
        if m not in schema:
            raise ColumnError(f"{source.name}: no score column {m!r}; the columns are {', '.join(columns)}")
        if m == label:
            raise ColumnError(f"{source.name}: {m!r} is the label column; it cannot be a score as well")
        if schema[m] not in ("number", "text"):
            raise ColumnError(f"{source.name}: score column {m!r} does not hold numbers")
    unknown = [m for m in source.lower if m not in measures]
    if unknown:
        raise ColumnError(f"{source.name}: lower-is-better names {', '.join(map(repr, unknown))}, which are not "
                          "score columns")
    return Roles(label=label, label_kind=schema[label], measures=tuple(measures),
                 score_kinds={m: schema[m] for m in measures}, higher={m: m not in source.lower for m in measures})


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
        raise ColumnError(f"{source.name}: row {counts['first_bad_label'] + 1:,}, column {roles.label!r}: "
                          f"{counts['bad_label']:,} labels are not one of {LABEL_VOCABULARY}")
    for m in roles.measures:
        if counts[f"bad:{m}"]:
            raise ColumnError(f"{source.name}: row {counts[f'first_bad:{m}'] + 1:,}, column {m!r}: "
                              f"{counts[f'bad:{m}']:,} scores are not numbers")
    if counts["missing"] and not source.annotated_sample:
        raise ColumnError(f"{source.name}: row {counts['first_missing'] + 1:,}, column {roles.label!r}: "
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


def schema_kind(type_name: str) -> str:
    """"bool", "number", "text" or "other" for a DuckDB or Spark/Arrow type name."""
    t = type_name.lower()
    if t.startswith("bool"):
        return "bool"
    if any(t.startswith(p) for p in ("tinyint", "smallint", "int", "bigint", "hugeint", "utinyint", "usmallint",
                                     "uinteger", "ubigint", "uhugeint", "float", "double", "real", "decimal",
                                     "long", "short", "byte", "uint")):
        return "number"
    if t.startswith(("varchar", "string", "text", "char", "large_string", "utf8")):
        return "text"
    return "other"


def measures_in(roles: Roles, measures: Sequence[str] | None) -> tuple[str, ...]:
    if not measures:
        return roles.measures
    unknown = [m for m in measures if m not in roles.measures]
    if unknown:
        raise ColumnError(f"no score column {unknown[0]!r}; the score columns are {', '.join(roles.measures)}")
    return tuple(measures)
