"""`sciembed bench` and `sciembed eval` score one benchmark identically, ties included.

BM25 ties a lot (identical texts; every candidate sharing no term with the
query scores 0), and a query whose words appear nowhere is a constant scorer.
Both commands must rank such ties the same way (a seeded hash of the id, never
the id) and a constant scorer must score what a random ranking would.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app

TOPICS = 12
COPIES = 4  # identical documents per topic: BM25 gives them one score


def _write_beir(root: Path) -> Path:
    """Topic queries over groups of identical documents (the relevant one has the LAST id), plus queries
    sharing no term with any document (a constant scorer; the relevant one has the FIRST id)."""
    (root / "qrels").mkdir(parents=True)
    docs, queries, qrels = [], [], []
    for t in range(TOPICS):
        for c in range(COPIES):
            docs.append({"_id": f"d{t:02d}{c}", "title": f"topic{t} study", "text": f"about topic{t} methods"})
        queries.append({"_id": f"q{t:02d}", "text": f"topic{t}"})
        qrels.append((f"q{t:02d}", f"d{t:02d}{COPIES - 1}", 1))
        queries.append({"_id": f"z{t:02d}", "text": f"unseenword{t}"})
        qrels.append((f"z{t:02d}", f"d{t:02d}0", 1))
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n"
                                             + "".join(f"{q}\t{d}\t{r}\n" for q, d, r in qrels))
    return root


def _write_pools(path: Path, beir: Path) -> Path:
    """The same judgements as re-ranking pools: each query's pool is two topics' documents."""
    docs = [json.loads(line) for line in (beir / "corpus.jsonl").read_text().splitlines()]
    text = {d["_id"]: f"{d['title']}. {d['text']}" for d in docs}
    rows = []
    for t in range(TOPICS):
        pool = [f"d{u:02d}{c}" for u in (t, (t + 1) % TOPICS) for c in range(COPIES)]
        rows.append({"query_id": f"q{t:02d}", "query": f"topic{t}",
                     "candidates": [{"id": d, "text": text[d], "relevance": int(d == f"d{t:02d}{COPIES - 1}")}
                                    for d in pool]})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _bench(tmp_path: Path, kind: str, path: Path) -> dict[str, dict[str, float]]:
    suite = tmp_path / f"suite-{kind}.yaml"
    suite.write_text(f"out: {tmp_path / ('bench-' + kind)}\nmodels:\n  - {{name: bm25, model: bm25}}\n"
                     f"benchmarks:\n  - {{name: b, kind: {kind}, path: {path}}}\n")
    result = CliRunner().invoke(app, ["bench", str(suite)])
    assert result.exit_code == 0, result.output
    cell = json.loads((tmp_path / f"bench-{kind}" / "cells" / "bm25" / "b.json").read_text())
    [task] = cell["results"]
    return task["per_query"]


def _eval(tmp_path: Path, flag: str, path: Path) -> dict[str, dict[str, float]]:
    out = tmp_path / f"eval{flag}"
    result = CliRunner().invoke(app, ["eval", flag, str(path), "-m", "bm25", "-o", str(out), "--no-geometry"])
    assert result.exit_code == 0, result.output
    [model] = json.loads((out / "results.json").read_text())["models"]
    [per_query] = model["per_query"].values()
    return {m: {q: 100.0 * v for q, v in scores.items()} for m, scores in per_query.items()}


@pytest.mark.parametrize("kind", ["beir", "pools"])
def test_bench_and_eval_give_identical_numbers_with_ties(tmp_path: Path, kind: str) -> None:
    beir = _write_beir(tmp_path / "beir")
    path = beir if kind == "beir" else _write_pools(tmp_path / "pools.jsonl", beir)
    bench = _bench(tmp_path, kind, path)
    evaluated = _eval(tmp_path, f"--{kind}", path)
    for metric in ("ndcg@10", "mrr", "recall@10"):
        assert bench[metric] == pytest.approx(evaluated[metric]), metric
    # the relevant document sorts last by id among its identical copies: id order would rank it 4th every time
    ranks = {q: round(100.0 / v) for q, v in bench["mrr"].items() if q.startswith("q")}
    assert set(ranks.values()) != {COPIES}


def test_constant_scorer_scores_like_a_random_ranking(tmp_path: Path) -> None:
    """Queries sharing no term with any document: every candidate scores 0, and the relevant one has the
    smallest id. Its mean reciprocal rank must be near a random ranking's, H_n / n, not 1."""
    from sciembed.evaluation.beir import load_beir
    from sciembed.evaluation.benchmarks.adapters import BeirAdapter
    from sciembed.evaluation.contract import TextStyle
    from sciembed.evaluation.execute import run_task
    from sciembed.evaluation.scorers import BM25Scorer

    root = tmp_path / "beir"
    (root / "qrels").mkdir(parents=True)
    n_docs, n_queries = 20, 400
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i:02d}", "text": f"word{i}"}) + "\n"
                                               for i in range(n_docs)))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": f"q{i:03d}", "text": "nothing"}) + "\n"
                                                for i in range(n_queries)))
    (root / "qrels" / "test.tsv").write_text("".join(f"q{i:03d}\td00\t1\n" for i in range(n_queries)))
    [task] = BeirAdapter({"c": load_beir(root)}, "c").tasks(TextStyle())
    result = run_task(task, BM25Scorer())
    expected = 100.0 * sum(1.0 / r for r in range(1, n_docs + 1)) / n_docs  # 18.0
    sd = 100.0 * math.sqrt(sum(1.0 / r**2 for r in range(1, n_docs + 1)) / n_docs - (expected / 100) ** 2)
    assert abs(result.metrics["mrr"] - expected) < 4 * sd / math.sqrt(n_queries)
