"""What a collection search takes and gives: filters, hits with their snippet, a page of results."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Accept = Callable[[str], bool]
PaperHits = list[tuple[str, float, int]]  # (paper id, score, row of the view that matched), best first


@dataclass(frozen=True)
class Filters:
    """Year range (inclusive), venue and domain (case-insensitive exact match; a venue matches the source's
    text or its short name: "emnlp" finds the papers whose venue text is "Natural Language Processing")."""

    year_min: int | None = None
    year_max: int | None = None
    venue: str | None = None
    domain: str | None = None

    def active(self) -> bool:
        return any(v not in (None, "") for v in (self.year_min, self.year_max, self.venue, self.domain))

    def predicate(self, fields: dict[str, tuple[int | None, str, str, str]]) -> Accept | None:
        if not self.active():
            return None
        venue, domain = (self.venue or "").lower(), (self.domain or "").lower()

        def accept(paper_id: str) -> bool:
            year, paper_venue, paper_domain, short = fields.get(paper_id, (None, "", "", ""))
            if self.year_min is not None and (year is None or year < self.year_min):
                return False
            if self.year_max is not None and (year is None or year > self.year_max):
                return False
            return (not venue or venue in (paper_venue, short)) and (not domain or paper_domain == domain)

        return accept


@dataclass
class Hit:
    """One paper found; a field's ``doc`` is its description in the server's response schema (`HitOut`)."""

    id: str
    title: str
    score: float
    year: int | None
    venue: str | None
    domain: str | None
    view: str = field(metadata={"doc": "Kind of the paper's view that matched best (ta | window | section)."})
    section: int | None = field(metadata={"doc": "Body section the matching view starts in (None for TA)."})
    snippet: str
    authors: list[str] = field(default_factory=list, metadata={"doc": "Author names, in the paper's order."})
    venue_short: str | None = field(default=None, metadata={
        "doc": "The proceedings' short name (ACL, EMNLP, …) where known."})


@dataclass
class SearchResult:
    hits: list[Hit]
    offset: int
    k: int
    took_ms: float
    query_views: int = 1  # vectors the query was searched with
    more: bool = False  # whether a next page may hold hits
    extra: dict[str, Any] = field(default_factory=dict)


_WORD = re.compile(r"\w+")


def snippet(text: str, query: str | None, width: int = 240) -> str:
    """The `width`-character stretch of `text` sharing the most words with `query` (its start without one)."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    terms = {w.lower() for w in _WORD.findall(query or "") if len(w) > 2}
    best, best_start = -1, 0
    if terms:
        starts = [0] + [m.end() for m in re.finditer(r"[.!?;] ", text)]
        for start in starts:
            window = text[start : start + width]
            score = sum(w.lower() in terms for w in _WORD.findall(window))
            if score > best:
                best, best_start = score, start
    cut = text[best_start : best_start + width]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return ("… " if best_start else "") + cut + " …"
