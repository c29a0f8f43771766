"""Every requested paper-to-paper method on one benchmark: plan the views, encode once, rank, score.

`p2p_run` lists the methods; `p2p_views` plans the texts, `p2p_rankers` ranks, and this module
turns each method's rankings into a `MethodRun` (scenario keys = the benchmark's relevance splits).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.evaluation import metrics as M
from sciembed.evaluation.p2p_config import ALL_METHODS, P2P_METRICS, P2PConfig
from sciembed.evaluation.p2p_rankers import MethodRankers, Ranking, rank_bm25, rank_hybrid
from sciembed.evaluation.p2p_views import TextVectors, plan_views
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark
from sciembed.evaluation.task import ScenarioDict, ScenarioKey
from sciembed.models.progress import progress_bar
from sciembed.retrieval.learned_fusion import FusionSpec, fuse_all
from sciembed.retrieval.prism.aspects import QuerySet


@dataclass
class MethodRun:
    """One paper-to-paper method's scores (0–1) per relevance split; dicts keyed by ``(split, None)``."""

    model: str  # the method
    fingerprint: str
    kind: str  # "dense" | "bm25" | "hybrid"
    benchmark_fingerprint: str
    k: int
    config: dict[str, Any] = field(default_factory=dict)
    aggregates: ScenarioDict = field(default_factory=ScenarioDict)  # key -> metric -> macro mean
    per_query: ScenarioDict = field(default_factory=ScenarioDict)  # key -> metric -> query id -> score
    per_domain: ScenarioDict = field(default_factory=ScenarioDict)  # key -> domain -> {"queries", metric...}
    rankings: ScenarioDict = field(default_factory=ScenarioDict)  # key -> query id -> [(doc id, score)]
    qrels: ScenarioDict = field(default_factory=ScenarioDict)  # key -> query id -> doc id -> relevance
    counts: ScenarioDict = field(default_factory=ScenarioDict)  # key -> queries / candidates / relevant pairs
    notes: ScenarioDict = field(default_factory=ScenarioDict)  # key -> issues the split worked around
    encoding: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def keys(self) -> list[ScenarioKey]:
        return list(self.aggregates)


def evaluate_paper_to_paper(
    bench: PaperToPaperBenchmark, encoder: Any, config: P2PConfig | None = None, *, show_progress: bool = True,
    llm_queries: dict[tuple[str, int], QuerySet] | None = None, fusion: FusionSpec | None = None,
) -> list[MethodRun]:
    """One `MethodRun` per method (scenario keys = the benchmark's splits), A2A first when it is run.

    Methods a fusion or the hybrid needs are computed even when not reported; `fusion` is what
    method ``fused`` applies (see `tune_p2p_fusion`).
    """
    config = config or P2PConfig()
    if "fused" in config.methods and fusion is None:
        raise ValueError("method fused needs a fusion (a fusion.json from `sciembed eval run --kind "
                         "paper_to_paper --tune-fusion`, or --fusion FILE)")
    if fusion is not None:
        fusion.check_model([getattr(encoder, "fingerprint", None)], bench.name)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    views = plan_views(bench, encoder, config, fusion, llm_queries)
    vec = TextVectors(encoder, views.texts(), config.batch_size, show_progress)
    timings["encode_s"] = time.perf_counter() - t0

    t1 = time.perf_counter()
    rankers = MethodRankers(views, vec, encoder, config, bench)
    timings["index_s"] = time.perf_counter() - t1

    needed, qids, k = views.needed, views.qids, config.top_k
    rankings: dict[str, dict[str, Ranking]] = {}
    query_sources: dict[str, dict[str, dict[str, int]]] = {}

    def count_sources(name: str, sets: dict[str, QuerySet]) -> None:
        table = query_sources.setdefault(name, {})
        for qs in sets.values():
            for aspect, source in qs.sources.items():
                table.setdefault(aspect, {})
                table[aspect][source] = table[aspect].get(source, 0) + 1

    t2 = time.perf_counter()
    order = [m for m in ALL_METHODS if m in needed and m not in ("bm25", "hybrid", "prism_llm", "fused")]
    for method in order:
        with progress_bar(f"rank {method}", len(qids), enabled=show_progress) as advance:
            rankings[method] = {}
            for q in qids:
                rankings[method][q] = rankers.rank(method, q)
                advance(1)
    if "prism_extractive" in config.methods:
        count_sources("prism_extractive", views.extractive)
    llm_names: dict[str, int] = {}
    if "prism_llm" in config.methods:
        if not views.llm_by_sample:
            raise ValueError("prism_llm: the queries file has no query set for any query paper of this benchmark")
        for sample in sorted(views.llm_by_sample):
            name = f"prism_llm#{sample}"
            by_q = views.llm_by_sample[sample]
            rankings[name] = {q: rankers.prism_rank(q, by_q[q]) if q in by_q else [] for q in qids}
            missing = [q for q in qids if q not in by_q]
            if missing:
                bench.issues.add(f"query paper without LLM aspect queries (sample {sample}) in the queries file",
                                 f"{name} ranks nothing for it (scores 0); write them with `sciembed prism queries "
                                 "CORPUS --split …` and the benchmark's --seed / --val-share",
                                 n=len(missing), example=missing[0])
            llm_names[name] = sample
            count_sources(name, by_q)
    if "bm25" in needed:
        rankings["bm25"] = rank_bm25(views, k)
    if "hybrid" in needed:
        rankings["hybrid"] = rank_hybrid(views, rankings["bm25"], rankings[config.hybrid_dense], config)
    if "fused" in config.methods and fusion is not None:
        rankings["fused"] = fuse_all(fusion, {r: rankings[r] for r in fusion.runs}, depth=k)
    timings["search_s"] = time.perf_counter() - t2

    runs: list[MethodRun] = []
    wanted = [m for m in config.methods if m != "prism_llm"]
    for method in wanted:
        if method in rankings:
            runs.append(score_method(method, rankings[method], bench, encoder, config, timings))
            if method == "fused" and fusion is not None:
                runs[-1].config["fusion"] = fusion.to_dict()
    if llm_names:
        runs.append(combine_samples([score_method(n, rankings[n], bench, encoder, config, timings)
                                     for n in llm_names], bench))
    for run in runs:
        base = run.model.split("#")[0]
        run.config["query_sources"] = query_sources.get(run.model) or query_sources.get(
            f"{base}#0" if base == "prism_llm" else base, {})
        run.encoding = {"distinct": vec.count, "candidates": len(views.candidates), "piece_tokens": views.budget,
                        "pieces": sum(len(v) for v in views.c_pieces.values()),
                        "segments": sum(len(c.segments) for c in views.candidates)}
    runs.sort(key=lambda r: 0 if r.model == "a2a" else 1)
    return runs


def score_method(method: str, rankings: dict[str, Ranking], bench: PaperToPaperBenchmark, encoder: Any,
                 config: P2PConfig, timings: dict[str, float]) -> MethodRun:
    """One method's rankings scored on every relevance split of `bench` (ranx, `P2P_METRICS`)."""
    kind = "bm25" if method == "bm25" else "hybrid" if method == "hybrid" else "dense"
    run = MethodRun(model=method, fingerprint=f"{getattr(encoder, 'fingerprint', '?')}:{method}", kind=kind,
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


def combine_samples(runs: list[MethodRun], bench: PaperToPaperBenchmark) -> MethodRun:
    """prism_llm over repeated samples: per-query mean, aggregate mean, and the std across samples."""
    first = runs[0]
    combined = MethodRun(model="prism_llm", fingerprint=first.fingerprint.split("#")[0], kind="dense",
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
