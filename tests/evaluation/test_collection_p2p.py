"""Paper-to-paper over a whole ingested collection: directed citations, seeded val/test queries, fused CLI run."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fakes.models import HashingEncoder, build_tiny_bert
from fakes.topic_papers import TOPICS, write_topic_collection
from sciembed.cli.main import app
from sciembed.evaluation.benchmarks.paper_to_paper import PaperToPaperAdapter, TunedFusion
from sciembed.evaluation.p2p_run import P2PConfig, rank_methods, tune_p2p_fusion
from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper, query_split_of
from sciembed.ioutil.names import slug

runner = CliRunner(env={"COLUMNS": "200"})
@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return write_topic_collection(tmp_path_factory.mktemp("collection"))


def test_directed_citations_and_disjoint_seeded_query_splits(corpus):
    test = build_collection_paper_to_paper(corpus, split="test", seed=3, val_share=0.4)
    val = build_collection_paper_to_paper(corpus, split="val", seed=3, val_share=0.4)
    assert len(test.papers) == 24 and not set(test.queries) & set(val.queries)
    refs = {**test.qrels["references"], **val.qrels["references"]}
    cits = {**test.qrels["citations"], **val.qrels["citations"]}
    assert refs["P16"] == {"P08": 1, "P00": 1} and cits["P00"] == {"P08": 1, "P16": 1}
    assert set(refs) == {f"P{i:02d}" for i in range(8, 24)} and set(cits) == {f"P{i:02d}" for i in range(16)}
    assert all(query_split_of(q, 3, 0.4) == "test" for q in test.queries)
    unresolved = [i for i in test.issues if "not_in_corpus" in i.what]
    assert unresolved and unresolved[0].count == 24
    again = build_collection_paper_to_paper(corpus, split="test", seed=3, val_share=0.4)
    assert again.fingerprint() == test.fingerprint()


def _cell(adapter, encoder=None):
    """One model's cell on `adapter`, through the runner and the executor."""
    from sciembed.evaluation.bench.runner import compute_cell
    from sciembed.evaluation.scorers import DenseScorer

    return compute_cell("hashing", adapter.name, "key", adapter, DenseScorer(encoder or HashingEncoder()),
                        keep_going=False)


def _tuned(corpus, folder, config, encoder=None):
    """The cell of every method ranked over val + test, ``fused`` tuned on val and all reported on test."""
    everything = build_collection_paper_to_paper(corpus, split="all")
    val_ids = [q for q in everything.queries if query_split_of(q, 0, 0.3) == "val"]
    test_ids = [q for q in everything.queries if q not in val_ids]
    adapter = PaperToPaperAdapter(everything, "coll", config, tuned=TunedFusion(val_ids, test_ids, folder))
    return _cell(adapter, encoder), val_ids, test_ids


def test_late_and_tuned_fusion_rank_the_cited_papers(corpus):
    val = build_collection_paper_to_paper(corpus, split="val", seed=0, val_share=0.5)
    config = P2PConfig(methods=["a2a", "late", "bm25"], piece_tokens=24)
    ranked = rank_methods(val, HashingEncoder(), config, show_progress=False)
    assert ranked.encoding["pieces"] > 3 * 24  # the long method sections are split into pieces
    spec = tune_p2p_fusion(ranked.rankings, val, ["bm25", "a2a", "late"], depth=config.top_k)
    test = build_collection_paper_to_paper(corpus, split="test", seed=0, val_share=0.5)
    fused = PaperToPaperAdapter(test, "test", config.model_copy(update={"methods": ["a2a", "fused"]}), fusion=spec)
    cell = _cell(fused)
    assert [r.task for r in cell.results] == ["a2a/references", "a2a/citations", "fused/references",
                                              "fused/citations"]
    assert cell.result("fused/references").metrics["recall@50"] == 100.0


def test_one_pass_tunes_on_val_and_reports_on_test(corpus, tmp_path):
    config = P2PConfig(methods=["a2a", "bm25", "late", "fused"], piece_tokens=24)
    cell, val_ids, test_ids = _tuned(corpus, tmp_path, config)
    assert [r.details["method"] for r in cell.results[::2]] == ["a2a", "bm25", "late", "fused"]
    assert all(set(r.per_query["ndcg@10"]) <= set(test_ids) for r in cell.results)
    spec = json.loads((tmp_path / "hashing.json").read_text())
    assert spec["tuned"]["val_queries"] == len(val_ids) and spec["runs"] == ["bm25", "a2a", "late"]
    val = spec["tuned"]["val_methods"]  # every method scored on val too: the default is chosen there
    assert set(val) == {"a2a", "bm25", "late", "fused"} and val["fused"] == pytest.approx(spec["tuned"]["score"])
    assert spec["tuned"]["val_best_method"] == max(val, key=val.get)
    notes = [n for r in cell.results if r.details["method"] == "fused" for n in r.notes]
    assert sum(n.startswith("fusion tuned on val") for n in notes) == 2  # on each split's fused task


