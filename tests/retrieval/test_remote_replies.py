"""`index search --server`: a reply that is too large or not JSON is refused with a message, never parsed."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sciembed.cli import remote
from sciembed.errors import SciembedInputError


def _serve(body: bytes):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize(("body", "message"), [(b'{"hits": []}' + b" " * 2000, "over 1,000 bytes"),
                                               (b"<html>not a search</html>", "not JSON")])
def test_oversized_or_foreign_replies_are_refused(monkeypatch, body, message):
    monkeypatch.setattr(remote, "MAX_REPLY_BYTES", 1000)
    server = _serve(body)
    try:
        with pytest.raises(remote.ServerError, match=message) as caught:
            remote.search_server(f"http://127.0.0.1:{server.server_port}", texts=[("q", "graph parsing")])
        assert isinstance(caught.value, SciembedInputError)  # the CLI's guard prints it as a user error
    finally:
        server.shutdown()
