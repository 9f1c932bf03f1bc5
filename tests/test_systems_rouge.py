"""ROUGE in the systems comparison (evalcore.systems.rouge): every document's value equals Google's rouge-score with
the same options to the last bit; the corpus score is their plain mean; the settings (stemmer, tokenizer, several
references, rougeLsum's sentences, the statistic) change the numbers as rouge-score does; corpus ROUGE-N against a
plain loop over n-gram counts; the warning when rouge-score's tokenizer drops most of the text; bad input.

Where the numbers come from: rouge-score 0.1.2 itself, called here (``RougeScorer(...).score`` and
``score_multi``) and, on the multilingual documents of tests/reference/systems_libraries_reference.json, stored by
tests/reference/make_systems_libraries_reference.py (which imports nothing of evalcore).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from evalcore.errors import FileFormatError, ParameterError
from evalcore.systems.compare import ResamplingSettings, compare_systems
from evalcore.systems.inputs import check_text_input
from evalcore.systems.rouge import (RougeOptions, UnicodeTokenizer, document_text, dropped_text, rouge_statistics,
                                    split_sentences)
from evalcore.systems.synthetic import synthetic_test_set

REFERENCE = json.loads((Path(__file__).parent / "reference" / "systems_libraries_reference.json").read_text("utf-8"))
METRICS = ("rouge1", "rouge2", "rougeL", "rougeLsum")


def _input(references, systems, metric="rouge1"):
    refs = [(f"refs{k}.txt", [r[k] for r in references]) for k in range(len(references[0]))]
    return check_text_input(refs, [(name, lines) for name, lines in systems.items()], metric)


@pytest.fixture(scope="module")
def english():
    """300 English-like documents (a synthetic set's ASCII words) of three systems, two references each."""
    data = synthetic_test_set(300, 3, seed=5)
    words = [w for w in " ".join(data.references).split() if w.isascii() and w.isalpha()]
    rng = np.random.default_rng(1)

    def sentence(n):
        return " ".join(rng.choice(words, n)) + "."

    refs = [[sentence(int(rng.integers(8, 40))) + "\\n" + sentence(8), sentence(int(rng.integers(8, 40)))]
            for _ in range(300)]
    systems = {}
    for name, keep in (("base", 0.5), ("better", 0.7), ("copy", 0.5)):
        out = []
        for i, (r, _) in enumerate(refs):
            tokens = r.replace("\\n", " ").split()
            out.append(" ".join(t for t in tokens if rng.random() < keep) + (" running" if i % 3 else ""))
        systems[name] = out
    systems["copy"] = [b if i % 4 else c for i, (b, c) in enumerate(zip(systems["base"], systems["copy"]))]
    return refs, systems


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("stemmer", [True, False])
def test_every_document_equals_rouge_score_to_the_last_bit(english, metric, stemmer):
    from rouge_score import rouge_scorer

    refs, systems = english
    data = _input([[r[0]] for r in refs], systems, metric)
    ours = rouge_statistics(data, metric, RougeOptions(stemmer=stemmer))
    scorer = rouge_scorer.RougeScorer([metric], use_stemmer=stemmer)
    for s, (name, lines) in enumerate(systems.items()):
        expected = [scorer.score(r[0].replace("\\n", "\n"), h)[metric].fmeasure for r, h in zip(refs, lines)]
        assert ours.values[:, 0, s].tolist() == expected, name
        assert ours.values[:, 1, s].tolist() == [1.0] * len(refs)
        assert ours.scores[s] == pytest.approx(float(np.mean(expected)), rel=1e-15, abs=0)  # the plain mean
        assert ours.scores[s] == math.fsum(expected) / len(expected)


def test_several_references_max_is_score_multi_and_mean_the_mean(english):
    from rouge_score import rouge_scorer

    refs, systems = english
    data = _input(refs, systems, "rougeL")
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    best = rouge_statistics(data, "rougeL", RougeOptions(references="max", stat="recall"))
    mean = rouge_statistics(data, "rougeL", RougeOptions(references="mean", stat="precision"))
    for s, lines in enumerate(systems.values()):
        targets = [[t.replace("\\n", "\n") for t in r] for r in refs]
        assert best.values[:, 0, s].tolist() == [scorer.score_multi(t, h)["rougeL"].recall
                                                 for t, h in zip(targets, lines)]
        assert mean.values[:, 0, s].tolist() == [sum(scorer.score(x, h)["rougeL"].precision for x in t) / len(t)
                                                 for t, h in zip(targets, lines)]


def test_the_stored_multilingual_documents_equal_rouge_score():
    """The reference file's six documents (English, German, Russian, Japanese) with one and two references."""
    stored = REFERENCE["rouge"]
    for row in stored["scores"]:
        data = _input(stored["references"], {row["system"]: stored["summaries"][row["system"]], "other":
                                             stored["summaries"]["lead"]}, row["metric"])
        ours = rouge_statistics(data, row["metric"], RougeOptions(stemmer=row["stemmer"], references="max"))
        assert ours.values[:, 0, 0].tolist() == [f for _, _, f in row["max"]]
        single = _input([[r[0]] for r in stored["references"]], {row["system"]: stored["summaries"][row["system"]],
                                                                "other": stored["summaries"]["lead"]}, row["metric"])
        for stat, column in (("precision", 0), ("recall", 1), ("f", 2)):
            ours = rouge_statistics(single, row["metric"], RougeOptions(stemmer=row["stemmer"], stat=stat))
            assert ours.values[:, 0, 0].tolist() == [v[column] for v in row["single"]]


def test_rouge_lsum_reads_sentence_breaks_and_says_when_there_are_none():
    from rouge_score import rouge_scorer

    refs = [["One cat sat here.\\nA dog ran there.\\nBirds sang."], ["Rain fell. The river rose! Boats left?"]]
    systems = {"a": ["A dog ran there.\\nOne cat sat here.", "The river rose. Rain fell."],
               "b": ["Birds sang. One cat sat.", "Boats left? The river rose!"]}
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    for split in ("newline", "punctuation"):
        ours = rouge_statistics(_input(refs, systems, "rougeLsum"), "rougeLsum", RougeOptions(split=split))
        for s, lines in enumerate(systems.values()):
            expected = [scorer.score(document_text(r[0], split), document_text(h, split))["rougeLsum"].fmeasure
                        for r, h in zip(refs, lines)]
            assert ours.values[:, 0, s].tolist() == expected
    assert split_sentences("Rain fell. The river rose! Boats left? 東京。大阪") == \
        "Rain fell.\nThe river rose!\nBoats left?\n東京。\n大阪"
    # the punctuation split changes the second document (no \n in it), the newline split does not see its sentences
    newline = rouge_statistics(_input(refs, systems, "rougeLsum"), "rougeLsum", RougeOptions())
    punctuation = rouge_statistics(_input(refs, systems, "rougeLsum"), "rougeLsum", RougeOptions(split="punctuation"))
    assert newline.values[1, 0, 0] != punctuation.values[1, 0, 0]
    # no break anywhere: rougeLsum equals rougeL, and a note says so
    flat = {"a": ["One cat sat here.", "Rain fell."], "b": ["A dog ran.", "Boats left."]}
    plain_refs = [["One cat sat here and a dog ran there."], ["Rain fell and the river rose."]]
    lsum = rouge_statistics(_input(plain_refs, flat, "rougeLsum"), "rougeLsum")
    lcs = rouge_statistics(_input(plain_refs, flat, "rougeL"), "rougeL")
    assert lsum.values.tolist() == lcs.values.tolist()
    assert any("rougeLsum equals rougeL" in n for n in lsum.notes)


def test_the_unicode_tokenizer_scores_text_rouge_scores_tokenizer_drops_and_the_warning_says_so():
    refs = [["Привет мир, книга лежит на столе."], ["東京で新しい学生寮が開かれた。"], ["Die Straße über die Brücke."]]
    systems = {"a": ["Привет мир.", "東京で学生寮が開かれた。", "Die Straße ist über der Brücke."],
               "b": ["Книга на столе.", "新しい寮。", "Straße."]}
    data = _input(refs, systems, "rouge1")
    default = rouge_statistics(data, "rouge1")
    unicode = rouge_statistics(data, "rouge1", RougeOptions(tokenizer="unicode"))
    assert default.values[:2, 0, :].tolist() == [[0.0, 0.0], [0.0, 0.0]]  # Russian and Japanese: nothing left
    assert (unicode.values[:2, 0, :] > 0).all()
    warning = next(n for n in default.notes if "drops most" in n)
    assert "refs0.txt" in warning and "system a" in warning and "Unicode tokenizer" in warning
    assert not any("drops most" in n for n in unicode.notes)
    assert UnicodeTokenizer().tokenize("Die STRASSE-Brücke, 東京で 42km") == \
        ["die", "strasse", "brücke", "東", "京", "で", "42km"]
    assert UnicodeTokenizer(True).tokenize("running runners") == ["run", "runner"]
    assert RougeOptions(tokenizer="unicode").stemmer is False and RougeOptions().stemmer is True
    assert dropped_text(["abc"]) == 0.0 and dropped_text(["мир"]) == 1.0 and dropped_text(["..."]) == 0.0
    assert dropped_text(["Straße"]) == pytest.approx(1 / 6)


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


@pytest.mark.parametrize("references", ["max", "mean"])
def test_corpus_rouge_n_equals_a_plain_loop(english, references):
    """Summed matches over summed reference n-grams, counted here with collections.Counter on rouge-score's tokens;
    with several references the max takes the reference rouge-score's score_multi takes (highest F)."""
    from rouge_score import tokenizers

    refs, systems = english
    data = _input(refs, systems, "rouge2")
    ours = rouge_statistics(data, "rouge2", RougeOptions(stat="corpus", references=references))
    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=True)
    for s, lines in enumerate(systems.values()):
        matched = total = 0
        for r, h in zip(refs, lines):
            hyp = _ngrams(tokenizer.tokenize(h), 2)
            per = []
            for target in r:
                ref = _ngrams(tokenizer.tokenize(target.replace("\\n", "\n")), 2)
                m, c, p = sum((ref & hyp).values()), sum(ref.values()), sum(hyp.values())
                recall, precision = m / max(c, 1), m / max(p, 1)
                f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
                per.append((m, c, f))
            chosen = [per[int(np.argmax([x[2] for x in per]))]] if references == "max" else per
            matched += sum(x[0] for x in chosen)
            total += sum(x[1] for x in chosen)
        assert ours.scores[s] == matched / total
    assert not ours.metric.mean and ours.metric.statistics == ("matched", "reference_ngrams")
    with pytest.raises(ParameterError, match="ROUGE-N's"):
        rouge_statistics(data, "rougeL", RougeOptions(stat="corpus"))


