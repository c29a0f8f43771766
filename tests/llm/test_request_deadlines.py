"""Issue 33, defects 9 and 5: one deadline for the whole outside request (headers included), the embeddings
client's timeout and retries from the command line, and all-zero vectors refused.

The fake server sends each piece well inside any per-read timeout; only a deadline on the whole request ends
the call in time. Before, a server that dripped its headers held the caller for as long as it liked.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from sciembed.cli.main import app
from sciembed.ioutil import deadline
from sciembed.llm import LLMClient, LLMConfig, LLMError, LLMRequest, LLMResponseError, Sampling, load_prompt
from sciembed.models import load_encoder
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper

DRIP_S = 8.0  # how long the fake server takes over its headers (or body), a few bytes every 50 ms
PROMPT = load_prompt("semantic_query")
SAMPLING = Sampling(temperature=0.0, max_tokens=40)


@pytest.fixture
def slow() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(timeout_delay_s=DRIP_S).running() as fake:
        yield fake


def _chat(server: FakeLLMServer, timeout_s: float) -> None:
    config = LLMConfig(base_url=server.url, model="m", max_retries=0, backoff_s=0.0, timeout_s=timeout_s)
    with LLMClient(config, progress=False) as client:
        client.chat(PROMPT, [LLMRequest({"title": "T", "abstract": "A."})], SAMPLING)


@pytest.mark.parametrize("failure", ["slow_headers", "drip"])
def test_llm_timeout_bounds_the_whole_request_headers_included(slow, failure):
    slow.fail_next(failure)
    started = time.monotonic()
    with pytest.raises(LLMError, match="timed out after 1 s"):
        _chat(slow, timeout_s=1.0)
    assert time.monotonic() - started < 3.0


def test_an_outer_budget_ends_the_request_and_its_retries(slow):
    slow.always_fail("slow_headers")
    config = LLMConfig(base_url=slow.url, model="m", max_retries=5, backoff_s=0.0, timeout_s=30.0)
    started = time.monotonic()
    with LLMClient(config, progress=False) as client, deadline.deadline(1.0), \
            pytest.raises((LLMError, deadline.DeadlineExceeded)):
        client.chat(PROMPT, [LLMRequest({"title": "T", "abstract": "A."})], SAMPLING)
    assert time.monotonic() - started < 3.0


def test_embeddings_slow_headers_are_bounded_and_zero_vectors_refused(slow):
    encoder = load_encoder("fake-embed", backend="openai", base_url=slow.url, dimensions=8, timeout_s=1.0,
                           max_retries=0)
    assert (encoder.client.config.timeout_s, encoder.client.config.max_retries) == (1.0, 0)
    slow.fail_next("slow_headers")
    started = time.monotonic()
    with pytest.raises(LLMError, match="timed out"):
        encoder.encode(["a text"], show_progress=False)
    assert time.monotonic() - started < 3.0
    slow.fail_next("zeros")
    with pytest.raises(LLMResponseError, match="all-zero embedding for input 0"):
        encoder.encode(["a text", "another"], show_progress=False)
    assert encoder.encode(["a text"], show_progress=False).shape == (1, 8)


def test_embeddings_timeout_and_retries_from_the_environment(monkeypatch):
    monkeypatch.setenv("SCIEMBED_EMBEDDINGS_TIMEOUT", "2.5")
    monkeypatch.setenv("SCIEMBED_EMBEDDINGS_RETRIES", "1")
    encoder = load_encoder("m", backend="openai", base_url="http://127.0.0.1:9/v1", dimensions=4)
    assert (encoder.client.config.timeout_s, encoder.client.config.max_retries) == (2.5, 1)
    monkeypatch.setenv("SCIEMBED_EMBEDDINGS_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="SCIEMBED_EMBEDDINGS_TIMEOUT"):
        load_encoder("m", backend="openai", base_url="http://127.0.0.1:9/v1", dimensions=4)


def test_index_build_takes_embeddings_timeout_and_retries(slow, tmp_path, monkeypatch):
    monkeypatch.setenv("SCIEMBED_EMBEDDINGS_TIMEOUT", "0.5")  # run-time settings, not the EncoderSpec's
    monkeypatch.setenv("SCIEMBED_EMBEDDINGS_RETRIES", "1")
    (tmp_path / "corpus").mkdir()
    write_parquet([Paper("P0", "A title", "An abstract about graphs.")], tmp_path / "corpus" / "papers.parquet")
    slow.always_fail("slow_headers")
    started = time.monotonic()
    result = CliRunner().invoke(app, [
        "index", "build", str(tmp_path / "corpus"), "-o", str(tmp_path / "index"), "--backend", "openai",
        "-m", "fake-embed", "--embeddings-base-url", slow.url, "--embeddings-dimensions", "8"])
    assert result.exit_code == 2, result.output
    assert "failed after 2 attempts" in result.output and "timed out after 0.5 s" in result.output
    assert time.monotonic() - started < 2 * DRIP_S and len(slow.requests) == 2
