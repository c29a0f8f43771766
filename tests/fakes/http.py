"""What the stand-in HTTP servers for tests share (`fakes.llm_server`, `fakes.grobid`).

A stdlib ``ThreadingHTTPServer`` on a free local port, started in a daemon
thread; a queue of failures to play on the next requests (``fail_next``) or on
every request (``always_fail``); the requests seen and the most handled at once.
Subclasses name their `FAILURES` and build the request handler (`_handler`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class FakeHTTPServer:
    """Start with ``start()`` (or the ``running()`` context manager); `root_url` is ``http://host:port``."""

    FAILURES: tuple[str, ...] = ()
    NAME = "fake-http"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.max_in_flight = 0  # the most requests handled at the same moment
        self._in_flight = 0
        self._queue: list[str] = []
        self._always: str | None = None
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def root_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def fail_next(self, kind: str, times: int = 1) -> None:
        self._check(kind)
        with self._lock:
            self._queue.extend([kind] * times)

    def always_fail(self, kind: str | None) -> None:
        if kind is not None:
            self._check(kind)
        self._always = kind

    def _check(self, kind: str) -> None:
        if kind not in self.FAILURES:
            raise ValueError(f"unknown failure {kind!r}; one of {self.FAILURES}")

    def _next_failure(self) -> str | None:
        with self._lock:
            return self._queue.pop(0) if self._queue else self._always

    @contextmanager
    def _counted(self) -> Iterator[None]:
        """Wrap the handling of one request: keeps `max_in_flight`."""
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name=self.NAME, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @contextmanager
    def running(self) -> Iterator[Self]:
        self.start()
        try:
            yield self
        finally:
            self.stop()

    def serve_forever(self) -> None:
        """Serve in this thread (a server run by hand) until interrupted."""
        self._httpd.serve_forever()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError


def send(handler: BaseHTTPRequestHandler, status: int, payload: bytes, content_type: str) -> None:
    """One whole answer; a client that already gave up (timeout tests) is not an error."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    with suppress(BrokenPipeError, ConnectionResetError):
        handler.wfile.write(payload)


def send_dripped(handler: BaseHTTPRequestHandler, status: int, payload: bytes, content_type: str, *,
                 header_s: float = 0.0, body_s: float = 0.0, step_s: float = 0.05) -> None:
    """One answer written a few bytes at a time: its headers over `header_s` seconds, its body over `body_s`.

    Each write comes well inside any per-read timeout, so only a deadline on the whole request stops the
    client (issue 33: servers that send their headers slowly defeated `--llm-timeout`).
    """
    head = (f"HTTP/1.1 {status} OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(payload)}\r\n"
            f"X-Padding: {'.' * 64}\r\n\r\n").encode()
    with suppress(BrokenPipeError, ConnectionResetError):
        for data, seconds in ((head, header_s), (payload, body_s)):
            steps = max(1, int(seconds / step_s)) if seconds else 1
            size = max(1, -(-len(data) // steps))
            for start in range(0, len(data), size):
                handler.wfile.write(data[start:start + size])
                handler.wfile.flush()
                if seconds:
                    time.sleep(step_s)
    handler.close_connection = True


def reply_server(body: bytes) -> ThreadingHTTPServer:
    """A server on a free local port answering every POST with `body` (200); stop it with ``shutdown()``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
