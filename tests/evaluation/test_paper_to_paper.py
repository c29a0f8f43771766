"""Paper-to-paper benchmark: SciFullBench release layout, corpus + queries + TREC qrels, every method, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakes.models import HashingEncoder
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.p2p_run import METHODS, P2PConfig, load_p2p_config, rank_methods
from sciembed.evaluation.paper_to_paper import load_paper_to_paper
from sciembed.evaluation.scifullbench import load_scifullbench, parse_mmd
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole
from sciembed.search.prism import QuerySet, write_query_sets

FIXTURE = Path(__file__).parent / "data" / "scifullbench"


def test_scifullbench_layout_matches_gold_and_counts_misses():
    bench = load_scifullbench(FIXTURE)
    assert bench.splits == ["references", "citations"]
    assert bench.qrels["references"]["2405.00001"] == {"c-graph": 1, "c-graph2": 1}
    assert bench.qrels["citations"]["2405.00001"] == {"c-graph2": 1}
    assert bench.qrels["references"]["2405.00002"] == {"c-speech": 1, "c-speech2": 1}
    assert bench.venues == {"2405.00001": "ACL+EMNLP", "2405.00002": "ICLR+NeurIPS"}
    issues = {i.what: i.count for i in bench.issues}
    assert issues["gold candidate matches no corpus paper"] == 1
    assert issues["gold candidate matches several corpus papers"] == 1
    assert issues["duplicate corpus entry (same title and abstract)"] == 1
    assert issues["corpus entry without chunked_sections_3000"] == 1
    assert issues["query has no full-text .mmd"] == 1
    candidates = {c.id: c for c in bench.candidates()}
    assert len(candidates) == 8 and len(candidates["c-graph"].segments) == 3
    assert not bench.queries["2405.00002"].sections


def test_mmd_sections_roles_and_back_matter():
    paper = parse_mmd((FIXTURE / "Benchmark/Full_Papers/2405.00001.mmd").read_text(), "q",
                      "Graph neural networks for molecules")
    assert [s.role for s in paper.sections] == [SectionRole.INTRODUCTION, SectionRole.METHOD, SectionRole.RESULTS,
                                                SectionRole.CONCLUSION]
    assert paper.abstract.startswith("We study graph neural networks")
    assert "cited paper" not in " ".join(s.text for s in paper.sections)


def test_scifullbench_reads_the_citation_removed_texts_prism_ran_on(tmp_path):
    """PRISM's runs (Scripts/inference_QoA_parallel.sh) read the citation- and mention-removed full texts and
    target corpus; with both variants in a release, those are the ones loaded."""
    import shutil

    root = Path(shutil.copytree(FIXTURE, tmp_path / "release"))
    removed = root / "Benchmark" / "Full_Papers_remove_citations_True_remove_mentions_True"
    removed.mkdir()
    text = (root / "Benchmark/Full_Papers/2405.00001.mmd").read_text()
    (removed / "2405.00001.mmd").write_text(text.replace("matters for chemistry", "matters, as [1] shows"))
    other = root / "Target_Corpus" / "target_corpus_citations_removed_False_mentions_removed_False"
    other.mkdir()
    (other / "corpus.json").write_text("[]")
    bench = load_scifullbench(root)
    assert "matters, as [1] shows" in bench.queries["2405.00001"].sections[0].text
    assert len(bench.candidates()) == 8  # the citation-removed target corpus, not the empty other variant


def test_scifullbench_bad_layout_is_one_clear_error(tmp_path):
    with pytest.raises(BenchmarkError, match="no Benchmark/ folder"):
        load_scifullbench(tmp_path)


def test_every_method_runs_through_the_executor_and_excludes_the_query(tmp_path):
    from sciembed.evaluation.benchmarks.paper_to_paper import PaperToPaperAdapter
    from sciembed.evaluation.contract import RankingTask, TextStyle

    bench = load_scifullbench(FIXTURE)
    sets = [QuerySet("2405.00001", {"method": "message passing graph attention atoms bonds"},
                     {"method": "llm:fake"}, sample=s) for s in (0, 1)]
    write_query_sets(sets, tmp_path / "q.jsonl")
    config = P2PConfig(top_k=5, queries_file=tmp_path / "q.jsonl", methods=[*METHODS, "max_sim_prism_code"])
    adapter = PaperToPaperAdapter(bench, "sfb", config, kind="scifullbench")
    tasks = adapter.tasks(TextStyle())
    assert all(isinstance(t, RankingTask) and t.search is not None and t.depth == 5 for t in tasks)
    cell = _cell(adapter)
    methods = [r.details["method"] for r in cell.results]
    assert methods[0] == "a2a" and set(methods) == {*METHODS, "max_sim_prism_code"}
    assert len(cell.results) == 2 * (len(METHODS) + 2)  # two splits; prism_llm once per LLM sample
    for result in cell.results:
        assert result.kind == "retrieval" and result.details["split"] in ("references", "citations")
        for q, ranking in result.rankings.items():
            assert q not in [d for d, _ in ranking] and len(ranking) <= 5
    prism = cell.result("prism_extractive/references")
    assert prism.metrics["recall@50"] == pytest.approx(100.0)  # 5 of 8 candidates, ×100 as every task
    assert {"map@5", "ndcg@5", "mrr@50", "recall@300"} <= set(prism.metrics) and "map" not in prism.metrics
    llm = [r for r in cell.results if r.details["method"] == "prism_llm"]
    assert [r.task for r in llm] == ["prism_llm#0/references", "prism_llm#0/citations", "prism_llm#1/references",
                                     "prism_llm#1/citations"]
    assert llm[0].details["query_sources"]["method"] == {"llm:fake": 1}
    out = _suite_report(tmp_path / "out", adapter, cell)
    text = (out / "benchmarks" / "sfb.md").read_text()
    assert "## references" in text and "| prism_extractive |" in text and "MRR@50" in text
    assert "not* the paper's LLM queries" in text and "prism_llm (2 samples, mean ± std)" in text
    assert "## Paired tests against a2a" in text and "![ndcg_by_split](sfb/ndcg_by_split.png)" in text
    [llm_row] = [line for line in text.splitlines() if line.startswith("| prism_llm |")][:1]
    assert " ± " in llm_row  # mean ± std over the LLM samples
    details = json.loads((out / "results.json").read_text())["details"]["sfb"]
    assert details["venue_average"]["hashing"]["references"]["a2a"]
    tests = details["paired_tests"]
    assert {t["metric"] for t in tests} == {"ndcg@10", "mrr@50"} and {t["baseline"] for t in tests} == {"a2a"}
    assert {t["method"] for t in tests} == {*METHODS, "max_sim_prism_code"} - {"a2a"}
    assert (out / "benchmarks" / "sfb" / "ndcg_by_split.png").is_file()


def _cell(adapter):
    """One model's (HashingEncoder) cell on `adapter`, through the runner and the executor."""
    from sciembed.evaluation.bench.runner import compute_cell
    from sciembed.evaluation.scorers import DenseScorer

    return compute_cell("hashing", adapter.name, "key", adapter, DenseScorer(HashingEncoder()), keep_going=False)


