"""`sciembed prism`, `sciembed prism queries` (extractive and through the fake LLM) and `eval --paper-to-paper`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from fakes.models import build_tiny_bert
from sciembed.cli.main import app
from sciembed.papers.io import write_parquet

from .conftest import paper

runner = CliRunner(env={"COLUMNS": "200"})
FIXTURE = Path(__file__).parents[2] / "evaluation" / "data" / "scifullbench"
TOPICS = ["protein folding dynamics", "protein folding energy", "galaxy cluster lensing", "speech recognition models",
          "graph neural networks"]


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("prism")
    papers = [paper(f"p{i}", t) for i, t in enumerate(TOPICS)] + [paper("nobody", "empty", body=False)]
    corpus = root / "corpus"
    corpus.mkdir()
    write_parquet(papers, corpus / "papers.parquet")
    words = {w.strip(".,:;").lower() for p in papers for s in (p.title, p.abstract, *(x.text for x in p.sections),
                                                               *(x.heading for x in p.sections)) for w in s.split()}
    words |= {w.strip(".,:;#*()[]").lower() for f in FIXTURE.rglob("*.*") for w in f.read_text().split()}
    return corpus, build_tiny_bert(root / "tiny", sorted(words), seed=0)


def test_prism_search_json_and_table(setup):
    corpus, tiny = setup
    result = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "p0", "--model", str(tiny),
                                 "--output-format", "json", "--k", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["paper"] == "p0" and len(data["hits"]) == 3
    assert "p0" not in [h["paper_id"] for h in data["hits"]]
    assert data["query_sources"]["method"] == "extractive:method"
    assert all(h["found_by"] for h in data["hits"])
    table = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "p0", "--model", str(tiny)])
    assert table.exit_code == 0 and "not PRISM's LLM" in table.output and "found by" in table.output
    bad = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "zz", "--model", str(tiny)])
    assert bad.exit_code == 2 and "no paper 'zz' in" in bad.output


def test_prism_queries_extractive_then_llm_then_cache_only(setup, tmp_path):
    corpus, tiny = setup
    out = tmp_path / "q.jsonl"
    result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(out), "--paper", "p1",
                                 "--paper", "nobody"])
    assert result.exit_code == 0, result.output
    assert "extractive:method 1" in result.output and "1 with notes" in result.output
    cache = tmp_path / "llm.sqlite"
    with FakeLLMServer().running() as server:
        result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(out), "--paper", "p1",
                                     "--llm-base-url", server.url, "--llm-model", "fake-model",
                                     "--llm-cache", str(cache), "--samples", "2"])
        assert result.exit_code == 0, result.output
        assert server.request_count == 6 and "llm:fake-model 6" in result.output
    result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(out), "--paper", "p1",
                                 "--llm-model", "fake-model", "--llm-cache", str(cache), "--llm-cache-only",
                                 "--samples", "2"])
    assert result.exit_code == 0 and "cache:fake-model 6" in result.output, result.output
    searched = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "p1", "--queries", str(out),
                                   "--sample", "1", "--model", str(tiny), "--output-format", "json"])
    assert searched.exit_code == 0, searched.output
    assert json.loads(searched.output[searched.output.index("{"):])["query_sources"]["method"] == "cache:fake-model"


def test_prism_queries_with_the_papers_decoding_settings(setup, tmp_path):
    corpus, _ = setup
    decoding = Path(__file__).parents[3] / "configs" / "decoding-prism-paper.yaml"
    with FakeLLMServer().running() as server:
        result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(tmp_path / "q.jsonl"), "--paper",
                                     "p1", "--llm-base-url", server.url, "--llm-model", "fake-model",
                                     "--decoding", str(decoding)])
        assert result.exit_code == 0, result.output
        sent = [(r["temperature"], r["max_tokens"], r["repetition_penalty"], "seed" in r) for r in server.requests]
    assert sent == [(0.0, 2000, 1.2, False)] * 3  # three agents, PRISM's greedy decoding
    bad = tmp_path / "bad.yaml"
    bad.write_text("sampling:\n  temperature: -1\n")
    result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(tmp_path / "q2.jsonl"), "--paper",
                                 "p1", "--decoding", str(bad)])
    assert result.exit_code == 2 and "bad.yaml: 1 problem(s): temperature" in result.output, result.output


def test_eval_paper_to_paper_on_scifullbench(setup, tmp_path):
    _, tiny = setup
    result = runner.invoke(app, ["eval", "run", "--kind", "scifullbench", str(FIXTURE), "-m", str(tiny), "--out",
                                 str(tmp_path), "--set", "methods=a2a,late_interaction,prism_extractive,bm25,hybrid"])
    assert result.exit_code == 0, result.output
    assert "prism_extractive" in result.output and "input problems" in result.output
    assert (tmp_path / "report.md").is_file() and (tmp_path / "runs").is_dir()
    detail = (tmp_path / "benchmarks" / "scifullbench.md").read_text()
    assert "## prism_extractive/references" in detail
