"""science-parse JSON (PeerRead ``parsed_pdfs``, SciFullBench): ``metadata.sections[{heading, text}]``.

Headings come from a PDF layout model (table captions sometimes among them), so `finalize` gets the stricter
heading checks. Files carry no paper id: the file name is the id.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sciembed.papers.model import Paper, Reference, Section
from sciembed.papers.readers import ids
from sciembed.papers.readers.checks import dict_items, id_text
from sciembed.papers.readers.jsonrecords import read_json_records
from sciembed.papers.readers.records import Loc, Record, Rejection
from sciembed.papers.readers.source import file_stem
from sciembed.papers.text_cleaning import clean_inline

FORMAT = "science-parse"


def matches(obj: dict[str, Any]) -> bool:
    meta = obj.get("metadata")
    return "abstractText" in obj or (isinstance(meta, dict) and ("abstractText" in meta or "referenceMentions" in meta))


def read(path: Path, name: str) -> Iterator[Record]:
    return read_json_records(path, name, parse)


def parse(obj: dict[str, Any], loc: Loc) -> Paper | Rejection:
    meta = obj["metadata"] if isinstance(obj.get("metadata"), dict) else obj
    given = obj.get("id") or meta.get("id")
    # "peerread_iclr_2017_train_304.pdf.json.gz" -> "peerread_iclr_2017_train_304"
    paper_id = id_text(given, "id") or file_stem(loc.file, (".gz", ".jsonl", ".json", ".pdf"))
    if given in (None, "") and loc.line not in (None, 1):
        paper_id = f"{paper_id}:{loc.line}"  # JSONL of id-less records: keep ids unique per line
    return Paper(
        id=paper_id, title=meta.get("title") or "", abstract=meta.get("abstractText") or "",
        sections=tuple(Section(s.get("heading") or "", s.get("text") or "")
                       for s in meta.get("sections") or [] if isinstance(s, dict)),
        references=tuple(_reference(r) for r in dict_items(meta.get("references"), "references")),
        venue=meta.get("venue") or None, year=ids.year(meta.get("year")), source=f"{FORMAT}:{loc.file}")


def _reference(entry: dict[str, Any]) -> Reference:
    authors = ", ".join(str(a) for a in entry.get("author") or [])
    title = clean_inline(entry.get("title"))
    venue = clean_inline(entry.get("venue"))
    raw = ". ".join(p for p in (authors, title, venue, str(entry.get("year") or "")) if p)
    return Reference(title=title or None, year=ids.year(entry.get("year")), raw=raw or None)
