"""The views a paper is encoded by, one kind at a time: what `sciembed index build` and `sciembed encode` cut."""

from __future__ import annotations

from enum import StrEnum

from sciembed.papers.model import Paper
from sciembed.views.body import body_words
from sciembed.views.chunk import chunk_views
from sciembed.views.fit import section_pieces
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS, segment_views
from sciembed.views.simple import full_text, section_view, ta_text, ta_view
from sciembed.views.view import View, ViewKind
from sciembed.views.window import eligible_sections, window_at


class IndexView(StrEnum):
    """What a paper is indexed or encoded by: one `ViewKind`, or TA + sections (what late interaction compares).

    The one list of these names: retrieval, encode and the CLI use the members, not strings.
    """

    TA = ViewKind.TA.value
    WINDOW = ViewKind.WINDOW.value
    SECTION = ViewKind.SECTION.value
    TA_SECTION = "ta+section"
    CHUNK = ViewKind.CHUNK.value
    SEGMENT = ViewKind.SEGMENT.value
    FULLTEXT = ViewKind.FULLTEXT.value


VIEW_KINDS = tuple(v.value for v in IndexView)
MULTI_SECTION = (IndexView.SECTION, IndexView.TA_SECTION)  # sections cut to the encoder's budget; late interaction


def index_view(kind: str) -> IndexView:
    """`kind` as an `IndexView`; a ValueError that lists the kinds otherwise."""
    try:
        return IndexView(kind)
    except ValueError:
        raise ValueError(f"unknown view {kind!r}; expected one of {', '.join(VIEW_KINDS)}") from None


def paper_views(paper: Paper, kind: str, target: int, *, chunk_tokens: int = 512,
                segment_tokens: int = DEFAULT_SEGMENT_TOKENS, piece_tokens: int | None = None,
                per_section: int | None = None, sections: int | None = None) -> list[View]:
    """The views of one paper: its TA, a window at every section header, every non-empty section (split
    into pieces of at most `piece_tokens` tokens when given: a dense index passes its encoder's budget),
    TA + those sections (``ta+section``, what late interaction compares), CoSAEmb chunks of
    `chunk_tokens`, PRISM segments of `segment_tokens`, or the whole text as one view (``fulltext``:
    for BM25; a dense encoder reads only its first tokens). `per_section` / `sections` keep each section's
    first pieces and that many sections spread over the paper (`section_pieces`; the full-text index's)."""
    kind = index_view(kind)
    if kind is IndexView.FULLTEXT:
        return [View(paper.id, ViewKind.FULLTEXT, text)] if (text := full_text(paper)).strip() else []
    if kind is IndexView.TA_SECTION:
        ta = [ta_view(paper)] if ta_text(paper).strip() else []
        return ta + paper_views(paper, IndexView.SECTION, target, piece_tokens=piece_tokens, per_section=per_section,
                                sections=sections) if (ta or paper.has_body) else []
    if kind is IndexView.CHUNK:
        return chunk_views(paper, max_tokens=chunk_tokens)
    if kind is IndexView.SEGMENT:
        return segment_views(paper, segment_tokens)
    if kind is IndexView.TA:
        return [ta_view(paper)] if ta_text(paper).strip() else []
    if kind is IndexView.WINDOW:
        body = body_words(paper)
        return [window_at(paper, i, target, body) for i in eligible_sections(paper, body)]
    if piece_tokens is not None:  # IndexView.SECTION
        return section_pieces(paper, piece_tokens, per_section=per_section, sections=sections)
    return [section_view(paper, i) for i, s in enumerate(paper.sections) if s.text.strip()]
