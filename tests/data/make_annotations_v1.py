"""Made tests/data/annotations_v1.sqlite3 with the annotation database of evalcore 04183db (schema 1: one row per
sampled candidate, annotations keyed by candidate), to test the migration to today's schema. Kept for the record:
it runs only against that commit (``git worktree add /tmp/m 04183db; cd /tmp/m; python <this file> <out>``).
"""

import sys

import numpy as np

from evalcore.annotations import AnnotationStore
from evalcore.candidates import CandidateSet
from evalcore.estimates import SamplingFrame

DATASET = "0" * 63 + "1"
OTHER = "0" * 63 + "2"
store = AnnotationStore(sys.argv[1])
rng = np.random.default_rng(3)
cs = CandidateSet(labels=rng.random(500) < 0.2, scores={"a": rng.normal(size=500), "b": rng.normal(size=500)},
                  directions={})
whole = store.draw(DATASET, "s7", cs, 60, seed=7)
top = store.draw(DATASET, "s3-top50-0123456789", cs, 30, seed=3, frame=SamplingFrame(("a", "b"), 50, "stable"))
store.create_sample(OTHER, "imported-abc", [5, 9, 2, 400], seed=None)
for i, c in enumerate(whole.candidates[:40]):
    store.annotate(DATASET, "s7", int(c), "alice", "TP" if cs.labels[c] else "FP")
for i, c in enumerate(whole.candidates[:25]):
    store.annotate(DATASET, "s7", int(c), "bob", ["TP", "FP", "unsure"][i % 3])
store.annotate(DATASET, "s7", int(whole.candidates[3]), "alice", "unsure")  # a changed mind
store.undo(DATASET, "s7", "bob")                                             # bob's 25th mark taken back
store.clear(DATASET, "s7", int(whole.candidates[10]), "alice")              # a cleared mark
for c in top.candidates[:12]:
    store.annotate(DATASET, "s3-top50-0123456789", int(c), "Anna K.", "TP")
store.annotate(OTHER, "imported-abc", 9, "carol", "FP")
