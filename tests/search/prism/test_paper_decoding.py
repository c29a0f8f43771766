"""Issue 32, item 7 (in part): PRISM's agents decode as its released code (temperature 0, 2,000 tokens, repetition
penalty 1.2) by default and read the whole paper; repeated samples keep seeded sampling."""

from __future__ import annotations

from typer.testing import CliRunner

from fakes.llm_server import FakeLLMServer
from sciembed.cli.main import app
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.search.prism.agents import PAPER_SAMPLING, SAMPLED_DECODING, default_sampling, paper_text

from .conftest import paper

runner = CliRunner(env={"COLUMNS": "200"})


def test_one_sample_decodes_as_prism_repeated_samples_sample():
    assert (PAPER_SAMPLING.temperature, PAPER_SAMPLING.max_tokens, PAPER_SAMPLING.extra) == \
        (0.0, 2000, {"repetition_penalty": 1.2})
    assert default_sampling(1) is PAPER_SAMPLING and default_sampling(3) is SAMPLED_DECODING
    assert SAMPLED_DECODING.temperature > 0


def test_the_agents_read_the_whole_paper():
    body = " ".join(f"w{i}" for i in range(15_000))
    long = Paper(id="long", title="Long", abstract="An abstract.",
                 sections=(Section("2 Method", body, SectionRole.METHOD),))
    text = paper_text(long)
    assert text.endswith("w14999") and len(text.split()) > 15_000
    assert len(paper_text(long, max_words=100).split(" ")) == 100


def test_prism_queries_default_to_the_papers_decoding(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_parquet([paper("p1", "protein folding dynamics")], corpus / "papers.parquet")
    with FakeLLMServer().running() as server:
        result = runner.invoke(app, ["prism", "queries", str(corpus), "--out", str(tmp_path / "q.jsonl"), "--paper",
                                     "p1", "--llm-base-url", server.url, "--llm-model", "fake-model"])
        assert result.exit_code == 0, result.output
        sent = [(r["temperature"], r["max_tokens"], r.get("repetition_penalty"), "seed" in r) for r in server.requests]
    assert sent == [(0.0, 2000, 1.2, False)] * 3  # three agents, PRISM's greedy decoding without --decoding
