"""A digest of every paper-to-paper method's rankings, to show that a change to the search left them unchanged.

    PYTHONPATH=OLD/src python benchmarks/p2p_rankings_digest.py INGESTED_CORPUS old.json
    PYTHONPATH=src     python benchmarks/p2p_rankings_digest.py INGESTED_CORPUS new.json   # same sha256: unchanged

Every method but prism_llm (13, with the hybrid), under five configs (RRF, PRISM's naive and max-sim
fusions, without the abstract list, PRISM's own segments without dedupe), top 50, on the collection
benchmark's test query papers (val share 0.7), with a fast deterministic lexical encoder (hashed words,
a fixed random projection): the rankings, not a model, are what is compared.
"""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

from sciembed.evaluation.p2p_run import P2PConfig, rank_methods
from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper

METHODS = ["a2a", "f2f", "a2c", "f2c", "naive_sum", "max_sim", "late", "late_interaction", "prism_extractive",
           "prism_extractive_paper", "max_sim_prism_code", "bm25", "hybrid"]
CONFIGS = {"default": {}, "naive": {"fusion": "naive"}, "maxsim": {"fusion": "max_sim"},
           "noabs": {"use_abstract": False}, "segments": {"prism_views": "segments", "dedupe": False}}


class HashedWords:
    """A deterministic lexical encoder: hashed word counts through a fixed random projection (no model)."""

    name, dim, metric, max_seq_length, fingerprint = "hashed-words", 64, "cosine", 256, "hashed-words-64"

    def __init__(self) -> None:
        self.words = HashingVectorizer(n_features=4096, alternate_sign=False, norm=None)
        self.projection = np.random.default_rng(0).normal(size=(4096, 64)).astype(np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def encode(self, texts: list[str], batch_size: int | None = None, show_progress: bool = False) -> np.ndarray:
        return np.asarray(self.words.transform(list(texts)) @ self.projection, dtype=np.float32) + 1e-3


def main(corpus: str, out: str) -> None:
    bench = build_collection_paper_to_paper(corpus, split="test", val_share=0.7)
    rankings = {}
    for name, extra in CONFIGS.items():
        ranked = rank_methods(bench, HashedWords(), P2PConfig(top_k=50, methods=METHODS, **extra),
                              show_progress=False).rankings
        rankings[name] = {m: {q: [[d, round(float(s), 6)] for d, s in r] for q, r in sorted(by_q.items())}
                          for m, by_q in ranked.items()}
        print(name, {m: len(by_q) for m, by_q in rankings[name].items()}, flush=True)
    text = json.dumps(rankings)
    Path(out).write_text(text)
    print(hashlib.sha256(text.encode()).hexdigest())


if __name__ == "__main__":
    main(*sys.argv[1:3])
