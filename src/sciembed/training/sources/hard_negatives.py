"""Hard negatives for citation training: papers that look related but are not linked.

Every training paper gets a ranked list of other training papers: ``bm25`` over the full text (queried with the
paper's first ``query_words`` words, DPR's negatives) or ``model`` (cosine over title+abstract vectors, ANCE's
refresh). Linked papers in either direction, and the paper itself, are removed (false negatives); the rest is cut
to ranks ``[skip, depth)``, since the very top is where uncited but relevant papers sit (RocketQA, SciNCL).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.training.data import Ragged, TrainingData
from sciembed.views import ta_text
from sciembed.views.simple import full_text


@dataclass(frozen=True)
class MinedNegatives:
    """Per training paper (by index), candidate negative papers, best (hardest) first."""

    miner: str
    lists: Ragged
    skip: int
    depth: int
    excluded_links: int  # (paper, linked paper) entries removed from the rankings

    def summary(self) -> dict[str, object]:
        sizes = self.lists.lengths
        return {"miner": self.miner, "band": [self.skip, self.depth], "papers": len(sizes),
                "papers_without_negatives": int((sizes == 0).sum()),
                "mean_candidates": round(float(sizes.mean()), 2) if len(sizes) else 0.0,
                "excluded_links": self.excluded_links, "fingerprint": self.fingerprint()}

    def fingerprint(self) -> str:
        digest = hashlib.sha256(f"{self.miner}:{self.skip}:{self.depth}".encode())
        digest.update(self.lists.offsets.tobytes())
        digest.update(np.asarray(self.lists.values, dtype=np.int32).tobytes())
        return digest.hexdigest()[:16]


def linked_papers(corpus: CorpusDir, ids: Sequence[str]) -> list[set[int]]:
    """For every paper of `ids` (by index), the indices of the papers it is linked to in either direction.

    Links are the corpus's directed citations of every split plus its undirected pairs, so a link the
    funnel kept in any form is known here."""
    index = {pid: i for i, pid in enumerate(ids)}
    linked: list[set[int]] = [set() for _ in ids]
    edges: list[tuple[str, str]] = []
    if corpus.has_citations():
        edges += corpus.citations(None)
    if corpus.has_splits():
        for split in ("train", "val", "test"):
            edges += corpus.pairs(split)
    for a, b in edges:
        i, j = index.get(a), index.get(b)
        if i is not None and j is not None and i != j:
            linked[i].add(j)
            linked[j].add(i)
    return linked


def _band(rankings: Sequence[Sequence[int]], linked: list[set[int]], skip: int, depth: int) -> tuple[Ragged, int]:
    """Drop the paper itself and its links from each ranking, then keep ranks ``[skip, depth)``."""
    kept: list[list[int]] = []
    excluded = 0
    for i, ranking in enumerate(rankings):
        others = [int(j) for j in ranking if int(j) != i]
        clean = [j for j in others if j not in linked[i]]
        excluded += len(others) - len(clean)
        kept.append(clean[skip:depth])
    return Ragged.from_lists(kept), excluded


def mine_bm25(data: TrainingData, linked: list[set[int]], *, skip: int = 5, depth: int = 50, query_words: int = 1500
              ) -> MinedNegatives:
    """BM25 over the split's full texts, each paper querying with its own (first `query_words` words)."""
    from sciembed.retrieval.bm25 import BM25Index

    n = len(data.papers)
    texts = [full_text(data.papers[i]) for i in range(n)]
    index = BM25Index()
    index.add([str(i) for i in range(n)], texts)
    want = depth + 1 + max((len(s) for s in linked), default=0)
    queries = [" ".join(t.split()[:query_words]) for t in texts]
    hits = index.search(queries, k=min(want, n))
    rankings = [[int(pid) for pid, _ in row] for row in hits]
    lists, excluded = _band(rankings, linked, skip, depth)
    return MinedNegatives("bm25", lists, skip, depth, excluded)


def mine_dense(data: TrainingData, linked: list[set[int]], encode: Callable[[list[str]], np.ndarray], *,
               skip: int = 5, depth: int = 50) -> MinedNegatives:
    """Cosine over title+abstract vectors from `encode` (texts -> unit-normalised rows): ANCE's refresh."""
    import faiss

    n = len(data.papers)
    vectors = np.ascontiguousarray(encode([ta_text(data.papers[i]) for i in range(n)]), dtype=np.float32)
    faiss.normalize_L2(vectors)
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(vectors)
    want = min(n, depth + 1 + max((len(s) for s in linked), default=0))
    _, rows = index.search(vectors, want)
    lists, excluded = _band([[j for j in row if j >= 0] for row in rows], linked, skip, depth)
    return MinedNegatives("model", lists, skip, depth, excluded)


def mine(config, data: TrainingData, linked: list[set[int]], base: str | None = None) -> MinedNegatives:
    """Mine as a `HardNegativesConfig` says; miner ``model`` encodes with `config.model` (else `base`)."""
    if config.miner == "bm25":
        return mine_bm25(data, linked, skip=config.skip, depth=config.depth, query_words=config.query_words)
    from sciembed.models import load_encoder

    encoder = load_encoder(config.model or base)
    return mine_dense(data, linked, lambda texts: encoder.encode(texts, show_progress=False),
                      skip=config.skip, depth=config.depth)
