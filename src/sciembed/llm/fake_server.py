"""A small OpenAI-compatible server for tests and offline demos (stdlib ``http.server``).

It answers ``POST /v1/completions`` and ``/v1/chat/completions`` with deterministic text derived
from the request body, counts every request, and can be told to fail: queue failures with
``fail_next(kind, times)`` or fail every request with ``always_fail(kind)``. Kinds: ``429``,
``500``, ``401``, ``timeout`` (answers after ``timeout_delay_s``), ``malformed`` (invalid JSON),
``no_choices`` (an empty choices list), ``empty`` (a whitespace-only reply). A ``responder`` callable
``(endpoint, body) -> str`` replaces the default text (e.g. JSON replies for a chat agent).

Run one by hand: ``python -m sciembed.llm.fake_server --port 8000``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import suppress
from http.server import BaseHTTPRequestHandler
from typing import Any

from sciembed.ioutil.fake_http import FakeHTTPServer, send

FAILURES = ("429", "500", "401", "timeout", "malformed", "no_choices", "empty")
_WORDS = ("the method improves retrieval of related papers", "results show a consistent gain on held-out data",
          "a simple model explains most of the variance", "the proposed approach scales to large corpora",
          "errors concentrate in long and noisy documents", "the benchmark separates strong from weak encoders")


def default_reply(endpoint: str, body: dict[str, Any]) -> str:
    """Deterministic text: two sentences chosen by a hash of the request (prompt/messages, seed, ...).
    The first sentence ends with a period so that callers can test cutting at the first sentence end."""
    digest = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    first, second = _WORDS[digest % len(_WORDS)], _WORDS[(digest // 7) % len(_WORDS)]
    prefix = " " if endpoint == "completions" else ""
    return f"{prefix}{first} (case {digest % 997}). Then {second}."


class FakeLLMServer(FakeHTTPServer):
    """Start with ``start()`` (or the ``running()`` context manager); ``url`` is the base URL with /v1."""

    FAILURES = FAILURES
    NAME = "fake-llm"

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, timeout_delay_s: float = 2.0,
                 delay_s: float = 0.0, responder: Callable[[str, dict[str, Any]], str] | None = None,
                 required_api_key: str | None = None):
        self.timeout_delay_s = timeout_delay_s
        self.delay_s = delay_s  # added to every answer (to make runs slow enough to interrupt)
        self.responder = responder or default_reply
        self.required_api_key = required_api_key
        self.auth_headers: list[str | None] = []
        super().__init__(host, port)

    @property
    def url(self) -> str:
        return f"{self.root_url}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet in tests
                pass

            def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
                send(self, status, payload, content_type)

            def _json(self, status: int, data: Any) -> None:
                self._send(status, json.dumps(data).encode())

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models":
                    self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                routes = {"/v1/completions": "completions", "/v1/chat/completions": "chat"}
                endpoint = routes.get(self.path.rstrip("/"))
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if endpoint is None:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._json(400, {"error": {"message": "request body is not JSON"}})
                    return
                with server._lock:
                    server.requests.append({"endpoint": endpoint, **body})
                    server.auth_headers.append(self.headers.get("Authorization"))
                with server._counted():
                    self._answer(endpoint, body)

            def _answer(self, endpoint: str, body: dict[str, Any]) -> None:
                failure = server._next_failure()
                if server.required_api_key and self.headers.get("Authorization") != f"Bearer {server.required_api_key}":
                    failure = "401"
                if server.delay_s:
                    time.sleep(server.delay_s)
                if failure == "429":
                    self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}})
                elif failure == "500":
                    self._json(500, {"error": {"message": "internal error"}})
                elif failure == "401":
                    self._json(401, {"error": {"message": "invalid api key"}})
                elif failure == "malformed":
                    self._send(200, b'{"choices": [{"text": "unterminated')
                elif failure == "no_choices":
                    self._json(200, {"id": "x", "object": "text_completion", "choices": []})
                else:
                    if failure == "timeout":
                        time.sleep(server.timeout_delay_s)
                    text = "  \n" if failure == "empty" else server.responder(endpoint, body)
                    self._json(200, _completion(endpoint, body, text))

        return Handler


def _completion(endpoint: str, body: dict[str, Any], text: str) -> dict[str, Any]:
    source = body.get("prompt") if endpoint == "completions" else json.dumps(body.get("messages"))
    words, max_tokens = text.split(), int(body.get("max_tokens") or 10**6)
    finish = "length" if len(words) > max_tokens else "stop"  # a word stands in for a token
    if finish == "length":
        text = " " + " ".join(words[:max_tokens])
    prompt_tokens, completion_tokens = len(str(source).split()), min(len(words), max_tokens)
    choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
    if endpoint == "completions":
        choice["text"] = text
    else:
        choice["message"] = {"role": "assistant", "content": text}
    return {"id": "fake-1", "object": "text_completion" if endpoint == "completions" else "chat.completion",
            "model": body.get("model"), "choices": [choice],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="A deterministic OpenAI-compatible fake server (tests, demos).")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    server = FakeLLMServer(host=args.host, port=args.port)
    print(f"fake OpenAI-compatible server at {server.url} (Ctrl-C to stop)", flush=True)
    with suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
