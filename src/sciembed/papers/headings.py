"""What a heading is: its numbering ("2.1", "IV", "A.2"), whether a paragraph is a heading (the S2Full
header rule) or a heading is really a sentence, trash or malformed (SciJEPA's rule)."""

from __future__ import annotations

import re
import string

MAX_HEADER_CHARS = 150

# "2", "2.1", "2.1.", "IV.", "A.1", "A." followed by the heading text.
# Roman and single-letter forms need an uppercase word after them ("C. elegans" is no number).
_LEADING_NUMBER = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2})*\.?|[A-Z](?:\.\d{1,2})+\.?)\s+(?P<rest>\S.*)"
    r"|(?P<upper>[IVXLC]{1,6}[.)]|[A-Z]\.)\s+(?P<urest>[A-Z0-9].*))$"
)
# "A APPENDIX", "B PROOFS": a single letter before an all-caps heading (science-parse).
_LETTER_BEFORE_CAPS = re.compile(r"^(?P<num>[A-Z])\s+(?P<rest>[A-Z][A-Z0-9 ,:&'()-]{2,})$")


def split_number(heading: str) -> tuple[str | None, str]:
    """("2.1", "THE PROBLEM") from "2.1 THE PROBLEM"; (None, heading) when there is no numbering."""
    match = _LEADING_NUMBER.match(heading)
    if match and match.group("upper"):
        return match.group("upper").rstrip(".)"), match.group("urest").strip()
    match = match or _LETTER_BEFORE_CAPS.match(heading)
    if not match:
        return None, heading
    return match.group("num").rstrip(".)"), match.group("rest").strip()


def number_parts(number: str | None) -> tuple[str, ...]:
    return tuple(filter(None, number.split("."))) if number else ()


def is_parent_number(parent: str | None, child: str | None) -> bool:
    p, c = number_parts(parent), number_parts(child)
    return bool(p) and len(p) < len(c) and c[: len(p)] == p


def top_arabic(number: str | None) -> int | None:
    parts = number_parts(number)
    return int(parts[0]) if parts and parts[0].isdigit() else None


def is_appendix_number(number: str | None, seen_arabic: bool) -> bool:
    """A lettered top-level number ("A", "B.2") after arabic ones is LaTeX's / PDFs' appendix."""
    parts = number_parts(number)
    return seen_arabic and bool(parts) and len(parts[0]) == 1 and parts[0].isalpha() and parts[0].isupper()


_SENTENCE_END = re.compile(r"[.!?;,:]$")
_STOPWORDS = frozenset({
    "a", "an", "the", "of", "and", "or", "for", "in", "on", "to", "with", "by", "at", "from", "via", "vs",
    "versus", "as", "into", "over", "under", "between", "about", "through", "within", "without", "per", "its",
    "their", "our", "de", "la", "le", "et", "und", "der", "die", "das"})
# Words that make a short line a sentence rather than a heading ("We thank them", "See Table 2").
_SENTENCE_MARKERS = frozenset({
    "we", "i", "our", "us", "you", "they", "it", "this", "these", "those", "is", "are", "was", "were", "be",
    "been", "being", "has", "have", "had", "do", "does", "did", "see", "shown", "shows", "show", "thank",
    "thanks", "can", "will", "would", "should", "could", "may", "might", "must"})
_FIRST_PERSON = frozenset({"we", "our", "us", "i"})
_WH_START = frozenset({"what", "why", "how", "when", "where", "which", "who", "whom", "whose", "does", "do", "is",
                       "are", "can"})
_NOT_LETTER = re.compile(r"[\W\d_]+")
_ASCII_LETTER_BYTES = string.ascii_letters.encode("ascii")


def _letters(text: str) -> int:
    return len(_NOT_LETTER.sub("", text))


def _ascii_letters(text: str) -> int:
    """How many a-z / A-Z a text holds, counted over its UTF-8 bytes by `bytes.translate` (a C table
    loop; `str.translate` looks every character up in a dict, 10x slower on a 50k-character section).
    No byte of a multi-byte UTF-8 sequence is ASCII, and "surrogatepass" lets a lone surrogate through."""
    data = text.encode("utf-8", "surrogatepass")
    return len(data) - len(data.translate(None, _ASCII_LETTER_BYTES))


