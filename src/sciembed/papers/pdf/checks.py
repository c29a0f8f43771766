"""Cheap byte checks every PDF passes before the offline reader parses it or GROBID is sent it, and the
reasons a PDF is rejected. ``%PDF-`` is looked for in the first 1,024 bytes (as readers allow), ``%%EOF`` in
the last 1,024 (as Acrobat does: a download cut short fails here)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

MB = 1 << 20

# Reason codes, counted per code in the manifest like the readers' own.
EMPTY_FILE = "empty_file"
NOT_A_PDF = "not_a_pdf"
TRUNCATED_PDF = "truncated_pdf"
ENCRYPTED_PDF = "encrypted_pdf"
MALFORMED_PDF = "malformed_pdf"
TOO_MANY_PAGES = "too_many_pages"
PDF_TOO_LARGE = "pdf_too_large"
PDF_TIMEOUT = "pdf_timeout"
PDF_RESOURCE_LIMIT = "pdf_resource_limit"
GROBID_ERROR = "grobid_error"
GROBID_TIMEOUT = "grobid_timeout"
GROBID_BUSY = "grobid_busy"
GROBID_REPLY_TOO_LARGE = "grobid_reply_too_large"
NO_TEXT = "no_text"


@dataclass(frozen=True)
class PdfLimits:
    """What one PDF may cost: file size, pages, seconds and memory of the process that parses it."""

    max_file_bytes: int = 100 * MB
    max_pages: int = 300
    timeout_s: float = 60.0
    max_memory_bytes: int = 1024 * MB

    def __post_init__(self) -> None:
        if self.max_file_bytes < 1 or self.max_pages < 1 or self.timeout_s <= 0 or self.max_memory_bytes < 64 * MB:
            raise ValueError(f"PDF limits must be positive (memory at least 64 MB): {self}")


class PdfProblem(Exception):
    """A PDF that cannot be read: `reason` is one of the codes above, the message says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def check_bytes(path: Path, limits: PdfLimits) -> str:
    """The file's SHA-256 when its bytes look like a whole PDF; raises `PdfProblem` otherwise."""
    try:
        size = path.stat().st_size
        if size == 0:
            raise PdfProblem(EMPTY_FILE, "the file is empty (0 bytes)")
        if size > limits.max_file_bytes:
            raise PdfProblem(PDF_TOO_LARGE, f"{size / MB:.1f} MB is over the {limits.max_file_bytes / MB:g} MB limit")
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            head = stream.read(1024)
            digest.update(head)
            while chunk := stream.read(MB):
                digest.update(chunk)
            stream.seek(max(size - 1024, 0))
            tail = stream.read(1024)
    except OSError as err:
        raise PdfProblem(MALFORMED_PDF, f"cannot read the file: {err}") from err
    if b"%PDF-" not in head:
        raise PdfProblem(NOT_A_PDF, f"no %PDF- header in the first 1,024 bytes (starts with {head[:16]!r})")
    if b"%%EOF" not in tail:
        raise PdfProblem(TRUNCATED_PDF, "no %%EOF marker in the last 1,024 bytes: the file is cut short")
    return digest.hexdigest()
