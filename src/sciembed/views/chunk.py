"""CoSAEmb's section-aware units: class-merged section texts, their chunks, and the TA unit.

Five section classes (introduction, related work, method, results, conclusion), each with its special
token; an unmatched heading is *method*. By default a paper's sections of one class merge into one section
text (``merge=False``: one per physical section), cut at sentence boundaries into chunks of at most
`budget` tokens by the encoder's tokenizer (510 for 512 positions), so none is truncated::

    first chunk:   [TTL] title [SEP] [INTR] s1 … si        (sep=False drops the [SEP])
    later chunks:  [INTR] si [INTR] si+1 … sj              (carries the previous chunk's last sentence)

Title and abstract form one unit, never chunked: ``[TTL] title [SEP] [ABS] abstract``. See
docs/recipes/cosaemb.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sciembed.papers.model import Paper, SectionRole
from sciembed.views.tokens import TokenCounter, count_many
from sciembed.views.view import View, ViewKind

SECTION_CLASSES: tuple[SectionRole, ...] = (SectionRole.INTRODUCTION, SectionRole.RELATED_WORK, SectionRole.METHOD,
                                            SectionRole.RESULTS, SectionRole.CONCLUSION)
SECTION_TOKENS: dict[SectionRole, str] = {SectionRole.INTRODUCTION: "[INTR]", SectionRole.RELATED_WORK: "[RW]",
                                          SectionRole.METHOD: "[MET]", SectionRole.RESULTS: "[RES]",
                                          SectionRole.CONCLUSION: "[CONC]"}
TITLE_TOKEN = "[TTL]"
ABSTRACT_TOKEN = "[ABS]"
SEP_TOKEN = "[SEP]"
SPECIAL_TOKENS: tuple[str, ...] = (TITLE_TOKEN, ABSTRACT_TOKEN, *SECTION_TOKENS.values())
BERT_BUDGET = 510  # 512 positions minus [CLS] and [SEP]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def section_class(role: SectionRole) -> SectionRole:
    """The CoSAEmb class of a section role: anything outside the five classes is method."""
    return role if role in SECTION_TOKENS else SectionRole.METHOD


def split_sentences(text: str) -> list[str]:
    """Rule-based sentence split (no model download)."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@dataclass(frozen=True)
class SectionText:
    """One CoSAEmb section text: all sections of one class of a paper (or one physical section)."""

    paper_id: str
    role: SectionRole  # one of SECTION_CLASSES
    text: str
    sections: tuple[int, ...]  # the physical sections it was merged from, in paper order

    @property
    def token(self) -> str:
        return SECTION_TOKENS[self.role]


def section_texts(paper: Paper, merge: bool = True) -> list[SectionText]:
    """Section texts of a paper; classes in order of first appearance, empty sections skipped."""
    units: dict[SectionRole | int, tuple[SectionRole, list[str], list[int]]] = {}
    for i, section in enumerate(paper.sections):
        text = section.text.strip()
        if not text:
            continue
        role = section_class(section.role)
        key: SectionRole | int = role if merge else i
        units.setdefault(key, (role, [], []))
        units[key][1].append(text)
        units[key][2].append(i)
    return [SectionText(paper.id, role, " ".join(parts), tuple(idx)) for role, parts, idx in units.values()]


def ta_unit(paper: Paper | None = None, *, title: str | None = None, abstract: str | None = None,
            sep: bool = True) -> str:
    """``[TTL] title [SEP] [ABS] abstract`` (never chunked; the encoder truncates an over-long one)."""
    title = (paper.title if paper is not None else title or "").strip()
    abstract = (paper.abstract if paper is not None else abstract or "").strip()
    middle = f" {SEP_TOKEN} " if sep else " "
    return f"{TITLE_TOKEN} {title}{middle}{ABSTRACT_TOKEN} {abstract}".strip()


def first_prefix(title: str, token: str, sep: bool = True) -> str:
    return f"{TITLE_TOKEN} {title.strip()} {SEP_TOKEN} {token}" if sep else f"{TITLE_TOKEN} {title.strip()} {token}"


