"""What one paper-to-paper run encodes: the texts each requested method needs, planned once, encoded once.

`plan_views` builds only the views the methods (and a fusion or the hybrid) need: TA texts, full texts,
encoder-sized pieces, PRISM's segments, aspect queries; `TextVectors` encodes every distinct text in one pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sciembed.evaluation.p2p_config import ON_SEGMENTS, PAPER_QUERY_WORDS, P2PConfig
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.papers.model import Paper
from sciembed.search.learned_fusion import FusionSpec
from sciembed.search.prism.aspects import QuerySet, extractive_queries
from sciembed.search.prism.index import Candidate, abstract_text
from sciembed.search.prism.queries import read_query_sets
from sciembed.views.fit import encoder_budget, fit_pieces_many, section_pieces, spread
from sciembed.views.segment import segment_views
from sciembed.views.tokens import TokenCounter, approx_tokens, tokenizer_counter


class TextVectors:
    """Every distinct text of the run encoded once; vectors looked up by text."""

    def __init__(self, encoder: Any, texts: Sequence[str], batch_size: int | None, show_progress: bool) -> None:
        distinct = list(dict.fromkeys(t for t in texts))
        self.row = {t: i for i, t in enumerate(distinct)}
        self.matrix = (np.asarray(encoder.encode(distinct, batch_size=batch_size, show_progress=show_progress),
                                  dtype=np.float32) if distinct else np.zeros((0, encoder.dim), np.float32))
        self.count = len(distinct)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        return self.matrix[[self.row[t] for t in texts]]


def encoder_token_counter(encoder: Any) -> TokenCounter:
    """The encoder's own tokenizer (batched), else its `count_tokens`, else the words / 0.7 estimate."""
    tokenizer = getattr(getattr(encoder, "model", None), "tokenizer", None)
    if tokenizer is not None:
        return tokenizer_counter(tokenizer)
    return getattr(encoder, "count_tokens", None) or approx_tokens


def candidate_pieces(bench: PaperToPaperBenchmark, candidates: list[Candidate], budget: int,
                     count: TokenCounter, per_section: int | None, sections: int | None) -> dict[str, list[str]]:
    """Candidate id -> encoder-sized pieces: of its sections (corpus routes) or of its given segments."""
    if bench.fixed_candidates is not None:
        return {c.id: [p for ps in spread(fit_pieces_many(list(c.segments), budget, count), sections)
                       for p in ps[:per_section]] for c in candidates}
    return {c.id: [v.text for v in section_pieces(bench.papers[c.id], budget, count, per_section, sections)]
            for c in candidates}


@dataclass
class RunViews:
    """The texts of one run, by side (query ``q_*``, candidate ``c_*``) and kind; empty when no method needs them."""

    needed: set[str]  # methods ranked: the requested ones and what a fusion or the hybrid needs
    on_pieces: bool  # candidates cut into encoder-sized pieces
    on_segments: bool  # candidates cut into PRISM's segments
    candidates: list[Candidate]
    ids: list[str]
    exclusions: dict[str, list[str]]  # query id -> ids never ranked for it (itself, same normalised title)
    qids: list[str]
    queries: dict[str, Paper]
    budget: int  # piece budget in tokens
    c_pieces: dict[str, list[str]]
    q_pieces: dict[str, list[str]]
    q_ta: dict[str, str]
    q_full: dict[str, str]
    q_segments: dict[str, list[str]]
    extractive: dict[str, QuerySet]
    extractive_paper: dict[str, QuerySet]
    llm_by_sample: dict[int, dict[str, QuerySet]]
    c_ta: list[str]
    c_full: list[str]

    def texts(self) -> list[str]:
        """Every text to encode, in one fixed order."""
        return [*self.c_ta, *self.q_ta.values(), *(self.c_full if "f2f" in self.needed else []),
                *[s for c in self.candidates for s in self.c_pieces.get(c.id, [])],
                *([s for c in self.candidates for s in c.segments] if self.on_segments else []),
                *self.q_full.values(), *[s for segs in self.q_pieces.values() for s in segs],
                *[s for segs in self.q_segments.values() for s in segs],
                *[t for qs in (*self.extractive.values(), *self.extractive_paper.values())
                  for t in qs.queries.values()],
                *[t for by_q in self.llm_by_sample.values() for qs in by_q.values() for t in qs.queries.values()]]


