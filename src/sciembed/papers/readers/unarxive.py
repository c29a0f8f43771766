"""unarXive JSONL (S2ORC-like records built from arXiv LaTeX sources).

The ``{{formula|cite|figure|table:…}}`` placeholders in paragraphs and titles are stripped; the citations
survive as references (``bib_entries`` with OpenAlex / DOI / arXiv / PMID ids).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciembed.papers import paragraph_sections as sec
from sciembed.papers.model import Paper, Reference, SectionRole
from sciembed.papers.readers import ids
from sciembed.papers.readers.checks import dict_items, id_text
from sciembed.papers.readers.jsonrecords import read_json_records
from sciembed.papers.readers.records import MISSING_ID, Loc, Record, Rejection
from sciembed.papers.roles import role_of
from sciembed.papers.text_cleaning import clean_inline

FORMAT = "unarxive"
_CITE_GROUP = re.compile(r"(?:\{\{cite:[^{}]*\}\}\s*[,;]?\s*)+")
_PLACEHOLDER = re.compile(r"\{\{(?:formula|figure|table|cite)(?::[^{}]*)?\}\}")
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([,.;:!?)\]])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])[ \t]+")
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]?\s*\)|\[\s*[,;]?\s*\]")
_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3}


def strip_placeholders(text: str) -> str:
    """Remove unarXive placeholders and the empty brackets / stray spaces they leave behind."""
    if "{{" not in text:
        return text
    text = _CITE_GROUP.sub(" ", text)
    text = _PLACEHOLDER.sub(" ", text)
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = _SPACE_AFTER_OPEN.sub(r"\1", text)
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)


def matches(obj: dict[str, Any]) -> bool:
    if "body_text" not in obj or "paper_id" not in obj:
        return False
    meta = obj.get("metadata")
    return "_source_hash" in obj or "discipline" in obj or (isinstance(meta, dict) and "categories" in meta)


def read(path: Path, name: str) -> Iterator[Record]:
    return read_json_records(path, name, parse)


def _numbered(paragraphs: list[dict[str, Any]]) -> Iterator[sec.Paragraph]:
    """Full section numbers ("3.1", not the bare "1" some records give) and the enclosing section's role."""
    numbers: dict[int, str] = {}
    top_role = SectionRole.OTHER
    for para in paragraphs:
        title = strip_placeholders(para.get("section") or "")
        raw = str(para.get("sec_number") or "").strip()
        level = _LEVEL.get(para.get("sec_type") or "", 4)
        number = None if raw in ("", "-1") else raw
        if number and "." not in number and level in (2, 3) and numbers.get(level - 1):
            number = f"{numbers[level - 1]}.{number}"
        if number:
            numbers[level] = number
            for deeper in [k for k in numbers if k > level]:
                del numbers[deeper]
        if level == 1:
            top_role = role_of(title)
        hint = top_role if level > 1 else SectionRole.OTHER
        yield sec.Paragraph(strip_placeholders(para.get("text") or ""), title, number, hint)


def _year(obj: dict[str, Any], meta: dict[str, Any], arxiv_id: str) -> int | None:
    versions = meta.get("versions") or []
    if versions and isinstance(versions[0], dict):
        found = ids.year(versions[0].get("created"))
        if found:
            return found
    match = re.match(r"^(\d\d)(\d\d)\.\d{4,5}", arxiv_id)
    return 2000 + int(match.group(1)) if match else ids.year(meta.get("update_date"))


def parse(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    meta = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    paper_id = clean_inline(id_text(obj.get("paper_id") or meta.get("id"), "paper_id"))
    if not paper_id:
        return Rejection(loc, MISSING_ID, "record has no paper_id")
    abstract = obj.get("abstract")
    abstract_text = abstract.get("text") if isinstance(abstract, dict) else abstract
    discipline = clean_inline(obj.get("discipline") or meta.get("discipline")) or None
    categories = str(meta.get("categories") or "").split()
    bib = obj.get("bib_entries") or {}
    entries = bib.values() if isinstance(bib, dict) else bib
    body = [p for p in obj.get("body_text") or [] if isinstance(p, dict)]
    return Paper(
        id=paper_id, title=meta.get("title") or obj.get("title") or "",
        abstract=abstract_text or meta.get("abstract") or "", sections=sec.sections_from_paragraphs(_numbered(body)),
        references=tuple(_reference(b) for b in dict_items(entries, "bib_entries")), venue="arXiv",
        year=_year(obj, meta, paper_id), domain=discipline,
        fields_of_study=tuple(dict.fromkeys(f for f in (discipline, *categories) if f)),
        external_ids=ids.external_ids(doi_=meta.get("doi"), arxiv_=meta.get("id") or paper_id),
        source=f"{FORMAT}:{loc.file}")


def _reference(entry: dict[str, Any]) -> Reference:
    found = entry.get("ids") if isinstance(entry.get("ids"), dict) else {}
    raw = clean_inline(strip_placeholders(entry.get("bib_entry_raw") or ""))
    contained = [c.get("id") if isinstance(c, dict) else c for c in entry.get("contained_arXiv_ids") or []]
    return Reference(raw=raw or None, year=ids.year(raw), external_ids=ids.external_ids(
        doi_=found.get("doi"), arxiv_=found.get("arxiv_id") or (contained[0] if contained else None),
        pmid_=found.get("pubmed_id"), pmc_=found.get("pmc_id"), openalex_=found.get("open_alex_id")))
