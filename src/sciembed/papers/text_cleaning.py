"""Text normalisation shared by every reader: NFC, control characters dropped, whitespace collapsed.

Paragraphs stay separated by one blank line ("\n\n") for the back-matter and header rules; all other whitespace
collapses to single spaces. Hyphenation ("provid- ing") is left as printed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_PARA_BREAK = re.compile(r"\n\s*\n")


def nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


# The ASCII characters `str.isprintable` refuses, and those `_CONTROL` drops: for `bytes.translate`.
_ASCII_UNPRINTABLE = bytes(c for c in range(128) if not chr(c).isprintable())
_ASCII_CONTROL = bytes(c for c in range(128) if _CONTROL.match(chr(c)))


def is_clean_line(text: str) -> bool:
    """True only where `clean_inline` would return `text` unchanged (checked in C, without a copy).

    A printable NFC line without leading, trailing or doubled spaces is clean (`isprintable` refuses every
    control and whitespace character but the space); most parser output is, and the check costs a fraction of
    the cleaning. ASCII is checked over its bytes (`bytes.translate`: a third of `isprintable`'s cost). False
    can also mean "not sure" (a lone surrogate): the caller cleans.
    """
    if not text or text[0] == " " or text[-1] == " " or "  " in text:
        return False
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_UNPRINTABLE)) == len(data)
    return text.isprintable() and unicodedata.is_normalized("NFC", text)


def clean_inline(text: str | None) -> str:
    """One line: NFC, control characters dropped, whitespace runs collapsed."""
    if not text:
        return ""
    if not isinstance(text, str):  # fails here as it always did
        return " ".join(_CONTROL.sub("", nfc(text)).split())
    if is_clean_line(text):
        return text
    return " ".join(_drop_controls(nfc(text)).split())  # split/join: 10x faster than a \s+ regex


def _drop_controls(text: str) -> str:
    """`_CONTROL.sub("", text)` over the UTF-8 bytes: every control character is one ASCII byte there,
    and `bytes.translate` drops them at a tenth of the cost of a regex scan (lone surrogates pass through)."""
    return text.encode("utf-8", "surrogatepass").translate(None, _ASCII_CONTROL).decode("utf-8", "surrogatepass")


class CleanText(str):
    """Paragraphs that `clean_paragraphs` joined and found clean: `finalize`'s `clean_text` returns them unchanged
    instead of scanning every character again. Any operation on the text (slicing, joining) gives a plain `str`."""

    __slots__ = ()


def clean_paragraphs(paragraphs: Iterable[str | None]) -> str:
    """Join paragraphs (each cleaned inline) with blank lines, dropping empty ones."""
    lines = []
    checked = True  # every line is a clean line (NFC text can lose that when a control character goes)
    for paragraph in paragraphs:
        if not paragraph:
            continue
        if isinstance(paragraph, str) and is_clean_line(paragraph):
            lines.append(paragraph)
            continue
        line = clean_inline(paragraph)
        if line:
            lines.append(line)
            checked = checked and is_clean_line(line)
    text = "\n\n".join(lines)
    return CleanText(text) if checked else text


def clean_text(text: str | None) -> str:
    """Multi-paragraph text: blank lines separate paragraphs, other whitespace collapses (clean text comes back
    as it is, as a plain `str`)."""
    if not text:
        return ""
    if type(text) is CleanText:
        return str(text)  # a plain copy: the mark stays inside the readers and finalize
    if isinstance(text, str) and all(map(is_clean_line, text.split("\n\n"))):
        return text
    return str(clean_paragraphs(_PARA_BREAK.split(text)))


def split_paragraphs(text: str) -> list[str]:
    """Inverse of `clean_paragraphs` for text that went through it."""
    return [p for p in text.split("\n\n") if p]


def count_words(text: str) -> int:
    """Whitespace-separated words of normalised text (same as ``len(text.split())``, without the list)."""
    return text.count(" ") + text.count("\n\n") + 1 if text else 0
