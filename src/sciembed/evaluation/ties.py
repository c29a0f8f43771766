"""Tie counting for reports; the tie order itself is `sciembed.retrieval.ties` (one order for search and evaluation).

Equal scores are ordered by a seeded hash of the document id (never by id, which let a
constant scorer reach NDCG@10 = 100 whenever the relevant document had the smallest id).
A run reports how many ranked documents shared their score with the one ranked just above them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from sciembed.evaluation.issues import Issue
from sciembed.retrieval.ties import TIE_SEED, ordered, past_ties, tie_key

__all__ = ["TIE_SEED", "count_ties", "ordered", "past_ties", "tie_key", "tie_notes"]


def _tied(a: float, b: float, unscored: float | None) -> bool:
    return a == b and a != unscored


def count_ties(rankings: Mapping[str, Sequence[tuple[str, float]]], unscored: float | None = None) -> int:
    """Ranked documents whose score equals the previous one's, over all queries. `unscored`: the score of a
    candidate with no evidence (BM25: 0), tied by construction and not counted (else thousands of BM25 ties)."""
    return sum(1 for ranking in rankings.values() for (_, a), (_, b) in pairwise(ranking) if _tied(a, b, unscored))


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
