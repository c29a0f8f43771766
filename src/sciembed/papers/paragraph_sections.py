"""Sections from paragraph-sequence formats (S2ORC, unarXive): paragraphs grouped by their section
names, with the header rule deciding which paragraphs are headings where the names are missing."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from sciembed.papers.headings import is_header_paragraph, split_number
from sciembed.papers.model import Section, SectionRole
from sciembed.papers.text_cleaning import clean_inline


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One body paragraph: `section` is the source's section name ("" for none, None when the source lost it);
    `role` a reader's structural hint (the enclosing LaTeX section's), kept where the heading says nothing."""

    text: str
    section: str | None = None
    number: str | None = None
    role: SectionRole = SectionRole.OTHER


# The header rule for paragraph sequences without section names, set for one ingest run
# (`sciembed corpus ingest --header-rule s2full`) without threading a flag through every reader.
_SENTENCE_VETO: ContextVar[bool] = ContextVar("sciembed_sentence_veto", default=True)


@contextmanager
def using_header_rule(*, sentence_veto: bool) -> Iterator[None]:
    """Within the block, `sections_from_paragraphs` detects headings with (True, sciembed's default)
    or without (False, the S2Full paper's rule) the sentence veto of `is_header_paragraph`."""
    token = _SENTENCE_VETO.set(sentence_veto)
    try:
        yield
    finally:
        _SENTENCE_VETO.reset(token)


def sections_from_paragraphs(paragraphs: Iterable[Paragraph], *, sentence_veto: bool | None = None
                             ) -> tuple[Section, ...]:
    """Group consecutive paragraphs by (section, number); run header detection where names are missing
    (`sentence_veto`: see `is_header_paragraph`; None: the rule `using_header_rule` set, default on)."""
    if sentence_veto is None:
        sentence_veto = _SENTENCE_VETO.get()
    sections: list[Section] = []
    heading: str | None = None
    number: str | None = None
    role = SectionRole.OTHER
    key: tuple[str, str | None] | None = None
    buffer: list[str] = []

    def flush() -> None:
        if heading is not None:
            sections.append(Section(heading, "\n\n".join(buffer), role, number))

    for para in paragraphs:
        text = para.text.strip()
        if para.section is None:
            if is_header_paragraph(text, sentence_veto=sentence_veto):
                flush()
                number, heading = split_number(clean_inline(text))
                role, key, buffer = SectionRole.OTHER, ("\0detected", text), []
                continue
            if heading is None:  # text before any heading: one unnamed section
                heading, number, role, key, buffer = "", None, SectionRole.OTHER, ("", None), []
        elif (para.section, para.number) != key:
            flush()
            heading, number, role, key, buffer = para.section, para.number, para.role, (para.section, para.number), []
        if text:
            buffer.append(text)
    flush()
    return tuple(sections)
