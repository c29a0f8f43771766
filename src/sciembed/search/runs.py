"""One ranked list of a paper search: an index and the way a query paper is put to it.

A run is named as `sciembed eval run --kind paper_to_paper` names its methods (`run_name`). The same `Run.rank`
answers the CLI, the server and evaluation, so a query paper gets the same list wherever it is asked: at most
k distinct papers, none of its exclusions, equal scores in `retrieval.ties`'s seeded-hash order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.index.bm25_paper import BM25PaperIndex
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.search.prism.index import PrismIndex
from sciembed.views.kinds import MULTI_SECTION, IndexView

Ranking = list[tuple[str, float]]
# BM25: the query's text; dense: its view vectors (one row per view); PRISM: aspect -> vector
QueryInput = str | np.ndarray | dict[str, np.ndarray]


@dataclass
class Query:
    """A query paper (or text): its id, the papers it must never get, and its input per run name."""

    id: str
    inputs: dict[str, QueryInput]
    exclude: list[str] = field(default_factory=list)


@dataclass
class Run:
    """An index and how a query is put to it: BM25 by text, dense by `method` over the query's views, PRISM by
    its aspect vectors (`options`: `PrismIndex.search_vectors`'s settings).

    A dense run without a method scores a candidate by the index's per-view `aggregate`, best over the
    query's views (``max``: the best view pair, as ``max_sim``).
    """

    name: str
    index: Any  # MultiVectorIndex (dense), BM25PaperIndex or PrismIndex
    method: str | None = None
    titles: dict[str, str] = field(default_factory=dict)
    manifest: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        if isinstance(self.index, PrismIndex):
            return "prism"
        return "bm25" if isinstance(self.index, BM25PaperIndex) else "dense"

    @property
    def fingerprint(self) -> str | None:
        return getattr(self.index, "fingerprint", None)

    def stored(self, paper_id: str) -> QueryInput | None:
        """A paper of this index as a query: its indexed text (BM25) or its stored view vectors (dense)."""
        if paper_id not in self.titles:
            return None
        return self.index.paper_text(paper_id) if self.kind == "bm25" else self.index.views_of(paper_id)

    def rank(self, queries: list[Query], k: int, **knobs: Any) -> list[Ranking]:
        """The top `k` papers of each query (empty for a query without an input for this run)."""
        if self.kind == "bm25":
            asked = [q for q in queries if isinstance(q.inputs.get(self.name), str)]
            found = iter(self.index.search_texts([q.inputs[self.name] for q in asked], k,
                                                 [q.exclude for q in asked]) if asked else [])
            return [next(found) if isinstance(q.inputs.get(self.name), str) else [] for q in queries]
        if self.kind == "prism":
            return [self._prism(q, k) for q in queries]
        return [self._dense(q, k, knobs) for q in queries]

    def _prism(self, query: Query, k: int) -> Ranking:
        aspects = query.inputs.get(self.name)
        if not aspects:
            return []
        # RRF's list is already cut to k and ordered as `ties.ordered` orders (score, then the seeded hash)
        return self.index.search_vectors(query.id, aspects, exclude=query.exclude, top_k=k, **self.options).ranking()

    def _dense(self, query: Query, k: int, knobs: dict[str, Any]) -> Ranking:
        vectors = query.inputs.get(self.name)
        if vectors is None or not len(vectors):
            return []
        index: MultiVectorIndex = self.index
        method = self.method or ("max_sim" if index.aggregate == "max" else None)
        if method is not None:
            return [(p, s) for p, s, _ in index.search_views(vectors, k, method, exclude=query.exclude, **knobs)]
        return index.search_best_over_queries(vectors, k, query.exclude)  # mean / sum over a candidate's views


def view_method(view: str) -> str | None:
    """The paper method a dense index of this view kind answers as a fused run: ``late`` over a multi-section
    view (TA + section pieces), else none (best view pair)."""
    return "late" if view in MULTI_SECTION else None


def run_name(kind: str, view: str, method: str | None) -> str:
    """The paper-to-paper method an index answers: BM25 over ``fulltext`` is ``bm25``, a dense ``ta`` index
    ``a2a``, a dense multi-view index searched by ``late`` ``late``; any other is named by kind, view and method."""
    if kind == "bm25":
        return "bm25" if view == IndexView.FULLTEXT else f"bm25:{view}"
    if view == IndexView.TA:
        return "a2a"
    if method == "late" and view in MULTI_SECTION:
        return "late"
    return f"dense:{view}:{method or 'max_sim'}"
