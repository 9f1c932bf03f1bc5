"""Errors that evalcore raises for bad input.

Every error is a :class:`ValueError` subclass whose message names the file, the
column or row, the offending value, and what to do about it. The command line
prints the message as one line; the dashboard shows it next to the widget.
"""

from __future__ import annotations


class EvalcoreError(ValueError):
    """Base class of every input error evalcore raises."""


class FileFormatError(EvalcoreError):
    """A file cannot be read: unknown format, broken content or wrong encoding."""


class ColumnError(EvalcoreError):
    """A column is missing, duplicated or of the wrong kind."""


class LabelError(EvalcoreError):
    """The label column holds values that are not a TP/FP annotation."""


class ScoreError(EvalcoreError):
    """A score column is not numeric."""


class ParameterError(EvalcoreError):
    """A parameter (n, confidence level, tie policy, ...) is out of range."""
