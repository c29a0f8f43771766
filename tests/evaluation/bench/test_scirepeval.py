"""SciRepEval: its Hugging Face layout, `title [SEP] abstract`, pools from qrels, probes, the papers' aggregation."""

from __future__ import annotations

import math

import pytest

from sciembed.evaluation.contract import ProbeTask, RankingTask, TextStyle
from sciembed.evaluation.execute import run_task
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.scirepeval import aggregate, load_scirepeval, task_score
from sciembed.evaluation.scorers import DenseScorer

TASKS = ["RELISH", "TREC-CoVID", "SciDocs Cite", "DRSM", "Citation Count", "MeSH"]


def test_loader_reads_each_format(fixtures):
    bench = load_scirepeval(fixtures / "scirepeval", TASKS)
    assert "MeSH" in bench.skipped and "files not found" in bench.skipped["MeSH"]  # absent task: reported
    tasks = {t.name: t for t in bench.tasks(TextStyle(sep="[SEP]"))}
    relish = tasks["RELISH"]
    assert isinstance(relish, RankingTask) and relish.kind == "rerank"
    assert relish.queries["q1"] == "alpha query paper [SEP] about alpha."  # title [SEP] abstract, as SciRepEval
    assert relish.pools == {"q1": ["c1", "c2", "c3"], "q2": ["c2", "c3"]}  # each query ranks its qrels only
    assert bench.issues.count("RELISH: qrels name an unknown candidate") == 1
    assert tasks["TREC-CoVID"].queries == {"t1": "alpha therapy"}  # ad-hoc search: the query string as is
    cite = tasks["SciDocs Cite"]
    assert cite.pools == {"s1": ["s2", "s3", "s4"]} and cite.extra_metrics == ("map", "ndcg")
    drsm = tasks["DRSM"]
    assert isinstance(drsm, ProbeTask) and len(drsm.train_ids) == 24 and len(drsm.test_ids) == 12
    assert bench.issues.count("DRSM: labelled paper missing from the metadata") == 1
    assert drsm.few_shot == ((64, 50), (24, 100))


def test_unknown_task_and_empty_root(fixtures, tmp_path):
    with pytest.raises(BenchmarkError, match="unknown SciRepEval task"):
        load_scirepeval(fixtures / "scirepeval", ["NoSuchTask"])
    with pytest.raises(BenchmarkError, match="no task has its files"):
        load_scirepeval(tmp_path, ["RELISH"])


def test_runs_every_format_and_summarizes(fixtures, keyword_encoder):
    bench = load_scirepeval(fixtures / "scirepeval", TASKS)
    scorer = DenseScorer(keyword_encoder, "l2", show_progress=False)  # SciRepEval ranks by Euclidean distance
    results = [run_task(t, scorer) for t in bench.tasks(scorer.style())]
    by = {r.task: r for r in results}
    # q1 (alpha) ranks c1 (alpha, grade 2), c2 (beta, 0), c3 (gamma, 1): DCG 2 + 1/log2(4), ideal 2 + 1/log2(3)
    assert by["RELISH"].per_query["ndcg"]["q1"] == pytest.approx(100 * 2.5 / (2 + 1 / math.log2(3)))
    assert by["DRSM"].metrics["f1_macro"] == pytest.approx(100.0)  # labels follow the first word: separable
    assert "f1_macro@64shot" in by["DRSM"].metrics and "f1_macro@24shot" in by["DRSM"].metrics
    assert by["Citation Count"].metrics["kendalltau"] > 50
    summary = bench.summarize(results)
    assert set(summary) >= {"RELISH", "classification", "regression", "proximity", "search", "overall"}
    assert summary["proximity"] == pytest.approx((summary["RELISH"] + summary["SciDocs Cite"]) / 2)


