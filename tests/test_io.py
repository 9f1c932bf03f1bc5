"""Tests of evalcore.io: reading tables, suggesting roles, parsing labels and scores."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.candidates import LOWER
from evalcore.errors import ColumnError, EvalcoreError, FileFormatError, LabelError, ParameterError, ScoreError
from evalcore.io import (
    ColumnRoles,
    build_candidate_set,
    load_candidates,
    parse_labels,
    parse_scores,
    read_table,
    suggest_roles,
)

DATA = Path(__file__).parent / "data"  # small R fixtures, made by tests/data/make_r_fixtures.R

# The content of the R fixtures; every format below round-trips to it.
REFERENCE = pd.DataFrame(
    {
        "PP": ["in:Frage", "zur:Verfügung", "mit:Hilfe", "auf:Tisch", "unter:Druck"],
        "verb": ["kommen", "stellen", "kommen", "legen", "setzen"],
        "is.colloc": [True, True, False, False, True],
        "freq": [30, 120, 45, 33, 61],
        "log.like": [12.5, 300.25, np.nan, -np.inf, 0.125],
    }
)


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def assert_reference(cs) -> None:
    np.testing.assert_array_equal(cs.labels, REFERENCE["is.colloc"].to_numpy())
    assert cs.measures == ("freq", "log.like")
    np.testing.assert_array_equal(cs.scores["freq"], REFERENCE["freq"].to_numpy(dtype=float))
    np.testing.assert_array_equal(cs.scores["log.like"], REFERENCE["log.like"].to_numpy())
    assert cs.keys["PP"].tolist() == REFERENCE["PP"].tolist()
    assert cs.keys["verb"].tolist() == REFERENCE["verb"].tolist()
    assert cs.rows.tolist() == [1, 2, 3, 4, 5]
    assert cs.label_column == "is.colloc"
    assert cs.excluded_unlabelled == 0


# ---------------------------------------------------------------------------
# Formats: every one round-trips to the same candidate set
# ---------------------------------------------------------------------------


def _csv(tmp: Path, sep: str = ",", name: str = "c.csv", encoding: str = "utf-8", bom: bool = False) -> Path:
    text = REFERENCE.to_csv(index=False, sep=sep)
    return write(tmp / name, ("\ufeff" if bom else "") + text, encoding)


WRITERS = {
    "csv comma": lambda t: _csv(t),
    "csv semicolon": lambda t: _csv(t, ";"),
    "tsv": lambda t: _csv(t, "\t", "c.tsv"),
    "txt pipe": lambda t: _csv(t, "|", "c.txt"),
    "tsv.gz": lambda t: (t / "c.tsv.gz").write_bytes(gzip.compress(REFERENCE.to_csv(index=False, sep="\t").encode()))
    and t / "c.tsv.gz",
    "utf-8 BOM": lambda t: _csv(t, bom=True),
    "latin-1": lambda t: _csv(t, ";", encoding="latin-1"),
    "crlf": lambda t: write(t / "c.csv", REFERENCE.to_csv(index=False, lineterminator="\r\n")),
    "parquet": lambda t: REFERENCE.to_parquet(t / "c.parquet", index=False) or t / "c.parquet",
    "xlsx": lambda t: REFERENCE.to_excel(t / "c.xlsx", index=False) or t / "c.xlsx",
    "XLSX upper case": lambda t: REFERENCE.to_excel(t / "C.XLSX", index=False) or t / "C.XLSX",
    "rds": lambda t: DATA / "small.rds",
    "rda": lambda t: DATA / "small.rda",
}


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_round_trip(fmt, tmp_path):
    path = WRITERS[fmt](tmp_path)
    assert_reference(load_candidates(path))


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_round_trip_from_uploaded_bytes(fmt, tmp_path):
    path = WRITERS[fmt](tmp_path)
    cs = load_candidates(path.read_bytes(), name=path.name)
    assert_reference(cs)
    assert cs.source == path.name


@pytest.mark.parametrize("fmt", ["csv comma", "tsv.gz", "parquet", "xlsx", "rds", "rda"])
def test_format_sniffed_without_a_name(fmt, tmp_path):
    assert_reference(load_candidates(WRITERS[fmt](tmp_path).read_bytes()))


def test_file_object_with_name(tmp_path):
    path = WRITERS["tsv"](tmp_path)
    upload = io.BytesIO(path.read_bytes())
    upload.name = "upload.tsv"
    cs = load_candidates(upload)
    assert_reference(cs)
    assert cs.source == "upload.tsv"


def test_gzip_detected_by_magic_bytes_whatever_the_name(tmp_path):
    path = tmp_path / "c.csv"
    path.write_bytes(gzip.compress(REFERENCE.to_csv(index=False).encode()))
    assert_reference(load_candidates(path))


def test_encodings_detected_and_explicit(tmp_path):
    latin = _csv(tmp_path, encoding="latin-1", name="latin.csv")
    df = read_table(latin)
    assert df.attrs["encoding"] == "latin-1"
    assert df["PP"][2] == "zur:Verfügung"
    assert read_table(latin, encoding="latin-1")["PP"][2] == "zur:Verfügung"
    bom = read_table(_csv(tmp_path, bom=True, name="bom.csv"))
    assert bom.columns[0] == "PP" and bom.attrs["encoding"] == "utf-8"
    utf16 = write(tmp_path / "u16.txt", REFERENCE.to_csv(index=False, sep="\t"), "utf-16")
    assert read_table(utf16)["PP"][2] == "zur:Verfügung"


def test_explicit_encoding_that_does_not_fit(tmp_path):
    latin = write(tmp_path / "l.csv", "PP,label,s\nab,TRUE,1\nzur:Verfügung,FALSE,2\n", "latin-1")
    with pytest.raises(FileFormatError, match=r"l\.csv: line 3 is not valid utf-8"):
        read_table(latin, encoding="utf-8")
    with pytest.raises(ParameterError, match="unknown encoding 'klingon'"):
        read_table(latin, encoding="klingon")


def test_xlsx_sheets(tmp_path):
    path = tmp_path / "book.xlsx"
    with pd.ExcelWriter(path) as w:
        pd.DataFrame({"x": [1]}).to_excel(w, sheet_name="notes", index=False)
        REFERENCE.to_excel(w, sheet_name="cands", index=False)
    assert list(read_table(path).columns) == ["x"]
    assert_reference(load_candidates(path, sheet="cands"))
    assert_reference(load_candidates(path, sheet=1))
    with pytest.raises(ParameterError, match=r"no sheet 'nope'; the sheets are 'notes', 'cands'"):
        read_table(path, sheet="nope")


def test_xlsx_values_beyond_the_header(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    for row in (["PP", "label", "s"], ["a", True, 1.0], ["b", False, 2.0, "stray"]):
        book.active.append(row)
    book.save(tmp_path / "beyond.xlsx")
    with pytest.raises(FileFormatError, match=r"1 row\(s\) have values right of the last named column.*rows 2"):
        read_table(tmp_path / "beyond.xlsx")


def test_rda_with_several_objects(tmp_path):
    with pytest.raises(FileFormatError, match=r"holds 2 data frames \('cands', 'other'\).*sheet"):
        read_table(DATA / "multi.rda")
    assert_reference(load_candidates(DATA / "multi.rda", sheet="cands"))
    with pytest.raises(ParameterError, match=r"no data frame named 'note'.*'note' \(ndarray\)"):
        read_table(DATA / "multi.rda", sheet="note")


def test_rds_that_is_not_a_data_frame():
    with pytest.raises(FileFormatError, match=r"vector\.rds: holds a ndarray, not a data frame"):
        read_table(DATA / "vector.rds")


def test_options_that_do_not_apply(tmp_path):
    with pytest.raises(ParameterError, match="sheet applies only"):
        read_table(_csv(tmp_path), sheet="x")
    with pytest.raises(ParameterError, match="encoding applies only"):
        read_table(DATA / "small.rds", encoding="latin-1")


def test_missing_values_and_text_kept_as_written(tmp_path):
    path = write(
        tmp_path / "m.csv",
        "key,label,score,flag\n007,TRUE,1.5,T\nNA,FALSE,NA,+\n x ,T,,-\nn/a,F,Inf,T\n",
    )
    df = read_table(path)
    assert df["key"].tolist()[:1] == ["007"] and pd.isna(df["key"][2]) and df["key"][3] == " x "
    assert df["label"].tolist() == ["TRUE", "FALSE", "T", "F"]  # not converted while reading
    np.testing.assert_array_equal(df["score"].to_numpy(), [1.5, np.nan, np.nan, np.inf])


def test_blank_lines_are_skipped_but_counted(tmp_path):
    path = write(tmp_path / "b.csv", "lab,s\nTRUE,1\n\nFALSE,2\n,\nmaybe,3\n\n")
    df = read_table(path)
    assert df.index.tolist() == [1, 3, 5]  # row 4 (",") is empty, rows 2 and 6 are blank lines
    with pytest.raises(LabelError, match=r"row 5: 'maybe'"):
        load_candidates(path, label="lab")


def test_values_with_line_breaks_keep_line_numbers(tmp_path):
    path = write(tmp_path / "ml.csv", 'PP,label,s\n"two\nlines",TRUE,1\nb,FALSE,2\nc,TRUE\n')
    with pytest.raises(FileFormatError, match=r"row 4 \(line 5\) has 2"):
        read_table(path)
    path.write_text('PP,label,s\n"two\nlines",TRUE,1\nb,FALSE,2\n')
    df = read_table(path)
    assert df["PP"].tolist() == ["two\nlines", "b"] and df.index.tolist() == [1, 3]


def test_r_write_table_row_names(tmp_path):
    path = write(tmp_path / "r.tsv", "lab\ts\n1\tTRUE\t0.5\n2\tFALSE\t0.25\n")
    df = read_table(path)
    assert list(df.columns) == ["row.names", "lab", "s"]
    assert load_candidates(path).labels.tolist() == [True, False]


def test_pandas_index_column_gets_a_name_and_is_a_key(tmp_path):
    path = write(tmp_path / "p.csv", REFERENCE.to_csv())  # with the unnamed index column
    assert read_table(path).columns[0] == "Unnamed: 0"
    cs = load_candidates(path)
    assert cs.measures == ("freq", "log.like") and cs.keys.columns[0] == "Unnamed: 0"


# ---------------------------------------------------------------------------
# The paper's data set
# ---------------------------------------------------------------------------


def test_krenn_rda(krenn_rda):
    df = read_table(krenn_rda)
    roles = suggest_roles(df)
    assert roles.label == "is.colloc"
    assert {"log.like", "chisq", "t.score", "freq"} <= set(roles.scores)
    assert {"PP", "verb"} <= set(roles.keys)
    cs = load_candidates(krenn_rda)
    assert cs.n_candidates == 5102
    assert cs.n_tp == 566
    assert {"log.like", "chisq"} <= set(cs.measures)
    assert {"PP", "verb", "is.SVC", "is.figur"} <= set(cs.keys.columns)
    assert cs.rows[0] == 1 and cs.rows[-1] == 5102


def test_krenn_rda_and_tsv_agree(krenn_rda, krenn_tsv):
    a, b = load_candidates(krenn_rda), load_candidates(krenn_tsv)
    assert a.measures == b.measures
    np.testing.assert_array_equal(a.labels, b.labels)
    for m in a.measures:
        # R's own decimal parser is not correctly rounded: two Dice values in the .rda
        # (e.g. row 221, 0.023016) are one unit in the last place away from the nearest
        # double, which is what the .tsv gives. Values agree to 1 ulp; rankings and ties
        # are identical.
        np.testing.assert_array_max_ulp(a.scores[m], b.scores[m], maxulp=1)
        np.testing.assert_array_equal(np.argsort(a.scores[m], kind="stable"), np.argsort(b.scores[m], kind="stable"))
        ties_a, ties_b = (np.unique(x.scores[m], return_inverse=True)[1] for x in (a, b))
        np.testing.assert_array_equal(ties_a, ties_b)
    for k in ("PP", "verb"):
        assert a.keys[k].tolist() == b.keys[k].tolist()


# ---------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------


def test_suggest_roles():
    df = pd.DataFrame(
        {
            "id": ["a", "b", "c"],
            "flag": ["yes", "no", "yes"],
            "gold": ["TP", "FP", "FP"],
            "binary": [0, 1, 1],
            "Sample": [1, 1, 2],
            "g2": [1.5, 2.0, np.nan],
            "freq": ["3", "4", "x"],  # mostly numbers: a score, so the stray value is reported
        }
    )
    assert suggest_roles(df) == ColumnRoles(
        label="gold", scores=("g2", "freq"), keys=("id", "flag", "binary"), sample="Sample"
    )


def test_suggest_roles_prefers_is_names_then_first():
    df = pd.DataFrame({"a": [True, False], "isTP": ["T", "F"], "s": [1.0, 2.0]})
    assert suggest_roles(df).label == "isTP"
    df = pd.DataFrame({"a": [True, False], "b": [1, 0], "s": [1.0, 2.0]})
    assert suggest_roles(df).label == "a" and suggest_roles(df).keys == ("b",)


# ---------------------------------------------------------------------------
# Labels and scores
# ---------------------------------------------------------------------------

TRUE_VALUES = ["TRUE", "true", "T", "t", "1", "1.0", "yes", "Y", "TP", "tp", "+", " TRUE ", 1, 1.0, True, np.True_]
FALSE_VALUES = ["FALSE", "F", "0", "0.0", "no", "N", "FP", "-", 0, 0.0, False, np.False_]


def test_label_vocabulary():
    labels, kept = parse_labels(TRUE_VALUES + FALSE_VALUES, column="l", source="f")
    assert labels.tolist() == [True] * len(TRUE_VALUES) + [False] * len(FALSE_VALUES)
    assert kept.all()


@given(st.sampled_from(["true", "false", "t", "f", "yes", "no", "y", "n", "tp", "fp"]), st.data())
def test_label_words_in_any_case_and_padding(word, data):
    mixed = "".join(c.upper() if data.draw(st.booleans()) else c for c in word)
    padded = data.draw(st.sampled_from(["", " ", "\t"])) + mixed + data.draw(st.sampled_from(["", " "]))
    labels, _ = parse_labels([padded], column="l", source="f")
    assert labels[0] == (word in ("true", "t", "yes", "y", "tp"))


def test_unknown_label_values(tmp_path):
    path = write(tmp_path / "u.csv", "PP,gold,s\na,TRUE,1\nb,maybe,2\nc,FALSE,3\nd,2,4\n")
    with pytest.raises(LabelError) as e:
        load_candidates(path, label="gold")
    msg = str(e.value)
    assert "u.csv" in msg and "'gold'" in msg
    assert "row 2: 'maybe'" in msg and "row 4: '2'" in msg
    assert "TRUE/FALSE" in msg and "TP/FP" in msg


def test_label_column_found_by_name_despite_bad_cells(tmp_path):
    path = write(tmp_path / "n.tsv", "PP\tis_tp\tg2\nx\tTRUE\t2.5\ny\t\t3\nz\tvielleicht\t1\n")
    assert suggest_roles(read_table(path)).label == "is_tp"
    with pytest.raises(LabelError, match=r"'is_tp' has 1 value\(s\) that are not TP/FP labels: row 3: 'vielleicht'"):
        load_candidates(path)


def test_label_errors_list_at_most_five():
    with pytest.raises(LabelError, match=r"has 7 value\(s\).*row 5: 'x5' \(and 2 more\)"):
        parse_labels([f"x{i}" for i in range(1, 8)], column="l", source="f")


def test_empty_labels(tmp_path):
    path = write(tmp_path / "e.csv", "PP,is_tp,s\na,TRUE,1\nb,,2\nc,NA,3\nd,FALSE,4\n")
    with pytest.raises(LabelError) as e:
        load_candidates(path)
    msg = str(e.value)
    assert "e.csv" in msg and "'is_tp'" in msg and "2 row(s): rows 2, 3" in msg
    assert "leave out the rows with an empty label" in msg and "Annotate page" in msg and "--" not in msg
    with pytest.raises(LabelError) as e:  # the command line's words name its options
        load_candidates(path, where="cli")
    assert "--exclude-unlabelled" in str(e.value) and "--annotated-sample" in str(e.value)
    cs = load_candidates(path, exclude_unlabelled=True)
    assert cs.excluded_unlabelled == 2
    assert cs.rows.tolist() == [1, 4]
    assert cs.labels.tolist() == [True, False]
    assert cs.scores["s"].tolist() == [1.0, 4.0]
    assert cs.keys["PP"].tolist() == ["a", "d"]


def test_all_labels_empty_with_exclusion():
    df = pd.DataFrame({"l": [None, None], "s": [1.0, 2.0]})
    with pytest.raises(LabelError, match="empty in every row"):
        build_candidate_set(df, label="l", exclude_unlabelled=True)


def test_parse_scores_specials():
    values = ["1.5", " -2 ", "1e-3", "NaN", "NA", "", None, "Inf", "-Inf", "infinity", 3, np.float32(0.5), True]
    out = parse_scores(values, column="s", source="f")
    assert out.dtype == np.float64
    np.testing.assert_array_equal(
        out, [1.5, -2, 1e-3, np.nan, np.nan, np.nan, np.nan, np.inf, -np.inf, np.inf, 3, 0.5, 1.0]
    )
    nullable = pd.Series([1, None, 3], dtype="Int32")
    np.testing.assert_array_equal(parse_scores(nullable, column="s", source="f"), [1.0, np.nan, 3.0])


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=20))
def test_scores_round_trip_through_text(values):
    text = [repr(v) for v in values]  # 'nan', 'inf', '-inf', '1e-300', ...
    np.testing.assert_array_equal(parse_scores(text, column="s", source="f"), np.array(values))


def test_non_numeric_score_column(tmp_path):
    path = write(tmp_path / "n.csv", "PP,label,g2\na,TRUE,1.5\nb,FALSE,high\nc,TRUE,2\n")
    with pytest.raises(ScoreError) as e:
        load_candidates(path)
    msg = str(e.value)
    assert "n.csv" in msg and "'g2'" in msg and "row 2: 'high'" in msg and "key" in msg


def test_decimal_comma_is_not_guessed(tmp_path):
    path = write(tmp_path / "d.csv", "PP;label;g2\na;TRUE;1,5\nb;FALSE;2,25\n")
    with pytest.raises(ScoreError, match=r"row 1: '1,5', row 2: '2,25'.*decimal point"):
        load_candidates(path)


# ---------------------------------------------------------------------------
# Building: columns and options
# ---------------------------------------------------------------------------


def test_build_explicit_roles_and_directions():
    df = pd.DataFrame({"k": ["a", "b", "c"], "l": ["+", "-", "+"], "p": [0.1, 0.5, 0.01], "g": [3.0, 1.0, 2.0]})
    cs = build_candidate_set(df, label="l", scores=["g", "p"], keys=["k"], lower_is_better="p", source="x.csv")
    assert cs.measures == ("g", "p")
    assert cs.directions["p"] == LOWER and cs.higher_is_better("g")
    assert cs.rows.tolist() == [1, 2, 3]
    assert cs.keys.columns.tolist() == ["k"]
    assert build_candidate_set(df, label="l", keys=()).keys is None


def test_sample_column(tmp_path):
    path = write(tmp_path / "s.csv", "sample,label,g\n1,TRUE,1\n1,FALSE,2\n2,TRUE,3\n")
    cs = load_candidates(path)
    assert cs.samples.tolist() == [1, 1, 2] and cs.measures == ("g",)
    with pytest.raises(ColumnError, match=r"sample column 'sample' is empty in 1 row\(s\): rows 2"):
        load_candidates(write(tmp_path / "s2.csv", "sample,label,g\n1,TRUE,1\n,FALSE,2\n"))


def test_missing_column(tmp_path):
    path = _csv(tmp_path)
    with pytest.raises(ColumnError) as e:
        load_candidates(path, label="is.colloc", scores=["G2"])
    msg = str(e.value)
    assert "c.csv" in msg and "no column 'G2'" in msg and "'PP', 'verb', 'is.colloc', 'freq', 'log.like'" in msg
    with pytest.raises(ColumnError, match=r"Did you mean 'PP'"):
        load_candidates(path, keys=["pp"])


def test_label_also_a_score(tmp_path):
    with pytest.raises(ColumnError, match="'is.colloc' cannot be both the label and a score"):
        load_candidates(_csv(tmp_path), scores=["freq", "is.colloc"])


def test_unknown_lower_is_better(tmp_path):
    with pytest.raises(ColumnError, match=r"lower-is-better given for 'PP'.*'freq', 'log.like'"):
        load_candidates(_csv(tmp_path), lower_is_better=["PP"])


def test_no_label_column(tmp_path):
    path = write(tmp_path / "nl.csv", "PP,g2,t\na,1.5,2\nb,3,4\n")
    with pytest.raises(ColumnError) as e:
        load_candidates(path)
    msg = str(e.value)
    assert "nl.csv" in msg and "no label column found" in msg and "'PP', 'g2', 't'" in msg


def test_no_score_column(tmp_path):
    with pytest.raises(ColumnError, match="no numeric score column"):
        load_candidates(write(tmp_path / "ns.csv", "PP,label\na,TRUE\nb,FALSE\n"))


def test_duplicate_column_names(tmp_path):
    with pytest.raises(ColumnError, match=r"'s' is column 2 and 4"):
        read_table(write(tmp_path / "dup.csv", "l,s,t,s\nTRUE,1,2,3\n"))


# ---------------------------------------------------------------------------
# Broken files
# ---------------------------------------------------------------------------


def test_empty_file(tmp_path):
    with pytest.raises(FileFormatError, match=r"empty\.csv: the file is empty"):
        read_table(write(tmp_path / "empty.csv", ""))
    with pytest.raises(FileFormatError, match=r"blank\.tsv: the file is empty"):
        read_table(write(tmp_path / "blank.tsv", "\n \n"))
    with pytest.raises(FileFormatError, match="empty"):
        read_table(b"", name="upload.csv")


def test_header_only(tmp_path):
    with pytest.raises(FileFormatError, match=r"h\.csv: has a header but no data rows"):
        read_table(write(tmp_path / "h.csv", "PP,label,g2\n"))
    with pytest.raises(FileFormatError, match="no data rows"):
        read_table(REFERENCE.iloc[:0].to_parquet(index=False), name="h.parquet")


def test_ragged_rows(tmp_path):
    path = write(tmp_path / "r.tsv", "PP\tlabel\tg2\na\tTRUE\t1\nb\tFALSE\t2\t9\nc\tTRUE\n")
    with pytest.raises(FileFormatError) as e:
        read_table(path)
    msg = str(e.value)
    assert "r.tsv: 2 row(s) have a wrong number of fields" in msg
    assert "header (line 1) has 3 fields" in msg
    assert "row 2 (line 3) has 4" in msg and "row 3 (line 4) has 2" in msg


def test_quoting_error(tmp_path):
    with pytest.raises(FileFormatError, match=r"q\.csv: cannot parse line 3 \(row 2\).*double quotes"):
        read_table(write(tmp_path / "q.csv", 'a,b\n1,2\n"x"y,3\n'))


def test_unknown_format(tmp_path):
    with pytest.raises(FileFormatError, match=r"x\.bin: unknown file format.*Supported formats"):
        read_table(b"\x00\x01\x02", name="x.bin")
    with pytest.raises(FileFormatError, match=r"old Excel \.xls"):
        read_table(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, name="old.xls")
    with pytest.raises(FileFormatError, match=r"binary content.*parquet"):
        read_table(REFERENCE.to_parquet(index=False), name="wrong.csv")


@pytest.mark.filterwarnings("ignore:.*(RDS|file type).*:UserWarning")  # rdata's guesses about garbage
def test_broken_binary_files(tmp_path):
    for name in ("b.parquet", "b.xlsx", "b.rda", "b.rds"):
        with pytest.raises(FileFormatError, match=name.replace(".", r"\.")):
            read_table(b"PK\x03\x04 not really" if name.endswith("xlsx") else b"garbage\x00", name=name)
    with pytest.raises(FileFormatError, match="gzip"):
        read_table(gzip.compress(b"a,b\n1,2\n")[:12], name="t.csv.gz")


def test_missing_file(tmp_path):
    with pytest.raises(FileFormatError, match="cannot open the file"):
        read_table(tmp_path / "nope.csv")


def test_every_error_is_an_evalcore_error():
    assert issubclass(FileFormatError, EvalcoreError) and issubclass(LabelError, ValueError)


# ---------------------------------------------------------------------------
# The fast text reader agrees with the csv module
# ---------------------------------------------------------------------------


def _csv_module_only(monkeypatch):
    """Make read_table use the csv-module reader for every text file (the reference behaviour)."""
    import evalcore.io.text as text_module

    monkeypatch.setattr(text_module, "_parse_simple", lambda *a: None)
    monkeypatch.setattr(text_module, "_parse_layout", lambda *a: None)


def _outcome(data, name):
    try:
        return read_table(data, name=name)
    except EvalcoreError as e:
        return (type(e).__name__, str(e))


def _assert_same_outcome(fast, slow):
    if isinstance(slow, tuple) or isinstance(fast, tuple):
        assert fast == slow
        return
    pd.testing.assert_frame_equal(fast, slow)
    assert fast.attrs == slow.attrs


CELL_TEXT = st.sampled_from(
    ["1", "-2", "+3", "007", "2.5", "1e-3", ".5", "NaN", "-nan", "Inf", "NA", "", " ", " 4 ", "x", "a b", "TRUE",
     "F", "zur:Verfügung", "١٢", "1,5", "99999999999999999999", '"q"', '"a,b"', '"x""y"', '"two\nlines"', '""']
)


@given(
    st.lists(st.lists(CELL_TEXT, min_size=3, max_size=3) | st.lists(CELL_TEXT, max_size=4), max_size=12),
    st.sampled_from([",", "\t", ";"]),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.lists(st.sampled_from(["", "  ", "\t"]), max_size=2),
)
def test_fast_reader_agrees_with_the_csv_module(rows, delimiter, eol, blanks):
    lines = [delimiter.join(["k", "label", "s"])] + [delimiter.join(r) for r in rows] + blanks
    data = eol.join(lines).encode()
    fast = _outcome(data, "t.csv")
    with pytest.MonkeyPatch.context() as m:
        _csv_module_only(m)
        slow = _outcome(data, "t.csv")
    _assert_same_outcome(fast, slow)


LARGE_CASES = {  # what replaces data row 900
    "clean": ["k,TRUE,1.5,7"],
    "NaN in a float column": ["k,TRUE,NaN,7"],
    "-nan in a float column": ["k,TRUE,-nan,7"],
    "blank cell in a float column": ["k,TRUE, ,7"],
    "float in an integer column": ["k,TRUE,1.5,7.5"],
    "plus sign in an integer column": ["k,TRUE,1.5,+7"],
    "hexadecimal in an integer column": ["k,TRUE,1.5,0x1F"],
    "too many fields": ["k,TRUE,1.5,7,8"],
    "too few fields": ["k,TRUE,1.5"],
    "line of spaces": ["k,TRUE,1.5,7", "   "],
    "empty lines": ["", "", "k,TRUE,1.5,7"],
    "empty row": [",,,"],
    "quoted delimiter": ['"a,b",TRUE,1.5,7'],
    "quoted line break": ['"a\nb",TRUE,1.5,7'],
    "stray quote": ['a"b,TRUE,1.5,7'],
    "broken quoting": ['"a"b,TRUE,1.5,7'],
    "bad label": ["k,maybe,1.5,7"],
}


@pytest.mark.parametrize("case", list(LARGE_CASES))
def test_fast_reader_agrees_beyond_its_samples(case, monkeypatch):
    """Anomalies after the first few hundred rows (the reader's samples) are found as exactly."""
    lines = ["PP,label,g2,freq"] + [f"k{i},{'TRUE' if i % 7 else 'FALSE'},{i / 8},{i}" for i in range(1, 1500)]
    lines[900:901] = LARGE_CASES[case]
    data = ("\n".join(lines) + "\n").encode()
    fast, fast_cs = _outcome(data, "big.csv"), _load_outcome(data)
    _csv_module_only(monkeypatch)
    _assert_same_outcome(fast, _outcome(data, "big.csv"))
    slow_cs = _load_outcome(data)
    if isinstance(slow_cs, tuple):
        assert fast_cs == slow_cs
    else:
        assert fast_cs.measures == slow_cs.measures and fast_cs.rows.tolist() == slow_cs.rows.tolist()
        np.testing.assert_array_equal(fast_cs.labels, slow_cs.labels)
        for m in slow_cs.measures:
            np.testing.assert_array_equal(fast_cs.scores[m], slow_cs.scores[m])


def _load_outcome(data):
    try:
        return load_candidates(data, name="big.csv")
    except EvalcoreError as e:
        return (type(e).__name__, str(e))


def test_whitespace_is_what_str_strip_removes():
    from evalcore.io.cells import WHITESPACE

    assert WHITESPACE == "".join(c for c in map(chr, range(0x110000)) if c.isspace())


def test_types_found_in_text(tmp_path):
    path = write(
        tmp_path / "t.csv",
        "i,f,plus,big,spec,mixed,empty,uni\n1,1.5,+1,99999999999999999999,NaN,1,,١٢\n2,2,-2,1,-Inf,x,,٣\n",
    )
    df = read_table(path)
    assert df.dtypes.astype(str).tolist() == ["int64", "float64", "int64", "float64", "float64", "str", "float64", "int64"]
    assert df["plus"].tolist() == [1, -2] and df["uni"].tolist() == [12, 3]
    assert np.isnan(df["spec"][1]) and df["spec"][2] == -np.inf


def test_quoted_values_keep_line_numbers_in_large_files(tmp_path):
    body = [f'"k{i}, with comma",{"TRUE" if i % 3 else "FALSE"},{i / 4}' for i in range(1, 3000)]
    body[2000] = '"two\nlines",TRUE,1'
    body.append("k,TRUE")
    path = write(tmp_path / "q.csv", "PP,label,g2\n" + "\n".join(body) + "\n")
    with pytest.raises(FileFormatError, match=r"1 row\(s\) have a wrong number of fields.*row 3001 \(line 3002\) has 2"):
        read_table(path)


def test_old_mac_line_endings(tmp_path):
    path = write(tmp_path / "mac.csv", "PP,label,g2\r\ra,TRUE,1\rb,maybe,2\r")
    with pytest.raises(LabelError, match=r"row 3: 'maybe'"):
        load_candidates(path)


def test_pyarrow_whitespace_is_python_whitespace():
    """Blank cells are found with pyarrow's utf8_is_space: it must agree with str.isspace."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chars = [chr(i) for i in range(0x110000) if not 0xD800 <= i < 0xE000]
    assert pc.utf8_is_space(pa.array(chars)).to_pylist() == [c.isspace() for c in chars]