def _cut_words(text: str, limit: int, count: TokenCounter) -> list[str]:
    """Word pieces of `text`, each at most `limit` tokens (greedy; an over-long word is cut by characters)."""
    pieces: list[str] = []
    current: list[str] = []
    words = [w for word in text.split() for w in _cut_word(word, limit, count)]
    for word in words:
        if current and count(" ".join([*current, word])) > limit:
            pieces.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        pieces.append(" ".join(current))
    return pieces


def _cut_word(word: str, limit: int, count: TokenCounter) -> list[str]:
    """A word (a formula, a URL) longer than `limit` tokens, halved until every piece fits."""
    if count(word) <= limit or len(word) == 1:
        return [word]
    mid = len(word) // 2
    return _cut_word(word[:mid], limit, count) + _cut_word(word[mid:], limit, count)


def _fit_title(title: str, token: str, budget: int, count: TokenCounter, sep: bool) -> str:
    """The title, cut by words so that the first chunk's prefix takes at most a quarter of the budget."""
    if count(first_prefix(title, token, sep)) <= budget // 4:
        return title
    words = title.split()
    while words and count(first_prefix(" ".join(words), token, sep)) > budget // 4:
        words.pop()
    return " ".join(words)


def chunk_text(title: str, text: str, token: str, count: TokenCounter, budget: int = BERT_BUDGET,
               sep: bool = True) -> list[str]:
    """Chunks of one section text, each at most `budget` tokens by `count`.

    Sentences longer than half of what a chunk leaves after its prefix are cut by
    words first, so a carried sentence plus the next one always fit.
    """
    if budget < 16:
        raise ValueError(f"chunk budget {budget} is too small (at least 16 tokens)")
    title = _fit_title(title, token, budget, count, sep)
    head = first_prefix(title, token, sep)
    room = min(budget - count(head), budget - 2 * count(token)) // 2
    raw = split_sentences(text)
    sentences, sizes = [], []
    for sentence, size in zip(raw, count_many(count, raw), strict=True):
        pieces = [sentence] if size <= room else _cut_words(sentence, room, count)
        sentences += pieces
        sizes += [size] if size <= room else count_many(count, pieces)
    head_size, token_size = count(head), count(token)
    chunks: list[str] = []
    start = 0  # first new sentence of the chunk being built
    carried = False  # the chunk starts with the previous chunk's last sentence
    while start < len(sentences):
        # Grow by per-sentence counts (WordPiece and BPE tokenize whitespace-separated parts on their own),
        # then check the rendered chunk exactly and give sentences back while it is over the budget.
        used = 2 * token_size + sizes[start - 1] if carried else head_size
        end = start
        while end < len(sentences) and (end == start or used + sizes[end] <= budget):
            used += sizes[end]
            end += 1
        while True:
            parts = sentences[start:end]
            text = (" ".join([token, sentences[start - 1], token, *parts]) if carried else " ".join([head, *parts]))
            if count(text) <= budget or end - start == 1:
                break
            end -= 1
        chunks.append(text)
        start, carried = end, True
    return chunks


@dataclass(frozen=True)
class SectionChunks:
    unit: SectionText
    chunks: list[str]


def paper_chunks(paper: Paper, count: TokenCounter, budget: int = BERT_BUDGET, *, merge: bool = True,
                 sep: bool = True) -> list[SectionChunks]:
    """Every section text of a paper with its chunks (section texts without a sentence give none)."""
    out = []
    for unit in section_texts(paper, merge):
        chunks = chunk_text(paper.title, unit.text, unit.token, count, budget, sep)
        if chunks:
            out.append(SectionChunks(unit, chunks))
    return out


def chunk_views(paper: Paper, count: TokenCounter, budget: int = BERT_BUDGET, *, merge: bool = True,
                sep: bool = True) -> list[View]:
    """The TA unit (kind ta), then every section text's chunks in order (kind chunk, `section` = its first
    physical section)."""
    views = [View(paper.id, ViewKind.TA, ta_unit(paper, sep=sep))]
    for item in paper_chunks(paper, count, budget, merge=merge, sep=sep):
        views += [View(paper.id, ViewKind.CHUNK, c, section=item.unit.sections[0]) for c in item.chunks]
    return views
