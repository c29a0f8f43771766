"""MRR over the full candidate list (S2Full reports MRR without a cut-off), named ``mrr``.

A runner that keeps the top k (100) per query reports ``mrr@100``, which scores
a query whose first relevant paper sits at rank 150 as 0. `full_list_mrr` ranks
every candidate for each query (a few queries at a time, so memory stays at a
few full lists), applies the runner's order (score, then a seeded hash of the
candidate id: `sciembed.retrieval.ties`) and takes 1 / rank of the first
relevant paper. BM25's candidates sharing no term with the query follow at
score 0 in that tie order, as in the runner's rankings, so the full-list ``mrr``
of a run cut at k and of a full run are the same number.
"""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.rankers import rank_positions
from sciembed.evaluation.task import RetrievalTask

METRIC = "mrr"  # plain: over the full list (`metrics.with_cut` names the cut ones mrr@k)
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
        for i, ranking in zip(positions, rank_positions(ranker, index, task, positions, depth), strict=True):
            relevant = {d for d, r in task.qrels[task.query_ids[i]].items() if r > 0}
            for rank, (doc, _) in enumerate(ranking, start=1):
                if doc in relevant:
                    out[task.query_ids[i]] = 1.0 / rank
                    break
    return out
