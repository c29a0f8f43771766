"""`index search --server`: a reply that is too large or not JSON is refused with a message, never parsed."""

from __future__ import annotations

import pytest

from fakes.http import reply_server
from sciembed.cli import remote
from sciembed.errors import SciembedInputError


@pytest.mark.parametrize(("body", "message"), [(b'{"hits": []}' + b" " * 2000, "over 1,000 bytes"),
                                               (b"<html>not a search</html>", "not JSON")])
def test_oversized_or_foreign_replies_are_refused(monkeypatch, body, message):
    monkeypatch.setattr(remote, "MAX_REPLY_BYTES", 1000)
    server = reply_server(body)
    try:
        with pytest.raises(remote.ServerError, match=message) as caught:
            remote.search_server(f"http://127.0.0.1:{server.server_port}", texts=[("q", "graph parsing")])
        assert isinstance(caught.value, SciembedInputError)  # the CLI's guard prints it as a user error
    finally:
        server.shutdown()
