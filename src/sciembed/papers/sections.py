"""Section extraction, applied the same way after every reader (`finalize`).

Readers hand over either ready sections (TEI, JATS, science-parse, own JSONL)
or a paragraph sequence with section names (S2ORC, unarXive), which
`sections_from_paragraphs` groups; where the names are missing (S2ORC
2019-09-28 writes ``"section": null`` everywhere) the S2Full header detector
decides which paragraphs are headings. `finalize` then normalises text,
demotes headings that are not headings, cuts back matter, assigns roles and
sets the ``empty_abstract`` / ``no_body`` flags. Boundaries that a structured
format gives are kept; only headings that cannot be headings are merged into
the section before them (their words stay in the text).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from sciembed.papers.model import Paper, RawSections, Section, SectionRole
from sciembed.papers.roles import normalize_heading, role_of

# ---------------------------------------------------------------- text
# Paragraphs stay separated by one blank line ("\n\n") so that back-matter and
# header rules can still see paragraph boundaries; all other whitespace
# collapses to single spaces. Hyphenation ("provid- ing") is left as printed.

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_PARA_BREAK = re.compile(r"\n\s*\n")


def nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


# The ASCII characters `str.isprintable` refuses, and those `_CONTROL` drops: for `bytes.translate`.
_ASCII_UNPRINTABLE = bytes(c for c in range(128) if not chr(c).isprintable())
_ASCII_CONTROL = bytes(c for c in range(128) if _CONTROL.match(chr(c)))


def is_clean_line(text: str) -> bool:
    """True only where `clean_inline` would return `text` unchanged (checked in C, without a copy).

    `str.isprintable` is False for every control character and for every whitespace
    character but the ASCII space, so a printable, NFC line without leading, trailing or
    doubled spaces is already clean. Most parser output is: the check is several times
    cheaper than the cleaning. ASCII text (always NFC) is checked over its bytes, where
    `bytes.translate` finds a control character at a third of `isprintable`'s cost.
    False can also mean "not sure" (a lone surrogate is not printable): the caller cleans.
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
    """Paragraphs that `clean_paragraphs` joined and found clean: `clean_text` returns them unchanged.

    Readers build section text with `clean_paragraphs`, and `finalize` cleans every
    section again (it cannot know which reader did): the mark turns that second scan of
    every character into a copy. It is given only when each paragraph is a checked
    clean line, and any operation on the text (slicing, joining) gives a plain `str`.
    """

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
    """Multi-paragraph text: blank lines separate paragraphs, other whitespace collapses.

    Text that is clean already (clean lines joined by single blank lines: what
    `clean_paragraphs` writes) comes back as it is, as a plain `str`.
    """
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


EMPTY_ABSTRACT = "empty_abstract"
NO_BODY = "no_body"
MAX_HEADER_CHARS = 150

# ---------------------------------------------------------------- numbering

# "2", "2.1", "2.1.", "IV.", "A.1", "A." followed by the heading text.
# Roman and single-letter forms need an uppercase word after them ("C. elegans" is no number).
_LEADING_NUMBER = re.compile(
    r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2})*\.?|[A-Z](?:\.\d{1,2})+\.?)\s+(?P<rest>\S.*)"
    r"|(?P<upper>[IVXLC]{1,6}[.)]|[A-Z]\.)\s+(?P<urest>[A-Z0-9].*))$"
)
# "A APPENDIX", "B PROOFS": a single letter before an all-caps heading (science-parse).
_LETTER_BEFORE_CAPS = re.compile(r"^(?P<num>[A-Z])\s+(?P<rest>[A-Z][A-Z0-9 ,:&'()-]{2,})$")
_MERGED_HEADING = re.compile(r"^(?P<outer>.+?)\s+(?P<num>\d{1,2}(?:\.\d{1,2})+)\s+(?P<inner>\S.*)$")


def split_number(heading: str) -> tuple[str | None, str]:
    """("2.1", "THE PROBLEM") from "2.1 THE PROBLEM"; (None, heading) when there is no numbering."""
    match = _LEADING_NUMBER.match(heading)
    if match and match.group("upper"):
        return match.group("upper").rstrip(".)"), match.group("urest").strip()
    match = match or _LETTER_BEFORE_CAPS.match(heading)
    if not match:
        return None, heading
    return match.group("num").rstrip(".)"), match.group("rest").strip()


def _number_parts(number: str | None) -> tuple[str, ...]:
    return tuple(filter(None, number.split("."))) if number else ()


def _is_parent(parent: str | None, child: str | None) -> bool:
    p, c = _number_parts(parent), _number_parts(child)
    return bool(p) and len(p) < len(c) and c[: len(p)] == p


def _top_arabic(number: str | None) -> int | None:
    parts = _number_parts(number)
    return int(parts[0]) if parts and parts[0].isdigit() else None


def _is_appendix_number(number: str | None, seen_arabic: bool) -> bool:
    """A lettered top-level number ("A", "B.2") after arabic ones is LaTeX's / PDFs' appendix."""
    parts = _number_parts(number)
    return seen_arabic and bool(parts) and len(parts[0]) == 1 and parts[0].isalpha() and parts[0].isupper()


