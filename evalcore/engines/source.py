"""A candidate set that stays on disk: a Parquet file, a folder of Parquet parts, or a CSV/TSV file.

The engines that read it (DuckDB, Spark) see the same thing: one row per candidate, numbered 0.. in file order (a
folder's parts in the order of their names), a label column and score columns. The label column uses the words
evalcore reads everywhere (:data:`evalcore.io.cells.LABEL_VOCABULARY`); an empty label is an unannotated candidate
where the set is an annotated sample, an error elsewhere. The SQL that turns cells into labels and sort keys is
written once here for both engines' dialects.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import ColumnError, ParameterError
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
    name : str, optional
        The name shown in messages (default: the file or folder name, never the server's path).
    """

    path: Path
    label: str | None = None
    scores: tuple[str, ...] = ()
    lower: tuple[str, ...] = ()
    annotated_sample: bool = False
    name: str = ""
    _files: tuple = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        path = Path(self.path)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "scores", tuple(self.scores or ()))
        object.__setattr__(self, "lower", tuple(self.lower or ()))
        if not self.name:
            object.__setattr__(self, "name", path.name)
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
                  "annotated_sample": self.annotated_sample, "name": self.name, **changes}
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
            raise ColumnError(f"{source.name}: no label column found (looked for {', '.join(LABEL_NAMES)}); name it")
    if label not in schema:
        raise ColumnError(f"{source.name}: there is no column {label!r}; the columns are {', '.join(columns)}")
    if schema[label] not in ("bool", "number", "text"):
        raise ColumnError(f"{source.name}: the label column {label!r} holds neither numbers nor text; use "
                          f"{LABEL_VOCABULARY}")
    numeric = [c for c in columns if c != label and schema[c] == "number"]
    left_out = () if source.scores else tuple(
        (c, "name" if key_like_name(c) else (keys or {})[c]) for c in numeric
        if key_like_name(c) or c in (keys or {}))
    measures = source.scores or tuple(c for c in numeric if c not in dict(left_out))
    if not measures:
        kept_out = "; the numeric columns " + ", ".join(repr(c) for c, _ in left_out) + " are keys (named like one " \
            "or holding distinct integers): name the score columns" if left_out else ""
        raise ColumnError(f"{source.name}: no numeric score column besides the label {label!r}{kept_out}")
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


def check_counts(source: TableSource, roles: Roles, counts: Mapping[str, int | None]) -> None:
    """Refuse bad labels and scores, and empty labels outside an annotated sample, naming row and column.

    ``counts`` holds ``bad_label``, ``first_bad_label`` (0-based row or None), ``missing``, ``first_missing``,
    and for each measure ``bad:<m>`` and ``first_bad:<m>``.
    """
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
        raise ColumnError(f"{source.name}: the table has no rows")


def check_sql(roles: Roles, d: Dialect) -> list[tuple[str, str]]:
    """(name, aggregate SQL) pairs whose values :func:`check_counts` reads (over a scan with :data:`ROW`)."""
    lab = label_sql(roles, d)
    out = [("rows", "count(*)"),
           ("bad_label", f"sum(CASE WHEN {lab['bad']} THEN 1 ELSE 0 END)"),
           ("first_bad_label", f"min(CASE WHEN {lab['bad']} THEN {ROW} END)"),
           ("missing", f"sum(CASE WHEN {lab['missing']} THEN 1 ELSE 0 END)"),
           ("first_missing", f"min(CASE WHEN {lab['missing']} THEN {ROW} END)")]
    for i, m in enumerate(roles.measures):
        bad = score_sql(roles, m, d)["bad"]
        out.append((f"bad:{m}", f"sum(CASE WHEN {bad} THEN 1 ELSE 0 END)"))
        out.append((f"first_bad:{m}", f"min(CASE WHEN {bad} THEN {ROW} END)"))
        sc = score_sql(roles, m, d)["value"]
        out.append((f"nonfinite:{m}", f"sum(CASE WHEN {d.finite(sc)} THEN 0 ELSE 1 END)"))
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
