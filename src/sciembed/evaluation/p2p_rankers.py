"""The paper-to-paper methods as rankers: the indexes a run's views need, and one ranking per (method, query).

Every ranking holds at most `top_k` distinct papers, the query paper's exclusions never among
them, equal scores in `ties.ordered`'s seeded-hash order; an index searched for the top k is searched
past every candidate tied with the k-th (`ties.past_ties`), so the hash decides which tied papers are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_config import P2PConfig
from sciembed.evaluation.p2p_views import RunViews, TextVectors
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.evaluation.ties import ordered, past_ties
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.fusion import rrf_scores
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.retrieval.prism.aspects import Aspect, QuerySet
from sciembed.retrieval.prism.index import Candidate, PrismIndex

Ranking = list[tuple[str, float]]


def pairs(hits: Sequence[tuple[str, float, int]]) -> Ranking:
    """A `search_views` ranking without its view rows."""
    return [(pid, score) for pid, score, _ in hits]


def top(hits: Sequence[tuple[str, float]], excluded: Sequence[str], k: int) -> Ranking:
    """The first `k` distinct papers of `hits` (a paper's first score), none of `excluded`, ties in seeded order."""
    skip = set(excluded)
    seen: dict[str, float] = {}
    for doc, score in hits:
        if doc not in skip:
            seen.setdefault(doc, float(score))
    return ordered(seen.items())[:k]


def dense_top(index: DenseIndex, ids: list[str], vector: np.ndarray, excluded: list[str], k: int) -> Ranking:
    """The top `k` papers of one query vector, none of `excluded`, ties at the cut resolved in seeded order."""
    skip = set(excluded)

    def search(_: Sequence[int], depth: int) -> list[Ranking]:
        scores, rows = index.search_rows(vector, depth + len(skip))
        hits = [(ids[r], float(s)) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0 and ids[r] not in skip]
        return [hits[:depth]]

    [hits] = past_ties(search, [0], k, len(index))
    return top(hits, excluded, k)


class MethodRankers:
    """The indexes over one run's candidate views, and each dense method's ranking of one query paper."""

    def __init__(self, views: RunViews, vec: TextVectors, encoder: Any, config: P2PConfig,
                 bench: PaperToPaperBenchmark) -> None:
        self.views, self.vec, self.config, self.k = views, vec, config, config.top_k
        v, needed = views, views.needed
        self.abstracts = DenseIndex(encoder.dim, encoder.metric)
        self.abstracts.add(v.ids, vec(v.c_ta))
        self.fulls = DenseIndex(encoder.dim, encoder.metric)
        if "f2f" in needed:
            self.fulls.add(v.ids, vec(v.c_full))

        def multi(views_of: Callable[[Candidate, str], list[str]]) -> MultiVectorIndex:
            index = MultiVectorIndex(encoder.dim, encoder.metric)
            rows = [(c.id, t) for c, ta in zip(v.candidates, v.c_ta, strict=True) for t in views_of(c, ta)]
            index.add([r[0] for r in rows], vec([r[1] for r in rows]))
            return index

        self.seg_index = multi(lambda c, ta: list(c.segments) or [ta]) if v.on_segments else None
        piece_index = multi(lambda c, ta: v.c_pieces[c.id] or [ta]) if v.on_pieces else None
        self.segments = piece_index if config.prism_views == "pieces" else self.seg_index
        self.ta_segments = multi(lambda c, ta: [ta, *c.segments]) if "late_interaction" in needed else None
        self.late_views = multi(lambda c, ta: [ta, *v.c_pieces[c.id]]) if "late" in needed else None
        titles = bench.candidate_titles()
        self.prism = (PrismIndex(self.abstracts, self.segments, titles, config.abstract_format)
                      if self.segments is not None else None)
        self.prism_paper = (PrismIndex(self.abstracts, self.seg_index, titles, config.abstract_format)
                            if "prism_extractive_paper" in needed and self.seg_index is not None else None)

    def query_set_vectors(self, qs: QuerySet) -> dict[str, np.ndarray]:
        keep = [a for a in qs.queries if a == Aspect.ABSTRACT or a in self.config.aspects]
        return dict(zip(keep, self.vec([qs.queries[a] for a in keep]), strict=True))

    def prism_rank(self, q: str, qs: QuerySet, index: PrismIndex | None = None, dedupe: bool | None = None
                   ) -> Ranking:
        """PRISM: each aspect query on the segments, the abstract on the abstracts, fused (`config.fusion`)."""
        config, excluded = self.config, self.views.exclusions[q]
        vectors = self.query_set_vectors(qs)
        if not config.use_abstract:
            vectors.pop(Aspect.ABSTRACT.value, None)
        if config.fusion == "rrf" or index is not None:
            result = (index or self.prism).search_vectors(
                q, vectors, title=self.views.queries[q].title, top_k=self.k, rrf_k=config.rrf_k,
                dedupe=config.dedupe if dedupe is None else dedupe, aspects=config.aspects,
                use_abstract=config.use_abstract)
            return top(result.ranking(), excluded, self.k)
        method = "sum" if config.fusion == "naive" else "max"
        return pairs(self.segments.search_views(np.stack(list(vectors.values())), self.k, method, exclude=excluded))

    def _on_segments(self, q: str, vectors: np.ndarray, how: str) -> Ranking:
        return pairs(self.segments.search_views(vectors, self.k, how, exclude=self.views.exclusions[q]))

    def _extractive(self, q: str) -> np.ndarray:
        return np.stack(list(self.query_set_vectors(self.views.extractive[q]).values()))

    def rank(self, method: str, q: str) -> Ranking:
        """Query paper `q` ranked by a dense method (all but bm25, hybrid, prism_llm and fused)."""
        v, vec, k, excluded = self.views, self.vec, self.k, self.views.exclusions[q]
        if method == "a2a":
            return dense_top(self.abstracts, v.ids, vec([v.q_ta[q]]), excluded, k)
        if method == "f2f":
            return dense_top(self.fulls, v.ids, vec([v.q_full[q]]), excluded, k)
        if method == "a2c":
            return self._on_segments(q, vec([v.q_ta[q]]), "max")
        if method == "f2c":
            return self._on_segments(q, vec([v.q_full[q]]), "max")
        if method == "naive_sum":
            return self._on_segments(q, self._extractive(q), "sum")
        if method == "max_sim":
            return self._on_segments(q, self._extractive(q), "max")
        if method == "max_sim_prism_code":
            return self._on_segments(q, self._extractive(q), "prism_worst")
        if method == "late_interaction":
            return pairs(self.ta_segments.search_views(vec([v.q_ta[q], *v.q_segments[q]]), k, "late",
                                                       exclude=excluded))
        if method == "late":
            return pairs(self.late_views.search_views(vec([v.q_ta[q], *v.q_pieces[q]]), k, "late", exclude=excluded))
        if method == "prism_extractive":
            return self.prism_rank(q, v.extractive[q])
        if method == "prism_extractive_paper":
            return self.prism_rank(q, v.extractive_paper[q], self.prism_paper, dedupe=False)
        raise ValueError(f"{method} is not a dense per-query method")


def rank_bm25(views: RunViews, k: int) -> dict[str, Ranking]:
    """Query full text → candidate full texts, BM25 (bm25s)."""
    from sciembed.retrieval.bm25 import BM25Index

    bm25 = BM25Index()
    bm25.add(views.ids, views.c_full)
    texts = [full_text(views.queries[q]) for q in views.qids]

    def search(rows: Sequence[int], depth: int) -> list[Ranking]:
        found = bm25.search([texts[i] for i in rows], depth + max(len(views.exclusions[q]) for q in views.qids))
        return [[h for h in hits if h[0] not in views.exclusions[views.qids[i]]][:depth]
                for i, hits in zip(rows, found, strict=True)]

    hits = past_ties(search, range(len(views.qids)), k, len(views.ids)) if views.qids else []
    return {q: top(h, views.exclusions[q], k) for q, h in zip(views.qids, hits, strict=True)}


def rank_hybrid(views: RunViews, bm25: dict[str, Ranking], dense: dict[str, Ranking], config: P2PConfig
                ) -> dict[str, Ranking]:
    """RRF of the bm25 ranking and a dense method's (`config.hybrid_dense`)."""
    return {q: top(rrf_scores({"bm25": [d for d, _ in bm25[q]], "dense": [d for d, _ in dense[q]]}, config.rrf_k,
                              dedupe=True), views.exclusions[q], config.top_k) for q in views.qids}
