"""Ranking metrics through ranx: per query and per-domain means.

Which metrics a task reports is the contract's (`contract.RANKING_METRICS`, a kind's extras); names carry
their cut (``mrr`` and ``map`` are over the full candidate list, ``mrr@50`` over the top 50). Relevance is
binary unless a metric is graded (a judgement ≥ 1 is relevant). ranx re-sorts runs by score and breaks ties
arbitrarily, so it gets rank-derived scores: the order the runner fixed (`ties`) is the order scored.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

PRIMARY = "ndcg@10"
METRIC_LABELS = {  # hit_rate@k = success@k: a relevant document in the top k (same-paper section retrieval)
    "ndcg@10": "NDCG@10", "mrr": "MRR (full list)", "recall@1": "R@1", "recall@10": "R@10", "recall@100": "R@100",
    "map": "MAP (full list)", "hit_rate@1": "S@1", "hit_rate@3": "S@3"}


def metric_label(name: str) -> str:
    """How tables print a metric: ``NDCG@10``, ``MRR@100``, ``MRR (full list)``; unknown names as they are."""
    if name in METRIC_LABELS:
        return METRIC_LABELS[name]
    match = re.fullmatch(r"(mrr|map|ndcg|recall|precision)@(\d+)", name)
    if match:
        short = {"recall": "R", "precision": "P"}.get(match[1], match[1].upper())
        return f"{short}@{match[2]}"
    return name


Ranking = Sequence[tuple[str, float]]
DOC_CODE_WIDTH = 12  # room for 10^12 distinct documents


def _coded_for_ranx(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]]
                    ) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """The same qrels and run with every document id replaced by a fixed-width code (metrics unchanged).

    ranx stores ids as fixed-width numpy strings and numba compiles its kernels once per width: without codes,
    every new longest-id length pays the compilation again (tens of CPU-seconds), beyond any install warm-up."""
    codes: dict[str, str] = {}

    def code(doc: str) -> str:
        if doc not in codes:
            codes[doc] = f"{len(codes):0{DOC_CODE_WIDTH}d}"
        return codes[doc]

    coded_qrels = {q: {code(d): r for d, r in rel.items()} for q, rel in qrels.items()}
    coded_run = {q: {code(d): score for d, score in docs.items()} for q, docs in run.items()}
    return coded_qrels, coded_run


def ranx_scores(qrels: Mapping[str, Mapping[str, int]], run: Mapping[str, Mapping[str, float]],
                metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """ranx metric name -> query id -> score, the one way sciembed calls ranx (ids coded, see above)."""
    from ranx import Qrels, Run, evaluate

    coded_qrels, coded_run = _coded_for_ranx(qrels, run)
    ranx_run = Run(coded_run)
    with warnings.catch_warnings():  # ranx's kernels warn about a harmless uint64 -> int64 hash cast
        warnings.filterwarnings("ignore", message=".*unsafe cast from uint64 to int64.*")
        evaluate(Qrels(coded_qrels), ranx_run, list(metrics), return_mean=False)
    return {m: dict(ranx_run.scores[m]) for m in metrics}


def per_query_scores(qrels: Mapping[str, Mapping[str, int]], rankings: Mapping[str, Ranking],
                     metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """metric -> query id -> score, for every query in `qrels` (a query with no ranking scores 0)."""
    run_dict: dict[str, dict[str, float]] = {}
    for qid in qrels:
        docs = list(dict.fromkeys(doc for doc, _ in rankings.get(qid, ())))  # first occurrence wins
        run_dict[qid] = {doc: float(len(docs) - i) for i, doc in enumerate(docs)}
    if not any(run_dict.values()):  # ranx cannot build a run with no hit at all; every metric is 0 then
        return {m: {q: 0.0 for q in sorted(qrels)} for m in metrics}
    scores = ranx_scores({q: {d: int(r) for d, r in rel.items()} for q, rel in qrels.items()}, run_dict, metrics)
    return {m: {q: float(scores[m][q]) for q in sorted(qrels)} for m in metrics}


def by_domain(per_query: Mapping[str, Mapping[str, float]], domains: Mapping[str, str]) -> dict[str, dict[str, float]]:
    """domain -> {"queries": n, metric: macro mean over that domain's queries}."""
    members: dict[str, list[str]] = defaultdict(list)
    any_metric = next(iter(per_query.values()), {})
    for qid in any_metric:
        members[domains.get(qid, "unknown")].append(qid)
    return {domain: {"queries": len(qids), **{metric: float(np.mean([scores[q] for q in qids]))
                                               for metric, scores in per_query.items()}}
            for domain, qids in sorted(members.items())}


def warm_up() -> float:
    """Compile ranx's numba kernels (cached on disk afterwards); returns the seconds it took."""
    start = time.perf_counter()
    per_query_scores({"q": {"a": 1, "b": 0}}, {"q": [("b", 2.0), ("a", 1.0)]}, (PRIMARY,))
    return time.perf_counter() - start
