"""`evaluate_encoder`: one model on one benchmark, every requested scenario.

The result, `ModelRun`, holds everything a report or a later comparison needs:
rankings, per-query scores, macro averages, per-domain means, counts of what
each scenario could not use, geometry (dense models on citation benchmarks),
and what the run encoded.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation import metrics as M
from sciembed.evaluation.full_list import METRIC as FULL_MRR
from sciembed.evaluation.full_list import full_list_mrr
from sciembed.evaluation.geometry import citation_geometry
from sciembed.evaluation.rankers import BM25Ranker, DenseRanker, Ranking, rank_task
from sciembed.evaluation.task import (
    BODY_MODES,
    SCENARIOS,
    Benchmark,
    RetrievalTask,
    ScenarioDict,
    ScenarioKey,
)
from sciembed.evaluation.ties import tie_notes
from sciembed.models.card import default_window_tokens
from sciembed.views import target_words


@dataclass
class ModelRun:
    """One model's results on one benchmark. Dicts keyed by scenario accept ("body_ta", "full") or "body_ta/full"."""

    model: str
    fingerprint: str
    kind: str  # "dense" | "bm25"
    benchmark_fingerprint: str
    k: int
    config: dict[str, Any] = field(default_factory=dict)
    aggregates: ScenarioDict = field(default_factory=ScenarioDict)  # key -> metric -> macro mean
    per_query: ScenarioDict = field(default_factory=ScenarioDict)  # key -> metric -> query id -> score
    per_domain: ScenarioDict = field(default_factory=ScenarioDict)  # key -> domain -> {"queries", metric...}
    rankings: ScenarioDict = field(default_factory=ScenarioDict)  # key -> query id -> [(doc id, score)]
    qrels: ScenarioDict = field(default_factory=ScenarioDict)  # key -> query id -> doc id -> relevance
    counts: ScenarioDict = field(default_factory=ScenarioDict)  # key -> queries / candidates / relevant pairs
    notes: ScenarioDict = field(default_factory=ScenarioDict)  # key -> issues the scenario worked around
    geometry: dict[str, Any] | None = None
    encoding: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def keys(self) -> list[ScenarioKey]:
        return list(self.aggregates)

    def primary(self, key: ScenarioKey | str) -> float:
        return self.aggregates.get(key, {}).get(M.PRIMARY, math.nan)


def make_ranker(
    encoder: Any,
    *,
    batch_size: int | None = None,
    show_progress: bool = True,
    index_dir: Path | None = None,
    benchmark_fingerprint: str = "",
) -> DenseRanker | BM25Ranker:
    """"bm25" -> BM25; another string -> `load_encoder(name)`; an `Encoder` is used as is."""
    if isinstance(encoder, str):
        if encoder.lower() == "bm25":
            return BM25Ranker(show_progress=show_progress)
        from sciembed.models import load_encoder

        encoder = load_encoder(encoder)
    return DenseRanker(encoder, batch_size=batch_size, show_progress=show_progress, index_dir=index_dir,
                       benchmark_fingerprint=benchmark_fingerprint)