@pytest.mark.slow
def test_cli_tunes_on_val_and_reports_fused_on_test(corpus, tmp_path):
    words = sorted({w.strip(".,").lower() for t in TOPICS for w in t.split()} | {"paper", "on", "this", "abstract",
                                                                                 "is", "about", "we", "study"})
    tiny = build_tiny_bert(tmp_path / "tiny", words, seed=0)
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", "run", str(corpus), "--kind", "paper_to_paper", "-m", str(tiny), "--out",
                                 str(out), "--set", "methods=a2a,late,bm25,fused", "--set", "tune_fusion=true",
                                 "--set", "val_share=0.5"])
    assert result.exit_code == 0, result.output
    saved = out / "fusion" / corpus.name / f"{slug(str(tiny))}.json"
    spec = json.loads(saved.read_text())
    assert spec["runs"] == ["bm25", "a2a", "late"] and spec["tuned"]["split"] == "val"
    (cell,) = json.loads((out / "results.json").read_text())["cells"]
    fused = [r["notes"] for r in cell["results"] if r["task"].startswith("fused/")]
    assert fused and all(any(n.startswith("fusion tuned on val") for n in notes) for notes in fused)
    again = runner.invoke(app, ["eval", "run", "--kind", "paper_to_paper", str(corpus), "-m", str(tiny), "--out",
                                str(tmp_path / "o2"), "--set", "methods=a2a,fused", "--set", f"fusion={saved}",
                                "--set", "val_share=0.5"])
    assert again.exit_code == 0, again.output
    bad = runner.invoke(app, ["eval", "run", str(corpus), "--kind", "paper_to_paper", "-m", str(tiny), "--out",
                              str(tmp_path / "o3"),
                              "--set", "methods=a2a,fused"])
    assert bad.exit_code == 2 and "needs a fusion" in bad.output


def test_search_fuses_the_three_indexes_by_their_method_names(corpus, tmp_path):
    from sciembed.index.bm25_paper import build_bm25_index
    from sciembed.index.paper_index import build_paper_index, read_manifest
    from sciembed.search.batch import search_batch
    from sciembed.search.learned_fusion import FusionError, FusionSpec

    encoder = HashingEncoder()
    build_bm25_index(corpus, "fulltext", tmp_path / "bm25")
    build_paper_index(corpus, encoder, "ta", tmp_path / "ta", show_progress=False)
    build_paper_index(corpus, encoder, "ta+section", tmp_path / "late", show_progress=False)
    manifest = read_manifest(tmp_path / "late")
    assert manifest["piece_tokens"] == 510 and manifest["counts"]["views"] > 24 * 3
    spec = FusionSpec(["bm25", "a2a", "late"], "wsum", "min-max", {"weights": [0.5, 0.2, 0.3]})
    dirs = [tmp_path / "bm25", tmp_path / "ta", tmp_path / "late"]
    results, _ = search_batch(dirs, papers=["P16"], k=5, method="late", fusion=spec)
    ranking = [d for d, _ in results[0][1]]
    assert "P16" not in ranking and {"P08", "P00"} <= set(ranking)
    with pytest.raises(FusionError, match="fuses runs"):
        search_batch(dirs[:2], papers=["P16"], k=5, method="late", fusion=spec)
    spec.save(tmp_path / "late" / "fusion.json")
    from sciembed.search.open import saved_fusion

    assert saved_fusion(dirs) == spec and saved_fusion(dirs[:1]) is None


def test_query_papers_can_follow_a_built_corpus_splits(corpus):
    """A model trained on a corpus's train split is scored only on its val / test papers: train papers are
    never queries (they stay candidates), and each query keeps the corpus's split."""
    splits = {f"P{i:02d}": ("train" if i < 12 else "val" if i < 16 else "test") for i in range(24)}
    splits.pop("P23")  # a paper the built corpus does not hold is no query either
    test = build_collection_paper_to_paper(corpus, split="test", query_splits=splits)
    val = build_collection_paper_to_paper(corpus, split="val", query_splits=splits)
    every = build_collection_paper_to_paper(corpus, split="all", query_splits=splits)
    assert set(test.queries) == {f"P{i}" for i in range(16, 23)}
    assert set(val.queries) == {f"P{i}" for i in range(12, 16)}
    assert set(every.queries) == set(test.queries) | set(val.queries)
    assert len(test.papers) == 24  # every paper is still a candidate


def test_a_tuned_fusion_records_its_model_and_refuses_another_models_scores(corpus, tmp_path):
    from sciembed.search.learned_fusion import FusionError, FusionSpec

    config = P2PConfig(methods=["a2a", "bm25", "late", "fused"], piece_tokens=24)
    tuned_on = HashingEncoder()
    _tuned(corpus, tmp_path, config, tuned_on)
    spec = FusionSpec.load(tmp_path / "hashing.json")
    assert spec.model == tuned_on.fingerprint
    test = build_collection_paper_to_paper(corpus, split="test")
    same = rank_methods(test, HashingEncoder(), config, show_progress=False, fusion=spec)
    assert "fused" in same.rankings
    other = HashingEncoder(dim=48)
    assert other.fingerprint != tuned_on.fingerprint
    with pytest.raises(FusionError, match="tuned on the scores of encoder"):
        rank_methods(test, other, config, show_progress=False, fusion=spec)
