"""A stand-in GROBID server for tests and offline demos (stdlib ``http.server``).

It answers ``GET /api/isalive`` and ``POST /api/processFulltextDocument`` like
GROBID: the multipart ``input`` PDF is looked up by its SHA-256 among the
(PDF, TEI) pairs it was given and the real TEI comes back (200); a PDF it does
not know gets GROBID's 500. It records every request (form fields, file name,
content type, hash) and the most requests in flight at once, and misbehaves on
demand: ``fail_next(kind, times)`` with kind ``503`` (busy), ``slow`` (answers
after ``slow_s``), ``malformed`` (XML that does not parse), ``500``, ``204``,
``slow_headers`` / ``drip`` (the answer's headers / body trickled over ``slow_s``,
each piece in time) and ``huge`` (the real TEI padded by a comment to ``huge_bytes``).

Run one by hand over the shared samples:
``PYTHONPATH=tests python -m fakes.grobid PDF_DIR TEI_DIR --port 8070``.
"""

from __future__ import annotations

import argparse
import hashlib
import threading
import time
from contextlib import suppress
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from fakes.http import FakeHTTPServer, send, send_dripped

FAILURES = ("503", "slow", "malformed", "500", "204", "slow_headers", "drip", "huge")
MALFORMED = b'<?xml version="1.0" encoding="UTF-8"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc>'


def pairs_from_dirs(pdf_dir: Path, tei_dir: Path) -> dict[str, bytes]:
    """SHA-256 of each PDF -> the TEI file with the same stem (``X.pdf`` -> ``X.tei.xml``)."""
    out = {}
    for pdf in sorted(Path(pdf_dir).glob("*.pdf")):
        tei = Path(tei_dir) / f"{pdf.stem}.tei.xml"
        if tei.exists():
            out[hashlib.sha256(pdf.read_bytes()).hexdigest()] = tei.read_bytes()
    return out


def parse_form(content_type: str, body: bytes) -> dict[str, list[tuple[str | None, str | None, bytes]]]:
    """Multipart form fields: name -> [(file name, content type, bytes)] (a field may repeat)."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, list[tuple[str | None, str | None, bytes]]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        fields.setdefault(str(name), []).append((part.get_filename(), part.get_content_type(), payload))
    return fields


class FakeGrobid(FakeHTTPServer):
    """Start with `start()` or the `running()` context manager; `url` is the base URL (no /api)."""

    FAILURES = FAILURES
    NAME = "fake-grobid"

    def __init__(self, tei_by_sha256: dict[str, bytes], *, host: str = "127.0.0.1", port: int = 0,
                 slow_s: float = 2.0, huge_bytes: int = 4 << 20) -> None:
        self.tei_by_sha256 = dict(tei_by_sha256)
        self.slow_s = slow_s
        self.huge_bytes = huge_bytes
        self._dripping = threading.local()  # the failure the handler thread writes its answer with
        super().__init__(host, port)

    @property
    def url(self) -> str:
        return self.root_url

    def _answer(self, content_type: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        fields = parse_form(content_type, body)
        pdf = fields.get("input", [(None, None, b"")])[0]
        digest = hashlib.sha256(pdf[2]).hexdigest()
        with self._lock:
            self.requests.append({
                "fields": {k: [v[2].decode("utf-8", "replace") for v in vs]
                           for k, vs in fields.items() if k != "input"},
                "filename": pdf[0], "content_type": pdf[1], "sha256": digest, "accept": headers.get("Accept"),
            })
        failure = self._next_failure()
        self._dripping.kind = failure if failure in ("slow_headers", "drip") else None
        if failure == "slow":
            time.sleep(self.slow_s)
        elif failure == "503":
            return 503, b""
        elif failure == "500":
            return 500, b"[GENERAL] An exception occurred while running Grobid."
        elif failure == "204":
            return 204, b""
        elif failure == "malformed":
            return 200, MALFORMED
        tei = self.tei_by_sha256.get(digest)
        if tei is None:
            return 500, b"[BAD_INPUT_DATA] PDF to XML conversion failed with error code: 1"
        if failure == "huge":
            return 200, tei + b"\n<!--" + b"x" * max(0, self.huge_bytes - len(tei)) + b"-->\n"
        return 200, tei

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, content_type: str = "application/xml") -> None:
                send(self, status, body, content_type)

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/api/isalive":
                    self._send(200, b"true", "text/plain")
                else:
                    self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/api/processFulltextDocument":
                    self._send(404, b"not found", "text/plain")
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with server._counted():
                    status, answer = server._answer(self.headers.get("Content-Type", ""), body, dict(self.headers))
                drip = server._dripping.kind
                if drip:
                    send_dripped(self, status, answer, "application/xml",
                                 **{"header_s" if drip == "slow_headers" else "body_s": server.slow_s})
                else:
                    self._send(status, answer)

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdf_dir", type=Path)
    parser.add_argument("tei_dir", type=Path)
    parser.add_argument("--port", type=int, default=8070)
    args = parser.parse_args()
    fake = FakeGrobid(pairs_from_dirs(args.pdf_dir, args.tei_dir), port=args.port)
    print(f"fake GROBID on {fake.url} with {len(fake.tei_by_sha256)} papers; Ctrl-C stops it", flush=True)
    with suppress(KeyboardInterrupt):
        fake.serve_forever()


if __name__ == "__main__":
    main()
