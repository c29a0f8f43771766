"""PRISM segments: the whole body cut into non-overlapping pieces of at most N tokens (default 3,000).

PRISM indexes every candidate paper as consecutive ~3,000-token pieces of its
full text. Here a segment is packed from whole sentences, in paper order and
across section boundaries (a section heading is a unit of its own), until the
next unit would pass the token budget. A sentence longer than the budget is cut
into word pieces that fit. Segments never overlap, and together they hold every
body word exactly once: ``" ".join(s.text for s in segments).split()`` is the
paper's body word sequence (`sciembed.views.body.body_words`).

Tokens are counted by a `TokenCounter`: ``approx_tokens`` (words / 0.7) unless
the caller passes the encoder's own (``encoder.count_tokens``). Counting a
segment as the sum of its units' counts can differ from counting the joined
text by a token or two per unit boundary for sub-word tokenizers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sciembed.papers.model import Paper
from sciembed.views.chunk import _bounded, split_sentences
from sciembed.views.tokens import TokenCounter, approx_tokens
from sciembed.views.view import View, ViewKind

DEFAULT_SEGMENT_TOKENS = 3000


@dataclass(frozen=True, slots=True)
class _Unit:
    text: str
    words: int
    section: int


def _units(paper: Paper, budget: int, count: TokenCounter) -> list[_Unit]:
    """Headings and sentences in body order, each within the budget, with their word counts."""
    units: list[_Unit] = []
    for i, section in enumerate(paper.sections):
        pieces = [section.heading.strip()] if section.heading.strip() else []
        pieces += _bounded(split_sentences(section.text), budget, count)
        for piece in pieces:
            for part in _bounded([piece], budget, count):  # a long heading is cut like a long sentence
                n = len(part.split())
                if n:
                    units.append(_Unit(part, n, i))
    return units


def segment_views(
    paper: Paper, segment_tokens: int = DEFAULT_SEGMENT_TOKENS, count: TokenCounter = approx_tokens
) -> list[View]:
    """Consecutive, non-overlapping body segments of at most `segment_tokens` tokens, packed by sentences.

    Each view records the section its first unit comes from and its word span
    ``[start, end)`` in the body word sequence.
    """
    if segment_tokens <= 0:
        raise ValueError(f"segment_tokens must be positive, got {segment_tokens}")
    views: list[View] = []
    current: list[_Unit] = []
    tokens = start = 0

    def flush() -> None:
        nonlocal current, tokens, start
        if current:
            words = sum(u.words for u in current)
            text = " ".join(u.text for u in current)
            views.append(View(paper.id, ViewKind.SEGMENT, text, current[0].section, start, start + words))
            start += words
        current, tokens = [], 0

    for unit in _units(paper, segment_tokens, count):
        n = count(unit.text)
        if current and tokens + n > segment_tokens:
            flush()
        current.append(unit)
        tokens += n
    flush()
    return views
