"""MRR over the full candidate list (S2Full reports MRR without a cut-off).

The runner keeps the top k (100) per query for rankings, NDCG@10 and recall;
MRR@100 scores a query whose first relevant paper sits at rank 150 as 0.
`full_list_mrr` ranks every candidate for each query (a few queries at a time,
so memory stays at a few full lists), applies the runner's order (score, then
candidate id) and takes 1 / rank of the first relevant paper. BM25 returns only
candidates sharing a term with the query: a query whose relevant papers share
none scores 0, as it would in any BM25 system.
"""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.rankers import _ordered
from sciembed.evaluation.task import RetrievalTask

METRIC = "mrr_full"
QUERIES_PER_SEARCH = 16  # full lists held at once


def full_list_mrr(ranker: Any, task: RetrievalTask) -> dict[str, float]:
    """query id -> reciprocal rank of its first relevant candidate in the full ranking (0 if never ranked)."""
    if task.pools is not None:
        raise ValueError("full-list MRR is for full-corpus tasks; pools are short lists already")
    out = {q: 0.0 for q in task.query_ids}
    depth = len(task.doc_ids)
    if not depth or not task.query_ids:
        return out
    index = ranker.index(task.doc_ids, task.doc_texts, task.candidates)
    for start in range(0, len(task.query_ids), QUERIES_PER_SEARCH):
        positions = range(start, min(start + QUERIES_PER_SEARCH, len(task.query_ids)))
        for i, hits in zip(positions, ranker.search(index, task, positions, depth), strict=True):
            relevant = {d for d, r in task.qrels[task.query_ids[i]].items() if r > 0}
            for rank, (doc, _) in enumerate(_ordered(hits, depth), start=1):
                if doc in relevant:
                    out[task.query_ids[i]] = 1.0 / rank
                    break
    return out
