"""PDFs through a GROBID server's ``/api/processFulltextDocument``, the TEI cached by the PDF's SHA-256.

The request is grobid-client-python's; busy answers (503) are retried with a doubling wait; the cache and
its ``grobid-options.json`` are described in docs/pdf.md. ``timeout_s`` bounds the whole request, connect
to last byte (`sciembed.ioutil.http_deadline`), and a reply over ``max_tei_bytes`` is refused before it is
parsed or cached.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lxml import etree

from sciembed.ioutil.http_deadline import bounded_client, within
from sciembed.papers.pdf.checks import (
    GROBID_BUSY,
    GROBID_ERROR,
    GROBID_REPLY_TOO_LARGE,
    GROBID_TIMEOUT,
    MB,
    NO_TEXT,
    PdfLimits,
    PdfProblem,
    check_bytes,
)
from sciembed.papers.pdf.offline import probe
from sciembed.papers.pdf.prefetch import Prefetch
from sciembed.papers.readers.records import Accepted, Loc, Record, Rejection

SERVICE = "processFulltextDocument"
OPTIONS_FILE = "grobid-options.json"


class GrobidUnavailable(OSError):
    """The server does not answer /api/isalive: nothing is sent, the run stops before reading."""


@dataclass(frozen=True)
class GrobidOptions:
    """Where GROBID is and what to ask it for (the form fields), how hard to try."""

    url: str
    consolidate_header: bool = False
    consolidate_citations: bool = False
    include_raw_citations: bool = True  # the TEI reader keeps each reference's raw string
    tei_coordinates: tuple[str, ...] = ()
    segment_sentences: bool = False
    generate_ids: bool = False
    workers: int = 10
    timeout_s: float = 60.0
    retries: int = 5
    backoff_s: float = 5.0
    max_backoff_s: float = 60.0
    max_tei_bytes: int = 20 * MB  # ReadLimits.max_record_bytes: what the TEI reader reads of one file

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"--grobid must be an http(s) URL, got {self.url!r}")
        if min(self.workers, self.max_tei_bytes) < 1 or self.timeout_s <= 0 or min(self.retries, self.backoff_s) < 0:
            raise ValueError(f"GROBID options must be positive: {self}")

    def form(self) -> dict[str, Any]:
        """The form fields besides ``input``, as grobid-client-python sets them."""
        data: dict[str, Any] = {
            name: "1" for name, on in (
                ("generateIDs", self.generate_ids), ("consolidateHeader", self.consolidate_header),
                ("consolidateCitations", self.consolidate_citations),
                ("includeRawCitations", self.include_raw_citations), ("segmentSentences", self.segment_sentences))
            if on}
        if self.tei_coordinates:
            data["teiCoordinates"] = list(self.tei_coordinates)
        return data

    def cache_key(self) -> dict[str, Any]:
        """The options that change GROBID's output (a cache made with others is not reused)."""
        return {"service": SERVICE, **self.form()}


