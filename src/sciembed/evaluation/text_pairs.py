"""The matching tasks built from one paper's own parts, defined once (SciTLDR and the semantic benchmark use them):
``title2abstract`` (title → abstract) and ``half2half`` (first ⌊n/2⌋ abstract sentences → the rest; papers with
fewer than two sentences are counted by the caller).
"""

from __future__ import annotations

TITLE2ABSTRACT = "title2abstract"
HALF2HALF = "half2half"
DIRECTIONS = {TITLE2ABSTRACT: "title → abstract", HALF2HALF: "first half → second half of the abstract"}
TOO_SHORT = "abstract with fewer than 2 sentences"  # why a paper cannot serve half2half


def title2abstract(title: str, abstract: str) -> tuple[str, str]:
    """(query, document) of the title → abstract task."""
    return title, abstract


def half2half(sentences: list[str]) -> tuple[str, str] | None:
    """(first ⌊n/2⌋ sentences, the rest) joined by spaces; None for fewer than two sentences."""
    cut = len(sentences) // 2
    if cut == 0:
        return None
    return " ".join(sentences[:cut]), " ".join(sentences[cut:])