def test_two_processes_give_the_same_numbers(english):
    refs, systems = english
    data = _input(refs, systems, "rougeL")
    one = rouge_statistics(data, "rougeL", workers=1)
    two = rouge_statistics(data, "rougeL", workers=2)
    assert one.values.tobytes() == two.values.tobytes() and one.scores.tolist() == two.scores.tolist()
    assert (one.outputs[:, 2] == 0).mean() > 0.7  # the copy repeats the baseline: scored once


def test_empty_summaries_are_refused_as_references_and_counted_as_outputs():
    refs = [["a cat sat"], [" \\n "], ["dogs ran"]]
    systems = {"a": ["a cat", "x", "dogs"], "b": ["", "y", "cats"]}
    with pytest.raises(FileFormatError, match=r"refs0\.txt: line 2 of the reference summaries is empty"):
        rouge_statistics(_input(refs, systems), "rouge1")
    refs[1] = ["birds sang"]
    stats = rouge_statistics(_input(refs, systems), "rouge1")
    assert "system b: 1 empty summary, scored 0" in stats.notes and stats.values[0, 0, 1] == 0.0


def test_a_rouge_comparison_resamples_the_documents_means(english):
    """The bootstrap of a mean: each resample's score is the mean of the drawn documents' values (a plain loop)."""
    refs, systems = english
    stats = rouge_statistics(_input([[r[0]] for r in refs], systems, "rouge1"), "rouge1")
    R, seed = 200, 3
    result = compare_systems(stats, ResamplingSettings(R, seed))
    draws = np.random.default_rng(seed).choice(300, size=(R, 300), replace=True)
    f = stats.values[:, 0, :]
    for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        gains = [sum(f[i, b] for i in idx) / 300 - sum(f[i, a] for i in idx) / 300 for idx in draws]
        np.testing.assert_allclose(result.gains[:, p], gains, rtol=1e-12, atol=1e-14)
    assert result.metric.unit == "documents"