def test_aggregation_as_the_papers_compute_it():
    # a task's metrics are averaged (few-shot runs first), then types, and the overall mean is over TASKS
    assert task_score({"map": 80.0, "ndcg": 90.0}, ["map", "ndcg"]) == 85.0
    from sciembed.evaluation.probes import probe_task_score

    clf = probe_task_score({"f1_macro": 60.0, "f1_macro@64shot": 40.0, "f1_macro@24shot": 50.0}, "f1_macro")
    assert clf == pytest.approx((60 + 45) / 2)
    scores = {"A": ("classification", clf), "B": ("classification", 70.0), "R": ("regression", 20.0),
              "P": ("proximity", 85.0), "S": ("adhoc_search", 75.0)}
    out = aggregate(scores)
    assert out["classification"] == pytest.approx(61.25)
    assert out["search"] == 75.0
    assert out["overall"] == pytest.approx((52.5 + 70 + 20 + 85 + 75) / 5)  # 60.5, not the mean of types 60.3125
    assert out["overall"] != pytest.approx((61.25 + 20 + 85 + 75) / 4)


def test_reviewer_matching_counts_in_the_proximity_average_and_embedding_only_s2and_does_not(fixtures,
                                                                                           keyword_encoder):
    """Both run in the suite over the vectors (`VectorTask`); Paper-Reviewer Matching (its official evaluator)
    enters the proximity and overall averages; S2AND's embedding-only clusterer is not S2AND's published
    metric, so it is reported as "S2AND (embedding-only)" and left out of the averages (issue 32, item 4);
    BM25 cannot run them. Layout: allenai/scirepeval (reviewer_matching.py's qrels and reviewer metadata;
    s2and_embeddings.py's <data>/<ds>/<ds>_papers.json of the s2and_mini datasets)."""
    from sciembed.evaluation.contract import VectorTask
    from sciembed.evaluation.execute import supports
    from sciembed.evaluation.scirepeval.reviewer_matching import evaluate_reviewer_matching, load_reviewer_matching
    from sciembed.evaluation.scorers import BM25Scorer

    bench = load_scirepeval(fixtures / "scirepeval", ["RELISH", "SciDocs Cite", "Paper-Reviewer Matching", "S2AND"])
    assert bench.skipped == {}
    scorer = DenseScorer(keyword_encoder, "l2", show_progress=False)
    tasks = {t.name: t for t in bench.tasks(scorer.style())}
    assert isinstance(tasks["S2AND"], VectorTask) and isinstance(tasks["Paper-Reviewer Matching"], VectorTask)
    assert supports(tasks["S2AND"], BM25Scorer()) is not None
    results = [run_task(t, scorer) for t in tasks.values()]
    by = {r.task: r for r in results}
    # every S2AND text falls on the encoder's one off-plane vector: one cluster per block, B3 P = 50, R = 100
    assert by["S2AND"].metrics["qian_b3_precision"] == pytest.approx(50.0)
    assert by["S2AND"].score == pytest.approx(200 / 3) and "embedding-only" in by["S2AND"].notes[0]
    assert "inspire" in by["S2AND"].notes[1]  # the absent datasets are named
    direct = evaluate_reviewer_matching(load_reviewer_matching(fixtures / "scirepeval", scorer.style()),
                                        scorer.embed)
    assert by["Paper-Reviewer Matching"].metrics == pytest.approx(direct)
    summary = bench.summarize(results)
    three = [summary[n] for n in ("RELISH", "SciDocs Cite", "Paper-Reviewer Matching")]
    assert summary["Paper-Reviewer Matching"] == pytest.approx(direct["score"])
    assert "S2AND" not in summary and summary["S2AND (embedding-only)"] == pytest.approx(200 / 3)
    assert summary["proximity"] == pytest.approx(sum(three) / 3) and summary["overall"] == pytest.approx(sum(three) / 3)
    assert "left out of the averages" in bench.describe()["s2and"]


def test_evaluator_tasks_without_their_files_are_skipped_with_the_files_named(fixtures, tmp_path):
    import shutil

    shutil.copytree(fixtures / "scirepeval" / "scirepeval", tmp_path / "scirepeval")
    shutil.copytree(fixtures / "scirepeval" / "scirepeval_test", tmp_path / "scirepeval_test")
    shutil.rmtree(tmp_path / "scirepeval_test" / "reviewers")
    bench = load_scirepeval(tmp_path, ["RELISH", "Paper-Reviewer Matching", "S2AND"])
    assert "scirepeval_test/reviewers/metadata" in bench.skipped["Paper-Reviewer Matching"]
    assert "s2and/<dataset>" in bench.skipped["S2AND"] and "RELISH" not in bench.skipped
