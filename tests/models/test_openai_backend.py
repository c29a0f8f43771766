"""The ``openai`` encoder backend against the fake ``/v1/embeddings`` server: batching, order, checks, cache, CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer, fake_embedding
from sciembed.cli.main import app
from sciembed.llm import LLMAuthError, LLMResponseError
from sciembed.llm.config import LLMConfig
from sciembed.models import CachedEncoder, load_encoder
from sciembed.models.openai_backend import OpenAIEmbeddingEncoder
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper

runner = CliRunner(env={"COLUMNS": "200"})
TEXTS = ["graph neural networks for molecules", "protein folding with attention", "graph networks",
         "speech recognition in noise", "machine translation of news"]


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(timeout_delay_s=1.0).running() as fake:
        yield fake


def _embedding_requests(server: FakeLLMServer) -> list[dict]:
    return [r for r in server.requests if r["endpoint"] == "embeddings"]


def _load(server: FakeLLMServer, **options):
    return load_encoder("fake-embed", backend="openai", base_url=server.url, **options)


def test_batched_concurrent_requests_give_the_servers_vectors_in_input_order(server):
    encoder = _load(server, dimensions=16)
    vectors = encoder.encode(TEXTS, batch_size=2, show_progress=False)
    expected = np.array([fake_embedding(t, 16) for t in TEXTS], dtype=np.float32)
    assert vectors.shape == (5, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    sent = _embedding_requests(server)
    assert sorted(len(r["input"]) for r in sent) == [1, 2, 2]  # lists of at most batch_size, 3 requests
    assert all(r["model"] == "fake-embed" and r["dimensions"] == 16 and r["encoding_format"] == "float" for r in sent)
    assert encoder.dim == 16 and encoder.backend == "openai"
    assert float(vectors[0] @ vectors[2]) > float(vectors[0] @ vectors[3])  # shared words: closer


def test_reply_items_are_put_back_by_index_and_the_first_reply_fixes_the_dimension(server):
    encoder = _load(server)
    server.fail_next("shuffled", 1)
    vectors = encoder.encode(TEXTS, show_progress=False)  # the reply comes back reversed, each item with its index
    np.testing.assert_allclose(vectors, [fake_embedding(t, 32) for t in TEXTS], atol=1e-6)
    server.fail_next("shuffled", 1)
    np.testing.assert_allclose(encoder.encode(TEXTS, show_progress=False), vectors, atol=1e-6)
    assert len(_embedding_requests(server)) == 2 and encoder.dim == 32  # no probe: the first reply told the size
    server.fail_next("wrong_dim", 1)
    with pytest.raises(LLMResponseError, match="31-d embedding for input 4; expected 32-d"):
        encoder.encode(TEXTS, show_progress=False)


@pytest.mark.parametrize("failure, message", [
    ("wrong_count", "answered 4 embeddings for 5 inputs"),
    ("nan", "not a finite number"),
    ("wrong_dim", "answered a 15-d embedding for input 4; expected 16-d"),
    ("malformed", "invalid JSON"),
    ("no_choices", "without a data list"),
])
def test_a_bad_reply_is_a_clear_input_error(server, failure, message):
    encoder = _load(server, dimensions=16)
    server.fail_next(failure, 1)
    with pytest.raises(LLMResponseError, match=message) as err:
        encoder.encode(TEXTS, show_progress=False)
    assert "/v1/embeddings" in str(err.value)


def test_retries_then_answers_and_the_key_comes_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("EMBED_KEY_FOR_TEST", "s3cret")
    with FakeLLMServer(required_api_key="s3cret").running() as server:
        encoder = load_encoder("fake-embed", backend="openai", base_url=server.url, dimensions=8,
                               api_key_env="EMBED_KEY_FOR_TEST")
        encoder.client._sleep = lambda seconds: None
        server.fail_next("429", 2)
        assert encoder.encode(["a text"], show_progress=False).shape == (1, 8)
        assert encoder.client.stats.retries == 2 and set(server.auth_headers) == {"Bearer s3cret"}
        assert "s3cret" not in str(encoder.describe()) and encoder.describe()["api_key_env"] == "EMBED_KEY_FOR_TEST"
        monkeypatch.setenv("EMBED_KEY_FOR_TEST", "wrong")
        other = load_encoder("fake-embed", backend="openai", base_url=server.url, dimensions=8,
                             api_key_env="EMBED_KEY_FOR_TEST")
        with pytest.raises(LLMAuthError, match="EMBED_KEY_FOR_TEST"):
            other.encode(["a text"], show_progress=False)


def test_a_reply_over_the_size_bound_is_refused(server):
    config = LLMConfig(base_url=server.url, model="fake-embed", max_reply_bytes=2_000)
    encoder = OpenAIEmbeddingEncoder("fake-embed", config, dimensions=64)
    with pytest.raises(LLMResponseError, match=r"over 2,000 bytes|limit is 2,000 bytes"):
        encoder.encode(TEXTS, show_progress=False)


def test_cached_second_run_sends_nothing(server, tmp_path):
    first = _load(server, cache_dir=tmp_path)
    assert isinstance(first, CachedEncoder)
    vectors = first.encode(TEXTS, show_progress=False)
    sent = len(_embedding_requests(server))
    again = _load(server, cache_dir=tmp_path)  # a new process: the dimension comes from the cache file
    np.testing.assert_array_equal(again.encode(TEXTS, show_progress=False), vectors)
    assert len(_embedding_requests(server)) == sent and again.last.hits == len(TEXTS)


def test_a_run_that_fails_half_way_resumes_from_the_cache(server, tmp_path):
    encoder = _load(server, dimensions=8, cache_dir=tmp_path)
    encoder.encoder.cache_every = 2  # commit every two texts
    calls = {"n": 0}
    real = encoder.encoder.encode

    def failing_third_call(texts, **kwargs):  # texts 0-1 and 2-3 are answered, then the server goes away
        calls["n"] += 1
        if calls["n"] == 3:
            raise LLMResponseError("the server went away")
        return real(texts, **kwargs)

    encoder.encoder.encode = failing_third_call
    with pytest.raises(LLMResponseError):
        encoder.encode(TEXTS, show_progress=False)
    again = _load(server, dimensions=8, cache_dir=tmp_path)
    before = len(_embedding_requests(server))
    vectors = again.encode(TEXTS, show_progress=False)
    assert before == 2 and again.last.hits == 4 and again.last.encoded == 1  # only the last text is sent
    assert [r["input"] for r in _embedding_requests(server)[before:]] == [[TEXTS[4]]]
    np.testing.assert_allclose(vectors, [fake_embedding(t, 8) for t in TEXTS], atol=1e-6)


def test_fingerprint_binds_url_model_and_dimensions(server):
    base = _load(server).fingerprint
    assert base == _load(server).fingerprint
    other_url = load_encoder("fake-embed", backend="openai", base_url=server.url.replace("127.0.0.1", "localhost"))
    other_model = load_encoder("other-embed", backend="openai", base_url=server.url)
    assert len({base, other_url.fingerprint, other_model.fingerprint, _load(server, dimensions=16).fingerprint,
                _load(server, max_seq_length=128).fingerprint}) == 5


def test_long_texts_are_cut_to_the_token_budget_and_options_are_checked(server):
    encoder = _load(server, dimensions=8, max_seq_length=10, prefix="query: ")
    encoder.encode([" ".join(f"w{i}" for i in range(100)), ""], show_progress=False)
    sent = _embedding_requests(server)[-1]["input"]
    assert sent[0] == "query: " + " ".join(f"w{i}" for i in range(7)) and sent[1] == "query: "
    assert encoder.count_tokens("one two three four five six seven") == 10
    with pytest.raises(ValueError, match="do not apply to backend 'openai'"):
        _load(server, quantize=True)
    with pytest.raises(ValueError, match="belong to backend 'openai'"):
        load_encoder("minilm", base_url=server.url)
    with pytest.raises(Exception, match="--embeddings-base-url"):
        load_encoder("fake-embed", backend="openai")


def test_index_build_and_search_with_backend_openai(server, tmp_path):
    papers = [Paper(f"P{i}", t.title(), f"This abstract is about {t}.") for i, t in enumerate(TEXTS)]
    (tmp_path / "corpus").mkdir()
    write_parquet(papers, tmp_path / "corpus" / "papers.parquet")
    out, cache = tmp_path / "index", tmp_path / "cache"
    result = runner.invoke(app, ["index", "build", str(tmp_path / "corpus"), "-o", str(out), "--backend", "openai",
                                 "--view", "ta", "-m", "fake-embed", "--embeddings-base-url", server.url,
                                 "--embeddings-dimensions", "24", "--cache-dir", str(cache)])
    assert result.exit_code == 0, result.output
    assert "indexed 5 of 5 papers" in result.output
    built = json.loads((out / "manifest.json").read_text())["encoder"]
    assert (built["backend"], built["base_url"], built["dimensions"], built["dim"]) == ("openai", server.url, 24, 24)
    result = runner.invoke(app, ["index", "search", str(out), "--query", "protein folding", "--k", "2",
                                 "--output-format", "json"])  # the query is embedded by the same server
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["hits"][0]["paper_id"] == "P1"
    assert _embedding_requests(server)[-1]["input"] == ["protein folding"]
    result = runner.invoke(app, ["encode", str(tmp_path / "corpus"), "-o", str(tmp_path / "vectors"), "--backend",
                                 "openai", "-m", "fake-embed", "--embeddings-base-url", server.url, "--no-progress"])
    assert result.exit_code == 0 and "encoded 5 papers" in result.output, result.output
    encoded = json.loads((tmp_path / "vectors" / "manifest.json").read_text())["encoder"]
    assert (encoded["backend"], encoded["base_url"], encoded["dim"]) == ("openai", server.url, 32)
    result = runner.invoke(app, ["index", "build", str(tmp_path / "corpus"), "-o", str(tmp_path / "bad"),
                                 "--backend", "openai", "-m", "fake-embed"])
    assert result.exit_code == 2 and "--embeddings-base-url" in result.output
