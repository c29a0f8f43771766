"""Papers from request bytes, through the same readers as `sciembed corpus ingest`.

The client's file name only helps format detection (a known suffix) and names a one-paper file's id as
ingest does (``P17-2090.pdf`` is ``P17-2090``), cut to a base name without control characters: the bytes
go to a server-chosen name (a PDF's ``upload-<sha256 prefix>.pdf``) in a private temporary directory, so
no path from a request reaches the filesystem. An `id` given with the upload replaces its one paper's id.
PDFs (``%PDF-`` in the first bytes) go to the server's PDF reader (GROBID, else the offline one).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sciembed.ioutil import deadline as deadlines
from sciembed.ioutil.pids import left_by_dead_process
from sciembed.papers.model import Paper
from sciembed.papers.readers import FORMATS, Accepted, Rejection, read_papers
from sciembed.papers.readers.checks import id_problem
from sciembed.papers.readers.id_policy import source_id
from sciembed.papers.readers.limits import DECOMPRESSION_LIMIT, ReadLimits, using_limits
from sciembed.papers.readers.records import DUPLICATE_ID
from sciembed.server.errors import ApiError

SUFFIXES = (".tei.xml", ".pdf.json", ".json", ".jsonl", ".ndjson", ".xml", ".nxml")
UPLOAD_PREFIX = "sciembed-upload-"  # + "<pid>-": the server that made the directory
MAX_NAME_CHARS = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def remove_abandoned_uploads(root: str | Path | None = None) -> int:
    """Delete the ``sciembed-upload-<pid>-…`` directories whose server process is gone; how many."""
    removed = 0
    for folder in Path(root or tempfile.gettempdir()).glob(f"{UPLOAD_PREFIX}*-*"):
        pid = folder.name[len(UPLOAD_PREFIX):].split("-", 1)[0]
        if not left_by_dead_process(pid) or not folder.is_dir():
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    return removed


def is_pdf_upload(data: bytes) -> bool:
    """PDFs are told by their bytes (readers accept ``%PDF-`` anywhere in the first 1,024), not their name."""
    return b"%PDF-" in data[:1024]


def upload_label(filename: str | None, data: bytes) -> str:
    """The server-chosen file name of an upload; a PDF's carries its hash."""
    if is_pdf_upload(data):
        return f"upload-{hashlib.sha256(data).hexdigest()[:16]}.pdf"
    return "upload" + safe_suffix(filename, data)


def display_name(filename: str | None, data: bytes) -> str:
    """How the upload is named to the readers (messages, and the id of a one-paper file): the client's base
    name, control characters dropped, when it has a stem (``P17-2090.pdf``), else `upload_label`. It names
    no file: the bytes are stored under `upload_label`."""
    base = (filename or "").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    name = _CONTROL.sub("", base).strip()[-MAX_NAME_CHARS:]
    stem = source_id(name) if name else ""
    if not stem or stem.startswith(".") or id_problem(stem, stem):
        return upload_label(filename, data)
    return name


def check_upload_id(paper_id: str | None) -> str | None:
    """The id given with an upload, stripped; 422 when it cannot be an id."""
    if paper_id is None or not paper_id.strip():
        return None
    paper_id = paper_id.strip()
    problem = id_problem(paper_id, paper_id)
    if problem:
        raise ApiError(422, f"id: {problem[1]}", problem[0])
    return paper_id


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


def read_upload(data: bytes, filename: str | None, fmt: str = "auto", *, max_papers: int | None = None,
                max_expanded_bytes: int | None = None, paper_id: str | None = None
                ) -> tuple[list[Paper], list[Rejection]]:
    """The records in the bytes: accepted papers and rejections (named after the client's file, `display_name`).

    At most `max_papers` papers; an upload expanding past `max_expanded_bytes` is 413 (`bounded_records`).
    `paper_id` names the upload's one paper (422 when the file holds more than one)."""
    if fmt != "auto" and fmt not in FORMATS:
        raise ApiError(422, f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    if not data.strip():
        raise ApiError(400, "the upload is empty", "not_a_paper")
    paper_id = check_upload_id(paper_id)
    label = upload_label(filename, data)
    with tempfile.TemporaryDirectory(prefix=f"{UPLOAD_PREFIX}{os.getpid()}-") as tmp:
        path = Path(tmp) / label
        path.write_bytes(data)
        papers, rejections = bounded_records(path, fmt, display_name(filename, data), max_papers, max_expanded_bytes)
    if paper_id is not None and papers:
        if len(papers) > 1:
            raise ApiError(422, f"an id names one paper; the file holds {len(papers)} or more (leave id out to "
                                "keep the records' own ids)", "too_many_papers")
        papers = [replace(papers[0], id=paper_id)]
    return papers, rejections


def bounded_records(path: Path, fmt: str, label: str, max_papers: int | None,
                    max_expanded_bytes: int | None) -> tuple[list[Paper], list[Rejection]]:
    """Read records until `max_papers` papers; the request's deadline is checked between records.

    A repeated id is a `duplicate_id` rejection (the first copy is kept), as in `sciembed corpus ingest`.
    """
    papers: list[Paper] = []
    rejections: list[Rejection] = []
    seen: set[str] = set()
    limits = ReadLimits(max_total_bytes=max_expanded_bytes) if max_expanded_bytes else None
    with using_limits(limits):
        for record in read_papers(path, fmt, name=label):
            deadlines.check("reading the upload")
            if isinstance(record, Accepted) and record.paper.id in seen:
                record = Rejection(record.loc, DUPLICATE_ID, f"duplicate id {record.paper.id!r}: the first "
                                   "record with this id was kept", record.paper.id)
            if isinstance(record, Accepted):
                seen.add(record.paper.id)
                papers.append(record.paper)
                if max_papers is not None and len(papers) >= max_papers:
                    break
            elif record.reason == DECOMPRESSION_LIMIT and max_expanded_bytes and "expands past" in record.message:
                raise ApiError(413, f"the upload expands past {max_expanded_bytes:,} bytes", "too_large")
            else:
                rejections.append(record)
    return papers, rejections


def papers_from_upload(data: bytes, filename: str | None, fmt: str = "auto", *, max_papers: int | None = None,
                       max_expanded_bytes: int | None = None, paper_id: str | None = None) -> list[Paper]:
    """The papers of an upload (at most `max_papers`); 400 with the readers' reasons when none could be read."""
    return require_papers(*read_upload(data, filename, fmt, max_papers=max_papers,
                                       max_expanded_bytes=max_expanded_bytes, paper_id=paper_id))


def require_papers(papers: list[Paper], rejections: list[Rejection]) -> list[Paper]:
    """`papers`; 400 with the readers' reasons when there are none."""
    if not papers:
        reason = str(rejections[0]) if rejections else "no records found"
        raise ApiError(400, f"not a paper: {reason}", "not_a_paper",
                       {"rejected": len(rejections), "reasons": [r.to_dict() for r in rejections[:20]]})
    return papers


def papers_from_dicts(records: Sequence[dict[str, Any]]) -> tuple[list[Paper], list[Rejection]]:
    """Papers given as JSON in sciembed's own format, validated by the own-format reader (ASCII-escaped, so a lone
    surrogate reaches the reader as its escape and becomes one rejection, not an encoding error)."""
    lines = "\n".join(json.dumps(r, ensure_ascii=True) for r in records).encode()
    if not lines:
        return [], []
    return read_upload(lines, "papers.jsonl", "jsonl")
