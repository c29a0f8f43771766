"""`sciembed prism queries --split`: LLM aspect queries for exactly the query papers of a paper-to-paper benchmark
split, in the file `eval run --kind paper_to_paper --llm-queries` reads for prism_llm."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from fakes.models import HashingEncoder
from sciembed.cli.main import app
from sciembed.evaluation.benchmarks.paper_to_paper import query_paper_ids
from sciembed.evaluation.p2p_run import P2PConfig, rank_methods
from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Reference, Section, SectionRole
from sciembed.search.prism.queries import read_query_sets

runner = CliRunner(env={"COLUMNS": "200"})
CONFIG = Path(__file__).parents[3] / "configs" / "p2p-acl.yaml"
TOPICS = ["protein folding", "galaxy lensing", "speech recognition", "graph networks", "machine translation",
          "dependency parsing"]
SPLIT = ["--seed", "3", "--val-share", "0.4"]


def _paper(i: int) -> Paper:
    topic = TOPICS[i % len(TOPICS)]
    body = (Section("1 Introduction", f"We study {topic}. It matters for {topic} systems.", SectionRole.INTRODUCTION),
            Section("2 Method", f"Our {topic} method uses a model of {topic}.", SectionRole.METHOD),
            Section("3 Results", f"Results on {topic} data improve.", SectionRole.RESULTS))
    refs = tuple(Reference(title=f"Paper {j} on {TOPICS[j % len(TOPICS)]}") for j in (i - 6, i - 12) if j >= 0)
    return Paper(f"P{i:02d}", f"Paper {i} on {topic}", f"This abstract is about {topic}.", body, refs)


@pytest.fixture(scope="module")
def collection(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("p2p-collection")
    write_parquet([_paper(i) for i in range(18)], root / "papers.parquet")  # i cites i - 6 and i - 12
    return root


def _queries(corpus: Path, out: Path, server: FakeLLMServer, *extra: str):
    return runner.invoke(app, ["prism", "queries", str(corpus), "-o", str(out), "--llm-base-url", server.url,
                               "--llm-model", "fake-model", *extra])


def test_queries_for_the_split_query_papers_then_eval_prism_llm(collection, tmp_path):
    test_ids = sorted(build_collection_paper_to_paper(collection, split="test", seed=3, val_share=0.4).queries)
    val_ids = sorted(build_collection_paper_to_paper(collection, split="val", seed=3, val_share=0.4).queries)
    assert test_ids and val_ids and query_paper_ids(collection, split="test", seed=3, val_share=0.4) == test_ids
    out = tmp_path / "queries-test.jsonl"
    with FakeLLMServer(embedding_dim=24).running() as server:
        result = _queries(collection, out, server, "--split", "test", *SPLIT, "-c", str(CONFIG))
        assert result.exit_code == 0, result.output
        sets = read_query_sets(out)
        assert sorted(pid for pid, _ in sets) == test_ids  # exactly the benchmark's test query papers
        assert all({qs.sources[a] for a in ("research_question", "method", "experiment")} == {"llm:fake-model"}
                   for qs in sets.values())
        assert server.request_count == 3 * len(test_ids)  # three aspect agents per paper

        val = tmp_path / "queries-val.jsonl"
        assert _queries(collection, val, server, "--split", "val", *SPLIT).exit_code == 0
        assert sorted(pid for pid, _ in read_query_sets(val)) == val_ids

        run = tmp_path / "eval"
        result = runner.invoke(app, ["eval", "run", "--kind", "paper_to_paper", str(collection), "--set", "split=test",
                                     "--set", "seed=3", "--set", "val_share=0.4", "--set", "methods=a2a,prism_llm",
                                     "--set", f"llm_queries={out}",
                                     "-m", "fake-embed", "--backend", "openai", "--embeddings-base-url", server.url,
                                     "--out", str(run)])
        assert result.exit_code == 0, result.output
        results = json.loads((run / "results.json").read_text())
        text = json.dumps(results)
        assert "prism_llm" in text and "without LLM aspect queries" not in text  # every query paper has its queries


def test_a_query_paper_without_llm_queries_is_named(collection, tmp_path):
    bench = build_collection_paper_to_paper(collection, split="test", seed=3, val_share=0.4)
    out = tmp_path / "q.jsonl"
    with FakeLLMServer().running() as server:
        assert _queries(collection, out, server, "--paper", sorted(bench.queries)[0]).exit_code == 0
    rank_methods(bench, HashingEncoder(), P2PConfig(methods=["prism_llm"], queries_file=out))
    described = json.dumps(bench.describe())
    assert "without LLM aspect queries (sample 0)" in described and "sciembed prism queries" in described


def test_split_options_are_checked(collection, tmp_path):
    with FakeLLMServer().running() as server:
        both = _queries(collection, tmp_path / "q.jsonl", server, "--split", "test", "--paper", "P00")
        assert both.exit_code == 2 and "not both" in both.output
        stray = _queries(collection, tmp_path / "q.jsonl", server, "--seed", "3")
        assert stray.exit_code == 2 and "give --split too" in stray.output
        bad = _queries(collection, tmp_path / "q.jsonl", server, "--split", "train")
        assert bad.exit_code == 2 and "unknown query split 'train'" in bad.output
        assert server.request_count == 0
