"""The names of the systems wing's choices, with a label each (light: no numpy, so that ``--help`` answers at once).

The modules that implement a choice key their tables by these names; ``tests/test_systems.py`` checks that the
keys agree.
"""

from __future__ import annotations

#: Metrics on text (references and one hypotheses file per system), from the libraries that define them.
TEXT_METRICS = {
    "bleu": "BLEU (sacrebleu; Papineni et al. 2002), 0-100",
    "chrf": "chrF (sacrebleu; Popović 2015), 0-100; chrF++ with word order 2",
    "ter": "TER (sacrebleu; Snover et al. 2006), 0-100, lower is better",
    "wer": "WER (jiwer), a fraction, lower is better",
}
#: Ratio-of-sums metrics on a per-item table of counts (columns ``<system>.<count>``).
TABLE_METRICS = {
    "f1": "F1 = 2TP / (2TP + FP + FN), from <system>.tp, .fp, .fn",
    "accuracy": "accuracy = correct / total, from <system>.correct, .total",
    "uas": "unlabelled attachment score = correct / total, from <system>.correct, .total",
    "aer": "alignment error rate = 1 - (|A∩S| + |A∩P|) / (|A| + |S|), from <system>.a_s, .a_p, .a, .s",
}
METRICS = {**TEXT_METRICS, **TABLE_METRICS}
#: Short names as a table or a figure's axis says them.
METRIC_NAMES = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER", "wer": "WER", "f1": "F1", "accuracy": "accuracy",
                "uas": "UAS", "aer": "AER"}

#: How the paired bootstrap turns resampled gains into a p-value.
RULES = {
    "bk": "Berg-Kirkpatrick et al. (2012): p = (1 + #{sign(δ)·δ* > 2|δ|}) / (R + 1)",
    "sacrebleu": "sacrebleu's (Moses'): p = (1 + #{|δ*| − mean|δ*| > |δ|}) / (R + 1)",
}
RULE_NAMES = {"bk": "Berg-Kirkpatrick et al. (2012)", "sacrebleu": "sacrebleu (Moses)"}

#: sacrebleu's BLEU tokenizers that need no further packages or downloads.
TOKENIZERS = {
    "13a": "13a (mteval-v13a, sacrebleu's default)",
    "intl": "intl (international, Unicode punctuation and symbols)",
    "zh": "zh (Chinese characters split)",
    "char": "char (every character a token)",
    "none": "none (the text as it is)",
}

DEFAULT_SEED = 12345  # sacrebleu's default (SACREBLEU_SEED), so that the same seed draws the same resamples
DEFAULT_RESAMPLES = 1000  # sacrebleu's --paired-bs-n
RESAMPLE_CHOICES = (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
MAX_SYSTEMS = 20
