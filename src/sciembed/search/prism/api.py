"""PRISM as two Python calls, the same as `sciembed prism queries` and `sciembed prism search CORPUS --paper ID`.

    from sciembed.search.prism.api import generate_queries, prism_search
    sets = generate_queries("runs/ux", ["2212.11816"])                       # extractive, no LLM
    sets = generate_queries("runs/ux", None, llm=LLMConfig(base_url=..., model=..., cache_path=...))
    result, titles = prism_search("runs/ux", "2212.11816", queries=sets)
    for rank, hit in enumerate(result.hits[:10], 1): print(rank, hit.paper_id, titles[hit.paper_id], hit.sources())
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sciembed.corpus.layout import CorpusDir
from sciembed.papers.model import Paper
from sciembed.search.prism.aspects import AGENT_ASPECTS, DEFAULT_WORDS, QuerySet, extractive_queries
from sciembed.search.prism.index import TOP_K, Candidate, PrismIndex, PrismResult
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS, segment_views


def generate_queries(corpus: str | Path, paper_ids: Iterable[str] | None = None, **options: Any) -> list[QuerySet]:
    """Aspect queries for the given papers of `corpus` (all when None), made by `paper_queries` with `options`
    (its keywords): LLM agents when `llm` (an `LLMConfig`) is given, else extractive. Unknown ids raise
    `KeyError` naming them."""
    papers = CorpusDir(corpus).papers()
    ids = list(paper_ids) if paper_ids is not None else list(papers)
    missing = [p for p in ids if p not in papers]
    if missing:
        raise KeyError(f"{len(missing)} paper id(s) not in {corpus}: {', '.join(missing[:5])}")
    return paper_queries([papers[p] for p in ids], **options)


def paper_queries(papers: Sequence[Paper], *, llm: Any = None, texts: Mapping[str, str] | None = None,
                  samples: int = 1, single_agent: bool = False, structured: bool = False,
                  aspects: Sequence[str] = tuple(a.value for a in AGENT_ASPECTS), words: int = DEFAULT_WORDS,
                  progress: bool = True, sampling: Any = None) -> list[QuerySet]:
    """Aspect queries for papers in hand (a benchmark's query papers): LLM agents when `llm` (an `LLMConfig`) is
    given, with `sampling` (a `Sampling`; default PRISM's greedy decoding for one sample, seeded sampling for
    repeated samples: `agents.default_sampling`), else extractive. `texts` (paper id -> text) replaces the text
    the LLM agents read, e.g. SciFullBench's raw ``.mmd`` as PRISM's agents read it."""
    if llm is None:
        return [extractive_queries(p, words) for p in papers]
    from sciembed.llm import LLMClient
    from sciembed.search.prism.agents import llm_query_sets

    with LLMClient(llm, progress=progress) as client:
        return llm_query_sets(papers, client, aspects=aspects, samples=samples, single_agent=single_agent,
                              structured=structured, sampling=sampling, texts=texts)


def corpus_candidates(papers: Iterable[Paper], segment_tokens: int = DEFAULT_SEGMENT_TOKENS) -> list[Candidate]:
    return [Candidate(p.id, p.title, p.abstract, tuple(v.text for v in segment_views(p, segment_tokens)))
            for p in papers]


def prism_search(corpus: str | Path, paper_id: str, *, encoder: Any = None, queries: Sequence[QuerySet] | None = None,
                 sample: int = 0, top_k: int = TOP_K, dedupe: bool = False, aspects: Sequence[str] | None = None,
                 use_abstract: bool = True, segment_tokens: int = DEFAULT_SEGMENT_TOKENS, abstract_format: str = "ta",
                 show_progress: bool = False) -> tuple[PrismResult, dict[str, str]]:
    """PRISM's fused ranking for one corpus paper against the whole corpus (itself excluded).

    `queries`: query sets from `generate_queries` / a queries file (the one for `paper_id` and `sample`
    is used); without one, extractive queries are cut from the paper. `encoder`: an `Encoder` or a model
    name for `load_encoder` (default: the offline MiniLM).
    """
    from sciembed.search.paper_lookup import papers_lookup

    papers = CorpusDir(corpus).papers()
    paper_id = papers_lookup(papers, str(corpus)).resolve(paper_id)  # any external id / letter case; else hints
    if encoder is None or isinstance(encoder, str):
        from sciembed.models import load_encoder

        encoder = load_encoder(encoder)
    chosen = next((q for q in queries or () if q.paper_id == paper_id and q.sample == sample), None)
    if queries is not None and chosen is None:
        raise KeyError(f"no query set for paper {paper_id!r} (sample {sample}) in the given queries")
    query_set = chosen or extractive_queries(papers[paper_id])
    if "abstract" not in query_set.queries:
        query_set.with_abstract(papers[paper_id])
    index = PrismIndex.build(corpus_candidates(papers.values(), segment_tokens), encoder,
                             abstract_format=abstract_format, show_progress=show_progress)
    result = index.search(query_set, encoder, top_k=top_k, dedupe=dedupe, aspects=aspects, use_abstract=use_abstract)
    return result, {p.id: p.title for p in papers.values()}