# ---------------------------------------------------------- header detection

_SENTENCE_END = re.compile(r"[.!?;,:]$")
_STOPWORDS = frozenset(
    {
        "a", "an", "the", "of", "and", "or", "for", "in", "on", "to", "with", "by", "at", "from", "via", "vs",
        "versus", "as", "into", "over", "under", "between", "about", "through", "within", "without", "per", "its",
        "their", "our", "de", "la", "le", "et", "und", "der", "die", "das"
    }
)
# Words that make a short line a sentence rather than a heading ("We thank them", "See Table 2").
_SENTENCE_MARKERS = frozenset(
    {
        "we", "i", "our", "us", "you", "they", "it", "this", "these", "those", "is", "are", "was", "were", "be",
        "been", "being", "has", "have", "had", "do", "does", "did", "see", "shown", "shows", "show", "thank",
        "thanks", "can", "will", "would", "should", "could", "may", "might", "must"
    }
)
_FIRST_PERSON = frozenset({"we", "our", "us", "i"})
_WH_START = frozenset(
    {
        "what", "why", "how", "when", "where", "which", "who", "whom", "whose", "does", "do", "is", "are", "can"
    }
)


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


def _words(text: str) -> list[str]:
    return text.split()


def _is_all_caps(text: str) -> bool:
    return _letters(text) >= 2 and text.upper() == text


def _is_title_case(text: str) -> bool:
    content = [w for w in _words(text) if w[0].isalpha() and w.lower() not in _STOPWORDS]
    return bool(content) and all(w[0].isupper() for w in content)


def _is_numbered(text: str) -> bool:
    return split_number(text)[0] is not None


def _marker_words(text: str) -> set[str]:
    return {w.strip(".,;:!?()[]\"'").lower() for w in _words(text)}


