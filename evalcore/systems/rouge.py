"""ROUGE of every document and system by Google's ``rouge-score`` (Lin 2004): its scorer, with the settings that
change the numbers as settings.

Each (document, system) is scored by ``rouge_scorer.RougeScorer([metric], tokenizer=...)``: ``score`` against
one reference, ``score_multi`` (rouge-score's maximum: the reference of the highest F) or the mean of ``score``
over several references. The corpus score is the plain mean of the documents' F (or recall, or precision): what
most papers average. rouge-score's own ``BootstrapAggregator`` reports the *median* of bootstrap means as its
"mid" value instead, with unseeded resamples; here the mean is exact and the resampling seeded. With
``stat="corpus"`` (ROUGE-N only) the score is the lecture's corpus ROUGE-N, matched n-grams summed over the
documents (and over the references a document's score takes) over their summed reference n-grams; the counts are
those behind rouge-score's recall (its recall times the reference's n-grams, which are counted on the tokens of
the same tokenizer).

The settings (:class:`RougeOptions`):

- **tokenizer**: rouge-score's (lowercase, every character outside ``a-z0-9`` ends a word and is dropped, so
  German umlauts split words and Chinese, Greek or Russian text has no words at all), or ``unicode``: lowercase,
  words are runs of Unicode letters, marks and digits, and each Chinese or Japanese character is a word of its
  own. :func:`dropped_text` measures how much of the letters and digits rouge-score's tokenizer would drop; past
  half of a file's, or half of those of a tenth of its documents, a warning says so.
- **stemmer**: nltk's Porter stemmer on words of more than three characters (rouge-score's ``use_stemmer``),
  on by default with rouge-score's tokenizer (as most papers) and off with the Unicode one (Porter's rules are
  English). It needs no downloaded data.
- **references**: ``max`` (rouge-score's ``score_multi``) or ``mean`` over several reference files.
- **split** (rougeLsum only): rouge-score splits a summary into sentences at line breaks; a document is one line
  of the file, so its sentence breaks are written as the two characters ``\\n`` (backslash, n) and read as line
  breaks (for every ROUGE: elsewhere a line break is white space). ``punctuation`` also splits after ``.``, ``!``,
  ``?``, ``…`` followed by white space, and after ``。！？`` (the way nltk's ``sent_tokenize`` would need its
  'punkt' data, which is not downloaded at run time). Without any break, rougeLsum equals rougeL: a note says so.

Each distinct output is scored once (an output identical to an earlier system's on the same document takes its
values), and a tokenizer remembers the texts it has tokenized (each reference is tokenized once, not once per
system) and the stemmer the stems of its words (stemming is most of rouge-score's time): the tokens are the
tokenizer's, unchanged. rouge-score is pure Python (ROUGE-L about 2 ms per pair of 60-word texts): with ``workers``
> 1 the documents are shared among that many forked processes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import FileFormatError, ParameterError
from ..extras import require
from ..text import shown
from .inputs import TextInput, _lines_list
from .metrics import get_metric, mean_score
from .names import ROUGE_METRICS, ROUGE_REFERENCES, ROUGE_SPLITS, ROUGE_STATS, ROUGE_TOKENIZERS
from .statistics import ItemStatistics, _codes, _run

__all__ = ["RougeOptions", "UnicodeTokenizer", "rouge_statistics", "rouge_scorer_for", "document_text",
           "dropped_text", "split_sentences", "rouge_workers", "DROPPED_WARNING"]

DROPPED_WARNING = 0.5  # warn when rouge-score's tokenizer drops more than this share of a file's letters and digits,
#                       or of those of a tenth of its documents
_JOB: dict = {}  # what the forked workers read (set just before the pool starts)


@dataclass(frozen=True)
class RougeOptions:
    """rouge-score's settings that change the numbers (see the module's docstring).

    ``stemmer=None`` takes the default of the tokenizer (on with rouge-score's, off with the Unicode one); the
    object holds the resolved value.
    """

    tokenizer: str = "rouge_score"
    stemmer: bool | None = None
    references: str = "max"
    split: str = "newline"
    stat: str = "f"

    def __post_init__(self) -> None:
        for name, table in (("tokenizer", ROUGE_TOKENIZERS), ("references", ROUGE_REFERENCES),
                            ("split", ROUGE_SPLITS), ("stat", ROUGE_STATS)):
            if getattr(self, name) not in table:
                raise ParameterError(f"ROUGE's `{name}` must be one of {', '.join(table)}; got "
                                     f"{shown(getattr(self, name), 40)}")
        if self.stemmer is None:
            object.__setattr__(self, "stemmer", self.tokenizer == "rouge_score")
        elif not isinstance(self.stemmer, (bool, np.bool_)):
            raise ParameterError(f"ROUGE's `stemmer` must be yes or no; got {shown(self.stemmer)}")
        object.__setattr__(self, "stemmer", bool(self.stemmer))

    def for_metric(self, metric: str) -> "RougeOptions":
        """The options that matter for ``metric`` (the sentence split for rougeLsum only); refuses the corpus
        ROUGE-N for ROUGE-L."""
        if metric not in ROUGE_METRICS:
            raise ParameterError(f"{shown(metric)} is not a ROUGE metric ({', '.join(ROUGE_METRICS)})")
        if self.stat == "corpus" and metric not in ("rouge1", "rouge2"):
            raise ParameterError(f"the corpus ROUGE (matched n-grams summed over the documents over the summed "
                                 f"reference n-grams) is ROUGE-N's (rouge1, rouge2); {metric} is a mean of the "
                                 "documents' F, recall or precision")
        return RougeOptions(self.tokenizer, self.stemmer, self.references,
                            self.split if metric == "rougeLsum" else "newline", self.stat)


class UnicodeTokenizer:
    """Words of Unicode letters, marks and digits, lowercased; each Han, Hiragana or Katakana character a word of
    its own; nltk's Porter stemmer on words of more than three characters if ``use_stemmer`` (as rouge-score's).

    A ``rouge_score.tokenizers.Tokenizer`` (it has ``tokenize(text) -> list of str``).
    """

    def __init__(self, use_stemmer: bool = False) -> None:
        import regex

        self._words = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]|"
                                    r"(?:(?![\p{Han}\p{Hiragana}\p{Katakana}])[\p{L}\p{M}\p{N}])+")
        self._stemmer = _RememberingStemmer(_porter()) if use_stemmer else None

    def tokenize(self, text: str) -> list[str]:
        tokens = self._words.findall(text.lower())
        if self._stemmer is not None:
            tokens = [self._stemmer.stem(t) if len(t) > 3 else t for t in tokens]
        return tokens


def _porter():
    from nltk.stem import porter

    return porter.PorterStemmer()


class _RememberingStemmer:
    """nltk's Porter stemmer remembering the stems of the words it has seen (the same stems: words repeat, and
    stemming is most of rouge-score's time)."""

    def __init__(self, stemmer, size: int = 500_000) -> None:
        self._stemmer, self._seen, self._size = stemmer, {}, size

    def stem(self, word: str) -> str:
        stem = self._seen.get(word)
        if stem is None:
            stem = self._stemmer.stem(word)
            if len(self._seen) < self._size:
                self._seen[word] = stem
        return stem


