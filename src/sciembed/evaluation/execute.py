"""Run one contract task with one scorer: rankings, gold ranks, triplets, a probe or vectors → `TaskResult`.

Rankings are never cut: every query ranks all of its candidates (the whole
collection, or its pool), so MAP, NDCG and the rank of the first relevant
candidate are full-list figures. Ties in score are ordered by a seeded hash of the candidate id.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sciembed.evaluation.contract import (
    GoldRankTask,
    ProbeTask,
    RankingTask,
    Searched,
    TaskResult,
    TripletTask,
    VectorTask,
)
from sciembed.evaluation.metrics import ranx_scores
from sciembed.evaluation.scorers import BM25Scorer, DenseScorer
from sciembed.evaluation.ties import ordered, tie_notes

Ranking = list[tuple[str, float]]
EMPTY = "\x00no-candidate"  # ranx cannot hold a query with an empty ranking; this id is never relevant


def order(ids: Sequence[str], scores: np.ndarray) -> Ranking:
    """Best first; equal scores in seeded-hash order (`ties.ordered`: never by id, which can favour relevance)."""
    return ordered((d, float(s)) for d, s in zip(ids, scores, strict=True))


def rank_task(task: RankingTask, scorer: Any) -> dict[str, Ranking]:
    """Every query's full ranking of its candidates."""
    qids = sorted(task.queries)
    dids = sorted(task.docs)
    column = {d: j for j, d in enumerate(dids)}
    per_pool = isinstance(scorer, BM25Scorer) and scorer.pool_statistics == "pool" and task.pools is not None
    out: dict[str, Ranking] = {}
    if per_pool:  # BM25 with each pool as its own collection
        for q in qids:
            cands = task.candidates(q)
            scores = scorer.scores([task.queries[q]], [task.docs[d] for d in cands])[0]
            out[q] = order(cands, scores)
        return out
    block = 256  # queries per matrix product: bounds memory at block × collection size
    for start in range(0, len(qids), block):
        batch = qids[start : start + block]
        matrix = scorer.scores([task.queries[q] for q in batch], [task.docs[d] for d in dids])
        for row, q in enumerate(batch):
            cands = task.candidates(q)
            out[q] = order(cands, matrix[row, [column[d] for d in cands]])
    return out


def ranking_metrics(task: RankingTask, rankings: Mapping[str, Ranking]) -> dict[str, dict[str, float]]:
    """metric -> query -> score (ranx metrics ×100, the official ones, and the first relevant rank)."""
    qids = sorted(task.queries)
    names = task.metric_names()
    scores = ranx_scores(
        {q: {d: int(r) for d, r in task.qrels[q].items()} for q in qids},
        {q: {d: float(len(rankings[q]) - i) for i, (d, _) in enumerate(rankings[q])} or {EMPTY: 0.0}
         for q in qids},  # rank-derived scores: ranx scores exactly the order fixed above
        names)
    per_query = {re.sub(r"-l\d+$", "", name): {q: 100.0 * float(scores[name][q]) for q in qids}
                 for name in names}
    if task.depth is None:  # a cut ranking has no rank for a query whose relevant papers all fall below the cut
        per_query["first_relevant_rank"] = {q: first_relevant_rank(rankings[q], task.qrels[q], task.relevant_min)
                                            for q in qids}
    if task.official is not None:
        grades = {q: [int(task.qrels[q].get(d, 0)) for d, _ in rankings[q]] for q in qids}
        for q, metrics in task.official(grades).items():
            for name, value in metrics.items():
                per_query.setdefault(name, {})[q] = value
    return per_query


def first_relevant_rank(ranking: Ranking, qrels: Mapping[str, int], relevant_min: int) -> float:
    """Expected 1-based rank of the best-placed relevant candidate over the full list, under a random order of
    equal scores (by hand: ranx has no rank metric).

    With g candidates tied at the best relevant score, r of them relevant, the first relevant one among them
    sits on average at (g + 1) / (r + 1) within the group (`models.distance.gold_ranks`' rule for r = 1), so a
    constant scorer gets the chance rank, whatever the hash order puts first.
    """
    best = next((score for doc, score in ranking if qrels.get(doc, 0) >= relevant_min), None)
    if best is None:
        return math.nan
    better = sum(1 for _, score in ranking if score > best)
    group = [doc for doc, score in ranking if score == best]
    relevant = sum(1 for doc in group if qrels.get(doc, 0) >= relevant_min)
    return better + (len(group) + 1) / (relevant + 1)


