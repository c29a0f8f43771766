"""Tie-breaking that cannot favour the relevant documents, and tie counting.

Sorting equal scores by document id let a constant scorer reach NDCG@10 = 100
whenever the relevant document had the smallest id. Equal scores are ordered
by a seeded hash of the document id instead: a fixed, reproducible order that
is unrelated to ids' spelling and to relevance. A run reports how many ranked
documents shared their score with the one ranked just above them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from sciembed.evaluation.issues import Issue

TIE_SEED = 0


def tie_key(doc_id: str, seed: int = TIE_SEED) -> bytes:
    """A seeded pseudo-random sort key for equal scores (blake2b of seed and id)."""
    return hashlib.blake2b(f"{seed}:{doc_id}".encode(), digest_size=8).digest()


def ordered(scores: Iterable[tuple[str, float]], seed: int = TIE_SEED) -> list[tuple[str, float]]:
    """Score descending; equal scores in seeded-hash order."""
    return sorted(scores, key=lambda item: (-item[1], tie_key(item[0], seed)))


def _tied(a: float, b: float, unscored: float | None) -> bool:
    return a == b and a != unscored


def count_ties(rankings: Mapping[str, Sequence[tuple[str, float]]], unscored: float | None = None) -> int:
    """Ranked documents whose score equals the previous one's, over all queries.

    `unscored`: the score of a candidate the scorer found no evidence for (BM25: 0, no shared term); those
    are tied by construction and not counted, or BM25's zero tail would be reported as thousands of ties.
    """
    return sum(
        1 for ranking in rankings.values() for (_, a), (_, b) in pairwise(ranking) if _tied(a, b, unscored)
    )


def tie_notes(rankings: Mapping[str, Sequence[tuple[str, float]]],
              unscored: float | None = None) -> list[dict[str, Any]]:
    """The run's tie count among scored candidates as a report note (nothing when there is none)."""
    ties = count_ties(rankings, unscored)
    if not ties:
        return []
    queries = sum(1 for r in rankings.values() if any(_tied(a, b, unscored) for (_, a), (_, b) in pairwise(r)))
    issue = Issue("ranked document with the same score as the one above it",
                  f"order set by a seeded hash of the document id, not by id ({queries} queries affected)", ties)
    return [issue.to_dict()]
