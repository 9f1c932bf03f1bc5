"""Clear messages for what users really send (evalcore.io): thousands separators, percentages, a numeric
label column with other values than 0/1, UTF-16 text, binary files with a text extension, a workbook
renamed .parquet."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from evalcore.errors import FileFormatError, LabelError, ScoreError
from evalcore.io import load_candidates, parse_scores, read_table

REFERENCE = pd.DataFrame({"PP": ["a", "b", "c"], "label": ["TRUE", "FALSE", "TRUE"], "g2": [1.5, 2.5, 0.5]})


def test_thousands_separators(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('PP,label,g2\na,TRUE,"1,234.5"\nb,FALSE,12.5\nc,TRUE,"2,000,000"\n')
    with pytest.raises(ScoreError) as e:
        load_candidates(path)
    message = str(e.value)
    assert "t.csv: score column 'g2' has 2 non-numeric value(s): row 1: '1,234.5', row 3: '2,000,000'" in message
    assert "thousands separators (e.g. 1,234.5): write them without separators (1234.5)" in message
    assert "decimal comma" not in message
    with pytest.raises(ScoreError, match=r"thousands separators"):
        parse_scores(["1.234,5", "7"], column="s", source="f")  # European style
    with pytest.raises(ScoreError, match=r"thousands separators"):
        parse_scores(["1 234", "7"], column="s", source="f")


def test_percentages(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text("PP\tlabel\tprecision\na\tTRUE\t50%\nb\tFALSE\t12.5 %\nc\tTRUE\t7%\n")
    with pytest.raises(ScoreError) as e:
        load_candidates(path)  # the column is taken for a score, and its cells explained
    message = str(e.value)
    assert "score column 'precision' has 3 non-numeric value(s): row 1: '50%', row 2: '12.5 %'" in message
    assert "percentages (e.g. 50%): write them as plain numbers without the % sign" in message


def test_numeric_label_with_other_values(tmp_path):
    path = tmp_path / "n.csv"
    path.write_text("PP,label,g2\n" + "".join(f"k{i},{[0, 1, 2, 1, 0, 3][i % 6]},{i}\n" for i in range(60)))
    with pytest.raises(LabelError) as e:
        load_candidates(path)
    message = str(e.value)
    assert "n.csv: label column 'label' has 20 value(s) that are not TP/FP labels: row 3: 2, row 6: 3" in message
    assert "numbers other than 0 and 1: 2 (10 rows), 3 (10 rows)" in message
    assert "1 for a true positive and 0 for a false positive" in message
    with pytest.raises(LabelError, match=r"numbers other than 0 and 1: -1 \(1 row\), 5 \(2 rows\)"):
        load_candidates(io.BytesIO(b"w,is_tp,s\na,1,1\nb,5,2\nc,-1,3\nd,5,4\ne,0,5\n"), name="s.csv")
    with pytest.raises(LabelError) as e:  # not all numbers: no such sentence
        load_candidates(io.BytesIO(b"w,label,s\na,1,1\nb,maybe,2\nc,2,3\n"), name="m.csv")
    assert "numbers other than" not in str(e.value)


def test_utf16_text_is_read(tmp_path):
    path = tmp_path / "excel_unicode.txt"  # Excel's "Unicode text": UTF-16 with a BOM, tab-separated
    path.write_bytes(REFERENCE.to_csv(sep="\t", index=False).encode("utf-16"))
    assert load_candidates(path).labels.tolist() == [True, False, True]
    path.write_bytes(REFERENCE.to_csv(sep="\t", index=False).encode("utf-16-le"))  # and without
    assert read_table(path).attrs["encoding"] == "utf-16-le"


@pytest.mark.parametrize("content, hint", [
    (REFERENCE.to_parquet(index=False), r"It looks like an Apache Parquet file: rename it to \.parquet"),
    (None, r"It looks like an Excel \.xlsx workbook: rename it to \.xlsx"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, r"Supported formats"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, r"old Excel \.xls file: save it as \.xlsx or CSV"),
])
def test_binary_file_with_a_text_extension(content, hint):
    if content is None:
        buffer = io.BytesIO()
        REFERENCE.to_excel(buffer, index=False)
        content = buffer.getvalue()
    with pytest.raises(FileFormatError, match=r"data\.csv: binary content, not a text table .*" + hint):
        read_table(content, name="data.csv")


def test_xlsx_renamed_parquet_and_back():
    buffer = io.BytesIO()
    REFERENCE.to_excel(buffer, index=False)
    with pytest.raises(FileFormatError, match=r"x\.parquet: the content is an Excel \.xlsx workbook, not an Apache "
                                              r"Parquet file as the extension '\.parquet' says; rename the file to "
                                              r"\.xlsx"):
        read_table(buffer.getvalue(), name="x.parquet")
    with pytest.raises(FileFormatError, match=r"y\.xlsx: the content is an Apache Parquet file.*rename the file to "
                                              r"\.parquet"):
        read_table(REFERENCE.to_parquet(index=False), name="y.xlsx")
