"""Late interaction over an approximate view index (HNSW, IVF-PQ): candidates from the index, scores exact.

Exact ``late`` (per query vector its best view of a paper, averaged) needs every view's score (~300 ms per
query paper at 500k views on one core). As ColBERTv2 / PLAID do, the candidates are the papers of each query
vector's top-n views (n grows until k papers are found) and each is scored exactly over its stored vectors
(decoded ones over 8-bit or PQ codes). A paper with no view in any top n is missed: the one approximation,
measured in `benchmarks/p2p_latency.py`. Pages are consistent (`paging.stable_prefix`) from `FIRST_TIER`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from sciembed.retrieval.dense import DenseIndex
from sciembed.retrieval.ties import top_positions

# papers ranked by the first candidate search (`stable_prefix`'s first tier): the fused search's 300 and a margin.
# 512 before: on the ACL val split 320 kept fused NDCG@10 within noise of exact late (References 32.13 vs 32.22,
# Citations 45.43 vs 45.29; `benchmarks/results/p2p_first_tier.json`) for a candidate search 1.6x shorter.
FIRST_TIER = 320
MIN_VIEWS_PER_VECTOR = 32


class ViewIndex(Protocol):
    """What this search needs of a `MultiVectorIndex` (views keyed by paper id in `dense`)."""

    dense: DenseIndex

    @property
    def num_views(self) -> int: ...

    def paper_of_row(self, row: int) -> str: ...

    def papers_of_rows(self, rows: np.ndarray) -> list[str]: ...

    def _deepened(self, knobs: dict | None, depth: int) -> dict: ...


def late_over_candidates(index: ViewIndex, queries: np.ndarray, k: int, exclude: set[str],
                         accept: Callable[[str], bool] | None, knobs: dict | None) -> list[tuple[str, float, int]]:
    """Top-k papers by exact ``late`` among the papers of each query vector's top views (see the module)."""
    candidates: list[str] = []
    depth = max(MIN_VIEWS_PER_VECTOR, -(-2 * k // len(queries)))
    while True:
        knobs_now = index._deepened(knobs, depth)
        _, found = index.dense.search_rows(queries, min(depth, index.num_views), **knobs_now)
        papers = index.papers_of_rows(found[found >= 0])
        candidates = sorted(p for p in papers if p not in exclude and (accept is None or accept(p)))
        if len(candidates) >= k or depth >= index.num_views:
            break
        depth *= 4
    rows, counts = index.dense.rows_of_many(candidates)
    if not counts.all():  # a paper whose every view is hidden has no score (and would shift the segments)
        candidates = [c for c, n in zip(candidates, counts, strict=True) if n]
        rows, counts = index.dense.rows_of_many(candidates)
    if not candidates:
        return []
    starts = np.concatenate([[0], np.cumsum(counts[:-1])])
    by_row = index.dense.scores_of_rows(queries, rows)  # (query vectors, candidate views), exact
    best = np.maximum.reduceat(by_row, starts, axis=1).astype(np.float64)  # each vector's best view per paper
    scores = best.mean(axis=0)
    # each candidate's best-matching view (its first view reaching the paper's best score over query vectors)
    column_best = by_row.max(axis=0)
    owner = np.repeat(np.arange(len(candidates)), counts)
    at_best = np.flatnonzero(column_best == np.maximum.reduceat(column_best, starts)[owner])
    _, first = np.unique(owner[at_best], return_index=True)
    best_row = rows[at_best[first]]
    return [(candidates[i], float(scores[i]), int(best_row[i])) for i in top_positions(scores, k, candidates)]