def _suite_report(out: Path, adapter, cell) -> Path:
    """The suite report of one model's `cell` on `adapter`, through the suite writer."""
    from sciembed.evaluation.bench import Suite, SuiteRun, write_suite_report

    suite = Suite(out=str(out), models=[{"name": "hashing", "model": "hashing"}],
                  benchmarks=[{"name": "sfb", "kind": "scifullbench", "path": str(FIXTURE)}])
    out.mkdir(parents=True)
    write_suite_report(SuiteRun(suite, out, {"sfb": adapter}, {}, {("hashing", "sfb"): cell}))
    return out


def test_prism_llm_without_queries_file_is_an_error():
    with pytest.raises(ValueError, match="needs LLM aspect queries"):
        rank_methods(load_scifullbench(FIXTURE), HashingEncoder(), P2PConfig(methods=["prism_llm"]),
                     show_progress=False)


def test_corpus_queries_file_and_trec_qrels(tmp_path):
    def p(pid, words, title=None):
        return Paper(id=pid, title=title or f"Paper {pid}", abstract=f"About {words}.",
                     sections=(Section("Method", f"We use {words} here.", SectionRole.METHOD),))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write_parquet([p("a", "x y"), p("b", "x y z"), p("c", "u v"), p("d", "x y", title="Paper a")],
                  corpus / "papers.parquet")
    (tmp_path / "queries.txt").write_text("a\nmissing\n")
    (tmp_path / "qrels.trec").write_text("a 0 b 2\na 0 zz 1\nb 0 c 1\n")
    bench = load_paper_to_paper(corpus, tmp_path / "queries.txt", tmp_path / "qrels.trec")
    assert bench.qrels == {"qrels": {"a": {"b": 2}}}
    issues = {i.what: i.count for i in bench.issues}
    assert issues == {"query id not in the corpus": 1, "qrels candidate not in the corpus": 1,
                      "qrels query not in the queries file": 1}
    assert bench.exclusions()["a"] == ["a", "d"]  # same normalised title
    ranked = rank_methods(bench, HashingEncoder(), P2PConfig(methods=["a2a", "late_interaction"], top_k=10),
                          show_progress=False)
    for method in ("a2a", "late_interaction"):
        assert [d for d, _ in ranked.rankings[method]["a"]][:1] == ["b"]
        assert "d" not in [d for d, _ in ranked.rankings[method]["a"]]


