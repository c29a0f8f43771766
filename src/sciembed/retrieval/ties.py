"""The one order of equal scores, and cuts that never split a group of ties by accident.

Equal scores are ordered by a seeded hash of the id: sorting them by id let a constant scorer reach
NDCG@10 = 100 whenever the relevant document had the smallest id, and faiss or `argpartition` order depends
on how the index was filled. A list is cut at k only after every candidate tied with the k-th has been seen
(`past_ties`, `top_positions`), so the hash decides which of them make the cut.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

import numpy as np

TIE_SEED = 0


def tie_key(doc_id: str, seed: int = TIE_SEED) -> bytes:
    """A seeded pseudo-random sort key for equal scores (blake2b of seed and id)."""
    return hashlib.blake2b(f"{seed}:{doc_id}".encode(), digest_size=8).digest()


def ordered(scores: Iterable[tuple[str, float]], seed: int = TIE_SEED) -> list[tuple[str, float]]:
    """Score descending; equal scores in seeded-hash order (hashed only where scores are equal)."""
    out = sorted(scores, key=lambda item: -item[1])
    for start, end in _tied_runs(np.asarray([s for _, s in out], dtype=np.float64)):
        out[start:end] = sorted(out[start:end], key=lambda item: tie_key(item[0], seed))
    return out


def _tied_runs(values: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of every run of two or more equal neighbours in a sorted `values`."""
    breaks = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts, ends = np.r_[0, breaks], np.r_[breaks, len(values)]
    return [(int(starts[r]), int(ends[r])) for r in np.flatnonzero(ends - starts > 1)]


def past_ties(search: Callable[[Sequence[int], int], list[list[tuple[str, float]]]], queries: Sequence[int],
              k: int, limit: int) -> list[list[tuple[str, float]]]:
    """`search(queries, depth)` deepened per query (from k + 1, doubling, up to `limit` candidates) until no
    candidate tied with its k-th hit is left unseen; callers sort the lists with `ordered` before cutting to k."""
    queries = list(queries)
    depth = min(k + 1, limit)
    out: dict[int, list[tuple[str, float]]] = {}
    pending = queries
    while pending:
        hits = search(pending, depth)
        still = []
        for q, h in zip(pending, hits, strict=True):
            # a list shorter than asked is complete; a full one may hide candidates tied with its k-th score
            # unless its last score is strictly below that
            if depth < limit and 0 < k < depth <= len(h) and not h[-1][1] < h[k - 1][1]:
                still.append(q)
            else:
                out[q] = h
        pending, depth = still, min(2 * depth, limit)
    return [out[q] for q in queries]


def top_positions(scores: np.ndarray, k: int, ids: Sequence[str]) -> list[int]:
    """Positions of the k best finite `scores`, best first, ties in seeded-hash order of `ids` (every position
    tied with the k-th is considered before the cut: `argpartition` alone picks among them by memory layout)."""
    finite = np.flatnonzero(np.isfinite(scores))
    if k <= 0 or not len(finite):
        return []
    if k < len(finite):
        kth = -np.partition(-scores[finite], k - 1)[k - 1]
        finite = finite[scores[finite] >= kth]
    best_first = finite[np.argsort(-scores[finite], kind="stable")]
    for start, end in _tied_runs(scores[best_first]):  # each run of equal scores in seeded-hash order of `ids`
        best_first[start:end] = sorted(best_first[start:end].tolist(), key=lambda i: tie_key(ids[i]))
    return [int(i) for i in best_first[:k]]