def is_header_paragraph(text: str, *, sentence_veto: bool = True) -> bool:
    """S2Full rule: is this paragraph (from a sequence without section names) a heading?

    The paper's rule: trash is filtered first; then a heading is at most 150
    characters, starts with an uppercase letter or a digit, has no trailing
    sentence punctuation, and is ALL CAPS, numbered, Title Case or at most six
    words. `sentence_veto` (sciembed's addition, on by default) also rejects
    short lines holding a verb/pronoun marker of a sentence ("See Table 2", "We
    thank them", but also "What Is Machine Learning"): on the real samples in
    ``shared/data`` it keeps 22 running-text lines ("This implies that",
    "Similarly, we have") from becoming headings and loses 3 real headings
    ("Path Kernel is a Mercer Kernel"); `benchmarks/header_rule.py` measures it.
    ``sentence_veto=False`` is the paper's rule exactly.
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
    return _is_title_case(text) or len(_words(text)) <= 6


def looks_like_sentence(heading: str) -> bool:
    """A heading slot that holds running text (GROBID / science-parse put sentences there).

    Biology headings are often full clauses ("spalt is required for rh5
    expression"), so only long lines, long lines ending like a sentence, or
    first-person lines count; questions are headings.
    """
    words = _words(heading)
    if len(heading) > MAX_HEADER_CHARS or len(words) > 25:
        return True
    if not words or heading.endswith("?") or words[0].lower() in _WH_START:
        return False
    if _is_title_case(heading) or _is_all_caps(heading):
        return False
    if len(words) >= 10 and re.search(r"[.!;:,]$", heading):
        return True
    return len(words) >= 6 and bool(_marker_words(heading) & _FIRST_PERSON)


# ------------------------------------------------------------- back matter

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
    """`_RUN_IN_BACK_MATTER.search(text)`, trying only the line starts where its ``^`` can match.

    `re` has no shortcut for a MULTILINE ``^``: a search tries the pattern at every
    character of a 50k-character section; `str.find` jumps from line to line in C.
    """
    start = 0
    while start >= 0:
        if _RUN_IN_BACK_MATTER.match(text, start):
            return True
        start = text.find("\n", start)
        start = start + 1 if start >= 0 else -1
    return False


def is_back_matter(heading: str) -> bool:
    """True for References, Acknowledg(e)ment(s), Appendix, Funding, … (numbered or not)."""
    norm = normalize_heading(heading)
    return bool(norm) and bool(_BACK_MATTER.match(norm))


def _is_local_back_matter(heading: str) -> bool:
    norm = normalize_heading(heading)
    return bool(norm) and bool(_BACK_MATTER_LOCAL.match(norm))


# ---------------------------------------------------- paragraph sequences


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One body paragraph from a paragraph-sequence format.

    `section` is the section name the source gives ("" for "no name"), or
    None when the source lost it; `role` is a reader's structural hint (e.g.
    the role of the enclosing LaTeX section), kept where the heading says nothing.
    """

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


# ------------------------------------------------------------------ finalize


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
        if match and _is_parent(sec.number, match.group("num")):
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
            current = _top_arabic(sec.number)
            if current is not None and current < top and not known:
                false = True
        if false:
            _merge_into_previous(out, sec)
            continue
        current = _top_arabic(sec.number)
        top = max(top, current or 0)
        out.append(sec)
    return out


def _cut_back_matter(sections: list[Section], run_in: str = "to_end") -> list[Section]:
    """The S2Full rule: from the first back-matter heading, or the first paragraph that opens with a
    run-in back-matter heading ("Acknowledgments: …", "Ethics statement: …"), everything to the end
    of the paper leaves the body.

    Ethics / abbreviations / consent sections are back matter too, except inside Methods — by
    structure, not by the word: a section whose role comes from a Methods parent (the reader's
    hint, a numbered parent, or a heading-only "Methods" before it) is dropped alone, and so is an
    "Ethics statement: …" paragraph inside a Methods section.
    """
    roles = [sec.role for sec in _assign_roles(sections)]  # own heading first, else the structure's
    out: list[Section] = []
    seen_arabic = False
    for sec, role in zip(sections, roles, strict=True):
        if sec.heading and is_back_matter(sec.heading):
            return out
        if _is_appendix_number(sec.number, seen_arabic):
            return out
        seen_arabic = seen_arabic or _top_arabic(sec.number) is not None
        inside_methods = role is SectionRole.METHOD
        if sec.heading and _is_local_back_matter(sec.heading):
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


def _assign_roles(sections: list[Section]) -> list[Section]:
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
        parts = _number_parts(sec.number)
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


def _keep(sec: Section) -> bool:
    """Heading-only parents and pure artefacts (review line numbers, tables) carry no body text."""
    return bool(sec.text.strip()) and not is_trash(sec.text, min_letter_share=0.25)


# SciJEPA's malformed heading: a run of body text parsed as a heading (a PDF-parsing error).
_SENTENCE_LIKE_HEADING = re.compile(r"\b(if and only if|we have that|it follows|this holds)\b", re.IGNORECASE)
MAX_HEADING_CHARS = 120
MAX_HEADING_PERIODS = 4


def malformed_heading(heading: str) -> bool:
    """Longer than 120 characters, more than four periods, or a sentence-like phrase (SciJEPA's rule)."""
    return (
        len(heading) > MAX_HEADING_CHARS
        or heading.count(".") > MAX_HEADING_PERIODS
        or bool(_SENTENCE_LIKE_HEADING.search(heading))
    )


def raw_section_stats(sections: Iterable[Section]) -> RawSections:
    """Counts over a reader's sections as the source gave them (before `finalize`)."""
    sections = list(sections)
    return RawSections(len(sections), sum(len(s.text or "") for s in sections),
                       sum(malformed_heading(s.heading or "") for s in sections))


def _short_venue(paper: Paper) -> str | None:
    """The proceedings' short name from the paper's ACL Anthology ids (acl id, file stem, id) or venue text."""
    from sciembed.papers.venues import short_venue, source_stem

    return short_venue([paper.venue], [paper.external_ids.acl, source_stem(paper.source), paper.id])


def _clean_authors(authors):
    from sciembed.papers.authors import clean_authors  # authors.py builds on this module's clean_inline

    return clean_authors(authors)


def finalize(paper: Paper, *, noisy_headings: bool = False, run_in: str = "to_end") -> Paper:
    """Normalise a reader's paper and extract its body sections (see the module docstring).

    `noisy_headings` marks headings that a PDF parser guessed (GROBID,
    science-parse, S2ORC PDF parses), which get the stricter heading checks.
    `run_in`: "to_end" (the paper's rule) or "alone" (a run-in back-matter paragraph
    such as "Acknowledgments. …" at the end of a mathematician's introduction goes alone).
    """
    if run_in not in ("to_end", "alone"):
        raise ValueError(f"run_in must be 'to_end' or 'alone', got {run_in!r}")
    sections = _clean_sections(paper.sections)
    if noisy_headings:
        sections = _split_merged_headings(sections)
    sections = _demote_false_headings(sections, noisy_headings)
    sections = _cut_back_matter(sections, run_in)
    sections = [s for s in _assign_roles(sections) if _keep(s)]
    abstract = clean_text(paper.abstract)
    flags = [f for f in paper.flags if f not in (EMPTY_ABSTRACT, NO_BODY)]
    if not abstract:
        flags.append(EMPTY_ABSTRACT)
    if not sections:
        flags.append(NO_BODY)
    return replace(
        paper,
        raw_sections=paper.raw_sections or raw_section_stats(paper.sections),
        id=clean_inline(paper.id),
        title=clean_inline(paper.title),
        abstract=abstract,
        sections=tuple(sections),
        venue=clean_inline(paper.venue) or None,
        venue_short=paper.venue_short or _short_venue(paper),
        authors=_clean_authors(paper.authors) if paper.authors else (),
        domain=clean_inline(paper.domain) or None,
        fields_of_study=tuple(dict.fromkeys(f for f in (clean_inline(x) for x in paper.fields_of_study) if f)),
        flags=tuple(dict.fromkeys(flags)),
    )
