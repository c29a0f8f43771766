"""Lines in reading order -> a `Paper`: title, abstract, numbered sections, no references.

The rules, all from the layout (no model), are listed in docs/pdf.md ("Offline").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from sciembed.papers.headings import split_number
from sciembed.papers.model import ExternalIds, Paper, Section
from sciembed.papers.pdf.layout import Line, Page
from sciembed.papers.readers import ids
from sciembed.papers.roles import normalize_heading

_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2})*\.?|[A-Z](?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+[A-Z]")
_CAPTION = re.compile(r"^(?:fig(?:ure)?|table|tab|algorithm|listing)\.?\s*[A-Z]?\d+\s*[.:|]", re.IGNORECASE)
_ABSTRACT = re.compile(r"^a\s?b\s?s\s?t\s?r\s?a\s?c\s?t\b\s*[.:—–-]?\s*", re.IGNORECASE)
_KEYWORDS = re.compile(r"^(?:keywords|key words|index terms)\b", re.IGNORECASE)
_REFERENCES = re.compile(r"^(?:references?|bibliography|literature cited|works cited)$")
_KNOWN = re.compile(
    r"^(?:introduction|background|related work|methods?|materials and methods|methodology|results?"
    r"|discussion|results and discussion|experiments?|evaluation|conclusions?(?: and future work)?"
    r"|future work|limitations|acknowledge?ments?|references|bibliography|appendix|appendices)$"
)
_DOI = re.compile(r"\b(?:doi:\s*|https?://(?:dx\.)?doi\.org/)(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)


@dataclass
class _Section:
    heading: str
    number: str | None
    paragraphs: list[list[str]] = field(default_factory=list)


def _letters(text: str) -> int:
    return sum(ch.isalpha() for ch in text)


def _heading_style(line: Line, size: float) -> bool:
    return (line.bold >= 0.7 and line.size >= size - 0.6) or line.size >= size + 0.9


def _heading_shape(line: Line) -> bool:
    text = line.text
    return (line.words <= 14 and len(text) <= 120 and _letters(text) >= 2 and not _CAPTION.match(text)
            and not text.endswith((",", ";")) and (text[0].isupper() or text[0].isdigit()))


class _Headings:
    """Which lines are section headings, given the body font size and whether the paper numbers them."""

    def __init__(self, lines: list[Line], size: float) -> None:
        self.size = size
        candidates = [ln for ln in lines if _heading_style(ln, size) and _heading_shape(ln)]
        self.numbered_paper = sum(bool(_NUMBERED.match(ln.text)) for ln in candidates) >= 3

    def __call__(self, line: Line) -> bool:
        if not (_heading_style(line, self.size) and _heading_shape(line)):
            return False
        if _NUMBERED.match(line.text) or _KNOWN.match(normalize_heading(line.text)):
            return True
        if line.text.endswith("."):
            return False
        return line.size >= self.size + 0.9 or not self.numbered_paper


def title_of(first: Page, size: float) -> str:
    """The first page's largest text above the page middle (several lines when it wraps)."""
    lines = [ln for ln in first.lines if ln.y0 > first.height * 0.4 and _letters(ln.text) >= 3]
    if not lines:
        return ""
    top = max(ln.size for ln in lines)
    if top < size + 0.9:  # nothing stands out: no title we can trust
        return ""
    parts: list[str] = []
    for ln in lines:
        if abs(ln.size - top) <= 0.3:
            parts.append(ln.text)
        elif parts:
            break
    return join_lines(parts)


def join_lines(lines: list[str]) -> str:
    """Lines of one paragraph as one string, line-end hyphens repaired ("litera-" + "ture" -> "literature";
    a word already holding a hyphen keeps it: "state-of-the-art"; "Fig-" + "Ure" or "-" alone stay apart)."""
    out = ""
    for line in lines:
        if not out:
            out = line
        elif _line_end_hyphen(out, line):
            last_word = out.rsplit(" ", 1)[-1][:-1]
            out = out + line if "-" in last_word else out[:-1] + line
        else:
            out = f"{out} {line}"
    return out


