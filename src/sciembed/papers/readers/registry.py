"""The formats `sciembed corpus ingest` reads, by name, and how each is read and checked."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.papers.readers import jats, own, pdf, s2orc, science_parse, tei, unarxive
from sciembed.papers.readers.records import Record


@dataclass(frozen=True)
class Format:
    """One input format: its reader, how to recognise it, and whether its headings are PDF guesses."""

    name: str
    description: str
    read: Callable[[Path, str], Iterator[Record]]
    noisy_headings: bool
    matches_json: Callable[[dict[str, Any]], bool] | None = None
    matches_xml_root: Callable[[str], bool] | None = None


# Order matters for JSON detection: the first format whose `matches_json` accepts a record wins.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("jsonl", "sciembed's own JSONL (Paper.to_dict() per line)", own.read, False, own.matches),
        Format("unarxive", "unarXive JSONL (arXiv LaTeX, placeholders stripped)", unarxive.read, False,
               unarxive.matches),
        Format("science-parse", "science-parse JSON (PeerRead parsed_pdfs)", science_parse.read, True,
               science_parse.matches),
        Format("s2orc", "S2ORC JSON: 2019/2020 releases, doc2json, S2 Datasets content+annotations", s2orc.read,
               True, s2orc.matches),
        Format("tei", "GROBID TEI XML", tei.read, True, matches_xml_root=tei.matches_root),
        Format("jats", "JATS / NLM XML (PMC, eLife, PLOS)", jats.read, False, matches_xml_root=jats.matches_root),
        Format("pdf", "PDF: a GROBID server (--grobid URL) or the offline layout reader", pdf.read, True),
    )
}
FORMAT_NAMES = tuple(FORMATS)