def _means(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    out = {}
    for metric, scores in per_query.items():
        values = [v for v in scores.values() if not math.isnan(v)]
        out[metric] = float(np.mean(values)) if values else math.nan
    return out


def run_ranking(task: RankingTask, scorer: Any) -> TaskResult:
    """The task's result, with the full rankings it was scored on (for run files); a task with its own search
    (`RankingTask.search`) is ranked by it, and its details and notes go on the result."""
    searched = task.search(scorer) if task.search is not None else Searched(rank_task(task, scorer))
    rankings = searched.rankings
    per_query = ranking_metrics(task, rankings)
    sizes = [len(r) for r in rankings.values()]
    counts = {"queries": len(task.queries), "candidates": len(task.docs),
              "mean_candidates_per_query": round(float(np.mean(sizes)), 2) if sizes else 0,
              "relevant_pairs": sum(1 for rel in task.qrels.values() for r in rel.values() if r >= task.relevant_min)}
    unscored = 0.0 if isinstance(scorer, BM25Scorer) else None  # BM25's no-shared-term tail is not a tie
    notes = [*task.notes, *searched.notes, *(n["message"] for n in tie_notes(rankings, unscored))]
    return TaskResult(task.name, task.kind, task.primary, _means(per_query), per_query, counts, task.group, notes,
                      searched.details, rankings=rankings, qrels=task.qrels)


def run_gold_rank(task: GoldRankTask, scorer: Any) -> TaskResult:
    """Each query's expected rank of its gold candidate among all candidates (`models.distance.expected_ranks`):
    mean rank (lower is better), median rank and MRR."""
    from sciembed.models.distance import expected_ranks

    qids, cids = sorted(task.queries), sorted(task.candidates)
    column = {c: j for j, c in enumerate(cids)}
    ranks = np.empty(len(qids))
    block = 256  # queries per score matrix, as `rank_task`
    for start in range(0, len(qids), block):
        batch = qids[start : start + block]
        matrix = scorer.scores([task.queries[q] for q in batch], [task.candidates[c] for c in cids])
        ranks[start : start + len(batch)] = expected_ranks(matrix, np.array([column[task.gold[q]] for q in batch]))
    metrics = ({"mean_rank": float(ranks.mean()), "median_rank": float(np.median(ranks)),
                "mrr": 100.0 * float((1.0 / ranks).mean())} if len(ranks) else {})
    per_query = {"rank": dict(zip(qids, ranks.tolist(), strict=True))}
    counts = {"queries": len(qids), "pool": len(cids)}
    return TaskResult(task.name, task.kind, task.primary, metrics, per_query, counts, task.group, list(task.notes))


def run_triplets(task: TripletTask, scorer: Any) -> TaskResult:
    """Accuracy of score(q, pos) > score(q, neg), a tie counting half; geometry on a seeded sample of
    `geometry_sample` triplets."""
    q = [task.texts[a] for a, _, _ in task.triplets]
    p = [task.texts[b] for _, b, _ in task.triplets]
    n = [task.texts[c] for _, _, c in task.triplets]
    if isinstance(scorer, DenseScorer):
        pos, neg = scorer.pair_scores(q, p), scorer.pair_scores(q, n)
    else:  # BM25: the query against the collection of all triplet texts
        ids = sorted(task.texts)
        column = {d: j for j, d in enumerate(ids)}
        queries = sorted({a for a, _, _ in task.triplets})
        row = {a: i for i, a in enumerate(queries)}
        matrix = scorer.scores([task.texts[a] for a in queries], [task.texts[d] for d in ids])
        pos = np.array([matrix[row[a], column[b]] for a, b, _ in task.triplets])
        neg = np.array([matrix[row[a], column[c]] for a, _, c in task.triplets])
    correct = (pos > neg) + 0.5 * (pos == neg)  # a tie counts half: expected accuracy over tie orders
    keys = [f"{a}|{b}|{c}" for a, b, c in task.triplets]
    per_query = {"accuracy": {k: 100.0 * v for k, v in zip(keys, correct, strict=True)}}
    metrics = {"accuracy": 100.0 * float(correct.mean()) if len(correct) else math.nan}
    if isinstance(scorer, DenseScorer) and task.triplets:
        metrics.update(triplet_geometry(task, scorer))
    counts = {"triplets": len(task.triplets), "texts": len(task.texts)}
    return TaskResult(task.name, task.kind, task.primary, metrics, per_query, counts, task.group, list(task.notes))


def triplet_geometry(task: TripletTask, scorer: DenseScorer) -> dict[str, float]:
    """Alignment (query–positive), uniformity, isotropy and SSD on a fixed seeded sample of triplets."""
    from sciembed.evaluation.geometry import alignment, singular_spectrum_deviation, spectrum, uniformity

    rng = np.random.default_rng(task.seed)
    n = len(task.triplets)
    rows = np.sort(rng.choice(n, size=task.geometry_sample, replace=False)) if n > task.geometry_sample \
        else np.arange(n)
    sample = [task.triplets[i] for i in rows]
    q = scorer.embed([task.texts[a] for a, _, _ in sample])
    p = scorer.embed([task.texts[b] for _, b, _ in sample])
    n_ = scorer.embed([task.texts[c] for _, _, c in sample])
    everyone = scorer.embed(sorted({task.texts[x] for t in sample for x in t}))
    spec = spectrum(everyone)
    return {"alignment": alignment(q, p), "uniformity": uniformity(everyone, seed=task.seed),
            "isotropy": spec["isotropy"], "top1_pc_share": 100.0 * spec["top_share"].get("1", math.nan),
            # SciJEPA's SSD (a reconstruction, evaluation/geometry.py) over the sample's query, positive and
            # negative embeddings, as its Fig. 2 (2,000 triplets: 6,000 embeddings)
            "ssd": singular_spectrum_deviation(np.concatenate([q, p, n_])),
            "geometry_triplets": float(len(sample))}


def run_probe_task(task: ProbeTask, scorer: Any) -> TaskResult:
    from sciembed.evaluation.probes import probe_task_score, run_probe

    ids = list(dict.fromkeys(task.train_ids + (task.test_ids or [])))
    matrix = scorer.embed([task.texts[i] for i in ids])
    metrics = run_probe(task, dict(zip(ids, matrix, strict=True)))
    metrics["score"] = probe_task_score(metrics, task.metric)
    counts = {"train": len(task.train_ids), "test": len(task.test_ids or [])}
    return TaskResult(task.name, task.kind, "score", metrics, {}, counts, task.group, list(task.notes))


def run_vector_task(task: VectorTask, scorer: Any) -> TaskResult:
    """Encode every text once, then the benchmark's own evaluator over the vectors."""
    ids = sorted(task.texts)
    matrix = scorer.embed([task.texts[i] for i in ids]) if ids else np.zeros((0, 0))
    scored = task.score(dict(zip(ids, matrix, strict=True)))
    metrics = {k: v for k, v in scored.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    details = {k: v for k, v in scored.items() if k not in metrics}
    return TaskResult(task.name, task.kind, task.primary, metrics, {}, {"texts": len(ids), **task.counts}, task.group,
                      list(task.notes), details)


def supports(task: Any, scorer: Any) -> str | None:
    """None when `scorer` can run `task`, else why not."""
    if isinstance(scorer, DenseScorer):
        return None
    if isinstance(task, ProbeTask):
        return "a linear probe needs vectors; BM25 has none"
    if isinstance(task, VectorTask):
        return "its official evaluator scores vectors; BM25 has none"
    return None


def run_task(task: Any, scorer: Any) -> TaskResult:
    for kind, run in ((RankingTask, run_ranking), (GoldRankTask, run_gold_rank), (TripletTask, run_triplets),
                      (ProbeTask, run_probe_task), (VectorTask, run_vector_task)):
        if isinstance(task, kind):
            return run(task, scorer)
    raise TypeError(f"unknown task type {type(task).__name__}")
