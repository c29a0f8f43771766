"""PDF files: read by GROBID (``ingest --grobid URL``) or by the offline reader (the default), whichever is in use.

The reader is chosen per run in a context variable (`using_pdf_backend`), so the registry's `read(path, name)`
stays the signature every format has.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

from sciembed.papers.readers.records import Record

FORMAT = "pdf"


class PdfBackend(Protocol):
    """What reads PDFs: `label` names it in reports, `start` sees the run's PDFs first (to prefetch)."""

    label: str
    cache_dir: Path | None

    def start(self, paths: Iterable[Path]) -> None: ...
    def read(self, path: Path, name: str) -> Iterator[Record]: ...
    def stats(self) -> dict[str, Any]: ...
    def close(self) -> None: ...


_BACKEND: ContextVar[PdfBackend | None] = ContextVar("sciembed_pdf_backend", default=None)
_DEFAULT: list[PdfBackend] = []  # the process-wide reader (a server's --grobid), when no context sets one


def set_default_backend(backend: PdfBackend | None) -> None:
    """The reader used wherever no `using_pdf_backend` block is active (a server's threads); None: offline."""
    _DEFAULT[:] = [backend] if backend is not None else []


def _offline() -> PdfBackend:
    from sciembed.papers.pdf.offline import OfflineBackend

    return OfflineBackend()


def current() -> PdfBackend:
    backend = _BACKEND.get() or (_DEFAULT[0] if _DEFAULT else None)
    if backend is None:
        backend = _offline()
        set_default_backend(backend)
    return backend


@contextmanager
def using_pdf_backend(backend: PdfBackend | None) -> Iterator[PdfBackend]:
    """Read PDFs with `backend` (the offline reader when None) inside the block; closed at its end."""
    backend = _offline() if backend is None else backend
    token = _BACKEND.set(backend)
    try:
        yield backend
    finally:
        _BACKEND.reset(token)
        backend.close()


def read(path: Path, name: str) -> Iterator[Record]:
    yield from current().read(path, name)
