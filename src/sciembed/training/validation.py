"""Validation during training: citation NDCG@10 on a held-out split, through the evaluation executor.

Queries and candidates are built as ``sciembed eval`` builds them, read at the saved model's inference budget
with body windows of the *training* budget (or ``validation.window_tokens``), on a fixed-size seeded subsample
(``validation.max_queries``, ``max_candidates``), so the cost does not grow with the corpus. With
``validation.self_retrieval`` (S2Full's validation) each query paper is also one of its own relevant candidates.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sentence_transformers.base.evaluation.evaluator import BaseEvaluator

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import ValidationConfig

METRIC = "ndcg@10"
BODY_MODE = "windowed"


class CitationValidator(BaseEvaluator):
    def __init__(self, corpus: str | Path | CorpusDir, config: ValidationConfig) -> None:
        super().__init__()
        from sciembed.evaluation import build_citation_benchmark

        benchmark = build_citation_benchmark(corpus, split=config.split, paper_log_seed=config.paper_log_seed)
        benchmark = subsample(benchmark, config.max_queries, config.max_candidates, config.sample_seed)
        self.benchmark = SelfRetrieval(benchmark) if config.self_retrieval else benchmark
        self.scenarios = tuple(config.scenarios)
        self.window_tokens = config.window_tokens
        self.name = config.split
        self.primary_metric = f"{self.scenarios[0]}_{METRIC}"

    def __call__(self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1
                 ) -> dict[str, float]:
        from sciembed.evaluation import evaluate, scenario_benchmark
        from sciembed.models import wrap_sentence_transformer
        from sciembed.training.model import reading_as_saved

        with reading_as_saved(model) as budgets:  # validate the model as it will be saved and used
            encoder = wrap_sentence_transformer(model, "training")
            bench = scenario_benchmark(self.benchmark, scenarios=self.scenarios, body_modes=(BODY_MODE,),
                                       window_tokens=self.window_tokens_for(budgets))
            cell = evaluate(encoder, bench, show_progress=False)
        metrics = {  # the executor's scores are ×100; the trainer logs NDCG@10 as 0–1
            f"{scenario}_{METRIC}": cell.result(task_name(scenario)).metrics[METRIC] / 100.0
            for scenario in self.scenarios
        }
        metrics = self.prefix_name_to_metrics(metrics, self.name)
        self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
        return metrics

    def window_tokens_for(self, budgets: dict[str, int]) -> int:
        """The body windows' token budget: the configured one, else the training budget (the windows the
        model learned from), never the inference budget a saved model inherits from its base."""
        return int(self.window_tokens or budgets["training"])


def task_name(scenario: str) -> str:
    """The scenario's task name in the evaluation's results (TA→TA has no body mode)."""
    from sciembed.evaluation import key_str, normalize_key

    return key_str(normalize_key((scenario, BODY_MODE)))


def subsample(benchmark: Any, max_queries: int | None, max_candidates: int | None, seed: int = 0) -> Any:
    """The citation benchmark cut to at most `max_queries` seeded queries; its candidates are those queries, every
    paper linked to them, and random other papers up to `max_candidates` (never fewer than the linked ones).

    Queries keep all their relevant papers, so each query's qrels are the full split's; only the distractors
    are fewer, which makes the metric higher than on the whole split but the same from one validation to the
    next. A benchmark within both limits is returned unchanged."""
    import numpy as np

    queries = benchmark.query_ids
    n_papers = len(benchmark.papers)
    if (max_queries is None or len(queries) <= max_queries) and (max_candidates is None or n_papers <= max_candidates):
        return benchmark
    rng = np.random.default_rng([seed, 20])
    if max_queries is not None and len(queries) > max_queries:
        queries = sorted(queries[i] for i in rng.choice(len(queries), max_queries, replace=False))
    keep = set(queries)
    for q in queries:
        keep.update(benchmark.links[q])
    others = [p for p in sorted(benchmark.papers) if p not in keep]
    room = len(others) if max_candidates is None else max(max_candidates - len(keep), 0)
    if room < len(others):
        others = [others[i] for i in sorted(rng.choice(len(others), room, replace=False))]
    keep.update(others)
    papers = {p: benchmark.papers[p] for p in sorted(keep)}
    links = {p: {o for o in nbrs if o in keep} for p, nbrs in benchmark.links.items() if p in keep}
    return replace(benchmark, papers=papers, links={p: n for p, n in links.items() if n},
                   paper_log={p: e for p, e in benchmark.paper_log.items() if p in keep},
                   domains={p: d for p, d in benchmark.domains.items() if p in keep},
                   anchors=frozenset(queries), name=f"{benchmark.name}[{len(queries)} queries, {len(papers)} papers]")


class SelfRetrieval:
    """A citation benchmark whose every query paper is one of its own relevant candidates (grade 1) and is no
    longer excluded from its ranking; everything else is the wrapped benchmark's."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def fingerprint(self) -> str:
        return f"{self._inner.fingerprint()}+self"

    def task(self, *args: Any, **kwargs: Any) -> Any:
        task = self._inner.task(*args, **kwargs)
        docs = task.docs
        qrels = {q: {**rel, q: max(rel.get(q, 0), 1)} if q in docs else dict(rel) for q, rel in task.qrels.items()}
        pools = None if task.pools is None else {q: list(dict.fromkeys([*c, q])) if q in docs else list(c)
                                                  for q, c in task.pools.items()}
        return replace(task, qrels=qrels, exclude_self=False, pools=pools)