def test_ablation_configs_load():
    root = Path(__file__).parents[2] / "configs"
    configs = sorted(root.glob("prism-*.yaml"))
    assert len(configs) >= 6
    for path in configs:
        load_p2p_config(path)
    with pytest.raises(ValueError):
        load_p2p_config(None, fusion="mean")


def test_built_from_directed_citations_with_min_gold(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sciembed.evaluation.paper_to_paper import build_paper_to_paper

    papers = [Paper(id=i, title=f"Paper {i}", abstract=f"About topic {i}.",
                    sections=(Section("Method", f"Words {i} here.", SectionRole.METHOD),)) for i in "abcdet"]
    root = tmp_path / "corpus"
    root.mkdir()
    write_parquet(papers, root / "papers.parquet")
    split = {i: "test" for i in "abcde"} | {"t": "train"}
    pq.write_table(pa.table({"paper_id": list(split), "split": list(split.values())}), root / "splits.parquet")
    pq.write_table(pa.table({"paper_a": ["a"], "paper_b": ["b"], "split": ["test"]}), root / "pairs.parquet")
    cites = [("a", "b", "test"), ("a", "c", "test"), ("d", "a", "test"), ("e", "b", "test"), ("t", "a", "train")]
    pq.write_table(pa.table({"citing": [c[0] for c in cites], "cited": [c[1] for c in cites],
                             "split": [c[2] for c in cites]}), root / "citations.parquet")
    bench = build_paper_to_paper(root, min_gold=2)
    assert bench.qrels["references"] == {"a": {"b": 1, "c": 1}}
    assert bench.qrels["citations"] == {"b": {"a": 1, "e": 1}}
    assert sorted(c.id for c in bench.candidates()) == list("abcde")  # the split's papers only
    assert bench.issues.count("references: query has fewer than 2 gold papers in the corpus") == 2  # d, e
    assert bench.issues.count("references: query has no gold paper in the split") == 2  # b, c cite nothing
    one = build_paper_to_paper(root, min_gold=1)
    assert set(one.qrels["citations"]) == {"a", "b", "c"}