def needed_methods(config: P2PConfig, fusion: FusionSpec | None) -> set[str]:
    """The requested methods plus the runs `fused` fuses and the two runs `hybrid` combines."""
    needed = set(config.methods) | (set(fusion.runs) if fusion is not None and "fused" in config.methods else set())
    if "hybrid" in needed:
        needed |= {"bm25", config.hybrid_dense}
    return needed


def plan_views(bench: PaperToPaperBenchmark, encoder: Any, config: P2PConfig, fusion: FusionSpec | None,
               llm_queries: dict[tuple[str, int], QuerySet] | None) -> RunViews:
    """The views the requested methods need; LLM queries from `llm_queries`, else `config.queries_file`."""
    needed = needed_methods(config, fusion)
    on_pieces = "late" in needed or (config.prism_views == "pieces" and bool(needed & ON_SEGMENTS))
    on_segments = bool(needed & {"late_interaction", "prism_extractive_paper"}) or (
        config.prism_views == "segments" and bool(needed & ON_SEGMENTS))
    candidates = bench.candidates(config.segment_tokens, segments=on_segments)
    qids = sorted(bench.queries)
    queries = bench.queries
    budget = config.piece_tokens or encoder_budget(int(getattr(encoder, "max_seq_length", 512)))
    count = encoder_token_counter(encoder)
    per = (config.pieces_per_section, config.piece_sections)
    c_pieces = candidate_pieces(bench, candidates, budget, count, *per) if on_pieces else {}
    q_pieces = {q: c_pieces[q] if q in c_pieces else [v.text for v in section_pieces(queries[q], budget, count, *per)]
                for q in qids} if on_pieces else {}
    query_words = config.query_words or max(1, int(budget * 0.7))  # words / 0.7 ≈ tokens (views/tokens.py)
    q_ta = {q: abstract_text(queries[q].title, queries[q].abstract, config.abstract_format) for q in qids}
    q_full = {q: full_text(queries[q]) for q in qids} if needed & {"f2f", "f2c"} else {}
    q_segments = ({q: [v.text for v in segment_views(queries[q], config.segment_tokens)] for q in qids}
                  if "late_interaction" in needed else {})
    extractive = ({q: extractive_queries(queries[q], query_words) for q in qids}
                  if needed & {"naive_sum", "max_sim", "max_sim_prism_code", "prism_extractive"} else {})
    extractive_paper = ({q: extractive_queries(queries[q], PAPER_QUERY_WORDS) for q in qids}
                        if "prism_extractive_paper" in needed else {})
    if "prism_llm" in config.methods and llm_queries is None:
        if config.queries_file is None:
            raise ValueError("method prism_llm needs LLM aspect queries: give --llm-queries FILE (`eval run`; "
                             "`llm_queries:` in a suite entry), written by `sciembed prism queries --llm-base-url "
                             "URL …`, or leave prism_llm out of --methods")
        llm_queries = read_query_sets(config.queries_file)
    llm_by_sample: dict[int, dict[str, QuerySet]] = {}
    for (pid, sample), qs in (llm_queries or {}).items():
        if pid in queries:
            llm_by_sample.setdefault(sample, {})[pid] = qs.with_abstract(queries[pid])
    c_ta = [abstract_text(c.title, c.abstract, config.abstract_format) for c in candidates]
    c_full = [c.full_text or t for c, t in zip(candidates, c_ta, strict=True)] if needed & {"f2f", "bm25"} else []
    return RunViews(needed, on_pieces, on_segments, candidates, [c.id for c in candidates], bench.exclusions(), qids,
                    queries, budget, c_pieces, q_pieces, q_ta, q_full, q_segments, extractive, extractive_paper,
                    llm_by_sample, c_ta, c_full)
