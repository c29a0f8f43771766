"""The offline PDF reader, run in a child process with a time limit and an address-space limit.

A hostile or broken PDF (millions of declared pages, a stream inflating to gigabytes, a parser loop) must cost
one rejection, not the run: each file is parsed in a process forked from a fork server (pdfminer.six preloaded)
under ``RLIMIT_AS``, killed at the file's time limit, the caller's deadline or `stop_all_parses`, whichever
comes first. ``PR_SET_PDEATHSIG`` and ``RLIMIT_CPU`` stop it should the process waiting for it die first.
"""

from __future__ import annotations

import math
import multiprocessing
import resource
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from sciembed.ioutil import deadline
from sciembed.papers.model import Paper
from sciembed.papers.pdf.checks import (
    ENCRYPTED_PDF,
    MALFORMED_PDF,
    NO_TEXT,
    PDF_RESOURCE_LIMIT,
    PDF_TIMEOUT,
    TOO_MANY_PAGES,
    PdfLimits,
    PdfProblem,
    check_bytes,
)
from sciembed.papers.pdf.prefetch import Prefetch
from sciembed.papers.readers.id_policy import with_source_ids
from sciembed.papers.readers.records import Accepted, Loc, Record, Rejection

SOURCE = "pdf-offline"
_CONTEXT: Any = None
_LIVE: set[Any] = set()  # parses in flight, for `stop_all_parses`
_LIVE_LOCK = threading.Lock()
_POLL_S = 0.1  # how often a wait for a child looks at the caller's deadline
_PR_SET_PDEATHSIG = 1


def _context() -> Any:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["sciembed.papers.pdf.offline", "pdfminer.high_level"])
    return _CONTEXT


def declared_pages(path: Path) -> int:
    """The page count the catalogue's page tree declares; raises `PdfProblem` for encrypted / broken files."""
    from pdfminer.pdfdocument import PDFDocument, PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1

    with open(path, "rb") as stream:
        try:
            document = PDFDocument(PDFParser(stream))
        except (PDFPasswordIncorrect, PDFEncryptionError) as err:
            message = f"the PDF is encrypted and needs a password ({type(err).__name__})"
            raise PdfProblem(ENCRYPTED_PDF, message) from err
        pages = resolve1(document.catalog.get("Pages")) if isinstance(document.catalog, dict) else None
        count = resolve1(pages.get("Count")) if isinstance(pages, dict) else None
    if not isinstance(count, int) or count < 0:
        raise PdfProblem(MALFORMED_PDF, "the PDF has no readable page tree")
    return count


def parse(path: Path, paper_id: str, name: str, limits: PdfLimits) -> Paper:
    """Parse in this process (the child's work): page check, layout, structure."""
    from sciembed.papers.pdf.layout import body_size, drop_margins, read_pages
    from sciembed.papers.pdf.structure import paper_from_pages

    _page_count(path, paper_id, name, limits)
    pages = read_pages(str(path), limits.max_pages)
    size = body_size(pages)
    pages = drop_margins(pages, size)
    if not any(page.lines for page in pages):
        raise PdfProblem(NO_TEXT, "no text on any page (a scanned PDF needs OCR first)")
    return paper_from_pages(pages, size, paper_id, f"{SOURCE}:{name}")


def _page_count(path: Path, paper_id: str, name: str, limits: PdfLimits) -> int:
    count = declared_pages(path)
    if count > limits.max_pages:
        raise PdfProblem(TOO_MANY_PAGES, f"the PDF declares {count:,} pages; the limit is {limits.max_pages:,}")
    return count


_TASKS = {"parse": parse, "pages": _page_count}


def _child(task: str, path: str, paper_id: str, name: str, limits: PdfLimits, conn: Any) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limits.max_memory_bytes, limits.max_memory_bytes))
    cpu_s = math.ceil(limits.timeout_s) + 2  # a backstop: the waiting thread kills it at timeout_s
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    _die_with_parent()
    try:
        result: Any = _TASKS[task](Path(path), paper_id, name, limits)
    except PdfProblem as err:
        result = (err.reason, str(err))
    except MemoryError:
        result = (PDF_RESOURCE_LIMIT, f"parsing needs more than {limits.max_memory_bytes >> 20} MB of memory")
    except RecursionError:
        result = (MALFORMED_PDF, "objects nested too deeply to parse")
    except Exception as err:  # any parser failure on untrusted bytes is this file's rejection
        result = (MALFORMED_PDF, f"{type(err).__name__}: {err}"[:300])
    try:
        conn.send(result)
    except MemoryError:
        conn.send((PDF_RESOURCE_LIMIT, f"the result needs more than {limits.max_memory_bytes >> 20} MB of memory"))
    conn.close()


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent (the fork server) exits; elsewhere nothing."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def stop_all_parses() -> int:
    """Kill every parse in flight (a stopping server); how many were killed."""
    with _LIVE_LOCK:
        children = list(_LIVE)
    for child in children:
        if child.is_alive():
            child.kill()
    return len(children)


