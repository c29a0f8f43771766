"""BEIR folders and re-ranking pools: bad input counted with file:line, rankings checked by hand."""

from __future__ import annotations

import json
from math import log2
from pathlib import Path

import pytest

from sciembed.evaluation import BenchmarkError, evaluate, load_beir, load_pools
from sciembed.evaluation.benchmarks.beir import BeirAdapter
from sciembed.evaluation.benchmarks.pools import PoolsAdapter

ANGLES = {"k1": 0, "k2": 20, "k3": 50, "k4": 110}


@pytest.fixture
def encoder(angle_encoder):
    return angle_encoder(ANGLES | {"q1key": 5})


def write_lines(path: Path, lines: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))


@pytest.fixture
def beir_dir(tmp_path: Path) -> Path:
    root = tmp_path / "beir"
    write_lines(root / "corpus.jsonl", [
        {"_id": "d1", "title": "k1 first", "text": "one"},
        {"_id": "d2", "title": "k2", "text": "two"},
        {"_id": "d3", "title": "k3", "text": "three"},
        {"_id": "d4", "title": "k4", "text": "four"},
        {"_id": "d1", "title": "k4 again", "text": "duplicate"},  # line 5
        "{not json",  # line 6
        {"_id": "d6", "title": "", "text": " "},  # line 7
    ])
    write_lines(root / "queries.jsonl", [
        {"_id": "q1", "text": "q1key question", "metadata": {"domain": "bio"}},
        {"_id": "d3", "text": "k3 same id as a document"},
        {"_id": "q3", "text": ""},  # line 3
        {"_id": "q1", "text": "k4 duplicate"},  # line 4
        {"_id": "q9", "text": "k2 never judged"},
    ])
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        "q1\td2\t1\nq1\td4\t1\nq1\td1\t0\n"  # d1 judged non-relevant
        "d3\td4\t1\n"
        "q3\td1\t1\n"  # line 6: query with empty text
        "qX\td1\t1\n"  # line 7: unknown query
        "q1\td99\t1\n"  # line 8: unknown document
        "q1\td2\tyes\n"  # line 9: not a number
    )
    return root


def test_beir_bad_input_is_counted_with_file_and_line(beir_dir: Path) -> None:
    bench = load_beir(beir_dir)
    issues = {i.what: i for i in bench.issues}
    assert issues["duplicate document id"].where == ["corpus.jsonl:5"]
    assert issues["line is not valid JSON"].where == ["corpus.jsonl:6"]
    assert issues["document with empty text"].examples == ["d6"]
    assert issues["query with empty text"].where == ["queries.jsonl:3"]
    assert issues["duplicate query id"].where == ["queries.jsonl:4"]
    assert issues["qrels name a query with empty text"].where == ["qrels/test.tsv:6"]
    assert issues["qrels name an unknown query id"].examples == ["qX"]
    assert issues["qrels name an unknown corpus id"].where == ["qrels/test.tsv:8"]
    assert issues["qrels score is not a number"].count == 1
    assert sorted(bench.queries) == ["d3", "q1"]
    assert bench.describe()["queries_without_judgements"] == 1  # q9
    assert bench.docs["d1"] == "k1 first. one"  # the first occurrence is kept


def test_beir_ranking_by_hand_and_identical_ids_excluded(beir_dir: Path, encoder) -> None:
    bench = load_beir(beir_dir)
    [result] = evaluate(encoder, BeirAdapter({"beir": bench}, "beir"), show_progress=False).results
    assert [d for d, _ in result.rankings["q1"]] == ["d1", "d2", "d3", "d4"]
    assert [d for d, _ in result.rankings["d3"]] == ["d2", "d1", "d4"]  # document d3 is the query itself
    ndcg = result.per_query["ndcg@10"]
    assert ndcg["q1"] == pytest.approx(100 * (1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3)))
    assert ndcg["d3"] == pytest.approx(100 / log2(4))


