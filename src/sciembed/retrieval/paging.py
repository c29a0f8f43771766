"""Rankings that page consistently over an approximate index (HNSW, IVF-PQ).

An approximate search for the top d is not the prefix of one for the top
d' > d: a deeper search (a wider HNSW candidate list) finds papers the
shallower one missed and places them among the others. Pages cut from
searches of different depths then disagree at their boundaries: one paper is
shown twice and another never (issue 33: 3 of 16 paging runs).

`stable_prefix` builds every ranking from the same fixed tiers of depth
(16, 32, 64, ...): the first 16 places are always the 16-deep search's top
16, the next 16 the 32-deep search's best not yet placed, and so on. The
ranking of any depth is then a prefix of every deeper one, so consecutive
pages never overlap or skip; a paper the shallow search missed still appears,
a little lower than an exact search would place it. A page deep in the list
costs the searches of every tier up to it (at most twice the deepest).
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
