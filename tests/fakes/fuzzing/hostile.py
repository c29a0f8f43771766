"""Small builders of valid and hostile inputs shared by the hardening and fuzz tests (no sample texts copied)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from sciembed.papers.model import Paper, Section

TEI_NS = "http://www.tei-c.org/ns/1.0"
BODY = " ".join(f"word{i}" for i in range(60))


def own_record(pid: str = "p1", **extra: Any) -> dict[str, Any]:
    """A valid record of sciembed's own JSONL."""
    paper = Paper(id=pid, title=f"Title {pid}", abstract="An abstract. Second sentence.",
                  sections=(Section("Introduction", BODY),))
    return {**paper.to_dict(), **extra}


def s2orc_record(pid: Any = "s1", **extra: Any) -> dict[str, Any]:
    """A valid 2020-release S2ORC record."""
    return {"paper_id": pid, "metadata": {"title": f"Title {pid}", "abstract": "Abstract."},
            "body_text": [{"text": BODY, "section": "Introduction"}], "bib_entries": {}, **extra}


def tei(body_xml: str, title: str = "A title") -> str:
    return (f'<TEI xmlns="{TEI_NS}"><teiHeader><fileDesc><titleStmt><title level="a" type="main">{title}</title>'
            f"</titleStmt></fileDesc></teiHeader><text><body><div><head>Introduction</head>{body_xml}</div>"
            "</body></text></TEI>")


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def deep_json(levels: int) -> str:
    return "[" * levels + "]" * levels


def zero_bomb(path: Path, decompressed_bytes: int) -> Path:
    """A gzip file of zero bytes: tiny on disk, `decompressed_bytes` when read."""
    with gzip.open(path, "wb", compresslevel=9) as out:
        chunk = b"\0" * (1 << 20)
        for _ in range(decompressed_bytes >> 20):
            out.write(chunk)
    return path