class _RougeScoreTokenizer:
    """rouge-score's tokenizer: its ``tokenize.tokenize(text, stemmer)``, as its ``DefaultTokenizer`` calls it,
    with nltk's Porter stemmer (remembering its stems) if ``use_stemmer``."""

    def __init__(self, use_stemmer: bool) -> None:
        from rouge_score import tokenize

        self._tokenize = tokenize.tokenize
        self._stemmer = _RememberingStemmer(_porter()) if use_stemmer else None

    def tokenize(self, text: str) -> list[str]:
        return self._tokenize(text, self._stemmer)


class _Remembering:
    """A tokenizer that remembers its texts' tokens (the same tokens: each reference is tokenized once)."""

    def __init__(self, tokenizer, size: int = 200_000) -> None:
        self._tokenizer, self._seen, self._size = tokenizer, {}, size

    def tokenize(self, text: str) -> list[str]:
        tokens = self._seen.get(text)
        if tokens is None:
            tokens = self._tokenizer.tokenize(text)
            if len(self._seen) < self._size:
                self._seen[text] = tokens
        return tokens


def base_tokenizer(options: RougeOptions):
    """rouge-score's tokenizer (its ``DefaultTokenizer(use_stemmer)``), or :class:`UnicodeTokenizer`."""
    if options.tokenizer == "unicode":
        return UnicodeTokenizer(options.stemmer)
    return _RougeScoreTokenizer(options.stemmer)


def rouge_scorer_for(metric: str, options: RougeOptions, *, remember: bool = True):
    """rouge-score's ``RougeScorer([metric])`` with the options' tokenizer (remembering its texts' tokens), and that
    tokenizer: ``(scorer, tokenizer)``."""
    require("text", f"the metric {metric}")
    from rouge_score import rouge_scorer

    tokenizer = base_tokenizer(options)
    if remember:
        tokenizer = _Remembering(tokenizer)
    return rouge_scorer.RougeScorer([metric], tokenizer=tokenizer), tokenizer


