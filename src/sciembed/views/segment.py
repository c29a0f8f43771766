"""PRISM segments: the whole body cut into fixed-length pieces (default ~3,000 tokens)."""

from __future__ import annotations

import bisect

from sciembed.papers.model import Paper
from sciembed.views.body import body_words
from sciembed.views.view import View, ViewKind
from sciembed.views.window import WORDS_PER_TOKEN


def segment_views(paper: Paper, segment_tokens: int = 3000) -> list[View]:
    """Consecutive, non-overlapping body segments of ``0.7 × segment_tokens`` words."""
    if segment_tokens <= 0:
        raise ValueError(f"segment_tokens must be positive, got {segment_tokens}")
    body = body_words(paper)
    size = max(1, int(WORDS_PER_TOKEN * segment_tokens))
    views = []
    for start in range(0, len(body.words), size):
        end = min(start + size, len(body.words))
        section = bisect.bisect_right(body.section_starts, start) - 1
        views.append(View(paper.id, ViewKind.SEGMENT, " ".join(body.words[start:end]), section, start, end))
    return views
