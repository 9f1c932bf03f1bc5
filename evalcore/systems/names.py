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
    "rouge1": "ROUGE-1 (rouge-score; Lin 2004): unigram overlap, the mean over the documents, a fraction",
    "rouge2": "ROUGE-2 (rouge-score; Lin 2004): bigram overlap, the mean over the documents, a fraction",
    "rougeL": "ROUGE-L (rouge-score; Lin 2004): longest common subsequence, the mean over the documents",
    "rougeLsum": "ROUGE-Lsum (rouge-score): summary-level LCS over sentences, the mean over the documents",
}
#: The ROUGE metrics among the text metrics (scored by Google's rouge-score, :mod:`.rouge`).
ROUGE_METRICS = ("rouge1", "rouge2", "rougeL", "rougeLsum")
#: Ratio-of-sums metrics on a per-item table of counts (columns ``<system>.<count>``).
TABLE_METRICS = {
    "f1": "F1 = 2TP / (2TP + FP + FN), from <system>.tp, .fp, .fn",
    "accuracy": "accuracy = correct / total, from <system>.correct, .total",
    "uas": "unlabelled attachment score = correct / total, from <system>.correct, .total",
    "aer": "alignment error rate = 1 - (|A∩S| + |A∩P|) / (|A| + |S|), from <system>.a_s, .a_p, .a, .s",
    "mean": "the mean of any per-item score (COMET, BERTScore, a human rating), from <system>.score",
}
METRICS = {**TEXT_METRICS, **TABLE_METRICS}
#: Short names as a table or a figure's axis says them.
METRIC_NAMES = {"bleu": "BLEU", "chrf": "chrF", "ter": "TER", "wer": "WER", "rouge1": "ROUGE-1", "rouge2": "ROUGE-2",
                "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-Lsum", "f1": "F1", "accuracy": "accuracy", "uas": "UAS",
                "aer": "AER", "mean": "mean score"}

#: ROUGE's settings that change the numbers (:class:`.rouge.RougeOptions`).
ROUGE_TOKENIZERS = {
    "rouge_score": "rouge-score's (lowercased; only a-z and 0-9 kept, every other character ends a word)",
    "unicode": "Unicode letters and digits (lowercased; each Chinese or Japanese character a word)",
}
ROUGE_REFERENCES = {
    "max": "rouge-score's maximum over the references (score_multi: the reference of the highest F)",
    "mean": "the mean of the per-reference scores",
}
ROUGE_SPLITS = {
    "newline": "at the line breaks inside a document, written \\n in the file (rouge-score's)",
    "punctuation": "after sentence punctuation (. ! ? … 。 ！ ？) and at \\n",
}
ROUGE_STATS = {
    "f": "F of each document, the mean over the documents",
    "recall": "recall of each document, the mean over the documents",
    "precision": "precision of each document, the mean over the documents",
    "corpus": "corpus ROUGE-N: matched n-grams summed over the documents over their summed reference n-grams",
}

#: How topics and ties of TREC runs are handled (:class:`.trec.TrecOptions`).
TREC_MISSING = {
    "zero": "a topic of the qrels that a run lacks scores 0 (trec_eval -c)",
    "omit": "topics of the qrels that some run lacks are left out for every system",
}
TREC_TIES = {
    "trec_eval": "as trec_eval: equal scores in decreasing order of the document id",
    "rank": "by the run's rank column (then as trec_eval)",
    "random": "at random, with a seed",
}
#: Examples of ir-measures' measures (any measure it names whose mean over topics is its aggregate is accepted).
TREC_EXAMPLES = ("nDCG@10", "AP", "P@10", "R@1000", "RR", "Rprec", "Bpref", "nDCG", "P@5", "AP@100")
DEFAULT_MEASURE = "nDCG@10"

#: Tests offered besides the paired bootstrap and approximate randomization (:mod:`.meantests`).
PAIR_TESTS = {
    "ttest": "paired t-test (scipy's ttest_rel), Holm over the pairs; metrics that are a mean of item scores",
    "wilcoxon": "Wilcoxon signed-rank test (scipy's wilcoxon), Holm over the pairs; means of item scores",
    "tukey": "randomized Tukey HSD (Carterette 2012): one family for all pairs",
}
WILCOXON_ZERO_METHODS = ("wilcox", "pratt", "zsplit")  # scipy.stats.wilcoxon's zero_method
WILCOXON_METHODS = ("auto", "exact", "asymptotic")     # its method

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
