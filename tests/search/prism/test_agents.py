"""PRISM's LLM agents against the fake OpenAI-compatible server: cache, retries, cache-only, single-agent JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.llm_server import FakeLLMServer
from sciembed.llm import LLMCacheMissError, LLMClient, LLMConfig, LLMError
from sciembed.search.prism.agents import SingleAgentParseError, llm_query_sets, parse_single_agent

from .conftest import paper

PAPERS = [paper("p1", "graph neural networks"), paper("p2", "speech recognition"), paper("p3", "x", body=False)]
GOOD = {"research_question_query": "Why graphs?", "method_query": "Message passing.",
        "experiment_query": "Molecule benchmarks."}


def _config(server: FakeLLMServer | None, cache: Path | None, **kw) -> LLMConfig:
    base = {"model": "fake-model", "backoff_s": 0.0, "timeout_s": 0.5, "max_retries": 2, "concurrency": 2}
    return LLMConfig(base_url=server.url if server else None, cache_path=cache, **{**base, **kw})


@pytest.fixture
def fake_llm():
    with FakeLLMServer(timeout_delay_s=1.0).running() as server:
        yield server


def test_agents_one_call_per_aspect_then_cache_hits_make_no_request(fake_llm, tmp_path):
    cache = tmp_path / "llm.sqlite"
    with LLMClient(_config(fake_llm, cache), progress=False) as client:
        first = llm_query_sets(PAPERS, client, samples=2)
    assert fake_llm.request_count == 2 * 2 * 3  # papers with a body × samples × aspects
    sent = fake_llm.requests[0]["messages"]
    assert sent[0]["role"] == "system" and "RESEARCH QUESTION" in sent[0]["content"]
    assert sent[1]["content"].startswith("A paper on graph neural networks")  # the whole cleaned paper
    p1 = next(q for q in first if q.paper_id == "p1" and q.sample == 0)
    assert set(p1.queries) == {"research_question", "method", "experiment", "abstract"}
    assert p1.sources["method"] == "llm:fake-model"
    bare = next(q for q in first if q.paper_id == "p3")
    assert set(bare.queries) == {"abstract"} and "only the abstract query" in bare.notes[0]
    with LLMClient(_config(None, cache, cache_only=True), progress=False) as client:
        again = llm_query_sets(PAPERS, client, samples=2)
    assert fake_llm.request_count == 12  # nothing sent
    replayed = next(q for q in again if q.paper_id == "p1" and q.sample == 0)
    assert replayed.queries == p1.queries and replayed.sources["method"] == "cache:fake-model"


def test_cache_only_miss_fails_before_sending(fake_llm, tmp_path):
    with (LLMClient(_config(fake_llm, tmp_path / "empty.sqlite", cache_only=True), progress=False) as client,
          pytest.raises(LLMCacheMissError, match="not in")):
        llm_query_sets(PAPERS[:1], client)
    assert fake_llm.request_count == 0


def test_retries_then_final_error(fake_llm, tmp_path):
    fake_llm.fail_next("429", 2)
    with LLMClient(_config(fake_llm, tmp_path / "c.sqlite"), progress=False) as client:
        llm_query_sets(PAPERS[:1], client, aspects=["method"])
        assert client.stats.retries == 2
    fake_llm.always_fail("500")
    with (LLMClient(_config(fake_llm, None), progress=False) as client,
          pytest.raises(LLMError, match=r"failed after 3 attempts; last: HTTP 500")):
        llm_query_sets(PAPERS[1:2], client, aspects=["method"])


def test_single_agent_json_good_fenced_and_broken(tmp_path):
    assert parse_single_agent(json.dumps(GOOD))["method"] == "Message passing."
    fenced = "Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nHope it helps."
    assert parse_single_agent(fenced)["experiment"] == "Molecule benchmarks."
    with pytest.raises(SingleAgentParseError, match="not parseable JSON"):
        parse_single_agent('{"method_query": "unterminated')
    with pytest.raises(SingleAgentParseError, match="lacks experiment_query"):
        parse_single_agent(json.dumps({k: v for k, v in GOOD.items() if k != "experiment_query"}))


def test_single_agent_over_the_server_with_structured_output(tmp_path):
    replies = iter([f"```json\n{json.dumps(GOOD)}\n```", "sorry, I cannot do JSON"])
    server = FakeLLMServer(responder=lambda endpoint, body: next(replies))
    with server.running(), LLMClient(_config(server, None, concurrency=1), progress=False) as client:
        sets = llm_query_sets(PAPERS[:1], client, single_agent=True, structured=True)
        assert sets[0].queries["method"] == "Message passing."
        assert sets[0].sources["method"] == "llm:fake-model:single-agent"
        assert server.requests[0]["response_format"]["type"] == "json_schema"
        with pytest.raises(SingleAgentParseError, match="paper p2 sample 0"):
            llm_query_sets(PAPERS[1:2], client, single_agent=True)