def _answered(receive: Any, limits: PdfLimits) -> bool:
    """Whether the child answered within the file's limit; `DeadlineExceeded` when this thread's deadline ends first."""
    give_up = time.monotonic() + limits.timeout_s
    while True:
        left = deadline.remaining()
        wait = give_up - time.monotonic()
        if left is not None and left <= 0:
            raise deadline.DeadlineExceeded("parsing the PDF ran past the request's time limit; stopped")
        if wait <= 0:
            return False
        if receive.poll(min(wait, _POLL_S, left if left is not None else wait)):
            return True


def _bounded(task: str, path: Path, paper_id: str, name: str, limits: PdfLimits) -> Any:
    """`task` run in a child process under `limits`; a (reason, message) answer is raised as `PdfProblem`."""
    ctx = _context()
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(task, str(path), paper_id, name, limits, send), daemon=True)
    with _LIVE_LOCK:
        child.start()
        _LIVE.add(child)
    send.close()
    try:
        if not _answered(receive, limits):
            raise PdfProblem(PDF_TIMEOUT, f"parsing took longer than {limits.timeout_s:g} s; stopped")
        try:
            result = receive.recv()
        except EOFError as err:  # the child died: killed by the kernel, a crash in native code
            raise PdfProblem(PDF_RESOURCE_LIMIT, f"the parser process ended without an answer "
                                                 f"(exit code {child.exitcode})") from err
    finally:
        if child.is_alive():
            child.kill()
        child.join(5)
        receive.close()
        with _LIVE_LOCK:
            _LIVE.discard(child)
    if isinstance(result, tuple):
        raise PdfProblem(*result)
    return result


def read_pdf(path: Path, paper_id: str, name: str, limits: PdfLimits) -> Paper:
    """The paper in a PDF, parsed in a child process under `limits`; raises `PdfProblem`."""
    check_bytes(path, limits)
    return replace(_bounded("parse", path, paper_id, name, limits), id=paper_id)


def probe(path: Path, limits: PdfLimits) -> str:
    """The SHA-256 of a PDF that opens without a password within the page limit (before GROBID gets it)."""
    digest = check_bytes(path, limits)
    _bounded("pages", path, "", str(path), limits)
    return digest


class OfflineBackend:
    """The PDF reader when no GROBID server is given: layout heuristics, `workers` files at once, each in a child."""

    label = "offline"
    cache_dir = None

    def __init__(self, limits: PdfLimits | None = None, workers: int = 1) -> None:
        self.limits = limits or PdfLimits()
        self.workers = workers
        self.counts: Counter[str] = Counter()
        self._prefetch: Prefetch[Paper | PdfProblem] = Prefetch(self._parse, workers, "pdf")

    def _parse(self, path: Path) -> Paper | PdfProblem:
        from sciembed.papers.readers import source

        stem = source.file_stem(path.name, (".gz", ".pdf", ".PDF"))
        try:
            return read_pdf(path, stem, str(path), self.limits)
        except PdfProblem as err:
            return err

    def start(self, paths: Iterable[Path]) -> None:
        """With several workers, parse ahead of `read` (one file at a time needs nothing started)."""
        if self.workers > 1:
            self._prefetch.announce(paths)

    def read(self, path: Path, name: str) -> Iterator[Record]:
        self.counts["parsed"] += 1
        paper = self._prefetch.get(path)
        if isinstance(paper, PdfProblem):
            self.counts["failed"] += 1
            yield Rejection(Loc(name), paper.reason, str(paper))
            return
        paper = with_source_ids(paper, name, paper.external_ids)  # id: the file stem, as every reader
        yield Accepted(Loc(name), replace(paper, source=f"{SOURCE}:{name}"))

    def stats(self) -> dict[str, Any]:
        return {"reader": "offline (pdfminer.six layout heuristics; no GROBID)", **dict(sorted(self.counts.items())),
                "limits": {"max_pages": self.limits.max_pages, "timeout_s": self.limits.timeout_s,
                           "max_memory_mb": self.limits.max_memory_bytes >> 20,
                           "max_file_mb": self.limits.max_file_bytes >> 20, "workers": self.workers}}

    def close(self) -> None:
        self._prefetch.close()
