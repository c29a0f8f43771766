from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from fakes.llm_server import FakeLLMServer
from sciembed.llm import (
    LLMAuthError,
    LLMCache,
    LLMCacheMissError,
    LLMClient,
    LLMConfig,
    LLMError,
    LLMRequest,
    LLMResponseError,
    Sampling,
    load_prompt,
)
from sciembed.llm.cache import CacheFileError

CONTINUATION = load_prompt("semcse_continuation")
QUERY = load_prompt("semantic_query")
SAMPLING = Sampling(temperature=0.7, max_tokens=32)


def _config(server: FakeLLMServer | None, cache: Path | None, **kw) -> LLMConfig:
    base = {"model": "fake-model", "backoff_s": 0.0, "timeout_s": 0.5, "max_retries": 2, "concurrency": 2}
    return LLMConfig(base_url=server.url if server else None, cache_path=cache, **{**base, **kw})


def _requests(n: int, samples: int = 1) -> list[LLMRequest]:
    return [LLMRequest({"title": f"Paper {i}", "abstract": f"Abstract number {i}.", "stem": "In summary,"}, s)
            for i in range(n) for s in range(samples)]


def test_completion_reply_and_prompt(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(_config(fake_llm, tmp_path / "c.sqlite"), progress=False) as client:
        replies = client.complete(CONTINUATION, _requests(2), SAMPLING)
    assert [r.cached for r in replies] == [False, False]
    assert all(r.text.startswith(" ") and ". Then " in r.text for r in replies)
    sent = fake_llm.requests[0]
    assert sent["endpoint"] == "completions" and sent["model"] == "fake-model"
    assert sent["prompt"].endswith("\n\nIn summary,") and sent["temperature"] == 0.7 and sent["max_tokens"] == 32


def test_cache_hit_makes_no_request(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        first = client.complete(CONTINUATION, _requests(3, samples=2), SAMPLING)
    assert fake_llm.request_count == 6
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        again = client.complete(CONTINUATION, _requests(3, samples=2), SAMPLING)
        assert client.stats.cached == 6 and client.stats.called == 0
    assert fake_llm.request_count == 6
    assert [r.text for r in again] == [r.text for r in first] and all(r.cached for r in again)


def test_cache_key_covers_sample_params_model_and_template(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        client.complete(CONTINUATION, _requests(1), SAMPLING)
        client.complete(CONTINUATION, [LLMRequest(_requests(1)[0].values, sample=1)], SAMPLING)  # new sample
        client.complete(CONTINUATION, _requests(1), Sampling(temperature=0.7, max_tokens=32, extra={"top_p": 0.9}))
    assert fake_llm.request_count == 3
    with LLMClient(_config(fake_llm, cache, model="other-model"), progress=False) as client:
        client.complete(CONTINUATION, _requests(1), SAMPLING)
    assert fake_llm.request_count == 4
    edited = tmp_path / "semcse_continuation.v1.yaml"  # same name and version, different text
    edited.write_text('kind: completion\nprompt: "${title}\\n\\n${abstract}\\n\\n${stem}"\n')
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        client.complete(load_prompt(str(edited)), _requests(1), SAMPLING)
    assert fake_llm.request_count == 5


def test_seed_is_offset_by_sample(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(_config(fake_llm, None), progress=False) as client:
        replies = client.complete(CONTINUATION, _requests(1, samples=3), Sampling(extra={"seed": 10}))
    assert sorted(r["seed"] for r in fake_llm.requests) == [10, 11, 12]
    assert len({r.text for r in replies}) == 3


def test_chat_endpoint(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.responder = lambda endpoint, body: "graph neural networks for citation recommendation"
    with LLMClient(_config(fake_llm, tmp_path / "c.sqlite"), progress=False) as client:
        [reply] = client.chat(QUERY, [LLMRequest({"title": "T", "abstract": "A."})], SAMPLING)
    assert reply.text == "graph neural networks for citation recommendation"
    messages = fake_llm.requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user"] and messages[1]["content"] == "Title: T\nAbstract: A."


def test_retries_429_then_succeeds(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.fail_next("429", times=2)
    with LLMClient(_config(fake_llm, None, concurrency=1), progress=False) as client:
        [reply] = client.complete(CONTINUATION, _requests(1), SAMPLING)
        assert client.stats.retries == 2
    assert reply.text and fake_llm.request_count == 3


def test_backoff_doubles(fake_llm: FakeLLMServer) -> None:
    fake_llm.fail_next("500", times=3)
    waits: list[float] = []
    config = _config(fake_llm, None, backoff_s=0.5, max_retries=3, concurrency=1)
    with LLMClient(config, progress=False, sleep=waits.append) as client:
        client.complete(CONTINUATION, _requests(1), SAMPLING)
    assert waits == [0.5, 1.0, 2.0]


@pytest.mark.parametrize(("kind", "expected"), [("500", "HTTP 500"), ("timeout", "timed out after 0.2 s")])
def test_retries_exhausted_final_message(fake_llm: FakeLLMServer, kind: str, expected: str) -> None:
    fake_llm.always_fail(kind)
    with (LLMClient(_config(fake_llm, None, timeout_s=0.2, concurrency=1), progress=False) as client,
          pytest.raises(LLMError) as err):
        client.complete(CONTINUATION, _requests(1), SAMPLING)
    assert f"{fake_llm.url}/completions failed after 3 attempts; last: {expected}" in str(err.value)
    # an attempt the client gave up on may still wait to be read by the server's thread on a loaded box
    deadline = time.monotonic() + 5
    while fake_llm.request_count < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake_llm.request_count == 3


def test_unreachable_endpoint() -> None:
    config = LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", backoff_s=0, max_retries=1)
    with LLMClient(config, progress=False) as client, pytest.raises(LLMError, match="could not reach the endpoint"):
        client.complete(CONTINUATION, _requests(1), SAMPLING)


@pytest.mark.parametrize(("kind", "expected"), [("malformed", "invalid JSON"), ("no_choices", "without choices")])
def test_bad_replies_are_not_retried(fake_llm: FakeLLMServer, kind: str, expected: str) -> None:
    fake_llm.always_fail(kind)
    with LLMClient(_config(fake_llm, None), progress=False) as client, pytest.raises(LLMResponseError, match=expected):
        client.complete(CONTINUATION, _requests(1), SAMPLING)
    assert fake_llm.request_count == 1


def test_401_names_the_variable_never_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIEMBED_TEST_KEY", "sk-wrong-secret")
    cache = tmp_path / "c.sqlite"
    with FakeLLMServer(required_api_key="sk-right").running() as server:
        config = _config(server, cache, api_key_env="SCIEMBED_TEST_KEY")
        with LLMClient(config, progress=False) as client, pytest.raises(LLMAuthError) as err:
            client.complete(CONTINUATION, _requests(1), SAMPLING)
        assert server.request_count == 1  # not retried
        assert server.auth_headers == ["Bearer sk-wrong-secret"]
    message = str(err.value)
    assert "HTTP 401" in message and "SCIEMBED_TEST_KEY (set)" in message and "sk-wrong" not in message


def test_api_key_never_written_to_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIEMBED_TEST_KEY", "sk-very-secret-123")
    cache = tmp_path / "c.sqlite"
    with FakeLLMServer(required_api_key="sk-very-secret-123").running() as server:
        with LLMClient(_config(server, cache, api_key_env="SCIEMBED_TEST_KEY"), progress=False) as client:
            client.complete(CONTINUATION, _requests(2), SAMPLING)
        assert server.auth_headers == ["Bearer sk-very-secret-123"] * 2
    assert b"sk-very-secret" not in cache.read_bytes()


def test_cache_only_fails_on_miss_and_replays_without_endpoint(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with LLMClient(_config(fake_llm, cache, cache_only=True), progress=False) as client, \
            pytest.raises(LLMCacheMissError, match=r"2 of 2 requests .* not in .*c\.sqlite; nothing was sent"):
        client.complete(CONTINUATION, _requests(2), SAMPLING)
    assert fake_llm.request_count == 0
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        made = client.complete(CONTINUATION, _requests(2), SAMPLING)
    copied = tmp_path / "elsewhere" / "copy.sqlite"  # another machine, no endpoint at all
    copied.parent.mkdir()
    copied.write_bytes(cache.read_bytes())
    with LLMClient(_config(None, copied, cache_only=True), progress=False) as client:
        replayed = client.complete(CONTINUATION, _requests(2), SAMPLING)
    assert [r.text for r in replayed] == [r.text for r in made] and fake_llm.request_count == 2


def test_concurrency_limit(tmp_path: Path) -> None:
    with FakeLLMServer(delay_s=0.05).running() as server:
        with LLMClient(_config(server, None, concurrency=3), progress=False) as client:
            client.complete(CONTINUATION, _requests(12), SAMPLING)
        assert server.request_count == 12 and 2 <= server.max_in_flight <= 3


def test_failed_run_keeps_finished_replies_and_resumes(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    with LLMClient(_config(fake_llm, cache, concurrency=1), progress=False) as client:
        client.complete(CONTINUATION, _requests(3), SAMPLING)
    fake_llm.always_fail("500")
    with LLMClient(_config(fake_llm, cache, concurrency=1), progress=False) as client, \
            pytest.raises(LLMError, match="a re-run resumes"):
        client.complete(CONTINUATION, _requests(6), SAMPLING)
    fake_llm.always_fail(None)
    before = fake_llm.request_count
    with LLMClient(_config(fake_llm, cache, concurrency=1), progress=False) as client:
        client.complete(CONTINUATION, _requests(6), SAMPLING)
        assert client.stats.cached == 3 and client.stats.called == 3
    assert fake_llm.request_count - before == 3


def test_killed_run_never_half_writes_the_cache(tmp_path: Path) -> None:
    """kill -9 in the middle of a run: the cache opens, passes SQLite's integrity check, and every
    row is a complete reply that a re-run serves without calling."""
    cache = tmp_path / "c.sqlite"
    with FakeLLMServer(delay_s=0.02).running() as server:
        script = textwrap.dedent(f"""
            from sciembed.llm import LLMClient, LLMConfig, LLMRequest, Sampling, load_prompt
            config = LLMConfig(base_url={server.url!r}, model="fake-model", cache_path={str(cache)!r},
                               concurrency=4, backoff_s=0)
            values = [{{"title": f"P{{i}}", "abstract": "A.", "stem": "In summary,"}} for i in range(5000)]
            requests = [LLMRequest(v) for v in values]
            with LLMClient(config, progress=False) as client:
                client.complete(load_prompt("semcse_continuation"), requests, Sampling(max_tokens=32))
        """)
        proc = subprocess.Popen([sys.executable, "-c", script])
        deadline = time.time() + 30
        while server.request_count < 40 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.kill()
        proc.wait()
        assert server.request_count >= 40
        db = sqlite3.connect(cache)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT text, finish_reason, sample FROM replies").fetchall()
        db.close()
        assert 0 < len(rows) < 5000 and all(text.strip() and finish == "stop" for text, finish, _ in rows)
        assert len(LLMCache(cache)) == len(rows)
        requests = [LLMRequest({"title": f"P{i}", "abstract": "A.", "stem": "In summary,"}) for i in range(5000)]
        before = server.request_count
        config = LLMConfig(base_url=server.url, model="fake-model", cache_path=cache, cache_only=True)
        with LLMClient(config, progress=False) as client, pytest.raises(LLMCacheMissError) as err:
            client.complete(CONTINUATION, requests, Sampling(max_tokens=32))
        assert f"{5000 - len(rows)} of 5000 requests" in str(err.value) and server.request_count == before


def test_not_a_cache_file(tmp_path: Path) -> None:
    bad = tmp_path / "c.sqlite"
    bad.write_text("hello, this is not sqlite at all" * 100)
    with pytest.raises(CacheFileError, match="not an LLM cache"):
        LLMCache(bad)


def test_no_model_and_cache_only_without_cache() -> None:
    with pytest.raises(LLMError, match="no LLM model"):
        LLMClient(LLMConfig(base_url="http://x"))
    with pytest.raises(LLMError, match="needs a cache file"):
        LLMClient(LLMConfig(model="m", cache_only=True))
