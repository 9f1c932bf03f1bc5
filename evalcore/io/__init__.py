"""Reading candidate tables and turning them into a validated :class:`CandidateSet`.

Formats
-------
The format comes from the file extension (case-insensitive); when the extension is
unknown, the content decides (magic bytes, else text):

- ``.csv``, ``.tsv``, ``.tab``, ``.txt``: delimited text; the delimiter is detected
  among comma, tab, semicolon and ``|``.
- ``.parquet``, ``.pq``: Apache Parquet.
- ``.xlsx``, ``.xlsm``: Excel workbook; the first sheet unless ``sheet`` is given.
- ``.rda``, ``.RData``: R data file; its only data frame, or the one named by ``sheet``.
- ``.rds``: R single-object file holding a data frame.

Compression (gzip, bzip2, xz) is recognised by its magic bytes, whatever the name says,
and undone first (also inside R files). :data:`FORMATS` is the table of formats.

Text files are read as UTF-8 (with or without byte-order mark), UTF-16 (with or without),
Windows-1252 or Latin-1, found by charset-normalizer where the bytes are not UTF-8
(:mod:`evalcore.io.encodings`), unless an explicit ``encoding`` is given; the encoding
used is in the DataFrame's ``attrs["encoding"]``. In text files (and text
cells of workbooks) an empty or blank field and the exact string ``NA`` (as R writes
it) are missing values; everything else is kept as written. A column whose every
non-missing value is a plain number (``12``, ``-3.5``, ``1e-5``, also ``NaN``,
``Inf``, ``-Inf``) becomes numeric; all other columns stay strings, so ``TRUE``,
``T``, ``+`` or ``007`` in a text column are never reinterpreted while reading.
Blank lines and rows whose fields are all empty hold no candidate and are skipped;
they still count for row numbers. Duplicate column names are an error; nameless
columns are called ``Unnamed: i`` (0-based position, as pandas does), and a header
one field short of every data row (R's ``write.table`` with row names) gets a first
column ``row.names``.

Text is parsed by pyarrow's CSV reader and typed with vectorised pyarrow/numpy code;
where needed, the layout (fields per record, the line each record starts on) is
found on the raw bytes with numpy. The few files that reader cannot read exactly as
Python's :mod:`csv` module does (a quote inside an unquoted value or right after a
closing quote, NUL bytes, one-column tables, ...) are read by the :mod:`csv` module
itself: results and messages are the same either way.

Limits
------
Every reader checks :class:`Limits` while it reads (decompressed size, expansion ratio,
rows, columns, cells, the length of a line and of a value): a file past one is refused
with a :class:`LimitError` naming the file, the limit and how to raise it, before the
memory or time it would take is spent (:mod:`evalcore.io.limits`).

Row numbers
-----------
Every message and :attr:`CandidateSet.rows` use one convention: **row N is the
N-th data row, counted from 1, header not counted**, blank lines and empty rows
included in the count. In a text file with its header on line 1, row N is the
record that starts on line N + 1 (also when values span several lines); in a
spreadsheet, row N is shown as row N + 1; in Parquet and R files it is the N-th
row. Messages about the layout of a text file add the line, e.g. ``row 4 (line 5)``.
:func:`read_table` returns these numbers as the index of the DataFrame (named
``"row"``); the other functions use that index when they get a Series or
DataFrame carrying it, and positions 1..N otherwise.

Modules
-------
:mod:`~evalcore.io.formats` (the table of formats, sniffing), :mod:`~evalcore.io.compression`,
:mod:`~evalcore.io.encodings`, :mod:`~evalcore.io.text` (delimited text),
:mod:`~evalcore.io.xlsx`, :mod:`~evalcore.io.parquet`, :mod:`~evalcore.io.rfiles`,
:mod:`~evalcore.io.read` (:func:`read_table`), :mod:`~evalcore.io.cells` (typing of cells),
:mod:`~evalcore.io.roles` (suggested roles), :mod:`~evalcore.io.build` (labels, scores, the
candidate set), :mod:`~evalcore.io.annotated` (partly annotated sets: empty labels as unannotated
candidates, and the sampling frame), :mod:`~evalcore.io.messages`, :mod:`~evalcore.io.limits`.
"""

from __future__ import annotations

from .annotated import AnnotatedSample, build_annotated_sample, load_annotated_sample
from .build import build_candidate_set, combine_samples, load_candidates, parse_labels, parse_scores
from .cells import LABEL_VOCABULARY
from .encodings import ENCODING_CHOICES, detect_encoding
from .formats import FORMATS, FileFormat, format_from_name
from .limits import LimitError, Limits
from .messages import ROW_INDEX
from .read import READERS, Source, read_table, text_as_utf8
from .roles import ColumnRoles, suggest_roles, unfilled_label

__all__ = [
    "ROW_INDEX",
    "ColumnRoles",
    "read_table",
    "text_as_utf8",
    "suggest_roles",
    "unfilled_label",
    "parse_labels",
    "parse_scores",
    "build_candidate_set",
    "load_candidates",
    "AnnotatedSample",
    "build_annotated_sample",
    "load_annotated_sample",
    "combine_samples",
    "Limits",
    "LimitError",
    "FORMATS",
    "FileFormat",
    "format_from_name",
    "ENCODING_CHOICES",
    "detect_encoding",
    "LABEL_VOCABULARY",
    "READERS",
    "Source",
]
