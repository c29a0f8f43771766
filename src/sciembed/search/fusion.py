"""Reciprocal rank fusion (RRF) of ranked lists, remembering which list found each hit.

score(paper) = Σ over lists, Σ over the paper's entries in that list, 1 / (k + rank), rank from 1, k = 60
(Cormack et al. 2009; PRISM's code). A list may name a paper several times: PRISM maps segment hits to papers
and keeps every entry (``dedupe=False``); ``dedupe=True`` keeps a paper's best rank per list.

Not ``ranx.fuse``: a ranx `Run` cannot hold a paper twice in one list, and ranx compiles numba kernels on
first use (tens of seconds). The de-duplicated scores equal ranx's (tests/search/test_fusion.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sciembed.retrieval.ties import tie_key

RRF_K = 60


@dataclass
class FusedHit:
    """One fused paper: its RRF score and, per list, the ranks at which that list found it."""

    paper_id: str
    score: float
    found_by: dict[str, list[int]] = field(default_factory=dict)

    def sources(self) -> str:
        """"method#3, experiment#12+40": which list found it at which ranks (best first)."""
        return ", ".join(f"{name}#{'+'.join(map(str, ranks))}" for name, ranks in self.found_by.items())

    def summary(self) -> str:
        """"method 2× best #3, abstract #1": per list, how many entries and the best rank."""
        return ", ".join(f"{name} {len(ranks)}× best #{ranks[0]}" if len(ranks) > 1 else f"{name} #{ranks[0]}"
                         for name, ranks in self.found_by.items())


def rrf(lists: Mapping[str, Sequence[str]], k: int = RRF_K, *, dedupe: bool = False,
        depth: int | None = None) -> list[FusedHit]:
    """Fuse named ranked lists of paper ids (best first); result sorted by score, ties in seeded-hash order,
    cut to `depth` (PRISM keeps 300)."""
    if k < 0:
        raise ValueError(f"RRF k must be non-negative, got {k}")
    fused: dict[str, FusedHit] = {}
    for name, ranking in lists.items():
        seen: set[str] = set()
        for rank, paper in enumerate(ranking, start=1):
            if dedupe and paper in seen:
                continue
            seen.add(paper)
            hit = fused.setdefault(paper, FusedHit(paper, 0.0))
            hit.score += 1.0 / (k + rank)
            hit.found_by.setdefault(name, []).append(rank)
    ordered = sorted(fused.values(), key=lambda h: (-h.score, tie_key(h.paper_id)))
    return ordered[:depth] if depth is not None else ordered


def rrf_scores(lists: Mapping[str, Sequence[str]], k: int = RRF_K, *, dedupe: bool = False,
               depth: int | None = None) -> list[tuple[str, float]]:
    """`rrf` as (paper id, score) pairs, the shape every index returns."""
    return [(h.paper_id, h.score) for h in rrf(lists, k, dedupe=dedupe, depth=depth)]
