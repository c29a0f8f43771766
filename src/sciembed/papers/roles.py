"""Section roles from headings, and the SciJEPA method / conclusion selectors."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from sciembed.papers.headings import number_parts
from sciembed.papers.model import Paper, Section, SectionRole

_NUMBERING = re.compile(r"^\s*(?:(?:[0-9]+|[IVXLC]+|[A-Z])(?:\.[0-9]+)*\.?|§)\s+", re.IGNORECASE)

# Order matters: the first role whose pattern matches wins ("Results and
# Discussion" is results, "Conclusions and Future Work" is conclusion).
_ROLE_PATTERNS: list[tuple[SectionRole, re.Pattern[str]]] = [
    (SectionRole.INTRODUCTION, re.compile(r"\b(introductions?|motivations?|overview|preliminar(y|ies))\b")),
    (SectionRole.RELATED_WORK, re.compile(r"\b(related (works?|research|literature)|prior (works?|art|research)"
                                          r"|previous works?|literature reviews?|backgrounds?|state of the art)\b")),
    (SectionRole.CONCLUSION, re.compile(r"\b(conclusions?|concluding|summary|future (work|directions)"
                                        r"|final remarks|closing remarks|outlooks?)\b")),
    (SectionRole.RESULTS, re.compile(r"\b(results?|experiments?|experimental|evaluations?|discussions?|findings"
                                     r"|analys[ie]s|ablations?|benchmarks?|case stud(y|ies)|empirical)\b")),
    (SectionRole.METHOD, re.compile(
        r"\b(methods?|methodology|methodologies|approach(es)?|framework|model|models|architecture"
        r"|materials|procedures?|technical|problem (formulation|statement|setting|definition)"
        r"|algorithms?|proposed|formulation|design|implementation|setup|data ?sets?|data)\b")),
]

_METHOD_HEADING = re.compile(r"\b(methods?|methodology|approach(es)?|framework|model architecture|technical approach"
                             r"|problem formulation|materials and methods)\b")
# The fallback anchors on a heading that *is* an introduction; "Motivation", "Overview" or
# "Preliminaries" get the introduction role but are not the section the SciJEPA rule means.
_INTRODUCTION_HEADING = re.compile(r"\bintroductions?\b")
_CONCLUSION_HEADING = re.compile(r"\b(conclusions?|concluding|results?|discussions?|summary|findings)\b")
SUBSTANTIAL_CHARS = 50
_PUNCTUATION = re.compile(r"[^\w\s]")

# Headings repeat across papers ("Introduction", "Results") and `finalize` asks about each one
# several times, so short ones are memoised; a long one (running text in a heading slot) is
# computed each time, so that the caches stay small whatever the input.
_CACHED_HEADING_CHARS = 200
_CACHE_SIZE = 8192


def normalize_heading(heading: str) -> str:
    """Lower-case a heading and strip its numbering ("2.3 Prior Works" -> "prior works")."""
    if len(heading) <= _CACHED_HEADING_CHARS:
        return _normalize_cached(heading)
    return _normalize(heading)


def _normalize(heading: str) -> str:
    text = _NUMBERING.sub("", heading.strip())
    return " ".join(_PUNCTUATION.sub(" ", text.lower()).split())


_normalize_cached = lru_cache(maxsize=_CACHE_SIZE)(_normalize)


def role_of(heading: str | None) -> SectionRole:
    """Role of a section from its heading keywords; `OTHER` when nothing matches."""
    if not heading:
        return SectionRole.OTHER
    if len(heading) <= _CACHED_HEADING_CHARS:
        return _role_cached(heading)
    return _role(heading)


def _role(heading: str) -> SectionRole:
    text = normalize_heading(heading)
    for role, pattern in _ROLE_PATTERNS:
        if pattern.search(text):
            return role
    return SectionRole.OTHER


_role_cached = lru_cache(maxsize=_CACHE_SIZE)(_role)


def _substantial(section: Section) -> bool:
    return len(section.text.strip()) >= SUBSTANTIAL_CHARS


def method_section_index(paper: Paper) -> int | None:
    """Index of the method section (SciJEPA rule), or None: the first substantial section with a method-like
    heading; else the first substantial one after "Introduction"; else the second substantial one."""
    sections = paper.sections
    for i, sec in enumerate(sections):
        if _substantial(sec) and _METHOD_HEADING.search(normalize_heading(sec.heading)):
            return i
    intro = next((i for i, s in enumerate(sections) if _INTRODUCTION_HEADING.search(normalize_heading(s.heading))),
                 None)
    if intro is not None:
        for i in range(intro + 1, len(sections)):
            if _substantial(sections[i]):
                return i
    substantial = [i for i, s in enumerate(sections) if _substantial(s)]
    return substantial[1] if len(substantial) >= 2 else None


def conclusion_section_index(paper: Paper) -> int | None:
    """Index of the conclusion section (SciJEPA rule), or None.

    After the method section: the first substantial one headed conclusion / results / discussion / summary /
    findings (the nearest outcome: "Results" wins over a later "Conclusion"); else the last substantial one.
    """
    method = method_section_index(paper)
    if method is None:
        return None
    after = [i for i in range(method + 1, len(paper.sections)) if _substantial(paper.sections[i])]
    for i in after:
        if _CONCLUSION_HEADING.search(normalize_heading(paper.sections[i].heading)):
            return i
    return after[-1] if after else None


def assign_roles(sections: list[Section]) -> list[Section]:
    """Role from the heading; else the reader's hint; else the numbered parent's; else an empty parent's."""
    out: list[Section] = []
    open_parent: SectionRole | None = None  # role of an unnumbered heading-only section ("Results" + subsections)
    # The last section seen with each number ("2", "2.1" as parts), by position: a numbered section's parent
    # is the nearest earlier section whose number is a proper prefix of its own (no backward scan per section).
    numbered: dict[tuple[str, ...], tuple[int, SectionRole]] = {}
    for sec in sections:
        own = role_of(sec.heading)
        role = own
        if role is SectionRole.OTHER:
            role = sec.role
        parts = number_parts(sec.number)
        if role is SectionRole.OTHER and parts:
            parents = [numbered[parts[:k]] for k in range(1, len(parts)) if parts[:k] in numbered]
            if parents:
                role = max(parents, key=lambda found: found[0])[1]
        if parts:
            numbered[parts] = (len(out), role)
        if role is SectionRole.OTHER and not sec.number and open_parent is not None:
            role = open_parent
        if not sec.number:
            if not sec.text.strip() and own is not SectionRole.OTHER:
                open_parent = own
            elif own is not SectionRole.OTHER:
                open_parent = None
        out.append(sec if role is sec.role else replace(sec, role=role))
    return out
