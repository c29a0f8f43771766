"""A small OpenAI-compatible server for tests and offline demos (stdlib ``http.server``).

It answers ``POST /v1/completions`` and ``/v1/chat/completions`` with deterministic text derived
from the request body, ``POST /v1/embeddings`` with deterministic hashed bag-of-words vectors
(`fake_embedding`: texts sharing words are close; ``dimensions`` from the request, else
``embedding_dim``), counts every request, and can be told to fail: queue failures with
``fail_next(kind, times)`` or fail every request with ``always_fail(kind)``. Kinds: ``429``,
``500``, ``401``, ``timeout`` (answers after ``timeout_delay_s``), ``malformed`` (invalid JSON),
``no_choices`` (an empty choices list), ``empty`` (a whitespace-only reply); for embeddings also
``wrong_count`` (one vector too few), ``nan`` (a NaN value), ``wrong_dim`` (one vector one value
short) and ``shuffled`` (a valid reply in reverse order, each item with its ``index``). A ``responder`` callable
``(endpoint, body) -> str`` replaces the default text (e.g. JSON replies for a chat agent).

Run one by hand: ``PYTHONPATH=tests python -m fakes.llm_server --port 8000``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import suppress
from http.server import BaseHTTPRequestHandler
from typing import Any

from fakes.http import FakeHTTPServer, send, send_dripped

FAILURES = ("429", "500", "401", "timeout", "malformed", "no_choices", "empty", "wrong_count", "nan", "wrong_dim",
            "shuffled", "slow_headers", "drip", "zeros")
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


def fake_embedding(text: str, dim: int) -> list[float]:
    """A unit vector: the sum of fixed pseudo-random vectors of the text's lower-cased words (a word's vector
    is seeded by its sha256), so the same text always gets the same vector and shared words mean closeness."""
    import numpy as np

    total = np.zeros(dim)
    for word in text.lower().split():
        seed = int.from_bytes(hashlib.sha256(word.strip(".,:;()").encode()).digest()[:8], "big")
        total += np.random.default_rng(seed).standard_normal(dim)
    total[0] += 1e-6  # an empty text is not the zero vector
    return (total / np.linalg.norm(total)).tolist()


class FakeLLMServer(FakeHTTPServer):
    """Start with ``start()`` (or the ``running()`` context manager); ``url`` is the base URL with /v1."""

    FAILURES = FAILURES
    NAME = "fake-llm"

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, timeout_delay_s: float = 2.0,
                 delay_s: float = 0.0, responder: Callable[[str, dict[str, Any]], str] | None = None,
                 required_api_key: str | None = None, embedding_dim: int = 32):
        self.embedding_dim = embedding_dim  # of /v1/embeddings replies when the request has no `dimensions`
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
                routes = {"/v1/completions": "completions", "/v1/chat/completions": "chat",
                          "/v1/embeddings": "embeddings"}
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
                self._answer(endpoint, body)

            def _answer(self, endpoint: str, body: dict[str, Any]) -> None:
                failure = server._next_failure()
                if server.required_api_key and self.headers.get("Authorization") != f"Bearer {server.required_api_key}":
                    failure = "401"
                # counted while the request is worked on, not while its reply is written: a client that has
                # its reply may send the next request before this thread would leave a wider window
                with server._counted():
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
                    if endpoint == "embeddings":
                        data = _embeddings(body, server.embedding_dim, failure)
                    else:
                        text = "  \n" if failure == "empty" else server.responder(endpoint, body)
                        data = _completion(endpoint, body, text)
                    if failure in ("slow_headers", "drip"):  # each byte in time, the whole reply far too late
                        send_dripped(self, 200, json.dumps(data).encode(), "application/json",
                                     **{"header_s" if failure == "slow_headers" else "body_s": server.timeout_delay_s})
                    else:
                        self._json(200, data)

        return Handler


def _embeddings(body: dict[str, Any], default_dim: int, failure: str | None) -> dict[str, Any]:
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else [str(t) for t in raw] if isinstance(raw, list) else []
    dim = body.get("dimensions") if isinstance(body.get("dimensions"), int) else default_dim
    data = [{"object": "embedding", "index": i, "embedding": fake_embedding(t, dim)} for i, t in enumerate(texts)]
    if failure == "wrong_count":
        data = data[:-1]
    elif failure == "nan" and data:
        data[0]["embedding"][0] = float("nan")  # json.dumps writes NaN, which Python's json reads back
    elif failure == "wrong_dim" and data:
        data[-1]["embedding"] = data[-1]["embedding"][:-1]
    elif failure == "shuffled":
        data.reverse()
    elif failure == "zeros" and data:
        data[0]["embedding"] = [0.0] * dim  # what a broken server sends for a text it could not embed
    tokens = sum(len(t.split()) for t in texts)
    return {"object": "list", "data": data, "model": body.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


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