class GrobidClient:
    """Posts PDFs and caches their TEI; thread-safe (one httpx client, counters under a lock)."""

    def __init__(self, options: GrobidOptions, cache_dir: Path) -> None:
        import httpx

        self.options = options
        self._base = options.url.rstrip("/")
        self.cache_dir = Path(cache_dir)
        self._http = bounded_client(timeout=httpx.Timeout(options.timeout_s, connect=min(10.0, options.timeout_s)))
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def check(self) -> None:
        """The server answers /api/isalive, and the cache was made with the same options (else raise)."""
        import httpx

        try:
            answer = self._http.get(f"{self._base}/api/isalive", timeout=10)
        except httpx.HTTPError as err:
            raise GrobidUnavailable(f"GROBID at {self.options.url} does not answer: {err}") from err
        if answer.status_code != 200:
            raise GrobidUnavailable(f"GROBID at {self.options.url} answers /api/isalive with {answer.status_code}")
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        stored = self.cache_dir / OPTIONS_FILE
        key = self.options.cache_key()
        if stored.exists():
            made_with = json.loads(stored.read_text(encoding="utf-8"))
            if made_with != key:
                raise ValueError(f"the TEI cache {self.cache_dir} was made with other GROBID options ({made_with}); "
                                 f"now {key}: pass another --set grobid_cache=DIR")
        else:
            stored.write_text(json.dumps(key, indent=2) + "\n", encoding="utf-8")

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counts[name] += n

    def tei(self, path: Path, limits: PdfLimits) -> Path:
        """The cached TEI of the PDF at `path`, asking GROBID when it is not cached; raises `PdfProblem`."""
        digest = check_bytes(path, limits)
        cached = self.cache_dir / f"{digest}.tei.xml"
        if cached.exists() and cached.stat().st_size <= self.options.max_tei_bytes:
            self._count("from_cache")
            return cached
        if cached.exists():  # cached by an older version without the bound: asked for again
            cached.unlink(missing_ok=True)
            self._count("oversized_cache_dropped")
        probe(path, limits)  # encrypted, broken or page bombs are refused here, not sent
        tei = self._post(path)
        tmp = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(tei)
        os.replace(tmp, cached)
        self._count("sent")
        return cached

    def _post(self, path: Path) -> bytes:
        import httpx

        delay = self.options.backoff_s
        for attempt in range(self.options.retries + 1):
            try:
                status, content = self._exchange(path)
            except httpx.TimeoutException as err:
                self._count("timeouts")
                raise PdfProblem(GROBID_TIMEOUT, f"GROBID did not answer within {self.options.timeout_s:g} s "
                                 "(the whole request)") from err
            except httpx.TransportError as err:  # connection refused / reset: the server may be restarting
                status, detail = None, f"{type(err).__name__}: {err}"
            else:
                detail = content[:200].decode("utf-8", "replace")
                if status == 200:
                    return _checked_tei(content)
                if status == 204:
                    raise PdfProblem(NO_TEXT, "GROBID extracted no content from the PDF (HTTP 204)")
                if status != 503:
                    self._count("errors")
                    raise PdfProblem(GROBID_ERROR, f"GROBID answered HTTP {status}: {' '.join(detail.split())}")
            if attempt == self.options.retries:
                break
            self._count("retries")
            time.sleep(delay)
            delay = min(delay * 2, self.options.max_backoff_s)
        if status == 503:
            raise PdfProblem(GROBID_BUSY, f"GROBID stayed busy (HTTP 503) through {self.options.retries} retries")
        raise PdfProblem(GROBID_ERROR, f"GROBID could not be reached after {self.options.retries} retries: {detail}")

    def _exchange(self, path: Path) -> tuple[int, bytes]:
        """POST the PDF; (status, reply) read within `timeout_s` in all and `max_tei_bytes` at most."""
        limit = self.options.max_tei_bytes
        with within(self.options.timeout_s), open(path, "rb") as pdf, self._http.stream(
                "POST", f"{self._base}/api/{SERVICE}", data=self.options.form(), headers={"Accept": "text/plain"},
                files={"input": (path.name, pdf, "application/pdf", {"Expires": "0"})}) as answer:
            declared = answer.headers.get("content-length", "")
            if answer.status_code == 200 and declared.isdigit() and int(declared) > limit:
                raise self._too_large(f"announced {int(declared):,} bytes")
            parts, size = [], 0
            for chunk in answer.iter_bytes():  # decoded: a compressed reply counts as it expands
                size += len(chunk)
                if size > limit:
                    if answer.status_code != 200:
                        break  # an error page: its start is enough for the message
                    raise self._too_large(f"sent over {limit:,} bytes")
                parts.append(chunk)
            return answer.status_code, b"".join(parts)

    def _too_large(self, what: str) -> PdfProblem:
        self._count("too_large")
        return PdfProblem(GROBID_REPLY_TOO_LARGE, f"GROBID {what} of TEI; the limit is "
                          f"{self.options.max_tei_bytes:,} bytes (nothing was parsed or cached)")

    def close(self) -> None:
        self._http.close()


def _checked_tei(data: bytes) -> bytes:
    """GROBID's answer when it is well-formed TEI; a `PdfProblem` otherwise (and nothing is cached)."""
    from sciembed.papers.readers.source import safe_parser
    from sciembed.papers.readers.tei import matches_root

    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as err:
        raise PdfProblem(GROBID_ERROR, f"GROBID returned malformed TEI: {err}") from err
    if root is None or not matches_root(str(root.tag)):
        raise PdfProblem(GROBID_ERROR, f"GROBID returned XML that is not TEI (root {getattr(root, 'tag', None)!r})")
    return data


class GrobidBackend:
    """The PDF reader when ingest runs with ``--grobid``: `workers` PDFs in flight, in input order."""

    label = "grobid"

    def __init__(self, options: GrobidOptions, cache_dir: Path, limits: PdfLimits | None = None) -> None:
        self.client = GrobidClient(options, cache_dir)
        self.limits = limits or PdfLimits()  # for the local checks; GROBID gets options.timeout_s
        self._checked = False
        self._prefetch = Prefetch(lambda path: self.client.tei(path, self.limits), options.workers, "grobid")

    @property
    def cache_dir(self) -> Path:
        return self.client.cache_dir

    def _check_once(self) -> None:
        if not self._checked:
            self.client.check()
            self._checked = True

    def start(self, paths: Iterable[Path]) -> None:
        """Check the server, then keep up to 2 x workers of these PDFs in flight ahead of `read`."""
        paths = list(paths)
        if paths:
            self._check_once()
            self._prefetch.announce(paths)

    def read(self, path: Path, name: str) -> Iterator[Record]:
        self._check_once()  # an upload, not announced in `start`
        try:
            tei_path = self._prefetch.get(path)
        except PdfProblem as err:
            yield Rejection(Loc(name), err.reason, str(err))
            return
        yield from _tei_records(tei_path, name)

    def stats(self) -> dict[str, Any]:
        return {"reader": "grobid", "url": self.client.options.url, "cache": str(self.cache_dir),
                "options": self.client.options.cache_key(), **dict(sorted(self.client.counts.items()))}

    def close(self) -> None:
        self._prefetch.close()
        self.client.close()


def _tei_records(tei_path: Path, name: str) -> Iterator[Record]:
    """The TEI reader's records, located at the PDF; the id is the PDF's file name stem (`id_policy.py`)."""
    from sciembed.papers.readers import tei

    for record in tei.read(tei_path, name):
        if isinstance(record, Accepted):
            yield Accepted(record.loc, replace(record.paper, source=f"grobid:{name}"))
        else:
            yield record

