"""The result shape every index returns, and the query-exclusion argument they share."""

from __future__ import annotations

from collections.abc import Sequence

Hits = list[list[tuple[str, float]]]  # per query: (id, score) best first, higher is better


def check_exclude(exclude: Sequence[str | None] | None, n: int) -> list[str | None]:
    """One id (or None) per query; None means exclude nothing."""
    if exclude is None:
        return [None] * n
    if isinstance(exclude, str):
        raise TypeError("exclude takes one id per query (a sequence), not a single string")
    exclude = list(exclude)
    if len(exclude) != n:
        raise ValueError(f"exclude has {len(exclude)} entries for {n} queries")
    return exclude
