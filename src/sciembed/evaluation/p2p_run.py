"""Every paper-to-paper method on one `PaperToPaperBenchmark`, in one run, with one encoding pass.

Methods (query side → candidate side, aggregation):

=====================  ==========================================================================
a2a                    query title+abstract → candidate abstracts
f2f                    query full text → candidate full texts (both truncated by the encoder)
a2c / f2c              query abstract / full text → candidate segments, a paper's best segment
naive_sum              PRISM's queries (aspects + abstract) → segments, sum over all pairs
max_sim                PRISM's queries → segments, the best (query, segment) pair
max_sim_prism_code     PRISM's released code: per query the *worst* segment, summed (reproduction)
late                   late interaction over views that fit the encoder: query views (TA + section
                       pieces, `sciembed.views.fit`) → candidate views (the same kinds); for every
                       query view its best candidate view, averaged over the query's views (what
                       `sciembed search --method late` does over a `--view section` index)
late_interaction       the same over TA + PRISM segments (a 256-token encoder reads each segment's
                       first 256 tokens only: kept to show what sizing the views gains)
prism_extractive       PRISM: extractive aspect queries → candidate segments, abstract → abstracts,
                       RRF; segments are encoder-sized pieces unless `prism_views: segments`
prism_extractive_paper PRISM's extractive run exactly as the paper: 3,000-token segments, every
                       segment hit counted, 250-word queries, whatever the encoder reads
prism_llm              PRISM with LLM aspect queries from a queries file (every sample, mean ± std)
bm25                   query full text → candidate full texts, BM25 (bm25s)
hybrid                 RRF of bm25 and a dense method (`hybrid_dense`, default a2a)
fused                  a learned fusion of `fuse_runs` (default bm25, a2a, late): a
                       `sciembed.retrieval.learned_fusion.FusionSpec` tuned on a validation split
=====================  ==========================================================================

Candidate "segments" of a2c, f2c, naive_sum, max_sim and PRISM are encoder-sized
pieces (`prism_views: pieces`, the default) or PRISM's segments (`segments`).

Every ranking holds `top_k` (300) papers; the query paper (by id and by
normalised title) is never ranked. Metrics are ranx's, per split: Recall@50/100/
200/300, MRR@50 (SciFullBench's), NDCG@10/100 and MAP over the top 300.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from sciembed.evaluation import metrics as M
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark, full_text
from sciembed.evaluation.run import ModelRun
from sciembed.evaluation.ties import ordered
from sciembed.models.progress import progress_bar
from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.fusion import rrf_scores
from sciembed.retrieval.learned_fusion import FusionSpec, fuse_all, tune_fusion
from sciembed.retrieval.multivector import MultiVectorIndex
from sciembed.retrieval.prism.aspects import AGENT_ASPECTS, Aspect, QuerySet, extractive_queries
from sciembed.retrieval.prism.index import Candidate, PrismIndex, abstract_text
from sciembed.retrieval.prism.queries import read_query_sets
from sciembed.views.fit import encoder_budget, fit_pieces_many, section_pieces, spread
from sciembed.views.segment import segment_views
from sciembed.views.tokens import TokenCounter, approx_tokens, tokenizer_counter

P2P_METRICS = ("recall@50", "recall@100", "recall@200", "recall@300", "mrr@50", "ndcg@10", "ndcg@100", "map")
P2P_LABELS = {"recall@50": "R@50", "recall@100": "R@100", "recall@200": "R@200", "recall@300": "R@300",
              "mrr@50": "MRR@50", "ndcg@10": "NDCG@10", "ndcg@100": "NDCG@100", "map": "MAP"}
METHODS = ("a2a", "f2f", "a2c", "f2c", "naive_sum", "max_sim", "late", "late_interaction", "prism_extractive",
           "prism_extractive_paper", "prism_llm", "bm25", "hybrid")
ALL_METHODS = (*METHODS, "max_sim_prism_code", "fused")
OFFLINE_METHODS = tuple(m for m in METHODS if m != "prism_llm")  # the default: prism_llm needs LLM queries
PRISM_VIEWS = ("pieces", "segments")
PAPER_QUERY_WORDS = 250  # PRISM's extractive query budget (words), used by prism_extractive_paper
_ON_SEGMENTS = {"a2c", "f2c", "naive_sum", "max_sim", "max_sim_prism_code", "prism_extractive", "prism_llm"}
FUSIONS = ("rrf", "naive", "max_sim")


class P2PConfig(BaseModel):
    """One paper-to-paper evaluation (``configs/prism-*.yaml``); every field can be set from the CLI."""

    model_config = ConfigDict(extra="forbid")

    name: str = "prism"
    methods: list[str] = Field(default_factory=lambda: list(OFFLINE_METHODS))  # + prism_llm with queries_file
    top_k: int = Field(300, ge=1)
    rrf_k: int = Field(60, ge=0)
    dedupe: bool = True  # a paper's best rank per aspect list; False counts every segment hit (PRISM's)
    aspects: list[str] = Field(default_factory=lambda: [a.value for a in AGENT_ASPECTS])
    use_abstract: bool = True  # PRISM's fourth list: the abstract query on the abstract index
    fusion: str = "rrf"  # how PRISM's lists/queries combine: rrf | naive | max_sim
    segment_tokens: int = Field(3000, ge=1)
    abstract_format: str = "ta"  # ta (sciembed) | prism ("Title: …\nAbstract: …")
    query_words: int | None = Field(None, ge=1)  # extractive aspect query words (None: fit the encoder)
    prism_views: str = "pieces"  # candidate segments: pieces (fit the encoder) | segments (PRISM's)
    piece_tokens: int | None = Field(None, ge=8)  # piece budget (None: the encoder's max_seq_length − 2)
    pieces_per_section: int | None = Field(None, ge=1)  # keep each section's first pieces only (None: all)
    piece_sections: int | None = Field(None, ge=1)  # sections per paper read, spread over it (None: all)
    fuse_runs: list[str] = Field(default_factory=lambda: ["bm25", "a2a", "late"])  # what `fused` fuses
    queries_file: Path | None = None  # LLM aspect queries for prism_llm (`sciembed prism queries`)
    hybrid_dense: str = "a2a"
    batch_size: int | None = Field(None, ge=1)  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)

    @field_validator("methods")
    @classmethod
    def _methods(cls, value: list[str]) -> list[str]:
        unknown = [m for m in value if m not in ALL_METHODS]
        if unknown:
            raise ValueError(f"unknown methods {unknown}; expected some of {', '.join(ALL_METHODS)}")
        return value

    @field_validator("prism_views")
    @classmethod
    def _prism_views(cls, value: str) -> str:
        if value not in PRISM_VIEWS:
            raise ValueError(f"unknown prism_views {value!r}; expected one of {', '.join(PRISM_VIEWS)}")
        return value

    @field_validator("fuse_runs")
    @classmethod
    def _fuse_runs(cls, value: list[str]) -> list[str]:
        bad = [m for m in value if m not in ALL_METHODS or m in ("fused", "prism_llm")]
        if bad or len(value) < 2:
            raise ValueError(f"fuse_runs needs two or more of {', '.join(METHODS[:-1])}; got {value}")
        return value

    @field_validator("aspects")
    @classmethod
    def _aspects(cls, value: list[str]) -> list[str]:
        known = {a.value for a in AGENT_ASPECTS}
        if [a for a in value if a not in known]:
            raise ValueError(f"unknown aspects {value}; expected some of {', '.join(sorted(known))}")
        return value

    @field_validator("fusion")
    @classmethod
    def _fusion(cls, value: str) -> str:
        if value not in FUSIONS:
            raise ValueError(f"unknown fusion {value!r}; expected one of {', '.join(FUSIONS)}")
        return value


def load_p2p_config(path: str | Path | None, **overrides: Any) -> P2PConfig:
    """A YAML config (or the defaults) with CLI overrides; unknown keys are an error."""
    import yaml

    data: dict[str, Any] = {}
    if path is not None:
        loaded = yaml.safe_load(Path(path).read_text())
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: expected a mapping of config fields")
        data = loaded.get("paper_to_paper", loaded)
    data.update({k: v for k, v in overrides.items() if v is not None})
    if "methods" not in data and data.get("queries_file") is not None:
        data["methods"] = list(METHODS)  # LLM queries given: every method, prism_llm included
    return P2PConfig(**data)


class _Vectors:
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


def _candidate_pieces(bench: PaperToPaperBenchmark, candidates: list[Candidate], budget: int,
                      count: TokenCounter, per_section: int | None, sections: int | None) -> dict[str, list[str]]:
    """Candidate id -> encoder-sized pieces: of its sections (corpus routes) or of its given segments."""
    if bench.fixed_candidates is not None:
        return {c.id: [p for ps in spread(fit_pieces_many(list(c.segments), budget, count), sections)
                       for p in ps[:per_section]] for c in candidates}
    return {c.id: [v.text for v in section_pieces(bench.papers[c.id], budget, count, per_section, sections)]
            for c in candidates}


def _pairs(hits: Sequence[tuple[str, float, int]]) -> list[tuple[str, float]]:
    """A `search_views` ranking without its view rows."""
    return [(pid, score) for pid, score, _ in hits]


def _top(hits: Sequence[tuple[str, float]], excluded: Sequence[str], k: int) -> list[tuple[str, float]]:
    skip = set(excluded)
    seen: dict[str, float] = {}
    for doc, score in hits:
        if doc not in skip:
            seen.setdefault(doc, float(score))
    return ordered(seen.items())[:k]


def _dense_top(index: DenseIndex, ids: list[str], vector: np.ndarray, excluded: list[str],
               k: int) -> list[tuple[str, float]]:
    scores, rows = index.search_rows(vector, k + len(excluded) + 1)
    return _top([(ids[r], s) for s, r in zip(scores[0], rows[0], strict=True) if r >= 0], excluded, k)


def evaluate_paper_to_paper(
    bench: PaperToPaperBenchmark, encoder: Any, config: P2PConfig | None = None, *, show_progress: bool = True,
    llm_queries: dict[tuple[str, int], QuerySet] | None = None, fusion: FusionSpec | None = None,
) -> list[ModelRun]:
    """One `ModelRun` per method (scenario keys = the benchmark's splits), A2A first when it is run.

    Methods a fusion or the hybrid needs are computed even when not reported; `fusion` is what
    method ``fused`` applies (see `tune_p2p_fusion`).
    """
    config = config or P2PConfig()
    if "fused" in config.methods and fusion is None:
        raise ValueError("method fused needs a fusion (a fusion.json from `sciembed eval run --kind "
                         "paper_to_paper --tune-fusion`, or --fusion FILE)")
    needed = set(config.methods) | (set(fusion.runs) if fusion is not None and "fused" in config.methods else set())
    if "hybrid" in needed:
        needed |= {"bm25", config.hybrid_dense}
    on_pieces = "late" in needed or (config.prism_views == "pieces" and bool(needed & _ON_SEGMENTS))
    on_segments = bool(needed & {"late_interaction", "prism_extractive_paper"}) or (
        config.prism_views == "segments" and bool(needed & _ON_SEGMENTS))
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    candidates = bench.candidates(config.segment_tokens, segments=on_segments)
    ids = [c.id for c in candidates]
    exclusions = bench.exclusions()
    qids = sorted(bench.queries)
    queries = bench.queries
    budget = config.piece_tokens or encoder_budget(int(getattr(encoder, "max_seq_length", 512)))
    count = encoder_token_counter(encoder)
    per = (config.pieces_per_section, config.piece_sections)
    c_pieces = _candidate_pieces(bench, candidates, budget, count, *per) if on_pieces else {}
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
    texts = [*c_ta, *q_ta.values(), *(c_full if "f2f" in needed else []),
             *[s for c in candidates for s in c_pieces.get(c.id, [])],
             *([s for c in candidates for s in c.segments] if on_segments else []),
             *q_full.values(), *[s for segs in q_pieces.values() for s in segs],
             *[s for segs in q_segments.values() for s in segs],
             *[t for qs in (*extractive.values(), *extractive_paper.values()) for t in qs.queries.values()],
             *[t for by_q in llm_by_sample.values() for qs in by_q.values() for t in qs.queries.values()]]
    vec = _Vectors(encoder, texts, config.batch_size, show_progress)
    timings["encode_s"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    abstracts = DenseIndex(encoder.dim, encoder.metric)
    abstracts.add(ids, vec(c_ta))
    fulls = DenseIndex(encoder.dim, encoder.metric)
    if "f2f" in needed:
        fulls.add(ids, vec(c_full))

    def multi(views_of: Callable[[Candidate, str], list[str]]) -> MultiVectorIndex:
        index = MultiVectorIndex(encoder.dim, encoder.metric)
        rows = [(c.id, v) for c, ta in zip(candidates, c_ta, strict=True) for v in views_of(c, ta)]
        index.add([r[0] for r in rows], vec([r[1] for r in rows]))
        return index

    seg_index = multi(lambda c, ta: list(c.segments) or [ta]) if on_segments else None
    piece_index = multi(lambda c, ta: c_pieces[c.id] or [ta]) if on_pieces else None
    segments = piece_index if config.prism_views == "pieces" else seg_index
    views = multi(lambda c, ta: [ta, *c.segments]) if "late_interaction" in needed else None
    late_views = multi(lambda c, ta: [ta, *c_pieces[c.id]]) if "late" in needed else None
    titles = bench.candidate_titles()
    prism = PrismIndex(abstracts, segments, titles, config.abstract_format) if segments is not None else None
    prism_paper = (PrismIndex(abstracts, seg_index, titles, config.abstract_format)
                   if "prism_extractive_paper" in needed and seg_index is not None else None)
    timings["index_s"] = time.perf_counter() - t1

    k = config.top_k
    rankings: dict[str, dict[str, list[tuple[str, float]]]] = {}
    query_sources: dict[str, dict[str, dict[str, int]]] = {}

    def query_set_vectors(qs: QuerySet) -> dict[str, np.ndarray]:
        keep = [a for a in qs.queries if a == Aspect.ABSTRACT or a in config.aspects]
        return dict(zip(keep, vec([qs.queries[a] for a in keep]), strict=True))

    def prism_rank(q: str, qs: QuerySet, index: PrismIndex | None = None,
                   dedupe: bool | None = None) -> list[tuple[str, float]]:
        vectors = query_set_vectors(qs)
        if not config.use_abstract:
            vectors.pop(Aspect.ABSTRACT.value, None)
        if config.fusion == "rrf" or index is not None:
            result = (index or prism).search_vectors(
                q, vectors, title=queries[q].title, top_k=k, rrf_k=config.rrf_k,
                dedupe=config.dedupe if dedupe is None else dedupe, aspects=config.aspects,
                use_abstract=config.use_abstract)
            return _top(result.ranking(), exclusions[q], k)
        method = "sum" if config.fusion == "naive" else "max"
        return _pairs(segments.search_views(np.stack(list(vectors.values())), k, method, exclude=exclusions[q]))

    def count_sources(name: str, sets: dict[str, QuerySet]) -> None:
        table = query_sources.setdefault(name, {})
        for qs in sets.values():
            for aspect, source in qs.sources.items():
                table.setdefault(aspect, {})
                table[aspect][source] = table[aspect].get(source, 0) + 1

    simple = {
        "a2a": lambda q: _dense_top(abstracts, ids, vec([q_ta[q]]), exclusions[q], k),
        "f2f": lambda q: _dense_top(fulls, ids, vec([q_full[q]]), exclusions[q], k),
        "a2c": lambda q: _pairs(segments.search_views(vec([q_ta[q]]), k, "max", exclude=exclusions[q])),
        "f2c": lambda q: _pairs(segments.search_views(vec([q_full[q]]), k, "max", exclude=exclusions[q])),
        "naive_sum": lambda q: _pairs(segments.search_views(
            np.stack(list(query_set_vectors(extractive[q]).values())), k, "sum", exclude=exclusions[q])),
        "max_sim": lambda q: _pairs(segments.search_views(
            np.stack(list(query_set_vectors(extractive[q]).values())), k, "max", exclude=exclusions[q])),
        "max_sim_prism_code": lambda q: _pairs(segments.search_views(
            np.stack(list(query_set_vectors(extractive[q]).values())), k, "prism_worst", exclude=exclusions[q])),
        "late_interaction": lambda q: _pairs(views.search_views(vec([q_ta[q], *q_segments[q]]), k, "late",
                                                                exclude=exclusions[q])),
        "late": lambda q: _pairs(late_views.search_views(vec([q_ta[q], *q_pieces[q]]), k, "late",
                                                         exclude=exclusions[q])),
        "prism_extractive": lambda q: prism_rank(q, extractive[q]),
        "prism_extractive_paper": lambda q: prism_rank(q, extractive_paper[q], prism_paper, dedupe=False),
    }
    t2 = time.perf_counter()
    order = [m for m in ALL_METHODS if m in needed and m not in ("bm25", "hybrid", "prism_llm", "fused")]
    for method in order:
        with progress_bar(f"rank {method}", len(qids), enabled=show_progress) as advance:
            rankings[method] = {}
            for q in qids:
                rankings[method][q] = simple[method](q)
                advance(1)
    if "prism_extractive" in config.methods:
        count_sources("prism_extractive", extractive)
    llm_names: dict[str, int] = {}
    if "prism_llm" in config.methods:
        if not llm_by_sample:
            raise ValueError("prism_llm: the queries file has no query set for any query paper of this benchmark")
        for sample in sorted(llm_by_sample):
            name = f"prism_llm#{sample}"
            by_q = llm_by_sample[sample]
            rankings[name] = {q: prism_rank(q, by_q[q]) if q in by_q else [] for q in qids}
            llm_names[name] = sample
            count_sources(name, by_q)
    if "bm25" in needed:
        from sciembed.retrieval.bm25 import BM25Index

        bm25 = BM25Index()
        bm25.add(ids, c_full)
        hits = bm25.search([full_text(queries[q]) for q in qids], k + 5)
        rankings["bm25"] = {q: _top(h, exclusions[q], k) for q, h in zip(qids, hits, strict=True)}
    if "hybrid" in needed:
        dense = rankings[config.hybrid_dense]
        rankings["hybrid"] = {q: _top(rrf_scores({"bm25": [d for d, _ in rankings["bm25"][q]],
                                                  "dense": [d for d, _ in dense[q]]}, config.rrf_k, dedupe=True),
                                      exclusions[q], k) for q in qids}
    if "fused" in config.methods and fusion is not None:
        rankings["fused"] = fuse_all(fusion, {r: rankings[r] for r in fusion.runs}, depth=k)
    timings["search_s"] = time.perf_counter() - t2

    runs: list[ModelRun] = []
    wanted = [m for m in config.methods if m != "prism_llm"]
    for method in wanted:
        if method in rankings:
            runs.append(_score(method, rankings[method], bench, encoder, config, timings))
            if method == "fused" and fusion is not None:
                runs[-1].config["fusion"] = fusion.to_dict()
    if llm_names:
        runs.append(_combine_samples([_score(n, rankings[n], bench, encoder, config, timings) for n in llm_names],
                                     bench))
    for run in runs:
        base = run.model.split("#")[0]
        run.config["query_sources"] = query_sources.get(run.model) or query_sources.get(
            f"{base}#0" if base == "prism_llm" else base, {})
        run.encoding = {"distinct": vec.count, "candidates": len(candidates), "piece_tokens": budget,
                        "pieces": sum(len(v) for v in c_pieces.values()),
                        "segments": sum(len(c.segments) for c in candidates)}
    runs.sort(key=lambda r: 0 if r.model == "a2a" else 1)
    return runs


def _score(method: str, rankings: dict[str, list[tuple[str, float]]], bench: PaperToPaperBenchmark, encoder: Any,
           config: P2PConfig, timings: dict[str, float]) -> ModelRun:
    kind = "bm25" if method == "bm25" else "hybrid" if method == "hybrid" else "dense"
    run = ModelRun(model=method, fingerprint=f"{getattr(encoder, 'fingerprint', '?')}:{method}", kind=kind,
                   benchmark_fingerprint=bench.fingerprint(), k=config.top_k,
                   config={"method": method, "encoder": getattr(encoder, "name", "?"),
                           "metric": getattr(encoder, "metric", "?"), **config.model_dump(mode="json")})
    for split in bench.splits:
        qrels = bench.qrels[split]
        split_rankings = {q: rankings.get(q, []) for q in qrels}
        per_query = M.per_query_scores(qrels, split_rankings, P2P_METRICS)
        key = (split, None)
        run.rankings[key] = split_rankings
        run.qrels[key] = qrels
        run.per_query[key] = per_query
        run.aggregates[key] = M.aggregate(per_query)
        run.per_domain[key] = M.by_domain(per_query, bench.venues)
        run.counts[key] = {"queries": len(qrels), "candidates": len(bench.candidate_titles()),
                           "relevant_pairs": sum(sum(1 for r in rel.values() if r > 0) for rel in qrels.values())}
    run.timings = dict(timings)
    return run


def _combine_samples(runs: list[ModelRun], bench: PaperToPaperBenchmark) -> ModelRun:
    """prism_llm over repeated samples: per-query mean, aggregate mean, and the std across samples."""
    first = runs[0]
    combined = ModelRun(model="prism_llm", fingerprint=first.fingerprint.split("#")[0], kind="dense",
                        benchmark_fingerprint=first.benchmark_fingerprint, k=first.k, config=dict(first.config))
    combined.config["samples"] = len(runs)
    std: dict[str, dict[str, float]] = {}
    for key in first.aggregates:
        per_query = {m: {q: float(np.mean([r.per_query[key][m][q] for r in runs])) for q in first.per_query[key][m]}
                     for m in first.per_query[key]}
        combined.per_query[key] = per_query
        combined.aggregates[key] = M.aggregate(per_query)
        std[key[0]] = {m: float(np.std([r.aggregates[key][m] for r in runs])) for m in first.aggregates[key]}
        combined.per_domain[key] = M.by_domain(per_query, bench.venues)
        combined.rankings[key] = first.rankings[key]
        combined.qrels[key] = first.qrels[key]
        combined.counts[key] = first.counts[key]
    combined.config["sample_std"] = std
    combined.timings = first.timings
    return combined


def tune_p2p_fusion(runs: Sequence[ModelRun], fuse_runs: Sequence[str], metric: str = "ndcg@10",
                    split: str = "val") -> FusionSpec:
    """A `FusionSpec` of `fuse_runs` tuned with ranx on the runs of a validation benchmark.

    The benchmark's relevance splits (references, citations) are tuned on together: each (split,
    query) is one query of the tuning set.
    """
    by_name = {r.model: r for r in runs}
    missing = [m for m in fuse_runs if m not in by_name]
    if missing:
        raise ValueError(f"tuning the fusion needs the runs {missing}; evaluated {sorted(by_name)}")
    first = by_name[fuse_runs[0]]
    qrels = {f"{key[0]}\t{q}": rel for key, per in first.qrels.items() for q, rel in per.items()}
    rankings = {m: {f"{key[0]}\t{q}": ranking for key, per in by_name[m].rankings.items()
                    for q, ranking in per.items()} for m in fuse_runs}
    return tune_fusion(qrels, rankings, metric=metric, split=split)


def pooled_score(run: ModelRun, metric: str = "ndcg@10") -> float:
    """`metric` averaged over every (relevance split, query) of a run: the pooling the fusion is tuned on."""
    values = [score for per in run.per_query.values() for score in per[metric].values()]
    return float(np.mean(values)) if values else float("nan")


def evaluate_with_tuned_fusion(
    bench: PaperToPaperBenchmark, val_ids: Sequence[str], test_ids: Sequence[str], encoder: Any,
    config: P2PConfig, *, show_progress: bool = True, metric: str = "ndcg@10",
) -> tuple[list[ModelRun], FusionSpec, PaperToPaperBenchmark]:
    """Every method ranked once over val + test query papers; the fusion of `config.fuse_runs` tuned on
    the val queries (ranx); each method, ``fused`` included, scored on the test queries only.

    One pass over the collection serves both splits (pieces, indexes, BM25 are built once).
    Every ranked method, ``fused`` included, is also scored on val (`pooled_score`): the fusion's
    ``tuned["val_methods"]`` and ``tuned["val_best_method"]`` say which method validation picks.
    Returns the test runs (a2a first), the fusion and the test benchmark.
    """
    if "prism_llm" in config.methods:
        raise ValueError("prism_llm averages LLM samples per run: evaluate it without fusion tuning")
    ranked = list(dict.fromkeys([*(m for m in config.methods if m != "fused"), *config.fuse_runs]))
    runs = evaluate_paper_to_paper(bench, encoder, config.model_copy(update={"methods": ranked}),
                                   show_progress=show_progress)
    rankings = {r.model: {q: ranking for per in r.rankings.values() for q, ranking in per.items()} for r in runs}
    val = bench.subset(val_ids, bench.name.replace(":all", ":val"))
    test = bench.subset(test_ids, bench.name.replace(":all", ":test"))

    def rescore(run: ModelRun, target: PaperToPaperBenchmark, method: str | None = None,
                ranking: dict[str, list[tuple[str, float]]] | None = None) -> ModelRun:
        out = _score(method or run.model, ranking or rankings[run.model], target, encoder, config, run.timings)
        out.encoding = dict(run.encoding)
        return out

    by_name = {r.model: r for r in runs}
    spec = tune_p2p_fusion([rescore(by_name[m], val) for m in config.fuse_runs], config.fuse_runs, metric)
    spec.tuned["val_queries"] = len(val.queries)
    val_runs = [rescore(run, val) for run in runs]
    val_runs.append(rescore(by_name[spec.runs[0]], val, "fused",
                            fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=config.top_k)))
    spec.tuned["val_methods"] = {run.model: pooled_score(run, metric) for run in val_runs}
    spec.tuned["val_best_method"] = max(spec.tuned["val_methods"], key=spec.tuned["val_methods"].get)
    reported = [rescore(by_name[m], test) for m in config.methods if m in by_name]
    if "fused" in config.methods:
        fused = fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=config.top_k)
        reported.append(rescore(by_name[spec.runs[0]], test, "fused", fused))
        reported[-1].config["fusion"] = spec.to_dict()
    reported.sort(key=lambda r: 0 if r.model == "a2a" else 1)
    return reported, spec, test