_BREAK = re.compile(r"\\n")
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’»)\]]*\s+|(?<=[。！？])")


def split_sentences(text: str) -> str:
    """The text with a line break after each sentence's final punctuation (``punctuation`` split)."""
    parts = []
    for line in text.split("\n"):
        start = 0
        for m in _SENTENCE_END.finditer(line):
            if m.end() > start:
                parts.append(line[start:m.end()].strip())
                start = m.end()
        parts.append(line[start:].strip())
    return "\n".join(p for p in parts if p)


def document_text(line: str, split: str = "newline") -> str:
    """A file's line as rouge-score reads the document: ``\\n`` written in the line is a line break (a sentence
    break for rougeLsum); with ``split="punctuation"`` also after sentence punctuation."""
    text = _BREAK.sub("\n", line)
    return split_sentences(text) if split == "punctuation" else text


_WORD_CHARACTER = re.compile(r"[\W_]+")
_ROUGE_CHARACTER = re.compile(r"[^a-z0-9]+")


def dropped_text(lines: Sequence[str]) -> float:
    """The share of the letters and digits of ``lines`` that rouge-score's tokenizer drops (every character
    outside a-z and 0-9 after lowercasing); 0 for text without letters or digits."""
    total = kept = 0
    for line in lines:
        total += len(_WORD_CHARACTER.sub("", line))
        kept += len(_ROUGE_CHARACTER.sub("", line.lower()))
    return max(0.0, 1.0 - kept / total) if total else 0.0


def rouge_workers(n_jobs: int) -> int:
    """Processes for rouge-score: both cores (at most 4) from 2,000 (document, system) pairs on, else one."""
    import os
    import sys

    if sys.platform == "win32" or n_jobs < 2000:
        return 1
    return max(1, min(os.cpu_count() or 1, 4))


def _statistics(scorer, tokenizer, metric: str, options: RougeOptions, references: list[str],
                hypothesis: str) -> tuple:
    """One document's statistics: (value, 1), or (matched, reference n-grams) for the corpus ROUGE-N."""
    if options.stat != "corpus":
        if options.references == "max" or len(references) == 1:
            score = scorer.score_multi(references, hypothesis)[metric]  # rouge-score's maximum over the references
            return (float(getattr(score, _FIELD[options.stat])), 1.0)
        values = [float(getattr(scorer.score(r, hypothesis)[metric], _FIELD[options.stat])) for r in references]
        return (sum(values) / len(values), 1.0)
    n = int(metric[5:])
    scores = [scorer.score(r, hypothesis)[metric] for r in references]
    counts = [max(len(tokenizer.tokenize(r)) - n + 1, 0) for r in references]
    matched = [int(round(s.recall * max(c, 1))) for s, c in zip(scores, counts)]  # rouge-score: matches / max(c, 1)
    if options.references == "max":
        best = int(np.argmax([s.fmeasure for s in scores]))  # the reference score_multi takes
        return (float(matched[best]), float(counts[best]))
    return (float(sum(matched)), float(sum(counts)))


_FIELD = {"f": "fmeasure", "recall": "recall", "precision": "precision"}


def _rouge_jobs(chunk: int) -> np.ndarray:
    """The statistics of one chunk of (document, system) jobs."""
    job = _JOB
    (scorer, tokenizer), metric, options = job["scorer"], job["metric"], job["options"]
    references, hypotheses = job["references"], job["hypotheses"]
    return np.array([_statistics(scorer, tokenizer, metric, options, [r[i] for r in references], hypotheses[s][i])
                     for i, s in job["chunks"][chunk]], dtype=np.float64).reshape(-1, 2)


def _check_references(data: TextInput) -> None:
    for name, lines in zip(data.reference_names, data.references):
        empty = [i + 1 for i, line in enumerate(lines) if not line.replace("\\n", " ").strip()]
        if empty:
            raise FileFormatError(
                f"{name}: {'line' if len(empty) == 1 else 'lines'} {_lines_list(empty)} of the reference summaries "
                f"{'is' if len(empty) == 1 else 'are'} empty; every system scores 0 against an empty reference "
                "(rouge-score), so the document says nothing about the systems. Remove those documents from every "
                "file, or fill in the references")


