"""A deterministic extractive pseudo-summariser: the offline stand-in for LLM summaries, labelled
``extractive-pseudo`` (NOT SemCSE's summaries; docs/recipes/semcse.md).

One abstract sentence, preferring findings, rewritten so the text differs from every abstract sentence it
came from (an unchanged one gets a short framing such as "The work shows that ..."); seeded by (paper id,
stem, sample).
"""

from __future__ import annotations

import hashlib
import random
import re

from sciembed.papers.model import Paper
from sciembed.summaries.records import EXTRACTIVE_SOURCE, Summary
from sciembed.views.chunk import split_sentences

_FINDING = re.compile(r"\b(we (propose|present|show|find|introduce|demonstrate|develop|study|prove|achieve)|"
                      r"results? (show|indicate|suggest)|outperform|improve|state[- ]of[- ]the[- ]art)\b", re.I)
_OPENERS = re.compile(r"^(in this (paper|work|study|article)|here|in particular|specifically|moreover|furthermore|"
                      r"additionally|finally|overall|thus|therefore|however|to this end|in addition)\s*,?\s*", re.I)
_FIRST_PERSON = [(re.compile(r"^we\b", re.I), "the authors"), (re.compile(r"^our\b", re.I), "the paper's"),
                 (re.compile(r"\bwe\b"), "the authors"), (re.compile(r"\bour\b"), "their"),
                 (re.compile(r"\bus\b"), "them")]
_BRACKETS = re.compile(r"\s*(\([^()]*\)|\[[^\[\]]*\])")
# used when nothing else changed the sentence, so a pseudo-summary never repeats it verbatim
_FRAMES = ("The paper reports that", "The work shows that", "In short,", "The key point is that")
MAX_WORDS = 28


def _rng(paper_id: str, stem: int, sample: int) -> random.Random:
    digest = hashlib.sha256(f"{paper_id}\x1f{stem}\x1f{sample}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _rewrite(sentence: str) -> str:
    text = _BRACKETS.sub("", sentence).strip()
    text = _OPENERS.sub("", text)
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement, text)
    return text.rstrip(" .;:")


def _clause(text: str, rng: random.Random) -> str:
    """Cut a long sentence at a clause boundary (comma, semicolon, 'which', 'while') near MAX_WORDS."""
    words = text.split()
    if len(words) <= MAX_WORDS:
        return text
    cuts = [i for i, w in enumerate(words[:MAX_WORDS + 1]) if i >= 8 and (w.endswith((",", ";"))
            or w.lower() in ("which", "while", "whereas", "where"))]
    cut = rng.choice(cuts) if cuts else MAX_WORDS
    return " ".join(words[:cut]).rstrip(",;")


def pseudo_summary(paper: Paper, stem: int = 0, sample: int = 0) -> Summary | None:
    """One pseudo-summary of `paper`, or None when its abstract has no sentence to draw from."""
    sentences = [s for s in split_sentences(paper.abstract or "") if len(s.split()) >= 4]
    if not sentences:
        return None
    rng = _rng(paper.id, stem, sample)
    weights = [3.0 if _FINDING.search(s) else 1.0 for s in sentences]
    first = rng.choices(range(len(sentences)), weights=weights)[0]
    text = _clause(_rewrite(sentences[first]), rng)
    others = [i for i in range(len(sentences)) if i != first]
    if others and len(text.split()) < 18 and rng.random() < 0.5:
        second = _clause(_rewrite(sentences[rng.choice(others)]), rng)
        second = " ".join(second.split()[:14])
        text = f"{text}, and {second[:1].lower()}{second[1:]}"
    if not text:
        return None
    if text == sentences[first].rstrip(" .;:"):
        text = f"{rng.choice(_FRAMES)} {text[:1].lower()}{text[1:]}"
    return Summary(paper.id, f"{text[:1].upper()}{text[1:]}.", EXTRACTIVE_SOURCE, {"stem": stem, "sample": sample})
