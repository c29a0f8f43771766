"""How vectors compare, and the rank of a known partner in a pool (1 = best).

The semantic benchmark and SemCSE's validation ask at which rank the one correct partner comes, over the
whole pool, so candidates scoring strictly better or tied are counted block by block. A tie counts half
(1 + better + tied / 2): a constant encoder gets the chance rank (n + 1) / 2, never rank 1.
"""

from __future__ import annotations

import numpy as np

from sciembed.models.encoder import check_metric

BLOCK = 1024


def scores(queries: np.ndarray, candidates: np.ndarray, metric: str) -> np.ndarray:
    """Higher is closer: cosine similarity, or negative Euclidean distance for ``l2``."""
    check_metric(metric)
    q, c = np.asarray(queries, dtype=np.float64), np.asarray(candidates, dtype=np.float64)
    if metric == "cosine":
        q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
        c = c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)
        return q @ c.T
    squared = (q * q).sum(1)[:, None] - 2 * q @ c.T + (c * c).sum(1)[None, :]
    return -np.sqrt(np.maximum(squared, 0.0))


def gold_ranks(queries: np.ndarray, candidates: np.ndarray, gold: np.ndarray, metric: str) -> np.ndarray:
    """For query i, the expected 1-based rank of ``candidates[gold[i]]`` among all candidates (`expected_ranks`)."""
    gold = np.asarray(gold, dtype=np.int64)
    if len(gold) != len(queries):
        raise ValueError(f"{len(queries)} queries but {len(gold)} gold indices")
    ranks = np.empty(len(queries), dtype=np.float64)
    for start in range(0, len(queries), BLOCK):
        ranks[start:start + BLOCK] = expected_ranks(scores(queries[start:start + BLOCK], candidates, metric),
                                                    gold[start:start + BLOCK])
    return ranks


def expected_ranks(block: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Row i's expected 1-based rank of column ``gold[i]`` in a (queries × candidates) score block, over a random
    order of equal scores: 1 + (candidates strictly better) + (others tied) / 2."""
    own = block[np.arange(len(block)), gold]
    better = (block > own[:, None]).sum(1)
    tied = (block == own[:, None]).sum(1) - 1  # the gold candidate ties itself
    return 1 + better + tied / 2
