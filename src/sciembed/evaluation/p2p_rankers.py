"""The paper-to-paper methods as rankers: the indexes a run's views need, and one ranking per (method, query).

The methods a collection is searched by (``a2a``, ``late``, ``bm25`` and their fusion) are runs of the
one `search.PaperSearch`, the search ``sciembed index search`` and the service use, over in-memory indexes
of the benchmark's candidates, each query paper's inputs encoded from its views. Every ranking holds at most
`top_k` distinct papers, the query paper's exclusions never among them, equal scores in `ties.ordered`'s
seeded-hash order, ties at the cut resolved before it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_config import P2PConfig
from sciembed.evaluation.p2p_views import RunViews, TextVectors
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.evaluation.ties import ordered
from sciembed.index.bm25_paper import BM25PaperIndex
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.search.paper_search import fuse
from sciembed.search.prism.aspects import Aspect, QuerySet
from sciembed.search.prism.index import Candidate, PrismIndex
from sciembed.search.runs import Query, Ranking, Run

SEARCHED = ("a2a", "f2f", "late", "bm25")  # the methods ranked as runs of the one paper search


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


class MethodRankers:
    """The indexes over one run's candidate views, and each dense method's ranking of one query paper."""

    def __init__(self, views: RunViews, vec: TextVectors, encoder: Any, config: P2PConfig,
                 bench: PaperToPaperBenchmark) -> None:
        self.views, self.vec, self.config, self.k = views, vec, config, config.top_k
        v, needed = views, views.needed
        self.abstracts = DenseIndex(encoder.dim, encoder.metric)  # PRISM's abstract index
        self.abstracts.add(v.ids, vec(v.c_ta))

        def multi(views_of: Callable[[Candidate, str], list[str]]) -> MultiVectorIndex:
            index = MultiVectorIndex(encoder.dim, encoder.metric)
            rows = [(c.id, t) for c, ta in zip(v.candidates, v.c_ta, strict=True) for t in views_of(c, ta)]
            index.add([r[0] for r in rows], vec([r[1] for r in rows]))
            return index

        self.seg_index = multi(lambda c, ta: list(c.segments) or [ta]) if v.on_segments else None
        piece_index = multi(lambda c, ta: v.c_pieces[c.id] or [ta]) if v.on_pieces else None
        self.segments = piece_index if config.prism_views == "pieces" else self.seg_index
        self.ta_segments = multi(lambda c, ta: [ta, *c.segments]) if "late_interaction" in needed else None
        self.runs: dict[str, Run] = {}  # the runs of the paper search (`search.PaperSearch`)
        if "a2a" in needed:
            self.runs["a2a"] = Run("a2a", multi(lambda c, ta: [ta]), "max_sim")
        if "f2f" in needed:
            fulls = dict(zip(v.ids, v.c_full, strict=True))
            self.runs["f2f"] = Run("f2f", multi(lambda c, ta: [fulls[c.id]]), "max_sim")
        if "late" in needed:
            self.runs["late"] = Run("late", multi(lambda c, ta: [ta, *v.c_pieces[c.id]]), "late")
        if "bm25" in needed:
            self.runs["bm25"] = Run("bm25", BM25PaperIndex.from_texts(v.ids, v.c_full))
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
        method = "naive_sum" if config.fusion == "naive" else "max_sim"
        return pairs(self.segments.search_views(np.stack(list(vectors.values())), self.k, method, exclude=excluded))

    def _on_segments(self, q: str, vectors: np.ndarray, how: str) -> Ranking:
        return pairs(self.segments.search_views(vectors, self.k, how, exclude=self.views.exclusions[q]))

    def _extractive(self, q: str) -> np.ndarray:
        return np.stack(list(self.query_set_vectors(self.views.extractive[q]).values()))

    def _input(self, method: str, q: str) -> str | np.ndarray:
        """Query paper `q` as a searched run's input: encoded from its views (BM25: its full text)."""
        v = self.views
        if method == "bm25":
            return full_text(v.queries[q])
        if method == "late":
            return self.vec([v.q_ta[q], *v.q_pieces[q]])
        return self.vec([v.q_full[q] if method == "f2f" else v.q_ta[q]])

    def rank_searched(self, method: str) -> dict[str, Ranking]:
        """Every query paper ranked by one searched method (a run of the paper search)."""
        v = self.views
        queries = [Query(q, {method: self._input(method, q)}, v.exclusions[q]) for q in v.qids]
        return dict(zip(v.qids, self.runs[method].rank(queries, self.k), strict=True))

    def rank(self, method: str, q: str) -> Ranking:
        """Query paper `q` ranked by a dense method not searched as a run (all but `SEARCHED`, hybrid, prism_llm
        and fused)."""
        v, vec, k, excluded = self.views, self.vec, self.k, self.views.exclusions[q]
        if method == "a2c":
            return self._on_segments(q, vec([v.q_ta[q]]), "max_sim")
        if method == "f2c":
            return self._on_segments(q, vec([v.q_full[q]]), "max_sim")
        if method == "naive_sum":
            return self._on_segments(q, self._extractive(q), "naive_sum")
        if method == "max_sim":
            return self._on_segments(q, self._extractive(q), "max_sim")
        if method == "max_sim_prism_code":
            return self._on_segments(q, self._extractive(q), "max_sim_prism_code")
        if method == "late_interaction":
            return pairs(self.ta_segments.search_views(vec([v.q_ta[q], *v.q_segments[q]]), k, "late",
                                                       exclude=excluded))
        if method == "prism_extractive":
            return self.prism_rank(q, v.extractive[q])
        if method == "prism_extractive_paper":
            return self.prism_rank(q, v.extractive_paper[q], self.prism_paper, dedupe=False)
        raise ValueError(f"{method} is not a dense per-query method")


def rank_hybrid(views: RunViews, bm25: dict[str, Ranking], dense: dict[str, Ranking], config: P2PConfig
                ) -> dict[str, Ranking]:
    """RRF of the bm25 ranking and a dense method's (`config.hybrid_dense`): the paper search's RRF of two runs."""
    return {q: fuse({"bm25": bm25[q], "dense": dense[q]}, config.top_k, rrf_k=config.rrf_k) for q in views.qids}
