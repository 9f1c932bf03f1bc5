"""Annotations that many people write at once: samples to annotate, marks, combined labels, agreement, files.

=====================  ====================================================================================
module                 what it does
=====================  ====================================================================================
:mod:`.store`          the SQLite database: samples stored compactly, one short transaction per mark, marks
                       that never replace another window's, undo, failures in words
:mod:`.schema`         its tables, and the migration of a database of evalcore's first schema
:mod:`.combine`        several annotators' labels as one (one annotator, majority, agreed) and kappa
:mod:`.exchange`       export (CSV and TSV guarded for spreadsheets, Parquet) and checked import
=====================  ====================================================================================

evalcore never knows who is signed in: the annotator's name is an argument.
"""

from .combine import (COMBINATION_LABELS, COMBINATIONS, annotated_candidate_set, annotator_agreement,
                      annotator_by_token, annotator_table, annotator_token, combine_labels)
from .exchange import (ANNOTATOR_PREFIX, CANDIDATE_COLUMN, DESIGN_COLUMN, EXPORT_FORMATS, MESSAGE_CHARS,
                       PARQUET_METADATA_KEY, POSITION_COLUMN, ExportedSample, ImportedAnnotations, ImportedSample,
                       export_mismatches, export_table, exported_sample, guard, import_export, is_bookkeeping,
                       is_export, read_export, unguard, write_export)
from .schema import CHUNK, SCHEMA_VERSION
from .store import (DB_FILE, LABELS, AnnotationDatabaseError, AnnotationError, AnnotationStore, ImportCounts, Mark,
                    SampleInfo, check_annotator, check_label, check_sample_name, default_path)

__all__ = [
    "ANNOTATOR_PREFIX", "CANDIDATE_COLUMN", "CHUNK", "COMBINATIONS", "COMBINATION_LABELS", "DB_FILE",
    "DESIGN_COLUMN", "EXPORT_FORMATS", "LABELS", "MESSAGE_CHARS", "PARQUET_METADATA_KEY", "POSITION_COLUMN",
    "SCHEMA_VERSION", "AnnotationDatabaseError", "AnnotationError", "AnnotationStore", "ExportedSample",
    "ImportCounts", "ImportedAnnotations", "ImportedSample", "Mark",
    "SampleInfo", "annotated_candidate_set", "annotator_agreement", "annotator_by_token", "annotator_table",
    "annotator_token", "check_annotator", "check_label", "check_sample_name", "combine_labels", "default_path",
    "export_mismatches", "export_table", "exported_sample", "guard", "import_export", "is_bookkeeping", "is_export",
    "read_export", "unguard", "write_export",
]
