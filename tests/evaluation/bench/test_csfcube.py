"""CSFCube: the release layout, the official metrics worked by hand, facets, folds and CoSAEmb tokens."""

from __future__ import annotations

import json
import math

import pytest

from sciembed.evaluation.contract import TextStyle
from sciembed.evaluation.csfcube import (
    fold_average,
    load_csfcube,
    ndcg,
    official_query_metrics,
)
from sciembed.evaluation.execute import run_task
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.scorers import DenseScorer


def test_official_metrics_worked_by_hand():
    # a 25-candidate pool in ranked order; grades 3, 0, 2, 1, 0, 2, then zeros
    grades = [3, 0, 2, 1, 0, 2] + [0] * 19
    m = official_query_metrics(grades)
    # NDCG%20 cuts at int(0.2 × 25) = 5; the official discount weighs ranks 1 and 2 by 1, rank i ≥ 2 by 1/log2(i)
    dcg5 = 3 + 0 / 1 + 2 / math.log2(3) + 1 / math.log2(4) + 0 / math.log2(5)
    ideal5 = 3 + 2 / 1 + 2 / math.log2(3) + 1 / math.log2(4) + 0 / math.log2(5)
    assert m["ndcg%20"] == pytest.approx(100 * dcg5 / ideal5)
    assert m["ndcg%20"] == pytest.approx(70.4225, abs=1e-3)
    # relevant = grade ≥ 2: ranks 1, 3, 6
    assert m["map"] == pytest.approx(100 * (1 / 1 + 2 / 3 + 3 / 6) / 3)
    assert m["precision@20"] == pytest.approx(100 * 3 / 20)
    assert m["recall@20"] == pytest.approx(100.0)
    # the official R-precision: precision at the rank of the last relevant candidate (3 of 6), not precision@R
    assert m["r-precision"] == pytest.approx(50.0)


def test_official_ndcg_cutoff_of_zero_and_gain_is_linear():
    assert ndcg([3, 2], 0) == 0.0  # int(0.2 × 4) = 0: the official script scores 0
    assert ndcg([1, 3], 2) == pytest.approx((1 + 3) / (3 + 1))  # rank 2 is not discounted (method 0)
    assert ndcg([0, 1, 3], 3) == pytest.approx((0 + 1 + 3 / math.log2(3)) / (3 + 1 + 0))


def test_fold_average_is_mean_of_fold_means():
    scores = {"a": 10.0, "b": 20.0, "c": 60.0}
    assert fold_average(scores, [["a", "b"], ["c"]]) == pytest.approx((15 + 60) / 2)


def test_loader_reads_release_files_and_counts_problems(fixtures):
    bench = load_csfcube(fixtures / "csfcube")
    assert set(bench.pools) == {"background", "method", "result"}
    assert bench.pools["background"]["101"] == {"201": 3, "202": 0, "203": 2, "204": 1}
    assert "999" not in bench.pools["method"]["102"]  # a candidate absent from the abstracts file
    assert bench.issues.count("candidate missing from abstracts-csfcube-preds.jsonl") == 1
    assert bench.folds["background"] == [["102_background"], ["101_background"]]


def test_missing_file_names_file_and_fields(tmp_path):
    (tmp_path / "abstracts-csfcube-preds.jsonl").write_text("")
    with pytest.raises(BenchmarkError, match=r"test-pid2anns-csfcube-background\.json.*cands/relevance_adju"):
        load_csfcube(tmp_path)


def test_queries_facet_sentences_and_cosaemb_tokens(fixtures):
    """A CoSAEmb model reads CSFCube as it was trained: candidates are its TA unit, a query is written like
    the first chunk of a section of the facet (the facet token after the title, where [ABS] would be)."""
    bench = load_csfcube(fixtures / "csfcube", query_mode="facet")
    tasks = {t.name: t for t in bench.tasks(TextStyle(input_format="cosaemb"))}
    assert tasks["method"].queries["101"] == "[TTL] alpha parsing with graphs [SEP] [MET] we propose a graph method."
    assert tasks["background"].queries["102"].startswith("[TTL] ")
    assert tasks["background"].queries["102"].endswith(" [SEP] [INTR] [RW] beta objective is tagging.")  # objective
    assert "[SEP] [RES] " in tasks["result"].queries["101"]
    assert tasks["method"].docs["101"] == ("[TTL] alpha parsing with graphs [SEP] [ABS] alpha background sentence on "
                                           "parsing. we propose a graph method. results improve accuracy.")
    whole = {t.name: t for t in load_csfcube(fixtures / "csfcube").tasks(TextStyle(input_format="cosaemb"))}
    assert whole["method"].queries["101"] == whole["method"].docs["101"].replace("[ABS]", "[MET]")
    plain = {t.name: t for t in load_csfcube(fixtures / "csfcube").tasks(TextStyle())}
    assert plain["method"].queries["101"] == "alpha parsing with graphs. alpha background sentence on parsing. " \
                                             "we propose a graph method. results improve accuracy."
    assert plain["method"].relevant_min == 2


def test_end_to_end_with_official_metrics_and_fold_summary(fixtures, keyword_encoder):
    bench = load_csfcube(fixtures / "csfcube")
    scorer = DenseScorer(keyword_encoder, "cosine", show_progress=False)
    results = [run_task(t, scorer) for t in bench.tasks(scorer.style())]
    bg = next(r for r in results if r.task == "background")
    # query 101 (alpha) ranks 201 (alpha, grade 3) and 203 (alpha, grade 2) first: a perfect top 2
    assert bg.per_query["ndcg"]["101"] == pytest.approx(100 * ndcg([3, 2, 1, 0], 4))
    summary = bench.summarize(results)
    assert summary["background/ndcg%20"] == pytest.approx(
        (bg.per_query["ndcg%20"]["102"] + bg.per_query["ndcg%20"]["101"]) / 2)
    assert "all/ndcg%20" in summary and "method/map" in summary
    json.dumps(summary)
