"""Issue 33, defect 12: the Origin check of writes compares scheme, host and port, not the host name alone.

A page on another port or scheme of the same host is another origin; with --allow-open-writes, its form post
was a keyless cross-origin write.
"""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from sciembed.server.guard import Guard, origin_of
from sciembed.server.settings import ServerSettings


async def _ok(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"written"})


def _client(base_url: str, **settings) -> TestClient:
    guard = Guard(_ok, ServerSettings(allow_open_writes=True, allowed_hosts=("localhost", "127.0.0.1"), **settings))
    return TestClient(guard, base_url=base_url)


@pytest.mark.parametrize(("served_at", "origin", "status"), [
    ("http://localhost:8000", "http://localhost:8000", 200),
    ("http://localhost:8000", "http://LOCALHOST:8000/", 200),
    ("http://localhost", "http://localhost:80", 200),
    ("http://localhost:8000", "http://localhost:9999", 403),  # another port on the same host
    ("http://localhost:8000", "http://localhost", 403),
    ("http://localhost:8000", "https://localhost:8000", 403),  # another scheme
    ("https://localhost", "http://localhost", 403),
    ("http://localhost:8000", "http://127.0.0.1:8000", 403),  # another host name is another origin
    ("http://localhost:8000", "null", 403),
    ("http://localhost:8000", "http://localhost:99999", 403),  # not a port
    ("http://localhost:8000", "http://evil.example:8000", 403),
])
def test_a_write_is_accepted_only_from_this_servers_own_origin(served_at, origin, status):
    response = _client(served_at).post("/papers", content=b"{}", headers={"Origin": origin})
    assert response.status_code == status, (served_at, origin, response.text)


def test_cors_origins_match_by_scheme_host_and_port():
    client = _client("http://localhost:8000", cors_origins=("https://app.example",))
    assert client.post("/papers", headers={"Origin": "https://app.example:443"}).status_code == 200
    assert client.post("/papers", headers={"Origin": "https://app.example:8443"}).status_code == 403
    assert client.post("/papers", headers={"Origin": "http://app.example"}).status_code == 403


def test_origin_of():
    assert origin_of("HTTP://Example.org") == ("http", "example.org", 80)
    assert origin_of("https://[::1]:8443") == ("https", "::1", 8443)
    assert origin_of("null") is None and origin_of("ftp://x") is None and origin_of("http://x:port") is None
