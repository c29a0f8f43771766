"""PRISM segments: the whole body cut into non-overlapping pieces of at most N tokens (default 3,000).

A segment is packed from whole sentences in paper order, across sections (a heading is a unit of its
own), until the next unit would pass the budget; an over-long sentence is cut into word pieces. Together
the segments hold every body word once (`sciembed.views.body.body_words`). Tokens are counted by a
`TokenCounter` (``approx_tokens`` unless the encoder's own is passed); summing units' counts can differ
from the joined text's by a token or two per seam for sub-word tokenizers.
"""

from __future__ import annotations

from dataclasses import dataclass

from sciembed.papers.model import Paper
from sciembed.views.chunk import split_sentences
from sciembed.views.tokens import TokenCounter, approx_tokens
from sciembed.views.view import View, ViewKind

DEFAULT_SEGMENT_TOKENS = 3000


def _bounded(sentences: list[str], budget: int, count: TokenCounter) -> list[str]:
    """Cut any sentence longer than `budget` into word pieces that fit."""
    out: list[str] = []
    for sentence in sentences:
        if count(sentence) <= budget:
            out.append(sentence)
            continue
        words = sentence.split()
        step = max(1, int(len(words) * budget / max(count(sentence), 1)))
        out.extend(" ".join(words[i : i + step]) for i in range(0, len(words), step))
    return out


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


def segment_views(paper: Paper, segment_tokens: int = DEFAULT_SEGMENT_TOKENS,
                  count: TokenCounter = approx_tokens) -> list[View]:
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
