"""The paper-to-paper methods as runs of the one paper search, over in-memory indexes of a benchmark's candidates.

Every method is a `search.Run` (what ``sciembed index search`` and the service rank with) over the candidates'
views; a ranking holds at most `top_k` distinct papers, never the query's exclusions, ties in `ties.ordered`'s
order and resolved before the cut.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_config import P2PConfig
from sciembed.evaluation.p2p_views import RunViews, TextVectors
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.index.bm25_paper import BM25PaperIndex
from sciembed.models.progress import progress_bar
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.search.paper_search import fuse
from sciembed.search.prism.aspects import Aspect, QuerySet
from sciembed.search.prism.index import Candidate, PrismIndex
from sciembed.search.runs import Query, QueryInput, Ranking, Run

ON_SEGMENTS = {"a2c": "max_sim", "f2c": "max_sim", "naive_sum": "naive_sum", "max_sim": "max_sim",
               "max_sim_prism_code": "max_sim_prism_code"}  # method -> paper method over the candidates' segments
PRISM_BY_QUERIES = {"naive": "naive_sum", "max_sim": "max_sim"}  # PRISM's non-RRF fusions: all queries at once


class MethodRankers:
    """The runs over one benchmark's candidate views, and each query paper's input to them."""

    def __init__(self, views: RunViews, vec: TextVectors, encoder: Any, config: P2PConfig,
                 bench: PaperToPaperBenchmark) -> None:
        self.views, self.vec, self.config, self.k = views, vec, config, config.top_k
        v, needed = views, views.needed

        def multi(views_of: Callable[[Candidate, str], list[str]]) -> MultiVectorIndex:
            index = MultiVectorIndex(encoder.dim, encoder.metric)
            rows = [(c.id, t) for c, ta in zip(v.candidates, v.c_ta, strict=True) for t in views_of(c, ta)]
            index.add([r[0] for r in rows], vec([r[1] for r in rows]))
            return index

        seg_index = multi(lambda c, ta: list(c.segments) or [ta]) if v.on_segments else None
        piece_index = multi(lambda c, ta: v.c_pieces[c.id] or [ta]) if v.on_pieces else None
        segments = piece_index if config.prism_views == "pieces" else seg_index
        runs: dict[str, Run] = {}
        if "a2a" in needed:
            runs["a2a"] = Run("a2a", multi(lambda c, ta: [ta]), "max_sim")
        if "f2f" in needed:
            fulls = dict(zip(v.ids, v.c_full, strict=True))
            runs["f2f"] = Run("f2f", multi(lambda c, ta: [fulls[c.id]]), "max_sim")
        if "late" in needed:
            runs["late"] = Run("late", multi(lambda c, ta: [ta, *v.c_pieces[c.id]]), "late")
        if "late_interaction" in needed:
            runs["late_interaction"] = Run("late_interaction", multi(lambda c, ta: [ta, *c.segments]), "late")
        if "bm25" in needed:
            runs["bm25"] = Run("bm25", BM25PaperIndex.from_texts(v.ids, v.c_full))
        for name, method in ON_SEGMENTS.items():
            if name in needed and segments is not None:
                runs[name] = Run(name, segments, method)
        abstracts = DenseIndex(encoder.dim, encoder.metric)  # PRISM's abstract index
        abstracts.add(v.ids, vec(v.c_ta))
        titles = bench.candidate_titles()
        prism = {"rrf_k": config.rrf_k, "aspects": config.aspects, "use_abstract": config.use_abstract}
        if segments is not None:
            runs["prism"] = (Run("prism", segments, PRISM_BY_QUERIES[config.fusion]) if config.fusion != "rrf" else
                             Run("prism", PrismIndex(abstracts, segments, titles, config.abstract_format),
                                 options=prism | {"dedupe": config.dedupe}))
        if "prism_extractive_paper" in needed and seg_index is not None:
            runs["prism_extractive_paper"] = Run(
                "prism_extractive_paper", PrismIndex(abstracts, seg_index, titles, config.abstract_format),
                options=prism | {"dedupe": False})
        self.runs = runs

    def query_set_vectors(self, qs: QuerySet) -> dict[str, np.ndarray]:
        keep = [a for a in qs.queries if a == Aspect.ABSTRACT or a in self.config.aspects]
        return dict(zip(keep, self.vec([qs.queries[a] for a in keep]), strict=True))

    def _aspects(self, qs: QuerySet, run: str) -> QueryInput:
        """A PRISM query set as the run's input: aspect -> vector (RRF), or the vectors stacked."""
        vectors = self.query_set_vectors(qs)
        if not self.config.use_abstract:
            vectors.pop(Aspect.ABSTRACT.value, None)
        return vectors if self.runs[run].kind == "prism" else np.stack(list(vectors.values()))

    def _input(self, method: str, q: str) -> QueryInput:
        """Query paper `q` as method's input: encoded from its views (BM25: its full text)."""
        v, vec = self.views, self.vec
        if method == "bm25":
            return full_text(v.queries[q])
        if method == "late":
            return vec([v.q_ta[q], *v.q_pieces[q]])
        if method == "late_interaction":
            return vec([v.q_ta[q], *v.q_segments[q]])
        if method in ("naive_sum", "max_sim", "max_sim_prism_code"):
            return np.stack(list(self.query_set_vectors(v.extractive[q]).values()))
        if method == "prism_extractive":
            return self._aspects(v.extractive[q], "prism")
        if method == "prism_extractive_paper":
            return self._aspects(v.extractive_paper[q], method)
        return vec([v.q_full[q] if method in ("f2f", "f2c") else v.q_ta[q]])  # a2a, a2c

    def rank_all(self, method: str, query_sets: dict[str, QuerySet] | None = None, show_progress: bool = False
                 ) -> dict[str, Ranking]:
        """Every query paper ranked by `method`; with `query_sets` (``prism_llm#<sample>``), PRISM over them (a
        paper without one ranks nothing)."""
        v = self.views
        run = self.runs["prism" if method == "prism_extractive" or query_sets is not None else method]

        def query(q: str) -> Query:
            if query_sets is None:
                return Query(q, {run.name: self._input(method, q)}, v.exclusions[q])
            return Query(q, {run.name: self._aspects(query_sets[q], "prism")} if q in query_sets else {},
                         v.exclusions[q])

        out: dict[str, Ranking] = {}
        with progress_bar(f"rank {method}", len(v.qids), enabled=show_progress) as advance:
            for start in range(0, len(v.qids), 64):  # the inputs of 64 query papers at a time
                chunk = v.qids[start : start + 64]
                out.update(zip(chunk, run.rank([query(q) for q in chunk], self.k), strict=True))
                advance(len(chunk))
        return out


def rank_hybrid(views: RunViews, bm25: dict[str, Ranking], dense: dict[str, Ranking], config: P2PConfig
                ) -> dict[str, Ranking]:
    """RRF of the bm25 ranking and a dense method's (`config.hybrid_dense`): the paper search's RRF of two runs."""
    return {q: fuse({"bm25": bm25[q], "dense": dense[q]}, config.top_k, rrf_k=config.rrf_k) for q in views.qids}
