"""`sciembed eval` and `sciembed compare`; end to end with the bundled MiniLM on real unarXive papers."""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.papers.readers import Accepted, read_papers

runner = CliRunner()


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_eval_bm25_and_compare(citation_corpus: Path, tmp_path: Path) -> None:
    result = invoke("eval", "run", citation_corpus, "--model", "bm25", "--set", "scenarios=ta_ta,body_body",
                    "--set", "body_modes=full", "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert "ta_ta" in result.output and "body_body/full" in result.output and "report: " in result.output
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert [r["task"] for r in results["cells"][0]["results"]] == ["ta_ta", "body_body/full"]
    assert (tmp_path / "run" / "runs" / "bm25" / "corpus" / "ta_ta.run").is_file()
    assert (tmp_path / "run" / "qrels" / "corpus" / "body_body-full.qrels").is_file()
    compared = invoke("eval", "compare", tmp_path / "run", tmp_path / "run", "--metric", "ndcg@10")
    assert compared.exit_code == 0, compared.output
    assert "+0.0" in compared.output and "bm25 (B) vs bm25 (A)" in compared.output
    again = invoke("eval", "run", citation_corpus, "-m", "bm25", "--set", "scenarios=ta_ta,body_body",
                   "--set", "body_modes=full", "-o", tmp_path / "run")
    assert "cells computed 0, reused 1" in again.output  # eval is resumable like bench


def test_eval_reports_bad_input_in_one_line(tmp_path: Path, citation_corpus: Path) -> None:
    (tmp_path / "beir").mkdir()
    result = invoke("eval", "run", "--kind", "beir", tmp_path / "beir", "--model", "bm25", "--out", tmp_path / "r")
    assert result.exit_code == 2
    assert "missing 3 of 3 required files: corpus.jsonl, queries.jsonl, qrels/test.tsv" in result.output
    missing = invoke("eval", "compare", tmp_path / "nope", tmp_path / "nope")
    assert missing.exit_code == 2 and "no results.json" in missing.output


# -- end to end with the real encoder ---------------------------------------------------------


@pytest.fixture(scope="module")
def unarxive_papers(shared_data: Path) -> list:
    path = shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    return [r.paper for r in read_papers(path) if isinstance(r, Accepted)][:10]


@pytest.mark.slow
def test_minilm_end_to_end_with_cache(unarxive_papers, corpus_writer, tmp_path: Path) -> None:
    """Real full texts, a stand-in link graph (consecutive papers of one discipline), MiniLM and BM25."""
    ids = sorted(p.id for p in unarxive_papers)
    domain = {p.id: p.domain for p in unarxive_papers}
    members = defaultdict(list)
    for pid in ids:
        members[domain[pid]].append(pid)
    pairs = [pair for group in members.values() for pair in pairwise(group)]
    corpus = corpus_writer(tmp_path / "unarxive", unarxive_papers, dict.fromkeys(ids, "test"), pairs, domain)
    args = ["eval", "run", corpus, "--model", "minilm", "--model", "bm25", "--set", "scenarios=ta_ta,body_ta",
            "--set", "body_modes=windowed", "--max-seq-length", "64", "--cache-dir", tmp_path / "cache"]
    first = invoke(*args, "--out", tmp_path / "one")
    assert first.exit_code == 0, first.output
    second = invoke(*args, "--out", tmp_path / "two")
    assert second.exit_code == 0, second.output
    one = json.loads((tmp_path / "one" / "results.json").read_text())
    two = json.loads((tmp_path / "two" / "results.json").read_text())
    minilm_one, minilm_two = one["cells"][0], two["cells"][0]
    assert minilm_one["model"] == "minilm" and minilm_one["config"]["max_seq_length"] == 64
    assert minilm_one["encoded"]["texts_run_through_model"] == minilm_one["encoded"]["texts_requested"] == 2 * len(ids)
    assert minilm_two["encoded"]["texts_run_through_model"] == 0  # the second run encodes nothing
    assert [r["per_query"] for r in minilm_two["results"]] == [r["per_query"] for r in minilm_one["results"]]
    compared = invoke("eval", "compare", tmp_path / "one", tmp_path / "one", "--model-a", "bm25", "--model-b", "minilm")
    assert compared.exit_code == 0 and "minilm (B) vs bm25 (A)" in compared.output


@pytest.mark.slow
def test_minilm_finds_the_abstract_of_a_title(unarxive_papers, tmp_path: Path) -> None:
    """BEIR folder from real papers: title -> its own abstract among all abstracts."""
    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    with open(root / "corpus.jsonl", "w") as corpus, open(root / "queries.jsonl", "w") as queries:
        for p in unarxive_papers:
            corpus.write(json.dumps({"_id": f"doc-{p.id}", "title": "", "text": p.abstract}) + "\n")
            queries.write(json.dumps({"_id": f"q-{p.id}", "text": p.title}) + "\n")
    (root / "qrels" / "test.tsv").write_text("".join(f"q-{p.id}\tdoc-{p.id}\t1\n" for p in unarxive_papers))
    result = invoke("eval", "run", "--kind", "beir", root, "--model", "minilm", "--max-seq-length", "128", "--out",
                    tmp_path / "r")
    assert result.exit_code == 0, result.output
    minilm = json.loads((tmp_path / "r" / "results.json").read_text())["cells"][0]
    assert minilm["summary"]["beir"] > 80  # ×100; random ranking of 10 abstracts gives about 39