def _line_end_hyphen(before: str, after: str) -> bool:
    return len(before) >= 2 and before.endswith("-") and before[-2].isalpha() and after[:1].islower()


def _abstract(lines: list[Line], is_heading: _Headings) -> tuple[str, int]:
    """The abstract's text and the index of the first line after it (0 and "" when there is none)."""
    start = next((i for i, ln in enumerate(lines) if ln.page <= 1 and (
        (_ABSTRACT.match(ln.text) and len(ln.text) >= 8) or normalize_heading(ln.text) == "abstract")), None)
    if start is None:
        return "", 0
    first = lines[start]
    run_in = _ABSTRACT.sub("", first.text, count=1).strip()
    parts = [run_in] if run_in else []
    size = first.size if run_in else None
    end = start + 1
    for end in range(start + 1, len(lines)):
        ln = lines[end]
        if is_heading(ln) or _KEYWORDS.match(ln.text) or ln.page > first.page + 1:
            break
        if size is None:
            size = ln.size
        if abs(ln.size - size) <= 0.6 and not _CAPTION.match(ln.text):
            parts.append(ln.text)
    else:
        end = len(lines)
    return join_lines(parts), end


def _left_edges(lines: list[Line]) -> dict[tuple[int, int], float]:
    """The usual left edge of each page's columns (indents are measured from it)."""
    counts: dict[tuple[int, int], Counter[float]] = {}
    for ln in lines:
        counts.setdefault((ln.page, ln.column), Counter())[round(ln.x0)] += 1
    return {key: c.most_common(1)[0][0] for key, c in counts.items()}


def _sections(lines: list[Line], size: float, is_heading: _Headings) -> list[_Section]:
    edges = _left_edges(lines)
    sections: list[_Section] = []
    current = _Section("", None)
    previous: Line | None = None
    in_caption = False
    for ln in lines:
        if is_heading(ln):
            if _REFERENCES.match(normalize_heading(ln.text)):
                break
            sections.append(current)
            number, heading = split_number(ln.text)
            current = _Section(heading, number)
            previous, in_caption = None, False
            continue
        if ln.size < size - 0.6 or ln.size > size + 2.5:  # footnotes, tables, figure labels, stray big text
            continue
        new_block = previous is None or _starts_paragraph(ln, previous, edges, size)
        if _CAPTION.match(ln.text):
            in_caption = True
        elif new_block:
            in_caption = False
        if in_caption:
            previous = ln
            continue
        if new_block or not current.paragraphs:
            current.paragraphs.append([])
        current.paragraphs[-1].append(ln.text)
        previous = ln
    sections.append(current)
    return [s for s in sections if s.heading or s.paragraphs]


def _starts_paragraph(ln: Line, previous: Line, edges: dict[tuple[int, int], float], size: float) -> bool:
    indent = ln.x0 - edges.get((ln.page, ln.column), ln.x0)
    if 2.0 < indent < 6 * size:
        return True
    if ln.page != previous.page or ln.column != previous.column:
        return False  # a column or page break continues the paragraph unless indented
    return previous.y0 - ln.y1 > 0.5 * size


def paper_from_pages(pages: list[Page], size: float, paper_id: str, source: str) -> Paper:
    """A `Paper` (not yet finalised) from cleaned pages."""
    lines = [ln for page in pages for ln in page.lines]
    is_heading = _Headings(lines, size)
    title = title_of(pages[0], size) if pages else ""
    abstract, body_start = _abstract(lines, is_heading)
    if not abstract:  # skip the title / author block: the body starts at the first heading
        body_start = next((i for i, ln in enumerate(lines) if is_heading(ln)), 0)
    first_page = " ".join(ln.text for ln in pages[0].lines) if pages else ""
    doi_match = _DOI.search(first_page)
    doi = ids.doi(doi_match.group(1).rstrip(".,;)")) if doi_match else None
    sections = tuple(Section(s.heading, "\n\n".join(join_lines(p) for p in s.paragraphs), number=s.number)
                     for s in _sections(lines[body_start:], size, is_heading))
    return Paper(id=paper_id, title=title, abstract=abstract, sections=sections, external_ids=ExternalIds(doi=doi),
                 source=source)
