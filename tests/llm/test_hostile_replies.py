"""Issue 23, defects 10-14 and 16 (LLM side): hostile endpoints and damaged or foreign cache files."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from sciembed.llm import LLMCache, LLMClient, LLMConfig, LLMRequest, LLMResponseError, Sampling, load_prompt
from sciembed.llm.cache import CacheFileError

PROMPT = load_prompt("semantic_query")
SAMPLING = Sampling(temperature=0.0, max_tokens=40)


def reply(text: str = "a query", **extra) -> bytes:
    return json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "stop"}], **extra}).encode()


@contextmanager
def endpoint(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    """A one-behaviour OpenAI-shaped server on 127.0.0.1 (a free port)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            with suppress(BrokenPipeError, ConnectionResetError):
                answer(self)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def send(handler: BaseHTTPRequestHandler, body: bytes, length: int | None = None) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(length if length is not None else len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def call(url: str, cache: Path | None = None, **config):
    settings = {"model": "m", "max_retries": 0, "backoff_s": 0.0, "timeout_s": 1.0, **config}
    with LLMClient(LLMConfig(base_url=url, cache_path=cache, **settings), progress=False) as client:
        return client.chat(PROMPT, [LLMRequest({"title": "T", "abstract": "A."})], SAMPLING)


# -- 10: the timeout bounds the whole request ----------------------------------------------------------------


def test_a_trickling_endpoint_times_out(tmp_path):
    def trickle(handler):
        body = reply()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for byte in body:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.2)

    with endpoint(trickle) as url:
        started = time.monotonic()
        with pytest.raises(Exception, match=r"timed out|took longer"):
            call(url, timeout_s=1.0)
        assert time.monotonic() - started < 4


# -- 11: replies are size-capped ------------------------------------------------------------------------------


def test_a_huge_reply_is_refused_without_reading_it_all(tmp_path):
    def huge(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(200 << 20))
        handler.end_headers()
        head = b'{"choices": [{"message": {"content": "'
        handler.wfile.write(head)
        chunk = b"x" * (1 << 20)
        for _ in range(200):
            handler.wfile.write(chunk)

    cache = tmp_path / "c.sqlite"
    with endpoint(huge) as url, pytest.raises(LLMResponseError, match="bytes"):
        call(url, cache, max_reply_bytes=1 << 20, timeout_s=20)
    assert len(LLMCache(cache)) == 0


# -- 12 / 13: malformed but parseable replies are clear errors or ignored metadata ----------------------------


@pytest.mark.parametrize("usage", ["lots", {"prompt_tokens": [1], "completion_tokens": {"a": 1}}, 7])
def test_malformed_usage_is_ignored_not_a_traceback(tmp_path, usage):
    with endpoint(lambda h: send(h, reply(usage=usage))) as url:
        (answer,) = call(url, tmp_path / "c.sqlite")
    assert answer.text == "a query" and answer.prompt_tokens is None and answer.completion_tokens is None


def test_deeply_nested_reply_is_a_response_error(tmp_path):
    deep = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with endpoint(lambda h: send(h, deep)) as url, pytest.raises(LLMResponseError, match=r"nested|invalid"):
        call(url, tmp_path / "c.sqlite")


def test_non_text_finish_reason_is_not_blamed_on_the_cache(tmp_path):
    body = json.dumps({"choices": [{"message": {"content": "q"}, "finish_reason": ["stop"]}]}).encode()
    with endpoint(lambda h: send(h, body)) as url:
        (answer,) = call(url, tmp_path / "c.sqlite")
    assert answer.finish_reason is None and answer.text == "q"


# -- 14: damaged cache rows are ignored (and re-asked), not a traceback ----------------------------------------


@pytest.mark.parametrize("damage", ["UPDATE replies SET text = CAST(X'DEADBEEF' AS BLOB)",  # not text
                                    "UPDATE replies SET text = 'forged'"])  # changed without its check
def test_damaged_llm_cache_rows_are_asked_again(tmp_path, damage):
    cache = tmp_path / "c.sqlite"
    with endpoint(lambda h: send(h, reply("first"))) as url:
        call(url, cache)
    db = sqlite3.connect(cache)
    db.execute(damage)
    db.commit()
    db.close()
    with endpoint(lambda h: send(h, reply("again"))) as url, pytest.warns(UserWarning, match="damaged"):
        (answer,) = call(url, cache)
    assert answer.text == "again" and not answer.cached


# -- 16: another SQLite database is refused before anything is written into it ----------------------------------


def test_another_sqlite_database_is_refused_untouched(tmp_path):
    other = tmp_path / "app.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    before = other.read_bytes()
    with pytest.raises(CacheFileError, match="not an LLM cache"):
        LLMCache(other)
    assert other.read_bytes() == before
