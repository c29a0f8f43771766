"""GROBID's line-end hyphens joined: "represen- tation" -> "representation", "pre- trained" -> "pre-trained".

Whether the hyphen of a ``left- right`` was the typesetter's (join) or the author's (keep it, drop the space) is
decided on the paper's own words, offline, first rule that applies (measured on ACL: docs/ingest.md):

1. the joined word occurs unbroken in the paper, or is a closed compound (`CLOSED_COMPOUNDS`: "out- side")
   -> joined ("represen- tation", "representation" elsewhere);
2. the hyphenated word occurs in the paper, or the right part is itself hyphenated ("state- of-the-art")
   -> hyphen kept;
3. the right part is a function word -> left alone, a suspended hyphen ("pre- and post-training"),
   unless the left part is a fragment of at most 3 letters that is no word ("mi- nor" -> "minor");
4. the left part holds a hyphen ("state-of-the- art") or is one letter ("x- axis") -> hyphen kept;
5. a compound prefix (`COMPOUND_PREFIXES`: "pre", "non", "multi", …) or an "-ly" adverb before a word
   of the paper -> hyphen kept ("pre- trained", but "pre- sented" is joined);
6. the right part is a strong compound head (`STRONG_HEADS`: "level", "based", "grained", …) after a
   left part of 3+ letters ("fine- grained"), or "in- domain" -> hyphen kept;
7. the left part (3+ letters) is a word of the paper and the right part a compound head
   (`COMPOUND_HEADS`) or a word of the paper too -> hyphen kept ("domain- specific");
8. otherwise -> joined ("en- sembles": "en" is no word of the paper).

Words of the paper are its abstract's and sections' words outside the broken ones. Only a lower-case word on the
right and a lower-case letter before the hyphen qualify: "BERT- Large" and "1- 2" stay as they are.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from sciembed.papers.model import Section

_LEFT_REVERSED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")  # the word before "- ", read backwards
_RIGHT = re.compile(r"[a-z]+(?:-[A-Za-z]+)*\b")
_WINDOW = 80
_PUNCT = ".,;:!?()[]{}\"'`"
FUNCTION_WORDS = frozenset({"and", "or", "nor", "to", "as", "versus", "vs", "but", "than", "then", "also"})
COMPOUND_PREFIXES = frozenset({"pre", "post", "non", "multi", "self", "cross", "well", "semi", "co", "anti",
                               "intra", "meta", "bi", "tri", "uni", "sub", "hyper"})
COMPOUND_HEADS = frozenset({"level", "based", "specific", "scale", "art", "trained", "training", "aware", "free",
                            "driven", "oriented", "like", "dependent", "independent", "agnostic",
                            "grained", "end", "of", "the", "tuned", "tuning", "shot", "order", "sized", "related",
                            "only", "step", "side", "domain", "task", "time", "value", "valued", "term",
                            "known", "defined", "annotated", "labeled", "labelled", "supervised", "sensitive"})
# Heads so rarely the end of a broken word that any left part of 3+ letters keeps its hyphen before them
# ("fine- grained" where the paper never writes "fine" alone); "in- domain" is the one 2-letter case.
STRONG_HEADS = frozenset({"level", "based", "specific", "scale", "grained", "aware", "driven", "oriented",
                          "agnostic", "tuned", "sized", "trained", "annotated", "labeled", "labelled",
                          "supervised", "resource", "dependent", "independent", "sensitive", "valued"})
# Closed compounds of two common words: joined even where the paper writes neither whole ("out- side").
CLOSED_COMPOUNDS = frozenset({"outside", "inside", "without", "within", "cannot", "into", "onto", "upon", "however",
                              "therefore", "furthermore", "moreover", "nevertheless", "nonetheless", "whereas",
                              "thereby", "wherein", "something", "sometimes", "someone", "anyone", "everything",
                              "overall", "throughout", "another", "whatever", "meanwhile", "otherwise", "likewise"})
SUFFIXES = frozenset({"ing", "ed", "tion", "tions", "ment", "ments", "ness", "ly", "er", "ers", "al", "ity", "ive"})
_STATS: ContextVar[Counter[str] | None] = ContextVar("sciembed_dehyphen_stats", default=None)
Break = tuple[int, int, str, str]  # start, end, left, right of one "left- right"


def _breaks(text: str) -> list[Break]:
    """Every ``left- right`` in `text`, found by `str.find` and matched from the hyphen outwards (a regex
    scan over every letter of a paper cost more than the rest of reading it)."""
    out: list[Break] = []
    at = text.find("- ")
    while at != -1:
        if at and "a" <= text[at - 1] <= "z":
            window = text[max(0, at - _WINDOW):at][::-1]
            left = _LEFT_REVERSED.match(window)
            right = _RIGHT.match(text, at + 2)
            if left and right:
                n = left.end()
                before = window[n] if n < len(window) else ("" if at <= _WINDOW else "-")  # "-": too long
                if not (before.isalnum() or before in "-_") or not before:
                    out.append((at - n, right.end(), text[at - n:at], right.group(0)))
        at = text.find("- ", at + 2)
    return out


def vocabulary(texts: Sequence[str], breaks: Sequence[list[Break]]) -> frozenset[str]:
    """Every word (hyphenated words whole) of `texts`, lower-cased, punctuation stripped; the broken words
    (`breaks`, per text) left out: their halves are no evidence of themselves."""
    tokens: set[str] = set()
    for text, found in zip(texts, breaks, strict=True):
        if found:
            kept, pos = [], 0
            for start, end, _, _ in found:
                kept.append(text[pos:start])
                pos = end
            text = " ".join((*kept, text[pos:]))
        tokens.update(text.lower().split())
    return frozenset(t.strip(_PUNCT) for t in tokens)


def _decide(left: str, right: str, words: frozenset[str]) -> str | None:
    """'join', 'hyphen' or None (leave as it is) for one ``left- right`` (rules in the module docstring)."""
    low = left.lower()
    if low + right in words or low + right in CLOSED_COMPOUNDS:
        return "join"
    if f"{low}-{right}" in words or "-" in right:
        return "hyphen"
    if right in FUNCTION_WORDS:  # a suspended hyphen, unless the left part is a short fragment ("mi- nor")
        fragment = len(low) <= 3 and low not in COMPOUND_PREFIXES and low not in words
        return "join" if fragment else None
    if "-" in low or len(low) == 1:  # "state-of-the- art", "x- axis", "n- gram"
        return "hyphen"
    known_right = right in words and right not in SUFFIXES
    if (low in COMPOUND_PREFIXES or (low.endswith("ly") and len(low) >= 5)) and known_right:
        return "hyphen"
    if (len(low) >= 3 and right in STRONG_HEADS) or (low, right) == ("in", "domain"):
        return "hyphen"
    if len(low) >= 3 and low in words and (right in COMPOUND_HEADS or known_right):
        return "hyphen"
    return "join"


def join_hyphens(text: str, words: frozenset[str], found: list[Break] | None = None) -> str:
    """`text` with its line-end hyphens (`found`, else looked up) joined or closed up, decided on `words`."""
    found = _breaks(text) if found is None and "- " in text else found or []
    stats = _STATS.get()
    out, pos = [], 0
    for start, end, left, right in found:
        decision = _decide(left, right, words)
        if stats is not None:
            stats[decision or "left"] += 1
        if decision is not None:
            out.append(text[pos:start])
            out.append(left + right if decision == "join" else f"{left}-{right}")
            pos = end
    return "".join(out) + text[pos:] if out else text


def join_paper_hyphens(abstract: str, sections: Sequence[Section]) -> tuple[str, tuple[Section, ...]]:
    """The abstract and body sections with their line-end hyphens resolved on the paper's own words."""
    texts = [abstract, *(s.text for s in sections)]
    breaks = [_breaks(t) if "- " in t else [] for t in texts]
    if not any(breaks):
        return abstract, tuple(sections)
    words = vocabulary(texts, breaks)
    fixed = [join_hyphens(t, words, found) if found else t for t, found in zip(texts, breaks, strict=True)]
    return fixed[0], tuple(replace(s, text=t) for s, t in zip(sections, fixed[1:], strict=True))


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count decisions made inside the block: ``join``, ``hyphen`` (kept, space dropped), ``left`` (untouched)."""
    counts: Counter[str] = Counter()
    token = _STATS.set(counts)
    try:
        yield counts
    finally:
        _STATS.reset(token)
