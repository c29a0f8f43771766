"""Rankings that page consistently over an approximate index (HNSW, IVF-PQ).

An approximate top d is not a prefix of a deeper top d' (a wider search finds papers the shallower one
missed), so pages cut from searches of different depths show one paper twice and another never (issue 33).
`stable_prefix` fills places from fixed tiers of depth (16, 32, 64, ...): the first 16 from the 16-deep search,
the next 16 from the 32-deep search's best not yet placed, and so on, so any ranking is a prefix of every
deeper one. A page costs the searches of every tier up to it (at most twice the deepest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

FIRST_TIER = 16
Hit = TypeVar("Hit", bound=tuple)


def tiers(k: int, first: int = FIRST_TIER) -> Iterator[int]:
    """`first` (16), twice that, ... up to the first tier that holds `k`."""
    tier = first
    while True:
        yield tier
        if tier >= k:
            return
        tier *= 2


def stable_prefix(search: Callable[[int], Sequence[Sequence[Hit]]], k: int, sets: int,
                  first: int = FIRST_TIER) -> list[list[Hit]]:
    """The top `k` of each of `sets` rankings, built tier by tier from `search(depth)` (a list per set of
    (paper id, ...) hits, best first) so that the ranking for any `k` is a prefix of the one for a larger `k`.
    A search whose cost hardly grows with its depth starts at a deeper `first` tier (fewer searches)."""
    placed: list[list[Hit]] = [[] for _ in range(sets)]
    seen: list[set[str]] = [set() for _ in range(sets)]
    for tier in tiers(k, first):
        for ranking, found, taken in zip(placed, search(tier), seen, strict=True):
            for hit in found:
                if len(ranking) >= tier:
                    break
                if hit[0] not in taken:
                    ranking.append(hit)
                    taken.add(hit[0])
    return [ranking[:k] for ranking in placed]
