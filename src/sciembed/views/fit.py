"""Views that fit the encoder: long texts split into encoder-sized pieces, and truncation counted.

An encoder with `max_seq_length` L reads the first L - 2 tokens and silently drops the rest, so
multi-vector indexes split long views first: `fit_pieces` keeps a text that fits and otherwise packs its
sentences (paragraphs blank-line separated; an over-long sentence cut into word pieces) greedily into
non-overlapping pieces of at most `budget` tokens holding every word once; `section_pieces` does so per
section (``"heading\\ntext"``). `truncation_report` counts, per view kind, the views over the budget and
the tokens the encoder never reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sciembed.papers.model import Paper
from sciembed.views.chunk import split_sentences
from sciembed.views.tokens import TokenCounter, approx_tokens, count_many
from sciembed.views.view import View, ViewKind

T = TypeVar("T")
SPECIAL_TOKENS = 2  # [CLS] ... [SEP] of a BERT-style encoder


def encoder_budget(max_seq_length: int) -> int:
    """Text tokens a BERT-style encoder with `max_seq_length` positions reads."""
    if max_seq_length <= SPECIAL_TOKENS:
        raise ValueError(f"max_seq_length must exceed {SPECIAL_TOKENS}, got {max_seq_length}")
    return max_seq_length - SPECIAL_TOKENS


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in text.split("\n\n") if p.strip()]


def _sentence_units(paragraphs: list[str], budget: int, count: TokenCounter,
                    max_words: int | None = None) -> list[tuple[str, int, int]]:
    """(sentence, tokens, paragraph index) in reading order; a sentence over the budget becomes word pieces.

    `max_words`: only the sentences up to and including the one that reaches that many words (the units of
    every piece that holds no later word: a piece of `budget` tokens has at most `budget` words)."""
    units = [(s, i) for i, p in enumerate(paragraphs) for s in split_sentences(p)]
    if max_words is not None:
        words = 0
        for end, (sentence, _) in enumerate(units, 1):
            words += len(sentence.split())
            if words >= max_words:
                units = units[:end]
                break
    out: list[tuple[str, int, int]] = []
    for (sentence, i), m in zip(units, count_many(count, [u for u, _ in units]), strict=True):
        if m <= budget:
            out.append((sentence, m, i))
            continue
        words = sentence.split()
        step = max(1, int(len(words) * budget / max(m, 1)))
        while True:  # sub-word heavy text: shrink the step until every word piece fits
            pieces = [" ".join(words[j:j + step]) for j in range(0, len(words), step)]
            counted = count_many(count, pieces)
            if max(counted) <= budget or step == 1:
                break
            step = max(1, step * 3 // 4)
        out += [(piece, n, i) for piece, n in zip(pieces, counted, strict=True)]
    return out


def _pack(units: list[tuple[str, int, int]], budget: int) -> list[str]:
    """Consecutive sentences packed into pieces of at most `budget` tokens (one token of slack per seam);
    sentences of one paragraph are joined by a space, paragraphs by a blank line."""
    pieces: list[str] = []
    text, used, last = "", 0, -1
    for unit, n, paragraph in units:
        if text and used + n + 1 > budget:
            pieces.append(text)
            text, used = "", 0
        if text:
            text += (" " if paragraph == last else "\n\n") + unit
            used += n + 1
        else:
            text, used = unit, n
        last = paragraph
    if text:
        pieces.append(text)
    return pieces


def fit_pieces_many(texts: list[str], budget: int, count: TokenCounter = approx_tokens,
                    first: int | None = None) -> list[list[str]]:
    """`fit_pieces` of many texts; texts that fit are counted in one batched call and kept whole.

    `first`: only each text's first pieces, the same as cutting all of it and keeping them: a piece holds at
    most `budget` tokens, so at most that many words, and the sentences after the first ``first * budget``
    words are not counted (`_first_pieces`)."""
    if budget <= 0:
        raise ValueError(f"budget must be positive, got {budget}")
    texts = [t.strip() for t in texts]
    # every word is at least one token: a text with more words than the budget never fits
    short = [i for i, t in enumerate(texts) if len(t.split()) <= budget]
    fits = {i for i, n in zip(short, count_many(count, [texts[i] for i in short]), strict=True) if n <= budget}
    return [([t] if t else []) if i in fits or not t else _first_pieces(t, budget, count, first)
            for i, t in enumerate(texts)]


def _first_pieces(text: str, budget: int, count: TokenCounter, first: int | None) -> list[str]:
    """`text`'s pieces (its first `first`): packed from the sentences that can reach them, and from all of them
    where those fill no more than `first` pieces (so a piece is never closed early by a missing sentence)."""
    paragraphs = _paragraphs(text)
    if first is not None and len(text.split()) > first * budget:  # else nothing would be left uncounted
        pieces = _pack(_sentence_units(paragraphs, budget, count, first * budget), budget)
        if len(pieces) > first:
            return pieces[:first]
    return _pack(_sentence_units(paragraphs, budget, count), budget)[:first]


def fit_pieces(text: str, budget: int, count: TokenCounter = approx_tokens) -> list[str]:
    """`text` cut into consecutive pieces of at most `budget` tokens at paragraph / sentence boundaries (one
    token of slack per seam: joining two units can add one with sub-word tokenizers)."""
    return fit_pieces_many([text], budget, count)[0]


def spread(items: Sequence[T], n: int | None) -> list[T]:
    """At most `n` items evenly spaced over `items`, first and last kept, order kept (all when n is None)."""
    if n is None or len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def section_pieces(paper: Paper, budget: int, count: TokenCounter = approx_tokens,
                   per_section: int | None = None, sections: int | None = None) -> list[View]:
    """Every non-empty section as ``heading\\ntext``, split into pieces of at most `budget` tokens, in reading order.

    `per_section` keeps each section's first pieces, `sections` at most that many sections spread over the
    paper (first and last kept): a cheaper index (`truncation_report` counts what it leaves out)."""
    indexes = spread([i for i, s in enumerate(paper.sections) if s.text.strip()], sections)
    texts = [f"{paper.sections[i].heading.strip()}\n{paper.sections[i].text.strip()}".strip() for i in indexes]
    return [View(paper.id, ViewKind.SECTION, piece, i) for i,
            pieces in zip(indexes, fit_pieces_many(texts, budget, count, per_section), strict=True) for piece in pieces]


@dataclass(frozen=True)
class TruncationRow:
    """One view kind at one budget: how much of it the encoder never reads."""

    kind: str
    views: int
    over_budget: int
    tokens: int
    tokens_cut: int

    def to_dict(self) -> dict[str, float | int | str]:
        return {"kind": self.kind, "views": self.views, "over_budget": self.over_budget,
                "share_over_budget": self.over_budget / self.views if self.views else 0.0,
                "tokens": self.tokens, "tokens_cut": self.tokens_cut,
                "share_tokens_cut": self.tokens_cut / self.tokens if self.tokens else 0.0}


def truncation_row(kind: str, texts: Sequence[str], budget: int, count: TokenCounter) -> TruncationRow:
    counts = count_many(count, list(texts))
    return TruncationRow(kind, len(counts), sum(1 for n in counts if n > budget), sum(counts),
                         sum(max(0, n - budget) for n in counts))


def truncation_report(views_by_kind: dict[str, Iterable[str]], budget: int, count: TokenCounter) -> list[TruncationRow]:
    """One row per view kind: views over `budget`, and tokens the encoder cuts."""
    return [truncation_row(kind, list(texts), budget, count) for kind, texts in views_by_kind.items()]
