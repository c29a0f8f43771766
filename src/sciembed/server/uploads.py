"""Papers from request bytes, through the same readers as `sciembed ingest`.

The request's file name is used for one thing only: choosing among known
suffixes (.json, .jsonl, .xml, .nxml, .tei.xml, optionally .gz) to help format
detection. The bytes go to a file with a server-chosen name in a private
temporary directory, which is removed afterwards; no path from a request ever
reaches the filesystem. XML goes through the readers' safe parser (no DTD, no
entity expansion, no network). A PDF (``%PDF-`` in its first bytes, whatever
its name) goes to the PDF reader the server was started with (``serve --grobid
URL``, else the offline reader, in a bounded child process), as
``upload-<sha256 prefix>.pdf``: that name becomes the paper id.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciembed.papers.model import Paper
from sciembed.papers.readers import FORMATS, Accepted, Rejection, read_papers
from sciembed.server.errors import ApiError

SUFFIXES = (".tei.xml", ".pdf.json", ".json", ".jsonl", ".ndjson", ".xml", ".nxml")


def is_pdf_upload(data: bytes) -> bool:
    """PDFs are told by their bytes (readers accept ``%PDF-`` anywhere in the first 1,024), not their name."""
    return b"%PDF-" in data[:1024]


def upload_label(filename: str | None, data: bytes) -> str:
    """The server-chosen file name of an upload; a PDF's carries its hash, which becomes the paper id."""
    if is_pdf_upload(data):
        return f"upload-{hashlib.sha256(data).hexdigest()[:16]}.pdf"
    return "upload" + safe_suffix(filename, data)


def safe_suffix(filename: str | None, data: bytes) -> str:
    """A suffix from the known list (gzip kept), whatever the client called the file."""
    name = (filename or "").lower().rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    gz = name.endswith(".gz") or data[:2] == b"\x1f\x8b"
    name = name.removesuffix(".gz")
    suffix = next((s for s in SUFFIXES if name.endswith(s)), None)
    if suffix is None:
        head = data[:200].lstrip()
        suffix = ".xml" if head.startswith(b"<") else ".json"
    return suffix + (".gz" if gz else "")


def read_upload(data: bytes, filename: str | None, fmt: str = "auto") -> tuple[list[Paper], list[Rejection]]:
    """Every record in the bytes: accepted papers and rejections (file named "upload" in messages)."""
    if fmt != "auto" and fmt not in FORMATS:
        raise ApiError(422, f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    if not data.strip():
        raise ApiError(400, "the upload is empty", "not_a_paper")
    label = upload_label(filename, data)
    with tempfile.TemporaryDirectory(prefix="sciembed-upload-") as tmp:
        path = Path(tmp) / label
        path.write_bytes(data)
        papers, rejections = [], []
        for record in read_papers(path, fmt, name=label):
            if isinstance(record, Accepted):
                papers.append(record.paper)
            else:
                rejections.append(record)
    return papers, rejections


def papers_from_upload(data: bytes, filename: str | None, fmt: str = "auto") -> list[Paper]:
    """The papers of an upload; 400 with the readers' reasons when none could be read."""
    papers, rejections = read_upload(data, filename, fmt)
    if not papers:
        reasons = [str(r) for r in rejections[:5]] or ["no records found"]
        raise ApiError(400, f"not a paper: {reasons[0]}", "not_a_paper",
                       {"rejected": len(rejections), "reasons": [r.to_dict() for r in rejections[:20]]})
    return papers


def papers_from_dicts(records: Sequence[dict[str, Any]]) -> tuple[list[Paper], list[Rejection]]:
    """Papers given as JSON in sciembed's own format, validated by the own-format reader."""
    lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in records).encode()
    if not lines:
        return [], []
    return read_upload(lines, "papers.jsonl", "jsonl")