def evaluate_encoder(
    encoder: Any,
    benchmark: Benchmark,
    scenarios: Sequence[str] = SCENARIOS,
    body_modes: Sequence[str] = BODY_MODES,
    k: int = 100,
    show_progress: bool = True,
    *,
    batch_size: int | None = None,
    geometry: bool = True,
    seed: int = 0,
    index_dir: Path | None = None,
    window_tokens: int | None = None,
    full_mrr: bool | None = None,
    relevant_min: int = 1,
) -> ModelRun:
    """Rank, score and (for dense models on citation benchmarks) measure geometry.

    `encoder`: an `Encoder`, a model name for `load_encoder`, or "bm25".
    BEIR and pool benchmarks have a single scenario and ignore `scenarios` / `body_modes`.
    `index_dir`: candidate indexes are saved there and reused by later runs of the same
    encoder on the same benchmark (another encoder's index is refused, `IndexLoadError`).
    `window_tokens`: token budget of the windowed body views (default: the model card's ``window_tokens``, which
    the window recipe records as its training budget, else the encoder's `max_seq_length`), so full sections at
    8,192 tokens and 1,024-token windows share one run.
    Rankings are cut at `k`: where that is shorter than a query's candidate list, MRR and MAP are
    named with the cut (``mrr@100``, ``map@100``, `metrics.with_cut`); plain ``mrr`` and ``map`` are
    always full-list figures.
    `full_mrr`: add ``mrr``, MRR over every candidate, to cut rankings (default: on citation benchmarks).
    BEIR folders and pools run through the executor `sciembed bench` uses (`execute.rank_and_score`: every
    candidate scored, ties in `ties.ordered` order, metrics over the full list, grades below `relevant_min`
    not relevant); `k` then only bounds the rankings kept for run files (pools are kept whole).
    """
    if full_mrr is None:
        full_mrr = benchmark.kind == "citation"
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if benchmark.kind in FULL_LIST_KINDS:
        if index_dir is not None:
            raise ValueError(f"{benchmark.kind} benchmarks rank every candidate with the contract executor; "
                             "they keep no candidate index (index_dir applies to citation benchmarks)")
        return _evaluate_full_lists(encoder, benchmark, k, batch_size=batch_size, show_progress=show_progress,
                                    window_tokens=window_tokens, relevant_min=relevant_min)
    fingerprint = benchmark.fingerprint()
    ranker = make_ranker(encoder, batch_size=batch_size, show_progress=show_progress, index_dir=index_dir,
                         benchmark_fingerprint=fingerprint)
    if window_tokens is not None:
        ranker.window_words = target_words(window_tokens)
    keys = benchmark.keys(scenarios, body_modes)
    ta_join = getattr(ranker, "ta_join", ". ")
    tasks = [benchmark.task(key, ranker.window_words, ta_join=ta_join) if benchmark.kind == "citation"
             else benchmark.task(key, ranker.window_words) for key in keys]
    if isinstance(ranker, DenseRanker):  # a model card may ask for its recipe's input format (CoSAEmb)
        from sciembed.evaluation.input_format import format_tasks

        tasks = format_tasks(tasks, benchmark, ranker.encoder)
    run = ModelRun(
        model=ranker.name,
        fingerprint=ranker.fingerprint,
        kind=ranker.kind,
        benchmark_fingerprint=fingerprint,
        k=k,
        config=ranker.config(),
    )
    with_geometry = geometry and isinstance(ranker, DenseRanker) and benchmark.kind == "citation"
    views = _geometry_views(benchmark, keys, ranker.window_words, ta_join) if with_geometry else {}
    start = time.perf_counter()
    ranker.prepare(tasks, extra=[t for texts in views.values() for t in texts.values()])
    run.encoding = ranker.stats.to_dict()
    run.timings["encode_s"] = time.perf_counter() - start
    search_s = metric_s = 0.0
    for task in tasks:
        t0 = time.perf_counter()
        rankings = rank_task(ranker, task, k, show_progress)
        t1 = time.perf_counter()
        cut = is_cut(task, k)
        score_into(run, task, rankings, M.with_cut(task.metrics, k if cut else None))
        if full_mrr and cut:
            add_metric(run, task, FULL_MRR, full_list_mrr(ranker, task))
        search_s += t1 - t0
        metric_s += time.perf_counter() - t1
    run.timings.update(search_s=search_s, metrics_s=metric_s)
    if with_geometry:
        t0 = time.perf_counter()
        vectors = {name: dict(zip(texts, ranker.vectors(list(texts.values())), strict=True))
                   for name, texts in views.items()}
        ta = vectors.pop("ta")
        run.geometry = citation_geometry(ta, benchmark.pairs(), vectors, seed=seed)
        run.timings["geometry_s"] = time.perf_counter() - t0
    return run


FULL_LIST_KINDS = ("beir", "pools")


def make_scorer(encoder: Any, *, batch_size: int | None = None, show_progress: bool = True) -> Any:
    """The contract executor's scorer: BM25 for "bm25", else the encoder (loaded by name) with its own distance."""
    from sciembed.evaluation.scorers import BM25Scorer, DenseScorer

    if isinstance(encoder, str):
        if encoder.lower() == "bm25":
            return BM25Scorer()
        from sciembed.models import load_encoder

        encoder = load_encoder(encoder)
    return DenseScorer(encoder, distance=encoder.metric, batch_size=batch_size, show_progress=show_progress)


