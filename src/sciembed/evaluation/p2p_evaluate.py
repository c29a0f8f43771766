"""Every requested paper-to-paper method on one benchmark: plan the views, encode once, rank.

`p2p_run` lists the methods; `p2p_views` plans the texts, `p2p_rankers` ranks, and this module
runs each requested method (and what a fusion or the hybrid needs) over every query paper once: the
rankings `benchmarks.paper_to_paper` hands the executor as each (method, split) task's search.
Method ``fused`` is tuned on validation query papers (`tune_p2p_fusion`); `benchmarks.paper_to_paper`
reports every method on test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sciembed.evaluation.metrics import per_query_scores
from sciembed.evaluation.p2p_config import ALL_METHODS, P2PConfig
from sciembed.evaluation.p2p_rankers import MethodRankers, Ranking, rank_hybrid
from sciembed.evaluation.p2p_views import TextVectors, plan_views
from sciembed.evaluation.paper_to_paper import PaperToPaperBenchmark
from sciembed.search.learned_fusion import FusionSpec, fuse_all, tune_fusion
from sciembed.search.prism.aspects import QuerySet


@dataclass
class MethodRankings:
    """Each ranked method's top `top_k` papers per query paper (prism_llm once per LLM sample: ``prism_llm#<s>``),
    where each PRISM variant's aspect queries came from, and what was encoded."""

    rankings: dict[str, dict[str, Ranking]]  # method -> query id -> [(paper id, score)] best first
    query_sources: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # method -> aspect -> n
    encoding: dict[str, Any] = field(default_factory=dict)


def rank_methods(bench: PaperToPaperBenchmark, encoder: Any, config: P2PConfig | None = None, *,
                 show_progress: bool = True, llm_queries: dict[tuple[str, int], QuerySet] | None = None,
                 fusion: FusionSpec | None = None) -> MethodRankings:
    """Every method of `config` ranked for every query paper of `bench`, one encoding pass; methods a fusion or
    the hybrid needs are ranked even when not reported; `fusion` is what method ``fused`` applies."""
    config = config or P2PConfig()
    if "fused" in config.methods and fusion is None:
        raise ValueError("method fused needs a fusion (a fusion.json from `sciembed eval run --kind "
                         "paper_to_paper --set tune_fusion=true`, or --set fusion=FILE)")
    if fusion is not None:
        fusion.check_model([getattr(encoder, "fingerprint", None)], bench.name)
    views = plan_views(bench, encoder, config, fusion, llm_queries)
    vec = TextVectors(encoder, views.texts(), config.batch_size, show_progress)
    rankers = MethodRankers(views, vec, encoder, config, bench)
    needed, qids, k = views.needed, views.qids, config.top_k
    rankings: dict[str, dict[str, Ranking]] = {}
    query_sources: dict[str, dict[str, dict[str, int]]] = {}

    def count_sources(name: str, sets: dict[str, QuerySet]) -> None:
        table = query_sources.setdefault(name, {})
        for qs in sets.values():
            for aspect, source in qs.sources.items():
                table.setdefault(aspect, {})
                table[aspect][source] = table[aspect].get(source, 0) + 1

    order = [m for m in ALL_METHODS if m in needed and m not in ("bm25", "hybrid", "prism_llm", "fused")]
    for method in order:
        rankings[method] = rankers.rank_all(method, show_progress=show_progress)
    if "prism_extractive" in config.methods:
        count_sources("prism_extractive", views.extractive)
    if "prism_llm" in config.methods:
        if not views.llm_by_sample:
            raise ValueError("prism_llm: the queries file has no query set for any query paper of this benchmark")
        for sample in sorted(views.llm_by_sample):
            name = f"prism_llm#{sample}"
            by_q = views.llm_by_sample[sample]
            rankings[name] = rankers.rank_all(name, by_q, show_progress)
            missing = [q for q in qids if q not in by_q]
            if missing:
                bench.issues.add(f"query paper without LLM aspect queries (sample {sample}) in the queries file",
                                 f"{name} ranks nothing for it (scores 0); write them with `sciembed prism queries "
                                 "CORPUS --split …` and the benchmark's --seed / --val-share",
                                 n=len(missing), example=missing[0])
            count_sources(name, by_q)
    if "bm25" in needed:
        rankings["bm25"] = rankers.rank_all("bm25")
    if "hybrid" in needed:
        rankings["hybrid"] = rank_hybrid(views, rankings["bm25"], rankings[config.hybrid_dense], config)
    if "fused" in config.methods and fusion is not None:
        rankings["fused"] = fuse_all(fusion, {r: rankings[r] for r in fusion.runs}, depth=k)
    encoding = {"distinct": vec.count, "candidates": len(views.candidates), "piece_tokens": views.budget,
                "pieces": sum(len(v) for v in views.c_pieces.values()),
                "segments": sum(len(c.segments) for c in views.candidates)}
    return MethodRankings(rankings, query_sources, encoding)


def tune_p2p_fusion(rankings: Mapping[str, Mapping[str, Ranking]], val: PaperToPaperBenchmark,
                    fuse_runs: Sequence[str], *, depth: int, metric: str = "ndcg@10") -> FusionSpec:
    """A `FusionSpec` of `fuse_runs` tuned with ranx on `val`'s query papers.

    The relevance splits (references, citations) are tuned on together: each (split, query) is one query.
    ``tuned["val_methods"]``: `metric` on val of every method in `rankings` (in its order) and of ``fused``;
    ``tuned["val_best_method"]``: the best of them, the method validation picks.
    """
    missing = [m for m in fuse_runs if m not in rankings]
    if missing:
        raise ValueError(f"tuning the fusion needs the runs {missing}; ranked {sorted(rankings)}")
    qrels = {f"{split}\t{q}": rel for split, per in val.qrels.items() for q, rel in per.items()}

    def pooled(by_query: Mapping[str, Ranking]) -> dict[str, Ranking]:
        return {key: list(by_query.get(key.split("\t", 1)[1], [])) for key in qrels}

    spec = tune_fusion(qrels, {m: pooled(rankings[m]) for m in fuse_runs}, metric=metric, split="val")
    spec.tuned["val_queries"] = len(val.queries)
    scored = {**rankings, "fused": fuse_all(spec, {m: rankings[m] for m in spec.runs}, depth=depth)}
    val_methods = {}
    for method, by_query in scored.items():
        values = list(per_query_scores(qrels, pooled(by_query), (metric,))[metric].values())
        val_methods[method] = float(np.mean(values)) if values else float("nan")
    spec.tuned["val_methods"] = val_methods
    spec.tuned["val_best_method"] = max(val_methods, key=val_methods.get)
    return spec
