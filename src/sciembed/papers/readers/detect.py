"""Which format a file is in: by extension first, then by peeking at the first record or the XML root."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from sciembed.papers.readers.registry import FORMATS
from sciembed.papers.readers.source import peek_json_objects, peek_xml_root

JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
XML_SUFFIXES = (".xml", ".nxml")
PDF_SUFFIXES = (".pdf",)


def _base_name(path: Path) -> str:
    return path.name.lower().removesuffix(".gz")


def is_data_file(path: Path) -> bool:
    """Files a directory walk picks up; anything else (README, LICENSE, images) is listed as skipped."""
    return _base_name(path).endswith(JSON_SUFFIXES + XML_SUFFIXES) or path.name.lower().endswith(PDF_SUFFIXES)


def detect_format(path: Path) -> str | None:
    """The format name for a file, or None when nothing recognises it."""
    base = _base_name(path)
    if path.name.lower().endswith(PDF_SUFFIXES):
        return "pdf"
    if base.endswith(XML_SUFFIXES):
        tag = peek_xml_root(path)
        if tag is None:
            return "tei" if base.endswith(".tei.xml") else None
        return next((f.name for f in FORMATS.values() if f.matches_xml_root and f.matches_xml_root(tag)), None)
    if base.endswith(JSON_SUFFIXES):
        objects, _ = peek_json_objects(path)
        for obj in objects:
            found = next((f.name for f in FORMATS.values() if f.matches_json and f.matches_json(obj)), None)
            if found:
                return found
        return "science-parse" if base.endswith(".pdf.json") else None
    return None


def walk_inputs(inputs: Iterable[Path]) -> Iterator[tuple[Path, bool]]:
    """Every file under the inputs in sorted order, with whether it is a data file (files named explicitly
    always are; inside directories `is_data_file` decides)."""
    for item in inputs:
        if item.is_dir():
            for path in sorted(p for p in item.rglob("*") if p.is_file()):
                yield path, is_data_file(path)
        else:
            yield item, True
