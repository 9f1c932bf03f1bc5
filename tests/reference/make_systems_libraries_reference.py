"""Write tests/reference/systems_libraries_reference.json: ROUGE by rouge-score, TREC measures by ir-measures, the
paired t-test and Wilcoxon's test by scipy and ranx's tests, each on inputs written into the same file.

Run from the repository root: ``.venv/bin/python tests/reference/make_systems_libraries_reference.py``. It calls
only the libraries themselves (nothing of evalcore), so tests/test_systems_rouge.py, test_systems_trec.py and
test_systems_means.py compare evalcore's numbers with numbers made without it. Do not edit the JSON by hand.
"""

from __future__ import annotations

import datetime
import json
from importlib import metadata
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("systems_libraries_reference.json")

# ------------------------------------------------------------------------------------------------ ROUGE
REFERENCES = [
    ["The cat sat on the mat.\\nIt was happy about it.", "A cat is sitting on the mat, happily."],
    ["Markets rallied on Tuesday after the central bank cut rates.", "Stocks rose on Tuesday as rates were cut."],
    ["Die Straße über die Brücke wird im Mai gesperrt.", "Im Mai wird die Brückenstraße gesperrt."],
    ["Президент подписал закон о бюджете.", "Закон о бюджете подписан президентом."],
    ["東京で新しい学生寮が開かれた。", "新しい寮が東京で開いた。"],
    ["Running runners ran; the runner runs. Nobody ran faster!", "Runners were running and nobody ran faster."],
]
SUMMARIES = {
    "lead": ["The cat sat on a mat.", "Markets rallied after the bank cut rates on Tuesday.",
             "Die Brücke wird im Mai gesperrt.", "Президент подписал закон.", "東京で学生寮が開かれた。",
             "The runner runs faster than nobody."],
    "abstractive": ["A happy cat was sitting on the mat.\\nIt liked it.", "Rates were cut and stocks rallied.",
                    "Die Straße wird gesperrt.", "Закон о бюджете подписан.", "新しい寮が開いた。",
                    "Running runners ran. Nobody ran faster!"],
}


def rouge_reference() -> dict:
    from rouge_score import rouge_scorer

    out = {"references": REFERENCES, "summaries": SUMMARIES, "scores": []}
    for metric in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
        for stemmer in (True, False):
            scorer = rouge_scorer.RougeScorer([metric], use_stemmer=stemmer)
            for system, lines in SUMMARIES.items():
                single, multi = [], []
                for refs, line in zip(REFERENCES, lines):
                    target = refs[0].replace("\\n", "\n")
                    prediction = line.replace("\\n", "\n")
                    single.append(list(scorer.score(target, prediction)[metric]))
                    multi.append(list(scorer.score_multi([r.replace("\\n", "\n") for r in refs], prediction)[metric]))
                out["scores"].append({"metric": metric, "stemmer": stemmer, "system": system,
                                      "single": single, "max": multi})
    return out


# ------------------------------------------------------------------------------------------------ TREC
def trec_files() -> dict:
    """Qrels and three runs with ties of equal scores, a topic a run lacks, a topic the qrels lack."""
    rng = np.random.default_rng(31)
    qrels, runs = [], {"bm25": [], "dense": [], "hybrid": []}
    for topic in range(1, 13):
        for doc in range(12):
            qrels.append(f"{topic} 0 d{doc:02d} {int(rng.choice([0, 0, 1, 2]))}")
    for k, name in enumerate(runs):
        for topic in range(1, 14):  # topic 13 is not in the qrels
            if name == "dense" and topic == 5:
                continue  # a topic of the qrels this run lacks
            scores = np.round(rng.random(15) * 4) / 4 + 0.1 * k  # quarter steps: many ties
            order = np.argsort(-scores, kind="stable")
            for rank, doc in enumerate(order, 1):
                runs[name].append(f"{topic} Q0 d{doc:02d} {rank} {scores[doc]:.2f} {name}")
    return {"qrels": qrels, "runs": runs}


MEASURES = ("nDCG@10", "AP", "P@5", "RR", "Rprec", "Bpref", "R@10", "P(rel=2)@5")


def trec_reference(files: dict) -> dict:
    import ir_measures

    qrels = {}
    for line in files["qrels"]:
        topic, _, doc, rel = line.split()
        qrels.setdefault(topic, {})[doc] = int(rel)
    out = {}
    for name, lines in files["runs"].items():
        run = {}
        for line in lines:
            topic, _, doc, _, score, _ = line.split()
            run.setdefault(topic, {})[doc] = float(score)
        per = {}
        for measure in MEASURES:
            parsed = ir_measures.parse_measure(measure)
            values = {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}
            per[measure] = {"topics": values, "mean": ir_measures.calc_aggregate([parsed], qrels, run)[parsed]}
        out[name] = per
    return out


# ------------------------------------------------------------------------------------------------ tests of means
def tests_reference() -> dict:
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test
    from scipy.stats import ttest_rel, wilcoxon

    rng = np.random.default_rng(7)
    base = rng.random(60)
    values = {"a": base.round(2), "b": (base + rng.normal(0.04, 0.1, 60)).clip(0, 1).round(2),
              "c": (base + rng.normal(0.0, 0.1, 60)).clip(0, 1).round(2)}
    values["c"][:15] = values["a"][:15]  # zero differences, as retrieval has many
    out = {"values": {k: v.tolist() for k, v in values.items()}, "pairs": []}
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        x, y = values[b], values[a]
        row = {"a": a, "b": b, "ttest": float(ttest_rel(x, y).pvalue),
               "ranx_ttest": float(paired_student_t_test(y, x)[0]),
               "ranx_fisher_100000": float(fisher_randomization_test(y, x, 100_000, 0.01, 42)[0]),
               "wilcoxon": []}
        for zero_method in ("wilcox", "pratt", "zsplit"):
            for method in ("auto", "exact", "asymptotic"):
                for correction in (False, True):
                    if method == "exact" and correction:
                        continue
                    row["wilcoxon"].append({"zero_method": zero_method, "method": method, "correction": correction,
                                            "p": float(wilcoxon(x, y, zero_method=zero_method, method=method,
                                                                correction=correction).pvalue)})
        out["pairs"].append(row)
    return out


def main() -> None:
    files = trec_files()
    document = {
        "made_by": "tests/reference/make_systems_libraries_reference.py",
        "date": datetime.date.today().isoformat(),
        "versions": {name: metadata.version(name) for name in ("rouge-score", "nltk", "ir-measures",
                                                               "pytrec-eval-terrier", "scipy", "ranx", "numpy")},
        "rouge": rouge_reference(), "trec": {"files": files, "measures": list(MEASURES),
                                             "values": trec_reference(files)},
        "tests": tests_reference(),
    }
    OUT.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
