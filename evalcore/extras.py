"""The package's extras, and the one-line message of a feature whose extra is not installed.

``pip install evalcore`` gives the library and the command line for candidate sets and per-item tables; each
extra (pyproject.toml) brings one feature more:

======  ====================================================  ==============================================
extra   brings                                                for
======  ====================================================  ==============================================
text    sacrebleu, jiwer (with rapidfuzz), rouge-score (with  the text and retrieval metrics of ``evalcore
        nltk and regex), ir-measures                          systems`` (BLEU, chrF, TER, WER, ROUGE, the TREC
                                                              measures) and the Systems page
app     streamlit, Authlib, httpx (and ``text``)              the dashboard: ``evalcore app``
spark   pyspark                                               the cluster engine: ``--engine spark``
======  ====================================================  ==============================================

``all`` is ``app`` and ``spark``; ``test`` adds what the suite needs. A feature calls :func:`require` before it
imports the packages of its extra, so that without them the command says in one line which extra to install
(``evalcore: error: ... pip install "evalcore[text]"``, exit code 2) instead of a traceback.
"""

from __future__ import annotations

import importlib.util
from types import MappingProxyType

from .errors import EvalcoreError

__all__ = ["EXTRAS", "MissingExtraError", "missing", "require"]

#: extra -> the modules it brings (their import names); tests/test_package.py checks them against pyproject.toml
EXTRAS = MappingProxyType({
    "text": ("sacrebleu", "jiwer", "rapidfuzz", "rouge_score", "nltk", "regex", "ir_measures"),
    "app": ("streamlit", "authlib", "httpx"),
    "spark": ("pyspark",),
})


class MissingExtraError(EvalcoreError, ImportError):
    """A feature whose extra is not installed: an input error of the command line (one line, exit code 2), and an
    :class:`ImportError` for a program that catches those."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (a key of :data:`EXTRAS`) that cannot be imported here."""
    return [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]


def require(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtraError` naming ``feature`` and the install command when ``extra`` is missing.

    Examples
    --------
    >>> require("text", "the metric bleu")  # doctest: +SKIP
    MissingExtraError: the metric bleu needs the [text] extra (sacrebleu, jiwer are not installed): pip install
    "evalcore[text]"
    """
    absent = missing(extra)
    if absent:
        verb = "is" if len(absent) == 1 else "are"
        error = MissingExtraError(f"{feature} needs the [{extra}] extra ({', '.join(absent)} {verb} not installed): "
                                  f'pip install "evalcore[{extra}]"')
        error.name = absent[0]  # as ImportError's own
        raise error