def rouge_notes(data: TextInput, metric: str, options: RougeOptions) -> tuple[str, ...]:
    """What the page and the command line say about the input: text the tokenizer drops, empty summaries,
    rougeLsum without sentence breaks."""
    notes = []
    if options.tokenizer == "rouge_score":
        files = [(n, lines) for n, lines in zip(data.reference_names, data.references)] + \
                [(f"system {s}", lines) for s, lines in zip(data.systems, data.hypotheses)]
        bad = []
        for name, lines in files:
            share = dropped_text(lines)
            mostly = sum(1 for line in lines if dropped_text([line]) > DROPPED_WARNING)
            if share > DROPPED_WARNING or mostly >= max(1, 0.1 * len(lines)):
                bad.append(f"{name} ({100 * share:.0f}% of them; most of {mostly:,} of {len(lines):,} documents)")
        if bad:
            notes.append(f"rouge-score's tokenizer keeps only the letters a-z and the digits 0-9: it drops most of "
                         f"the letters and digits of {', '.join(bad[:4])}{' and more' if len(bad) > 4 else ''} "
                         "(accented, Cyrillic, Greek, Chinese ... characters), so those summaries are scored on little "
                         "or nothing. Choose the Unicode tokenizer for text that is not English")
    for system, lines in zip(data.systems, data.hypotheses):
        empty = sum(1 for line in lines if not line.replace("\\n", " ").strip())
        if empty:
            notes.append(f"system {system}: {empty:,} empty summar{'y' if empty == 1 else 'ies'}, scored 0")
    if metric == "rougeLsum" and options.split == "newline" and not any(
            "\\n" in line for lines in (*data.references, *data.hypotheses) for line in lines):
        notes.append("no document holds a sentence break (\\n): rougeLsum equals rougeL here; write \\n between "
                     "sentences, or split by sentence punctuation")
    return tuple(notes)


def rouge_statistics(data: TextInput, metric: str, options: RougeOptions | None = None, *,
                     workers: int | None = None) -> ItemStatistics:
    """The per-document statistics of every system by rouge-score (see the module's docstring).

    Parameters
    ----------
    data : TextInput
        Reference summaries (one or more files) and one file of summaries per system, a document per line.
    metric : {"rouge1", "rouge2", "rougeL", "rougeLsum"}
    options : RougeOptions, optional
    workers : int, optional
        Processes to share the documents among (default :func:`rouge_workers`).

    Returns
    -------
    ItemStatistics
        Statistics ``(score, n)`` per document (``(matched, reference_ngrams)`` for the corpus ROUGE-N); the
        observed score of each system is the mean of its documents' values (their sum correctly rounded), or the
        ratio of the summed counts; ``notes`` say what the input's text does to the numbers.

    Raises
    ------
    FileFormatError
        An empty reference summary.
    """
    require("text", f"the metric {metric}")  # rouge-score and nltk: the [text] extra
    options = (options or RougeOptions()).for_metric(metric)
    m = get_metric(metric, options)
    _check_references(data)
    references = [[document_text(line, options.split) for line in lines] for lines in data.references]
    hypotheses = [[document_text(line, options.split) for line in lines] for lines in data.hypotheses]
    n_items, n_systems = data.n_items, len(data.systems)
    codes = _codes(hypotheses, n_items)
    jobs = [(i, s) for i in range(n_items) for s in range(n_systems) if codes[i, s] == s]  # a document's together
    workers = rouge_workers(len(jobs)) if workers is None else max(1, int(workers))
    pieces = 1 if workers <= 1 else 8 * workers  # small pieces: the processes finish together
    bounds = np.linspace(0, len(jobs), pieces + 1).round().astype(int)
    chunks = [jobs[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    _JOB.update(scorer=rouge_scorer_for(metric, options), metric=metric, options=options, references=references,
                hypotheses=hypotheses, chunks=chunks)
    try:
        computed = [part for part in _run(_rouge_jobs, len(chunks), workers) if len(part)]
    finally:
        _JOB.clear()
    values = np.zeros((n_items, 2, n_systems), dtype=np.float64)
    rows = np.concatenate(computed) if computed else np.zeros((0, 2))
    values[np.array([i for i, _ in jobs], dtype=int), :, np.array([s for _, s in jobs], dtype=int)] = rows
    for s in range(n_systems):
        same = codes[:, s] != s
        values[same, :, s] = values[same, :, codes[same, s]]
    if m.mean:
        scores = np.array([mean_score(values[:, 0, s]) for s in range(n_systems)])
    else:
        scores = np.array([float(m.score(values[:, :, s].sum(axis=0))) for s in range(n_systems)])
    return ItemStatistics(metric=m, options=options, systems=data.systems, values=values, outputs=codes,
                          scores=scores, notes=rouge_notes(data, metric, options))
