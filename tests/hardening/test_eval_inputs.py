"""Regression tests for issue 15, defects 7 (BEIR / pools types, no evaluable query, UTF-8) and 12 (ties)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.evaluation import BenchmarkError, load_beir, load_pools
from sciembed.evaluation.execute import order
from sciembed.evaluation.fields import trec_id
from sciembed.evaluation.metrics import per_query_scores
from sciembed.evaluation.ties import count_ties, tie_notes


def _beir(root, corpus_lines, query_lines, qrels_text):
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_bytes(b"\n".join(corpus_lines) + b"\n")
    (root / "queries.jsonl").write_bytes(b"\n".join(query_lines) + b"\n")
    (root / "qrels" / "test.tsv").write_bytes(qrels_text)
    return root


def _j(obj) -> bytes:
    return json.dumps(obj).encode()


def test_beir_wrong_types_bad_scores_and_bad_utf8_are_counted(tmp_path):
    corpus = [_j({"_id": "d1", "title": "A", "text": "alpha"}), _j({"_id": "d2", "title": 5, "text": "beta"}),
              _j({"_id": "d3", "title": "C", "text": ["list"]}), _j({"_id": {"id": 1}, "text": "x"}),
              b'{"_id": "d5", "text": "caf\xe9"}', b"[" * 3000 + b"]" * 3000, _j({"_id": "d 6", "text": "space"}),
              _j({"_id": "d7", "title": "G", "text": "gamma"})]
    queries = [_j({"_id": "q1", "text": "alpha", "metadata": "not an object"}), _j({"_id": "q2", "text": "gamma"})]
    qrels = b"q1\td1\t1\nq1\td7\tinf\nq2\td7\t1e400\nq2\td1\t1e30\nq2\td7\tnan\nq2\td7\t2\nq2\td1\tabc\nq\xff\td1\t1\n"
    bench = load_beir(_beir(tmp_path / "b", corpus, queries, qrels))
    issues = {i.what: i for i in bench.issues}
    assert issues["document field of the wrong JSON type"].count == 3
    assert issues["line is not valid UTF-8"].where == ["corpus.jsonl:5"]
    assert issues["line is not valid JSON"].where == ["corpus.jsonl:6"]
    assert issues["document without a usable _id (missing, or with whitespace)"].count == 1
    assert issues["query metadata is not an object"].count == 1
    assert issues["qrels score is not finite or out of range"].count == 4  # inf, 1e400, 1e30, nan
    assert issues["qrels score is not a number"].count == 1
    assert issues["qrels line is not valid UTF-8"].where == ["qrels/test.tsv:8"]
    assert bench.qrels == {"q1": {"d1": 1}, "q2": {"d7": 2}} and bench.domains["q1"] == "unknown"


def test_pools_wrong_types_and_scores_are_counted(tmp_path):
    pools = [
        {"query_id": "q1", "query": {"title": 7, "abstract": "x"}, "candidates": [{"id": "a", "text": "t"}]},
        {"query_id": "q2", "query": "text", "domain": {"d": 1},
         "candidates": [{"id": "a", "text": "t", "relevance": 1}, {"id": "b", "text": ["t"], "relevance": 1},
                        {"id": "c", "text": "t", "relevance": "inf"}, {"id": "e", "text": "t", "relevance": 1e300},
                        {"id": ["x"], "text": "t"}, {"id": "f", "text": "u", "relevance": 0}]},
    ]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in pools) + "\n")
    bench = load_pools(path)
    issues = {i.what: i.count for i in bench.issues}
    assert issues["query with empty text"] == 1  # a numeric title is no text
    assert issues["candidate relevance is not finite or out of range"] == 2
    assert issues["candidate with empty text"] == 1 and issues["candidate without id (or not a string / integer)"] == 1
    assert bench.pools == {"q2": ["a", "f"]} and bench.domains == {"q2": "unknown"}


def test_no_evaluable_query_stops_before_any_work(tmp_path):
    root = _beir(tmp_path / "b", [_j({"_id": "d1", "text": "alpha"})], [_j({"_id": "q1", "text": "a"})],
                 b"q1\td1\t0\n")
    with pytest.raises(BenchmarkError, match="no query"):
        load_beir(root)
    run = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(root), "-m", "bm25", "-o",
                                   str(tmp_path / "ev")])
    assert run.exit_code == 2 and "no query" in run.output and run.exception.__class__.__name__ == "SystemExit"
    assert not (tmp_path / "ev").exists()


def _ordered(hits, k):
    """The executor's order (`execute.order`: score descending, ties in seeded-hash order), cut at `k`."""
    ids, scores = zip(*hits, strict=True)
    return order(ids, np.array(scores))[:k]


def test_ties_are_not_broken_by_id():
    ids = [f"d{i:04d}" for i in range(200)]
    constant = {f"q{q}": _ordered([(d, 0.5) for d in ids], 10) for q in range(30)}
    # A constant scorer with the relevant document at the smallest id got NDCG@10 = 100 when ties went by id.
    qrels = {q: {"d0000": 1} for q in constant}
    ndcg = per_query_scores(qrels, constant, ("ndcg@10",))["ndcg@10"]
    assert sum(ndcg.values()) / len(ndcg) < 0.2
    assert [d for d, _ in constant["q0"]] != sorted(d for d, _ in constant["q0"])
    assert constant["q0"] == _ordered([(d, 0.5) for d in reversed(ids)], 10)  # same order whatever the input order
    assert count_ties(constant) == 30 * 9
    (note,) = tie_notes(constant)
    assert note["count"] == 270 and "30 queries" in note["action"]
    assert tie_notes({"q": [("a", 2.0), ("b", 1.0)]}) == []


def test_trec_writer_refuses_ids_that_forge_columns():
    assert trec_id("W123") == "W123"
    with pytest.raises(ValueError, match="whitespace"):
        trec_id("d1 0 d2")


def test_eval_prints_the_tie_count_of_a_constant_scorer(tmp_path):
    docs = [_j({"_id": f"d{i:04d}", "text": "alpha"}) for i in range(50)]
    root = _beir(tmp_path / "tie", docs, [_j({"_id": f"q{q}", "text": "alpha"}) for q in range(5)],
                 b"".join(f"q{q}\td0000\t1\n".encode() for q in range(5)))
    run = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(root), "-m", "bm25", "-o", str(tmp_path / "ev"),
                                   "--run-depth", "0"])
    text = " ".join(run.output.split())
    assert run.exit_code == 0, run.output
    assert "same score as the one above it: 245 (" in text and "5 queries affected" in text
    assert "at , …" not in text and "e.g. , …" not in (tmp_path / "ev" / "report.md").read_text()
    assert "broken by candidate id" not in (tmp_path / "ev" / "report.md").read_text()