def is_trash(text: str, min_letter_share: float = 0.5) -> bool:
    """Table and layout artefacts: mostly digits/symbols, or fewer than two letters ("P1", "a", "2191")."""
    # Fast paths for the usual Latin-script text (sections run to 100k characters): enough ASCII letters
    # for the whole length (the visible characters are fewer) needs no count of spaces; exact count otherwise.
    ascii_letters = _ascii_letters(text)
    if ascii_letters >= 2 and ascii_letters >= min_letter_share * len(text):
        return False
    visible = len(text) - text.count(" ") - text.count("\n") - text.count("\t")  # text is normalised already
    if not visible:
        return True
    if ascii_letters >= 2 and ascii_letters >= min_letter_share * visible:
        return False
    letters = _letters(text)
    return letters < 2 or letters / visible < min_letter_share


def _is_all_caps(text: str) -> bool:
    return _letters(text) >= 2 and text.upper() == text


def _is_title_case(text: str) -> bool:
    content = [w for w in text.split() if w[0].isalpha() and w.lower() not in _STOPWORDS]
    return bool(content) and all(w[0].isupper() for w in content)


def _is_numbered(text: str) -> bool:
    return split_number(text)[0] is not None


def _marker_words(text: str) -> set[str]:
    return {w.strip(".,;:!?()[]\"'").lower() for w in text.split()}


def is_header_paragraph(text: str, *, sentence_veto: bool = True) -> bool:
    """S2Full rule: is this paragraph (from a sequence without section names) a heading?

    The paper's rule: not trash, at most 150 characters, starting uppercase or with a digit, no trailing sentence
    punctuation, and ALL CAPS, numbered, Title Case or at most six words. `sentence_veto` (sciembed's addition;
    False is the paper's rule exactly) also rejects short lines holding a sentence marker ("See Table 2"): on
    ``shared/data`` it keeps 22 running-text lines from becoming headings and loses 3 real ones
    (`benchmarks/header_rule.py`).
    """
    text = text.strip()
    if not text or len(text) > MAX_HEADER_CHARS or is_trash(text):
        return False
    if _SENTENCE_END.search(text) or not (text[0].isupper() or text[0].isdigit()):
        return False
    if _is_all_caps(text) or _is_numbered(text):
        return True
    if sentence_veto and _marker_words(text) & _SENTENCE_MARKERS:
        return False
    return _is_title_case(text) or len(text.split()) <= 6


def looks_like_sentence(heading: str) -> bool:
    """A heading slot that holds running text (GROBID / science-parse put sentences there).

    Biology headings are often full clauses ("spalt is required for rh5 expression"), so only long lines, long
    lines ending like a sentence, or first-person lines count; questions are headings.
    """
    words = heading.split()
    if len(heading) > MAX_HEADER_CHARS or len(words) > 25:
        return True
    if not words or heading.endswith("?") or words[0].lower() in _WH_START:
        return False
    if _is_title_case(heading) or _is_all_caps(heading):
        return False
    if len(words) >= 10 and re.search(r"[.!;:,]$", heading):
        return True
    return len(words) >= 6 and bool(_marker_words(heading) & _FIRST_PERSON)


# SciJEPA's malformed heading: a run of body text parsed as a heading (a PDF-parsing error).
_SENTENCE_LIKE_HEADING = re.compile(r"\b(if and only if|we have that|it follows|this holds)\b", re.IGNORECASE)
MAX_HEADING_CHARS = 120
MAX_HEADING_PERIODS = 4


def malformed_heading(heading: str) -> bool:
    """Longer than 120 characters, more than four periods, or a sentence-like phrase (SciJEPA's rule)."""
    return (len(heading) > MAX_HEADING_CHARS or heading.count(".") > MAX_HEADING_PERIODS
            or bool(_SENTENCE_LIKE_HEADING.search(heading)))
