"""Back matter: the headings (and run-in paragraph openings) from which the rest of a paper leaves the body."""

from __future__ import annotations

import re
from dataclasses import replace

from sciembed.papers.headings import is_appendix_number, top_arabic
from sciembed.papers.model import Section, SectionRole
from sciembed.papers.roles import assign_roles, normalize_heading
from sciembed.papers.text_cleaning import split_paragraphs

# Headings from which everything to the end of the paper is back matter.
_BACK_MATTER = re.compile(
    r"^(?:acknowledge?ments?\b.*|acknowledge?ment of .*|references?(?: and notes)?|bibliography|literature cited"
    r"|works cited|appendix\b.*|appendices\b.*|supplementa(?:ry|l)\b.*|supporting information\b.*"
    r"|authors?(?: s)? contributions?\b.*|contributions? of (?:the )?authors|credit authorship.*"
    r"|funding(?: (?:information|sources?|statement|details|declaration|acknowledge?ments?))?"
    r"|financial (?:support|disclosure)s?|data (?:and (?:code|software|materials) )?availability\b.*"
    r"|availability of data\b.*|code (?:and data )?availability\b.*|conflicts? of interests?\b.*"
    r"|competing (?:financial )?interests?\b.*|declaration of (?:competing )?interests?\b.*|declarations?"
    r"|disclosures?|endnotes|footnotes|(?:authors? )?biograph(?:y|ies))$"
)
# Headings that are back matter, but that some journals put *inside* the body (PLOS puts
# "Ethics Statement" first in Methods): as a subsection of Methods only that section is dropped;
# anywhere else they cut to the end like every other back-matter heading.
_BACK_MATTER_LOCAL = re.compile(
    r"^(?:ethics(?: statement| approval\b.*| declarations?)?|ethical (?:statement|approval|considerations)\b.*"
    r"|abbreviations|consent for publication|informed consent)$"
)
# A paragraph that opens with a run-in back-matter heading: "Acknowledgments. We thank …",
# "Ethics statement: …". As in the paper, it cuts to the end of the paper from that paragraph on
# (`run_in="alone"` keeps the old sciembed rule: only that paragraph goes).
_RUN_IN_BACK_MATTER = re.compile(
    r"^(?:acknowledge?ments?|funding|author contributions|conflicts? of interests?|competing interests"
    r"|data availability(?: statement)?|ethics statement|ethical approval)\s*[.:—–-]\s+\S",
    re.IGNORECASE | re.MULTILINE,
)
_RUN_IN_LOCAL = re.compile(r"^(?:ethics statement|ethical approval)", re.IGNORECASE)


def _has_run_in_back_matter(text: str) -> bool:
    """`_RUN_IN_BACK_MATTER.search(text)`, trying only line starts (`re` tries a MULTILINE ``^`` at every
    character of a 50k-character section; `str.find` jumps from line to line in C)."""
    start = 0
    while start >= 0:
        if _RUN_IN_BACK_MATTER.match(text, start):
            return True
        start = text.find("\n", start)
        start = start + 1 if start >= 0 else -1
    return False


def is_back_matter(heading: str) -> bool:
    """True for References, Acknowledg(e)ment(s), Appendix, Funding, … (numbered or not)."""
    return bool(_BACK_MATTER.match(normalize_heading(heading)))  # no alternative matches an empty heading


def cut_back_matter(sections: list[Section], run_in: str = "to_end") -> list[Section]:
    """The S2Full rule: from the first back-matter heading, or the first paragraph that opens with a run-in
    one ("Acknowledgments: …"), everything to the end of the paper leaves the body.

    Ethics / abbreviations / consent sections are back matter too, except inside Methods (by structure: a
    section whose role comes from a Methods parent), where that section or paragraph alone is dropped.
    """
    roles = [sec.role for sec in assign_roles(sections)]  # own heading first, else the structure's
    out: list[Section] = []
    seen_arabic = False
    for sec, role in zip(sections, roles, strict=True):
        if (sec.heading and is_back_matter(sec.heading)) or is_appendix_number(sec.number, seen_arabic):
            return out
        seen_arabic = seen_arabic or top_arabic(sec.number) is not None
        inside_methods = role is SectionRole.METHOD
        if sec.heading and _BACK_MATTER_LOCAL.match(normalize_heading(sec.heading)):
            if inside_methods:
                continue
            return out
        if _has_run_in_back_matter(sec.text):
            kept: list[str] = []
            for paragraph in split_paragraphs(sec.text):
                if not _RUN_IN_BACK_MATTER.match(paragraph):
                    kept.append(paragraph)
                elif run_in == "to_end" and not (inside_methods and _RUN_IN_LOCAL.match(paragraph)):
                    if kept:
                        out.append(replace(sec, text="\n\n".join(kept)))
                    return out
            sec = replace(sec, text="\n\n".join(kept))
        out.append(sec)
    return out
