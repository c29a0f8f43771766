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
    result = CliRunner().invoke(app, ["eval", "suite", str(suite)])
    assert result.exit_code == 0, result.output
    cell = json.loads((tmp_path / f"bench-{kind}" / "cells" / "bm25" / "b.json").read_text())
    [task] = cell["results"]
    # ties among scored candidates only: 3 per topic query (its 4 identical documents); the zero tails are not ties
    [ties] = [n for n in task["notes"] if "same score" in n]
    assert f"same score as the one above it: {TOPICS * (COPIES - 1)} (" in ties
    return task["per_query"]


def _eval(tmp_path: Path, kind: str, path: Path) -> dict[str, dict[str, float]]:
    out = tmp_path / f"eval-{kind}"
    result = CliRunner().invoke(app, ["eval", "run", "--kind", kind, str(path), "-m", "bm25", "-o", str(out)])
    assert result.exit_code == 0, result.output
    [cell] = json.loads((out / "results.json").read_text())["cells"]
    [task] = cell["results"]
    return task["per_query"]


@pytest.mark.parametrize("kind", ["beir", "pools"])
def test_bench_and_eval_give_identical_numbers_with_ties(tmp_path: Path, kind: str) -> None:
    beir = _write_beir(tmp_path / "beir")
    path = beir if kind == "beir" else _write_pools(tmp_path / "pools.jsonl", beir)
    bench = _bench(tmp_path, kind, path)
    evaluated = _eval(tmp_path, kind, path)
    for metric in ("ndcg@10", "mrr", "recall@10"):
        assert bench[metric] == pytest.approx(evaluated[metric]), metric
    # the relevant document sorts last by id among its identical copies: id order would rank it 4th every time
    ranks = {q: round(100.0 / v) for q, v in bench["mrr"].items() if q.startswith("q")}
    assert set(ranks.values()) != {COPIES}


def test_bm25_ranks_its_unscored_candidates_in_tie_order_on_citation_benchmarks(citation_corpus: Path) -> None:
    """In-process BM25 lists every candidate too: those sharing no term follow at score 0 in tie order."""
    from sciembed.evaluation import build_citation_benchmark, evaluate, scenario_benchmark
    from sciembed.evaluation.ties import ordered

    bench = build_citation_benchmark(citation_corpus)
    cell = evaluate("bm25", scenario_benchmark(bench, scenarios=("ta_ta",)), show_progress=False)
    for query, ranking in cell.result("ta_ta").rankings.items():
        assert len(ranking) == len(bench.papers) - 1 and query not in [d for d, _ in ranking]
        tail = [(d, s) for d, s in ranking if s == 0.0]
        assert tail == ordered(tail)


# -- every registered kind through both commands ------------------------------------------------------------

FIXTURES = Path(__file__).parent / "fixtures"
WORDS = ["alpha", "beta", "gamma", "delta", "paper", "about", "topic", "method", "words", "here", "we", "study",
         "graph", "protein", "speech", "model", "data", "results", "number", "the", "of", "and"]


def _scitldr(root: Path) -> Path:
    path = root / "scitldr.jsonl"
    path.write_text("".join(json.dumps({"paper_id": f"p{i}", "title": f"{w} title", "source": [f"{w} one.",
                                        f"{w} two."], "target": [f"{w} tldr", f"{w} short"]}) + "\n"
                            for i, w in enumerate(["alpha", "beta", "gamma", "delta"])))
    return path


def _p2p_corpus(root: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sciembed.papers.io import write_parquet
    from sciembed.papers.model import Paper, Section, SectionRole

    papers = [Paper(id=i, title=f"Paper {i} about {w}", abstract=f"We study {w}. The {w} model uses data.",
                    sections=(Section("Method", f"The {w} method words here.", SectionRole.METHOD),
                              Section("Results", f"Results of {w} here.", SectionRole.RESULTS)), domain=f"d{n % 2}")
              for n, (i, w) in enumerate(zip("abcdefgh", ["graph", "protein", "speech", "graph", "protein",
                                                          "speech", "graph", "alpha"], strict=True))]
    root.mkdir()
    write_parquet(papers, root / "papers.parquet")
    split = {p.id: "test" for p in papers}
    pq.write_table(pa.table({"paper_id": list(split), "split": list(split.values())}), root / "splits.parquet")
    pq.write_table(pa.table({"paper_a": ["a"], "paper_b": ["d"], "split": ["test"]}), root / "pairs.parquet")
    cites = [("a", "d"), ("a", "g"), ("b", "e"), ("c", "f"), ("h", "a")]
    pq.write_table(pa.table({"citing": [c for c, _ in cites], "cited": [d for _, d in cites],
                             "split": ["test"] * len(cites)}), root / "citations.parquet")
    (root / "manifest.json").write_text("{}")
    return root


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from fakes.models import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "model", WORDS)


