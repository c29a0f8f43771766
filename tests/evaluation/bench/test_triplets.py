"""Cite-prediction triplets: both released shapes, accuracy by hand, the seeded geometry sample."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.evaluation.contract import TextStyle, TripletTask
from sciembed.evaluation.execute import run_task
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.scorers import BM25Scorer, DenseScorer
from sciembed.evaluation.triplets import load_triplets


def test_loaders(fixtures):
    folder = load_triplets(fixtures / "triplets")
    assert folder.triplets == [("a", "b", "c"), ("b", "a", "d"), ("c", "d", "a")]
    assert folder.issues.count("triplet names a paper missing from metadata.json") == 1
    jsonl = load_triplets(fixtures / "triplets.jsonl")
    assert jsonl.triplets == [("a", "b", "c")] and len(jsonl.issues) == 1
    with pytest.raises(BenchmarkError, match="does not exist"):
        load_triplets(fixtures / "nope")


def test_accuracy_by_hand(fixtures, keyword_encoder):
    angle = {"a": 0.0, "b": 10.0, "c": 120.0, "d": 30.0}
    table = {k: np.array([np.cos(np.radians(v)), np.sin(np.radians(v)), 0], np.float32) for k, v in angle.items()}
    keyword_encoder.table = table
    bench = load_triplets(fixtures / "triplets")
    result = run_task(bench.tasks(TextStyle())[0], DenseScorer(keyword_encoder, "cosine", show_progress=False))
    # (a,b,c): 10° < 120° ✓; (b,a,d): 10° < 20° ✓; (c,d,a): 90° < 120° ✓
    assert result.metrics["accuracy"] == pytest.approx(100.0)
    keyword_encoder.table = {**table, "d": table["c"]}  # now (b,a,d): 10° vs 110° ✓, (c,d,a): 0° ✓ — still 3/3
    table2 = {**table, "a": np.array([0, 1, 0], np.float32)}  # a at 90°
    keyword_encoder.table = table2
    result = run_task(bench.tasks(TextStyle())[0], DenseScorer(keyword_encoder, "cosine", show_progress=False))
    # (a,b,c): d(a,b)=80°, d(a,c)=30° ✗; (b,a,d): 80° vs 20° ✗; (c,d,a): 90° vs 30° ✗
    assert result.metrics["accuracy"] == 0.0
    assert result.per_query["accuracy"]["a|b|c"] == 0.0


def test_geometry_sample_is_seeded_and_capped(keyword_encoder):
    texts = {f"p{i}": ["alpha", "beta", "gamma", "delta"][i % 4] + f" {i}" for i in range(40)}
    triplets = [(f"p{i}", f"p{(i + 4) % 40}", f"p{(i + 1) % 40}") for i in range(40)]
    scorer = DenseScorer(keyword_encoder, "cosine", show_progress=False)
    small = TripletTask("t", texts, triplets, geometry_sample=10, seed=3)
    first, second = run_task(small, scorer), run_task(small, scorer)
    assert first.metrics == second.metrics and first.metrics["geometry_triplets"] == 10
    assert run_task(TripletTask("t", texts, triplets), scorer).metrics["geometry_triplets"] == 40
    bm25 = run_task(small, BM25Scorer())
    assert "alignment" not in bm25.metrics and 0 <= bm25.metrics["accuracy"] <= 100
