"""The views a paper is indexed by, and the count that accounts for every paper read.

Every paper read is indexed by the requested view, indexed by title+abstract because
it has no body (``ta_fallback``), or rejected because it has no text at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sciembed.papers.model import Paper
from sciembed.views import View, ta_text, ta_view
from sciembed.views.kinds import IndexView, paper_views


@dataclass
class IndexCounts:
    """read = indexed + ta_fallback + rejected."""

    read: int = 0
    indexed: int = 0
    ta_fallback: int = 0
    rejected: int = 0
    views: int = 0


def index_views(paper: Paper, kind: str, target: int, **sizes: int) -> tuple[list[View], str]:
    """The views a paper is indexed by, and how: "indexed", "ta_fallback" (no body) or "rejected" (no text)."""
    own = paper_views(paper, kind, target, **sizes)
    if own:
        return own, "indexed"
    if kind != IndexView.TA and ta_text(paper).strip():
        return [ta_view(paper)], "ta_fallback"
    return [], "rejected"


def piece_limits(manifest: dict[str, Any]) -> dict[str, int | None]:
    """The section pieces an index directory keeps per paper (None: all), as `index_views` takes them."""
    return {"per_section": manifest.get("pieces_per_section"), "sections": manifest.get("piece_sections")}


def collect_views(papers: Iterable[Paper], kind: str, target: int, **sizes: int
                  ) -> tuple[list[View], dict[str, str], IndexCounts]:
    views: list[View] = []
    titles: dict[str, str] = {}
    counts = IndexCounts()
    for paper in papers:
        counts.read += 1
        own, how = index_views(paper, kind, target, **sizes)
        setattr(counts, how, getattr(counts, how) + 1)
        if not own:
            continue
        views.extend(own)
        titles[paper.id] = paper.title
    counts.views = len(views)
    return views, titles, counts