def _evaluate_full_lists(encoder: Any, benchmark: Benchmark, k: int, *, batch_size: int | None, show_progress: bool,
                         window_tokens: int | None, relevant_min: int) -> ModelRun:
    """A BEIR folder or pools file through `execute.rank_and_score`, returned as a `ModelRun` for the report."""
    from sciembed.evaluation.execute import rank_and_score
    from sciembed.evaluation.scorers import DenseScorer

    scorer = make_scorer(encoder, batch_size=batch_size, show_progress=show_progress)
    dense = getattr(scorer, "encoder", None)
    window_words = target_words(window_tokens or (default_window_tokens(dense) if dense is not None else 512))
    [key] = benchmark.keys()
    task = benchmark.task(key, window_words)
    if isinstance(scorer, DenseScorer):  # a model card may ask for its recipe's input format (CoSAEmb)
        from sciembed.evaluation.input_format import format_tasks

        [task] = format_tasks([task], benchmark, scorer.encoder)
    run = ModelRun(model=scorer.name, fingerprint=scorer.fingerprint, kind=scorer.kind,
                   benchmark_fingerprint=benchmark.fingerprint(), k=k, config=scorer.config())
    start = time.perf_counter()
    result, rankings = rank_and_score(task.ranking_task(relevant_min), scorer)
    run.timings["rank_and_score_s"] = time.perf_counter() - start
    per_query = {m: {q: v / 100.0 for q, v in scores.items()} for m, scores in result.per_query.items()
                 if m in task.metrics}
    run.rankings[key] = rankings if task.pools is not None else {q: r[:k] for q, r in rankings.items()}
    run.qrels[key] = task.qrels
    run.per_query[key] = per_query
    run.aggregates[key] = M.aggregate(per_query)
    run.per_domain[key] = M.by_domain(per_query, task.domains)
    run.counts[key] = task.counts()
    run.notes[key] = task.notes.to_list() + tie_notes(rankings, 0.0 if run.kind == "bm25" else None)
    texts = len(task.query_texts) + len(task.doc_texts)
    run.encoding = {"texts": texts, "distinct": len(set(task.query_texts) | set(task.doc_texts)), "from_index": 0,
                    "encoded": getattr(scorer, "model_encoded", None) if isinstance(scorer, DenseScorer) else None,
                    "cache_hits": (scorer.encoded - scorer.model_encoded
                                   if isinstance(scorer, DenseScorer) and hasattr(scorer.encoder, "last") else None)}
    return run


def is_cut(task: RetrievalTask, k: int) -> bool:
    """Whether rankings of `k` candidates leave some of a query's candidates out (pools are never cut)."""
    if task.pools is not None:
        return False
    return k < len(task.doc_ids) - (1 if any(task.exclude.values()) else 0)


def score_into(run: ModelRun, task: RetrievalTask, rankings: dict[str, Ranking],
               metrics: Sequence[str] | None = None) -> None:
    """Per-query scores (`metrics`, default the task's), macro means and per-domain means of one scenario."""
    per_query = M.per_query_scores(task.qrels, rankings, task.metrics if metrics is None else metrics)
    run.rankings[task.key] = rankings
    run.qrels[task.key] = task.qrels
    run.per_query[task.key] = per_query
    run.aggregates[task.key] = M.aggregate(per_query)
    run.per_domain[task.key] = M.by_domain(per_query, task.domains)
    run.counts[task.key] = task.counts()
    run.notes[task.key] = task.notes.to_list() + tie_notes(rankings, 0.0 if run.kind == "bm25" else None)


def add_metric(run: ModelRun, task: RetrievalTask, metric: str, scores: dict[str, float]) -> None:
    """One more per-query metric for a scenario already scored (macro and per-domain means follow)."""
    run.per_query[task.key][metric] = {q: scores.get(q, 0.0) for q in sorted(task.qrels)}
    run.aggregates[task.key] = M.aggregate(run.per_query[task.key])
    run.per_domain[task.key] = M.by_domain(run.per_query[task.key], task.domains)


def _geometry_views(benchmark: Any, keys: list[ScenarioKey], window_words: int,
                    ta_join: str = ". ") -> dict[str, dict[str, str]]:
    """Texts geometry needs: "ta" -> paper -> TA, and body mode -> paper -> body (papers with a body)."""
    ids = sorted(benchmark.papers)
    views = {"ta": {p: benchmark.ta(p, ta_join) for p in ids}}
    for mode in sorted({mode for _, mode in keys if mode}):
        views[mode] = {p: benchmark.body(p, mode, window_words) for p in ids if p in benchmark.paper_log}
    return views
