"""Section extraction, applied the same way after every reader (`finalize`).

`finalize` normalises text, demotes headings that are not headings, cuts back matter, assigns roles and sets
the ``empty_abstract`` / ``no_body`` flags. Boundaries a structured format gives are kept; only headings that
cannot be headings are merged into the section before them (their words stay in the text).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from sciembed.papers.authors import clean_authors
from sciembed.papers.back_matter import cut_back_matter, is_back_matter
from sciembed.papers.headings import (
    is_parent_number,
    is_trash,
    looks_like_sentence,
    malformed_heading,
    split_number,
    top_arabic,
)
from sciembed.papers.model import Paper, RawSections, Section, SectionRole
from sciembed.papers.roles import assign_roles, role_of
from sciembed.papers.text_cleaning import clean_inline, clean_text

EMPTY_ABSTRACT = "empty_abstract"
NO_BODY = "no_body"
_MERGED_HEADING = re.compile(r"^(?P<outer>.+?)\s+(?P<num>\d{1,2}(?:\.\d{1,2})+)\s+(?P<inner>\S.*)$")


def _clean_sections(sections: Iterable[Section]) -> list[Section]:
    cleaned = []
    for sec in sections:
        heading = clean_inline(sec.heading)
        number = clean_inline(sec.number).rstrip(".") or None
        if number is None:
            number, heading = split_number(heading)
        elif heading.startswith(number + " ") or heading.startswith(number + ". "):
            heading = heading[len(number) :].lstrip(". ")
        cleaned.append(Section(heading, clean_text(sec.text), sec.role, number))
    return cleaned


def _merge_into_previous(out: list[Section], sec: Section) -> None:
    """Keep a false heading's words as a paragraph of the section before it."""
    words = f"{sec.number} {sec.heading}".strip() if sec.number else sec.heading
    parts = [p for p in (words, sec.text) if p]
    if out:
        prev = out[-1]
        out[-1] = replace(prev, text="\n\n".join(p for p in (prev.text, *parts) if p))
    else:
        out.append(Section("", "\n\n".join(parts), sec.role, None))


def _split_merged_headings(sections: list[Section]) -> list[Section]:
    """GROBID's "Model 2.1 Overview" with n="2": a section heading and its first subsection in one head."""
    out = []
    for sec in sections:
        match = _MERGED_HEADING.match(sec.heading) if sec.number else None
        if match and is_parent_number(sec.number, match.group("num")):
            out.append(Section(match.group("outer"), "", sec.role, sec.number))
            out.append(Section(match.group("inner"), sec.text, sec.role, match.group("num")))
        else:
            out.append(sec)
    return out


def _demote_false_headings(sections: list[Section], noisy: bool) -> list[Section]:
    """Merge sections whose heading is trash or a sentence into the section before them.

    For PDF-derived formats (`noisy`) also: an unnumbered heading with no known
    role in a paper whose headings are mostly numbered (science-parse takes
    table captions for headings), and a top-level number lower than one seen
    before (GROBID's bogus "5. ELMo ELMo" after section 8).
    """
    numbered = sum(1 for s in sections if s.number)
    named = sum(1 for s in sections if s.heading)
    mostly_numbered = noisy and named >= 3 and numbered * 2 >= named
    out: list[Section] = []
    top = 0
    for sec in sections:
        heading = sec.heading
        false = bool(heading) and (is_trash(heading) or looks_like_sentence(heading))
        if noisy and heading and not false:
            known = role_of(heading) is not SectionRole.OTHER or is_back_matter(heading)
            if mostly_numbered and not sec.number and not known:
                false = True
            current = top_arabic(sec.number)
            if current is not None and current < top and not known:
                false = True
        if false:
            _merge_into_previous(out, sec)
            continue
        current = top_arabic(sec.number)
        top = max(top, current or 0)
        out.append(sec)
    return out


def _keep(sec: Section) -> bool:
    """Heading-only parents and pure artefacts (review line numbers, tables) carry no body text."""
    return bool(sec.text.strip()) and not is_trash(sec.text, min_letter_share=0.25)


def raw_section_stats(sections: Iterable[Section]) -> RawSections:
    """Counts over a reader's sections as the source gave them (before `finalize`)."""
    sections = list(sections)
    return RawSections(len(sections), sum(len(s.text or "") for s in sections),
                       sum(malformed_heading(s.heading or "") for s in sections))


def _short_venue(paper: Paper) -> str | None:
    """The proceedings' short name from the paper's ACL Anthology ids (acl id, file stem, id) or venue text."""
    from sciembed.papers.venues import short_venue, source_stem

    return short_venue([paper.venue], [paper.external_ids.acl, source_stem(paper.source), paper.id])


def finalize(paper: Paper, *, noisy_headings: bool = False, run_in: str = "to_end") -> Paper:
    """Normalise a reader's paper and extract its body sections (see the module docstring).

    `noisy_headings`: headings a PDF parser guessed (GROBID, science-parse, S2ORC), checked more strictly.
    `run_in`: "to_end" (the paper's rule) or "alone" (a run-in back-matter paragraph such as "Acknowledgments. …"
    at the end of a mathematician's introduction goes alone).
    """
    if run_in not in ("to_end", "alone"):
        raise ValueError(f"run_in must be 'to_end' or 'alone', got {run_in!r}")
    sections = _clean_sections(paper.sections)
    if noisy_headings:
        sections = _split_merged_headings(sections)
    sections = _demote_false_headings(sections, noisy_headings)
    sections = cut_back_matter(sections, run_in)
    sections = [s for s in assign_roles(sections) if _keep(s)]
    abstract = clean_text(paper.abstract)
    flags = [f for f in paper.flags if f not in (EMPTY_ABSTRACT, NO_BODY)]
    if not abstract:
        flags.append(EMPTY_ABSTRACT)
    if not sections:
        flags.append(NO_BODY)
    return replace(
        paper, raw_sections=paper.raw_sections or raw_section_stats(paper.sections), id=clean_inline(paper.id),
        title=clean_inline(paper.title), abstract=abstract, sections=tuple(sections),
        venue=clean_inline(paper.venue) or None, venue_short=paper.venue_short or _short_venue(paper),
        authors=clean_authors(paper.authors) if paper.authors else (), domain=clean_inline(paper.domain) or None,
        fields_of_study=tuple(dict.fromkeys(f for f in (clean_inline(x) for x in paper.fields_of_study) if f)),
        flags=tuple(dict.fromkeys(flags)))