def test_beir_missing_file_names_every_missing_file(beir_dir: Path) -> None:
    (beir_dir / "queries.jsonl").unlink()
    (beir_dir / "qrels" / "test.tsv").unlink()
    with pytest.raises(BenchmarkError, match=r"missing 2 of 3 required files: queries.jsonl, qrels/test.tsv"):
        load_beir(beir_dir)


@pytest.fixture
def pools_file(tmp_path: Path) -> Path:
    path = tmp_path / "pools.jsonl"
    write_lines(path, [
        {"query_id": "p1", "query": {"title": "k1 query", "abstract": "text"}, "domain": "cs", "candidates": [
            {"id": "d3", "text": "k3 x", "relevance": 1},
            {"id": "d4", "text": "k4 y", "relevance": 0},
            {"doc_id": "d2", "title": "k2", "abstract": "z", "score": 0},
        ]},
        {"query_id": "p1", "query": "k2 again", "candidates": []},  # line 2
        {"query_id": "p2", "query": "", "candidates": [{"id": "d1", "text": "k1", "relevance": 1}]},
        {"query_id": "p3", "query": "k2 q", "candidates": [
            {"id": "p3", "text": "k2 self", "relevance": 1},
            {"id": "d1", "text": "k1", "relevance": 1},
            {"id": "d4", "text": "k4 y", "relevance": 0},
            {"id": "d5", "text": "", "relevance": 0},
        ]},
        {"query_id": "p4", "query": "k1", "candidates": [{"id": "d4", "text": "k4 y", "relevance": 0}]},
        "not json",
    ])
    return path


def test_pools_rank_only_their_own_candidates(pools_file: Path, encoder) -> None:
    bench = load_pools(pools_file)
    issues = {i.what: i for i in bench.issues}
    assert issues["duplicate query id"].where == ["pools.jsonl:2"]
    assert issues["query with empty text"].examples == ["p2"]
    assert issues["query listed among its own candidates"].examples == ["p3"]
    assert issues["candidate with empty text"].where == ["pools.jsonl:4 candidates[3]"]
    assert issues["pool has no relevant candidate"].examples == ["p4"]
    assert issues["line is not valid JSON"].count == 1
    [result] = evaluate(encoder, PoolsAdapter(bench, "pools"), show_progress=False).results
    # d1 is the nearest document to p1 overall, but it is not in p1's pool.
    assert [d for d, _ in result.rankings["p1"]] == ["d2", "d3", "d4"]
    assert [d for d, _ in result.rankings["p3"]] == ["d1", "d4"]
    assert result.per_query["ndcg@10"] == pytest.approx({"p1": 100 / log2(3), "p3": 100.0})


def test_pools_with_bm25_stay_inside_the_pool(pools_file: Path) -> None:
    [result] = evaluate("bm25", PoolsAdapter(load_pools(pools_file), "pools"), show_progress=False).results
    assert {d for d, _ in result.rankings["p1"]} == {"d2", "d3", "d4"}
    assert "p3" not in {d for d, _ in result.rankings["p3"]}


def test_pools_file_missing(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkError, match="does not exist"):
        load_pools(tmp_path / "nope.jsonl")


def test_the_beir_task_lists_texts_in_id_order_and_fingerprints_are_computed_once(
    beir_dir: Path, pools_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    beir = load_beir(beir_dir)
    task = beir.task()
    assert list(task.queries.items()) == [("d3", beir.queries["d3"]), ("q1", beir.queries["q1"])]
    assert list(task.docs.items()) == [(d, beir.docs[d]) for d in ("d1", "d2", "d3", "d4")]
    assert task.candidates("d3") == ["d1", "d2", "d4"] and task.candidates("q1") == list(task.docs)  # never itself
    assert task.pools is None
    pools = load_pools(pools_file)
    for bench in (beir, pools):
        calls: list[int] = []
        digest = type(bench)._digest
        monkeypatch.setattr(type(bench), "_digest",
                            lambda self, digest=digest, calls=calls: calls.append(1) or digest(self))
        assert bench.fingerprint() == bench.fingerprint() == digest(bench)
        assert len(calls) == 1
