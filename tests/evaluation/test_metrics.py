"""Every metric against rankings scored by hand."""

from __future__ import annotations

from math import log2

import pytest

from sciembed.evaluation.metrics import by_domain, per_query_scores
from sciembed.evaluation.significance import paired_test

METRICS = ("ndcg@10", "mrr", "recall@1", "recall@10", "recall@100", "map")


def ranking(*ids: str) -> list[tuple[str, float]]:
    return [(d, float(len(ids) - i)) for i, d in enumerate(ids)]


def test_every_metric_matches_hand_computation() -> None:
    qrels = {"q1": {"a": 1, "c": 1, "x": 0}, "q2": {"z": 1}, "q3": {"m": 1}}
    rankings = {
        "q1": ranking("b", "a", "x", "c"),  # relevant at ranks 2 and 4; "x" is judged non-relevant
        "q2": ranking("y", "z"),  # relevant at rank 2
        "q3": [],  # nothing retrieved
    }
    scores = per_query_scores(qrels, rankings, METRICS)
    assert set(scores) == set(METRICS)
    q1 = {m: scores[m]["q1"] for m in METRICS}
    assert q1["ndcg@10"] == pytest.approx((1 / log2(3) + 1 / log2(5)) / (1 + 1 / log2(3)))
    assert q1["mrr"] == pytest.approx(1 / 2)
    assert q1["recall@1"] == 0
    assert q1["recall@10"] == q1["recall@100"] == 1
    assert q1["map"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert scores["ndcg@10"]["q2"] == pytest.approx(1 / log2(3))
    assert scores["map"]["q2"] == pytest.approx(1 / 2)
    assert all(scores[m]["q3"] == 0 for m in METRICS)


def test_cutoffs_count_only_the_top() -> None:
    docs = [f"d{i:03d}" for i in range(150)]
    qrels = {"q": {"d005": 1, "d050": 1, "d120": 1}}
    scores = per_query_scores(qrels, {"q": ranking(*docs)}, METRICS)
    assert scores["recall@1"]["q"] == 0
    assert scores["recall@10"]["q"] == pytest.approx(1 / 3)
    assert scores["recall@100"]["q"] == pytest.approx(2 / 3)
    dcg = 1 / log2(7)  # d005 at rank 6; the others are below 10
    assert scores["ndcg@10"]["q"] == pytest.approx(dcg / (1 + 1 / log2(3) + 1 / log2(4)))


def test_order_given_is_order_scored_even_with_equal_scores() -> None:
    """ranx re-sorts by score; equal raw scores must not let it reorder what the runner fixed."""
    qrels = {"q": {"b": 1}}
    tied = [("a", 0.5), ("b", 0.5), ("c", 0.5)]
    assert per_query_scores(qrels, {"q": tied}, METRICS)["mrr"]["q"] == pytest.approx(1 / 2)


def test_per_domain_means_use_only_that_domains_queries() -> None:
    per_query = {"ndcg@10": {"q1": 1.0, "q2": 0.5, "q3": 0.0}, "mrr": {"q1": 1.0, "q2": 1.0, "q3": 0.25}}
    out = by_domain(per_query, {"q1": "cs", "q2": "cs", "q3": "bio"})
    assert out == {"bio": {"queries": 1, "ndcg@10": 0.0, "mrr": 0.25},
                   "cs": {"queries": 2, "ndcg@10": 0.75, "mrr": 1.0}}


def test_paired_tests() -> None:
    a = {f"q{i}": 0.1 * (i % 5) for i in range(40)}
    b = {q: v + 0.2 for q, v in a.items()}
    b["q0"] = 0.0  # not constant, so the t statistic is finite
    student = paired_test("ndcg@10", a, b, "student")
    fisher = paired_test("ndcg@10", a, b, "fisher", n_permutations=500, seed=1)
    assert student.n == fisher.n == 40
    assert student.delta == pytest.approx(sum(b.values()) / 40 - sum(a.values()) / 40)
    assert student.p_value < 1e-6 and fisher.p_value < 0.01
    assert paired_test("ndcg@10", a, a).p_value == 1.0
    assert paired_test("ndcg@10", a, {"q0": 1.0, "q1": 0.0, "other": 1.0}).n == 2  # only shared queries pair
    with pytest.raises(ValueError, match="unknown test"):
        paired_test("ndcg@10", a, b, "wilcoxon")


def test_a_scenario_without_any_hit_scores_zero() -> None:
    """BM25 body queries can share no term with any TA candidate; ranx cannot build such a run itself."""
    scores = per_query_scores({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": [], "q2": []}, METRICS)
    assert scores == {m: {"q1": 0.0, "q2": 0.0} for m in METRICS}
