"""The contract's ranking path: full lists (never cut at k), thresholds, distances, BM25 statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sciembed.evaluation.contract import RankingTask
from sciembed.evaluation.execute import rank_task, run_task
from sciembed.evaluation.scorers import BM25Scorer, DenseScorer, NonFiniteVectors, similarity


def test_full_list_metrics_are_not_truncated(keyword_encoder):
    # 150 candidates; the only relevant one is the least similar: it must still be found, at rank 150
    docs = {f"d{i:03d}": f"alpha {i}" for i in range(149)} | {"rel": "beta far away"}
    task = RankingTask("t", {"q": "alpha query"}, docs, {"q": {"rel": 1}})
    result = run_task(task, DenseScorer(keyword_encoder, "cosine", show_progress=False))
    assert result.per_query["first_relevant_rank"]["q"] == 150
    assert result.metrics["map"] == pytest.approx(100 / 150)
    assert result.metrics["mrr"] == pytest.approx(100 / 150)
    assert result.metrics["recall@100"] == 0.0


def test_relevance_threshold_changes_binary_metrics_not_graded_ndcg(keyword_encoder):
    docs = {"x": "alpha one", "y": "beta two"}
    grades = {"q": {"x": 1, "y": 2}}
    loose = run_task(RankingTask("t", {"q": "alpha"}, docs, grades, pools={"q": ["x", "y"]}),
                     DenseScorer(keyword_encoder, show_progress=False))
    strict = run_task(RankingTask("t", {"q": "alpha"}, docs, grades, pools={"q": ["x", "y"]}, relevant_min=2),
                      DenseScorer(keyword_encoder, show_progress=False))
    assert loose.metrics["map"] == 100.0 and strict.metrics["map"] == 50.0  # y (grade 2) is at rank 2
    assert loose.metrics["ndcg"] == strict.metrics["ndcg"]


def test_distances():
    q, d = np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [0.0, 0.5]])
    assert similarity(q, d, "cosine").tolist() == [[1.0, 0.0]]
    assert similarity(q, d, "dot").tolist() == [[2.0, 0.0]]
    assert similarity(q, d, "l2")[0] == pytest.approx([-1.0, -math.sqrt(1.25)])


def test_nan_vectors_are_one_clear_error(keyword_encoder):
    keyword_encoder.table = {"alpha": np.array([np.nan, 0, 0], np.float32)}
    with pytest.raises(NonFiniteVectors, match=r"NaN/inf vectors for 1 of 2 texts"):
        DenseScorer(keyword_encoder, show_progress=False).embed(["alpha x", "beta y"])


def test_bm25_pools_use_collection_statistics_unless_asked():
    # in the collection "alpha" is everywhere (low idf) and "beta" rare; inside the pool both are rare
    docs = {"p1": "alpha alpha alpha filler", "p2": "beta filler filler filler"}
    docs |= {f"c{i}": f"alpha common text {i}" for i in range(20)}
    task = RankingTask("t", {"q": "alpha beta"}, docs, {"q": {"p2": 1}}, pools={"q": ["p1", "p2"]})
    collection = rank_task(task, BM25Scorer())["q"]
    pool = rank_task(task, BM25Scorer(pool_statistics="pool"))["q"]
    assert [d for d, _ in collection] == ["p2", "p1"]
    assert [d for d, _ in pool] == ["p1", "p2"]
