"""PRISM's two candidate indexes and its fused search.

The abstract index holds one vector per paper (sciembed's ``ta`` text or PRISM's ``Title: …\\nAbstract: …``);
the segment index every paper's ~3,000-token body segments (the abstract text for a paper without body). Each
aspect query searches the segments, the abstract query the abstracts, each for its top `top_k` (300); segment
hits map to papers *keeping duplicates* (PRISM's code), fused by RRF (k = 60) and cut to `top_k`. The query
paper is never retrieved, by id or normalised title. Distances follow the encoder's metric (l2 as PRISM's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.papers.titles import TitleTwins
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.search.fusion import RRF_K, FusedHit, rrf
from sciembed.search.prism.aspects import Aspect, QuerySet

TOP_K = 300
ABSTRACT_FORMATS = ("ta", "prism")


@dataclass(frozen=True)
class Candidate:
    """A candidate paper as PRISM sees it: id, title, abstract, body segments, full text."""

    id: str
    title: str
    abstract: str
    segments: tuple[str, ...] = ()
    full_text: str = ""


def abstract_text(title: str, abstract: str, fmt: str = "ta") -> str:
    """``ta``: sciembed's "Title. Abstract"; ``prism``: PRISM's "Title: …\\nAbstract: …"."""
    if fmt == "prism":
        return f"Title: {title}\nAbstract: {abstract}"
    if fmt != "ta":
        raise ValueError(f"unknown abstract format {fmt!r}; expected one of {', '.join(ABSTRACT_FORMATS)}")
    title = title.strip().rstrip(".")
    return f"{title}. {abstract.strip()}" if abstract.strip() else title


@dataclass
class PrismResult:
    """The fused ranking and, per query aspect, the ranked paper list it contributed (duplicates kept)."""

    paper_id: str
    hits: list[FusedHit]
    lists: dict[str, list[str]]
    sources: dict[str, str] = field(default_factory=dict)
    excluded: list[str] = field(default_factory=list)

    def ranking(self) -> list[tuple[str, float]]:
        return [(h.paper_id, h.score) for h in self.hits]


class PrismIndex:
    def __init__(self, abstracts: DenseIndex, segments: MultiVectorIndex, titles: dict[str, str],
                 abstract_format: str = "ta", counts: dict[str, int] | None = None) -> None:
        self.abstracts = abstracts
        self.segments = segments
        self.titles = titles
        self.abstract_format = abstract_format
        self.twins = TitleTwins(titles.items())
        self.counts = counts or {}
        self._paper_of_segment_row = np.asarray(segments.dense.ids, dtype=object)
        self._abstract_ids = abstracts.ids

    @classmethod
    def build(cls, candidates: Iterable[Candidate], encoder: Any, *, abstract_format: str = "ta",
              batch_size: int = 32, show_progress: bool = True) -> PrismIndex:
        """Encode every candidate's abstract text and segments (one `encode` call each)."""
        candidates = list(candidates)
        if not candidates:
            raise ValueError("PrismIndex.build: no candidate papers")
        ta = [abstract_text(c.title, c.abstract, abstract_format) for c in candidates]
        seg_ids: list[str] = []
        seg_texts: list[str] = []
        fallback = 0
        for c, text in zip(candidates, ta, strict=True):
            segments = [s for s in c.segments if s.strip()]
            if not segments:
                segments, fallback = [text], fallback + 1
            seg_ids.extend([c.id] * len(segments))
            seg_texts.extend(segments)
        abstracts = DenseIndex(encoder.dim, encoder.metric)
        abstracts.add([c.id for c in candidates],
                      encoder.encode(ta, batch_size=batch_size, show_progress=show_progress))
        segments_index = MultiVectorIndex(encoder.dim, encoder.metric, "max")
        segments_index.add(seg_ids, encoder.encode(seg_texts, batch_size=batch_size, show_progress=show_progress))
        counts = {"papers": len(candidates), "segments": len(seg_texts), "segment_ta_fallback": fallback}
        return cls(abstracts, segments_index, {c.id: c.title for c in candidates}, abstract_format, counts)

    def excluded(self, paper_id: str, title: str | None = None) -> list[str]:
        return self.twins.excluded(paper_id, title)

    def search(self, query_set: QuerySet, encoder: Any, **options: Any) -> PrismResult:
        """Encode the query set's texts and run `search_vectors`."""
        aspects = [a for a in query_set.queries if query_set.queries[a].strip()]
        vectors = encoder.encode([query_set.queries[a] for a in aspects], show_progress=False) if aspects else []
        return self.search_vectors(query_set.paper_id, dict(zip(aspects, vectors, strict=True)),
                                   title=query_set.title or None, sources=query_set.sources, **options)

    def search_vectors(self, paper_id: str, vectors: dict[str, np.ndarray], *, title: str | None = None,
                       exclude: Sequence[str] | None = None, top_k: int = TOP_K, rrf_k: int = RRF_K,
                       dedupe: bool = False, aspects: Sequence[str] | None = None, use_abstract: bool = True,
                       sources: dict[str, str] | None = None) -> PrismResult:
        """Fused ranking for one query paper from its encoded aspect queries (aspect -> vector); `exclude`
        (default: the paper and its title twins) is never returned."""
        excluded = list(exclude) if exclude is not None else self.excluded(paper_id, title)
        lists: dict[str, list[str]] = {}
        segment_aspects = [a for a in vectors if a != Aspect.ABSTRACT and (aspects is None or a in aspects)]
        if segment_aspects:  # one matrix product for all aspect queries: the scan is memory-bound
            stacked = np.stack([np.asarray(vectors[a], dtype=np.float32).reshape(-1) for a in segment_aspects])
            found = self._lists(self.segments.dense, self._paper_of_segment_row, stacked, top_k, excluded)
            lists.update(zip(segment_aspects, found, strict=True))
        if use_abstract and Aspect.ABSTRACT in vectors:
            lists[Aspect.ABSTRACT.value] = self._lists(self.abstracts, self._abstract_ids, vectors[Aspect.ABSTRACT],
                                                       top_k, excluded)[0]
        hits = rrf(lists, rrf_k, dedupe=dedupe, depth=top_k)
        return PrismResult(paper_id, hits, lists, dict(sources or {}), excluded)

    @staticmethod
    def _lists(dense: DenseIndex, ids: Sequence[str] | np.ndarray, vectors: np.ndarray, top_k: int,
               excluded: list[str]) -> list[list[str]]:
        """Per query vector: the ids of its top `top_k` rows of `dense` (a paper once per row: duplicates kept),
        excluded papers skipped."""
        _, rows = dense.search_rows(vectors, top_k + sum(len(dense.rows_of(p)) for p in excluded))
        skip = set(excluded)
        return [[p for p in (ids[r] for r in row if r >= 0) if p not in skip][:top_k] for row in rows]
