"""CoSAEmb section-aware chunks.

A section is split into sentence chunks of about the encoder's token budget.
The first chunk of a section is prefixed ``[TTL] <title> [<SEC>]``; each later
chunk starts with ``[<SEC>]`` and repeats the last sentence of the previous
chunk, so no chunk starts without context. The abstract is chunked the same
way with ``[ABS]``. Roles without a CoSAEmb token use ``[OTH]``.
"""

from __future__ import annotations

import re

from sciembed.papers.model import Paper, SectionRole
from sciembed.views.tokens import TokenCounter, approx_tokens
from sciembed.views.view import View, ViewKind

SECTION_TOKENS: dict[SectionRole, str] = {
    SectionRole.INTRODUCTION: "[INTR]",
    SectionRole.RELATED_WORK: "[RW]",
    SectionRole.METHOD: "[MET]",
    SectionRole.RESULTS: "[RES]",
    SectionRole.CONCLUSION: "[CONC]",
    SectionRole.OTHER: "[OTH]",
}
TITLE_TOKEN = "[TTL]"
ABSTRACT_TOKEN = "[ABS]"
SPECIAL_TOKENS = (TITLE_TOKEN, ABSTRACT_TOKEN, *SECTION_TOKENS.values())

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def split_sentences(text: str) -> list[str]:
    """Rule-based sentence split (no model download); over-long sentences are cut by words."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


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


def chunk_text(
    title: str, text: str, token: str, max_tokens: int, count: TokenCounter = approx_tokens
) -> list[str]:
    """Chunks of one section's text, each about `max_tokens` tokens including its prefix."""
    first_prefix = f"{TITLE_TOKEN} {title.strip()} {token}"
    sentences = _bounded(split_sentences(text), max(8, max_tokens // 2), count)
    chunks: list[str] = []
    current: list[str] = []
    prefix = first_prefix
    for sentence in sentences:
        candidate = " ".join([prefix, *current, sentence])
        if current and count(candidate) > max_tokens:
            chunks.append(" ".join([prefix, *current]))
            prefix = token
            current = [current[-1], sentence]  # carry the previous chunk's last sentence
        else:
            current.append(sentence)
    if current:
        chunks.append(" ".join([prefix, *current]))
    return chunks


def chunk_views(paper: Paper, max_tokens: int = 512, count: TokenCounter = approx_tokens) -> list[View]:
    """Abstract chunks first, then every section's chunks, in paper order."""
    views = [
        View(paper.id, ViewKind.CHUNK, c)
        for c in chunk_text(paper.title, paper.abstract, ABSTRACT_TOKEN, max_tokens, count)
    ]
    for i, section in enumerate(paper.sections):
        token = SECTION_TOKENS[section.role]
        for c in chunk_text(paper.title, section.text, token, max_tokens, count):
            views.append(View(paper.id, ViewKind.CHUNK, c, section=i))
    return views
