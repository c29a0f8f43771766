"""Summaries: cut at the first sentence end, LLM generation through the cache, extractive pseudo-
summaries, the summaries file checks, the SciTLDR importer and the CLI's bad-input messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from sciembed.cli.main import app
from sciembed.llm import LLMClient, LLMConfig, Sampling
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper
from sciembed.summaries import Summary, read_summaries, write_summaries
from sciembed.summaries.extractive import pseudo_summary
from sciembed.summaries.generate import (
    STEMS,
    fill_to_minimum,
    first_sentence,
    generate_extractive_summaries,
    generate_llm_summaries,
)
from sciembed.summaries.scitldr import import_scitldr
from sciembed.views.chunk import split_sentences

ABSTRACT = ("In this paper, we propose a sparse attention method (SAM) for long documents [3]. "
            "We show that it halves memory on three benchmarks. Results indicate gains of 2.5 points, "
            "which hold across model sizes and datasets of varied length and domain and more.")


def _papers(n: int = 4) -> list[Paper]:
    return [Paper(id=f"p{i}", title=f"Paper number {i}", abstract=ABSTRACT.replace("three", f"{i + 3}")) for i in
            range(n)]


@pytest.mark.parametrize(("text", "cut", "ended"), [
    (" the model works well. Then more text.", "the model works well.", True),
    ("gains of 2.5 points, e.g. on SQuAD, hold. Next", "gains of 2.5 points, e.g. on SQuAD, hold.", True),
    ("as shown by Smith et al. in 2020 it works! Yes.", "as shown by Smith et al. in 2020 it works!", True),
    ("it works (see Fig. 2) across tasks.) More", "it works (see Fig. 2) across tasks.)", True),
    ("  no sentence end in this reply", "no sentence end in this reply", False),
])
def test_first_sentence(text: str, cut: str, ended: bool) -> None:
    assert first_sentence(text) == (cut, ended)


def test_llm_generation_cuts_counts_and_is_cached(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    papers = [*_papers(2), Paper(id="empty", title="No abstract", abstract="")]
    config = LLMConfig(base_url=fake_llm.url, model="base-lm", cache_path=tmp_path / "c.sqlite", backoff_s=0)
    fake_llm.fail_next("empty", times=1)
    with LLMClient(config, progress=False) as client:
        summaries, counts = generate_llm_summaries(papers, client, Sampling(temperature=1.0, max_tokens=40))
    assert counts.requests == 2 * 5 * 3 and fake_llm.request_count == 30
    assert counts.rejected == {"LLM reply empty or only whitespace": 1} and counts.accepted == 29
    assert counts.papers_without_abstract == 1
    assert all(s.text.endswith(").") and ". Then" not in s.text for s in summaries)  # cut at the first end
    assert {s.source for s in summaries} == {"llm:base-lm"}
    prompts = [r["prompt"] for r in fake_llm.requests]
    assert sum(p.endswith(STEMS[0]) for p in prompts) == 6 and all(r["max_tokens"] == 40 for r in fake_llm.requests)
    # a re-run is served from the cache: no request at all (the empty reply was cached as such)
    with LLMClient(config, progress=False) as client:
        again, counts2 = generate_llm_summaries(papers, client, Sampling(temperature=1.0, max_tokens=40))
    assert fake_llm.request_count == 30 and counts2.cached == 30
    assert [s.text for s in again] == [s.text for s in summaries]


def test_truncated_replies_are_counted(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    fake_llm.responder = lambda endpoint, body: " a reply that goes on and on without any end at all"
    with LLMClient(LLMConfig(base_url=fake_llm.url, model="m", backoff_s=0), progress=False) as client:
        summaries, counts = generate_llm_summaries(_papers(1), client, Sampling(max_tokens=5), samples=1)
    assert counts.truncated == 5 and len(summaries) == 5
    assert summaries[0].text == "a reply that goes on" and summaries[0].extra["complete_sentence"] is False


def test_extractive_pseudo_summaries_are_deterministic_labelled_and_rewritten() -> None:
    paper = _papers(1)[0]
    first = pseudo_summary(paper, stem=1, sample=2)
    assert first == pseudo_summary(paper, stem=1, sample=2)
    assert first.source == "extractive-pseudo" and first.text.endswith(".")
    sentences = set(split_sentences(paper.abstract))
    summaries, counts = generate_extractive_summaries(_papers(3))
    assert counts.requests == 3 * 15 and counts.accepted + sum(counts.rejected.values()) == 45
    assert not any(s.text in sentences for s in summaries)  # never an abstract sentence verbatim
    assert not any("we " in s.text.lower().split(" the ")[0][:3] for s in summaries)
    assert "(SAM)" not in " ".join(s.text for s in summaries) and "[3]" not in " ".join(s.text for s in summaries)
    assert pseudo_summary(Paper(id="x", title="T", abstract="Too short."), 0, 0) is None


def test_fill_to_minimum_adds_pseudo_summaries_only_where_needed() -> None:
    papers = _papers(3)
    have = [Summary("p0", "A TLDR.", "scitldr:author"), Summary("p1", "One.", "x"), Summary("p1", "Two.", "x")]
    filled, added = fill_to_minimum(papers, have, 2)
    counts = {p.id: sum(s.paper_id == p.id for s in filled) for p in papers}
    assert counts == {"p0": 2, "p1": 2, "p2": 2} and added == 3
    assert {s.source for s in filled[3:]} == {"extractive-pseudo"}


def test_read_summaries_rejects_with_line_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([
        json.dumps({"paper_id": "p0", "text": "Good summary.", "source": "llm:x"}),
        json.dumps({"paper_id": "nope", "text": "Unknown paper.", "source": "llm:x"}),
        json.dumps({"paper_id": "p1", "text": "   ", "source": "llm:x"}),
        "{broken",
        json.dumps({"paper_id": "p1", "text": "No source."}),
    ]) + "\n")
    read = read_summaries(path, {"p0", "p1"})
    assert read.read == 5 and len(read.summaries) == 1
    assert read.rejected == {"paper_id not in the corpus": 1, "empty summary text": 1, "not valid JSON": 1,
                             "missing source": 1}
    assert read.examples["paper_id not in the corpus"] == "s.jsonl:2"
    assert "1 empty summary text (first at s.jsonl:3)" in read.problems()


def test_scitldr_importer_on_the_real_dev_split(shared_data: Path, tmp_path: Path) -> None:
    manifest = import_scitldr(shared_data / "scitldr" / "dev.jsonl", tmp_path / "dev")
    assert manifest["counts"] == {"read": 619, "accepted": 619, "rejected": 0}
    read = read_summaries(tmp_path / "dev" / "summaries.jsonl")
    assert len(read.summaries) == manifest["summaries"]["written"] == 1453
    assert read.by_source["scitldr:author"] == 619
    assert manifest["summaries"]["papers_by_tldr_count"] == {"1": 94, "2": 237, "3": 267, "4": 21}


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    write_parquet(_papers(4), root / "papers.parquet")
    (root / "manifest.json").write_text("{}")
    return root


def test_cli_from_file_with_unknown_papers_exits_2(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    bad = tmp_path / "bad.jsonl"
    write_summaries([Summary("p0", "Fine.", "human"), Summary("ghost", "Unknown.", "human")], bad)
    result = CliRunner().invoke(app, ["summaries", "generate", str(corpus), "--from", str(bad),
                                      "--out", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 2
    assert "1 of 2 lines rejected: 1 paper_id not in the corpus (first at bad.jsonl:2)" in " ".join(
        result.output.split())
    assert not (tmp_path / "out.jsonl").exists()


def test_cli_generate_with_fake_llm_then_cache_only(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    args = ["summaries", "generate", str(corpus), "--out", str(tmp_path / "s.jsonl"), "--samples", "1",
            "--stems", "2", "--llm-model", "base-lm", "--llm-cache", str(tmp_path / "c.sqlite")]
    first = CliRunner().invoke(app, [*args, "--llm-base-url", fake_llm.url])
    assert first.exit_code == 0, first.output
    assert fake_llm.request_count == 8
    replay = CliRunner().invoke(app, [*args, "--llm-cache-only"])
    assert replay.exit_code == 0, replay.output
    assert fake_llm.request_count == 8
    report = json.loads((tmp_path / "s.jsonl.report.json").read_text())
    assert report["mode"] == "llm" and report["written"] == 8 and report["llm_calls"]["cached"] == 8


def test_cli_offline_default_is_labelled_extractive(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    result = CliRunner().invoke(app, ["summaries", "generate", str(corpus), "--out", str(tmp_path / "s.jsonl"),
                                      "--samples", "1"])
    assert result.exit_code == 0, result.output
    assert "EXTRACTIVE PSEUDO-summaries" in result.output
    assert {s.source for s in read_summaries(tmp_path / "s.jsonl").summaries} == {"extractive-pseudo"}


def test_cli_queries_with_fake_llm_feed_the_semantic_benchmark(fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    from sciembed.evaluation.semantic import build_semantic_benchmark

    corpus = _corpus(tmp_path)
    fake_llm.responder = lambda endpoint, body: f'"sparse attention query {len(body["messages"][1]["content"])}"'
    fake_llm.fail_next("empty", times=1)
    out = tmp_path / "q.jsonl"
    result = CliRunner().invoke(app, ["summaries", "queries", str(corpus), "--out", str(out), "--llm-base-url",
                                      fake_llm.url, "--llm-model", "chat-lm", "--llm-concurrency", "1"])
    assert result.exit_code == 0, result.output
    assert "4 papers: 3 queries written" in " ".join(result.output.split()) and "1 empty LLM replies" in result.output
    assert fake_llm.requests[0]["endpoint"] == "chat"
    bench = build_semantic_benchmark(corpus, queries_file=out)
    assert bench.query_source == "llm:chat-lm" and bench.counts["queries"]["query2paper"] == 3
    assert all(q.startswith("sparse attention query") for q in bench.tasks["query2paper"].queries)
