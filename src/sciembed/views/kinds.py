"""The views a paper is encoded by, one kind at a time: what `sciembed index` and `sciembed encode` cut."""

from __future__ import annotations

from sciembed.papers.model import Paper
from sciembed.views.body import body_words
from sciembed.views.chunk import chunk_views
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS, segment_views
from sciembed.views.simple import section_view, ta_text, ta_view
from sciembed.views.view import View
from sciembed.views.window import eligible_sections, window_at

VIEW_KINDS = ("ta", "window", "section", "chunk", "segment")


def paper_views(paper: Paper, kind: str, target: int, *, chunk_tokens: int = 512,
                segment_tokens: int = DEFAULT_SEGMENT_TOKENS) -> list[View]:
    """The views of one paper: its TA, a window at every section header, every non-empty section,
    CoSAEmb chunks of `chunk_tokens`, or PRISM segments of `segment_tokens`."""
    if kind == "chunk":
        return chunk_views(paper, max_tokens=chunk_tokens)
    if kind == "segment":
        return segment_views(paper, segment_tokens)
    if kind == "ta":
        return [ta_view(paper)] if ta_text(paper).strip() else []
    if kind == "window":
        body = body_words(paper)
        return [window_at(paper, i, target, body) for i in eligible_sections(paper, body)]
    if kind == "section":
        return [section_view(paper, i) for i, s in enumerate(paper.sections) if s.text.strip()]
    raise ValueError(f"unknown view {kind!r}; expected one of {', '.join(VIEW_KINDS)}")