def _kinds(tmp_path: Path, citation_corpus: Path) -> dict[str, tuple[Path, dict, bool]]:
    """kind -> (path, entry options, needs a dense model)."""
    beir = _write_beir(tmp_path / "beir")
    p2p = _p2p_corpus(tmp_path / "p2p")
    return {
        "citation": (citation_corpus, {"scenarios": ["ta_ta", "body_ta"]}, False),
        "beir": (beir, {"relevant_min": 1}, False),
        "pools": (_write_pools(tmp_path / "pools.jsonl", beir), {}, False),
        "scitldr": (_scitldr(tmp_path), {}, False),
        "scirepeval": (FIXTURES / "scirepeval", {"tasks": ["RELISH", "SciDocs Cite"]}, False),
        "csfcube": (FIXTURES / "csfcube", {"query_mode": "facet"}, False),
        "triplets": (FIXTURES / "triplets", {}, False),
        "section_retrieval": (p2p, {"sample": 6, "seed": 1}, False),
        "semantic": (p2p, {"sample": 8}, True),
        "paper_to_paper": (p2p, {"methods": ["a2a", "f2f"]}, True),
        "scifullbench": (Path(__file__).parent / "data" / "scifullbench", {"methods": ["a2a"]}, True),
    }


def _flags(options: dict) -> list[str]:
    """The entry's options as `--set key=value` (lists comma-separated)."""
    return [x for key, value in options.items()
            for x in ("--set", f"{key}={','.join(value) if isinstance(value, list) else value}")]


def _results(results_file: Path) -> list[dict]:
    [cell] = json.loads(results_file.read_text())["cells"]
    assert cell["status"] == "done", cell["error"]
    return [{k: r[k] for k in ("task", "metrics", "per_query", "counts")} for r in cell["results"]]


def test_every_registered_benchmark_gives_identical_numbers_through_bench_and_eval(
        tmp_path: Path, citation_corpus: Path, tiny_model: Path) -> None:
    import yaml

    from sciembed.evaluation.benchmarks import BENCHMARKS

    kinds = _kinds(tmp_path, citation_corpus)
    assert set(kinds) == set(BENCHMARKS), "a registered kind without a case here"
    for kind, (path, options, dense) in kinds.items():
        model = str(tiny_model) if dense else "bm25"
        suite = {"out": str(tmp_path / "bench" / kind), "models": [{"name": "m", "model": model}],
                 "benchmarks": [{"name": "b", "kind": kind, "path": str(path), **options}]}
        (tmp_path / f"{kind}.yaml").write_text(yaml.safe_dump(suite))
        bench = CliRunner().invoke(app, ["eval", "suite", str(tmp_path / f"{kind}.yaml")])
        assert bench.exit_code == 0, (kind, bench.output)
        out = tmp_path / "eval" / kind
        evaluated = CliRunner().invoke(app, ["eval", "run", "--kind", kind, str(path), "-m", model, "-o", str(out),
                                             *_flags(options)])
        assert evaluated.exit_code == 0, (kind, evaluated.output)
        from_bench, from_eval = _results(tmp_path / "bench" / kind / "results.json"), _results(out / "results.json")
        assert from_bench and from_bench == from_eval, kind


def test_an_option_the_benchmark_does_not_read_is_an_error(tmp_path: Path) -> None:
    beir = _write_beir(tmp_path / "beir")
    result = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-m", "bm25", "-o",
                                      str(tmp_path / "o"),
                                      "--set", "scenarios=ta_ta"])
    assert result.exit_code == 2
    assert "option(s) scenarios do not apply to kind beir" in result.output
    bm25 = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-m", "bm25", "-o", str(tmp_path / "o"),
                                    "--backend", "onnx"])
    assert bm25.exit_code == 2 and "do not apply to bm25" in bm25.output


def test_the_kind_options_come_from_an_entry_file_and_set(tmp_path: Path) -> None:
    """`-c entry.yaml` and `--set` (which wins) give the kind's options; an unknown key or a stray one is an error."""
    beir = _write_beir(tmp_path / "beir")
    entry = tmp_path / "entry.yaml"
    entry.write_text("relevant_min: 3\nsplit: test\n")
    args = ["eval", "run", "--kind", "beir", str(beir), "-m", "bm25", "-c", str(entry)]
    ok = CliRunner().invoke(app, [*args, "--set", "relevant_min=1", "-o", str(tmp_path / "o")])
    assert ok.exit_code == 0, ok.output
    described = json.loads((tmp_path / "o" / "results.json").read_text())["benchmarks"]["beir"]
    assert described["relevant_min"] == 1
    unknown = CliRunner().invoke(app, [*args, "--set", "relevance=2", "-o", str(tmp_path / "u")])
    assert unknown.exit_code == 2 and "relevance" in unknown.output
    entry.write_text("scenarios: [ta_ta]\n")
    stray = CliRunner().invoke(app, [*args, "-o", str(tmp_path / "s")])
    assert stray.exit_code == 2 and "option(s) scenarios do not apply to kind beir" in stray.output


def test_constant_scorer_scores_like_a_random_ranking(tmp_path: Path) -> None:
    """Queries sharing no term with any document: every candidate scores 0, and the relevant one has the
    smallest id. Its mean reciprocal rank must be near a random ranking's, H_n / n, not 1."""
    from sciembed.evaluation.beir import load_beir
    from sciembed.evaluation.benchmarks.beir import BeirAdapter
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
