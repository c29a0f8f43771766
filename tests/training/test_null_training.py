"""A run that learns nothing must save a model that scores exactly what its base scores.

Learning rate 0 leaves every weight as loaded (AdamW's weight decay is scaled by the learning rate),
so any difference on the harness is drift in saving, loading, pooling, normalisation, prefixes,
special tokens or the token budget — the kinds of bug that made trained models look worse than
their base on real text."""

from __future__ import annotations

import pytest

from sciembed.evaluation import build_citation_benchmark, evaluate, scenario_benchmark
from sciembed.models import load_encoder
from sciembed.training import WindowConfig, load_config, train

pytestmark = pytest.mark.slow


def test_learning_rate_zero_scores_exactly_the_base(tiny_corpus, tmp_path):
    config = load_config(WindowConfig, None, {
        "model.base": None,  # the offline MiniLM
        "model.max_seq_length": 32,  # trains on a small budget: the saved model must still read 256
        "model.projection": None,
        "training.batch_size": 10, "training.mini_batch_size": 10, "training.loss": "mnrl",
        "training.max_steps": 2, "training.learning_rate": 0.0, "training.warmup_ratio": 0.0,
        "checkpoint.every_steps": 100,
    })  # the recipe's [TA] / [BODY] training prefixes stay on: evaluation must not depend on them
    model_dir = train("window", config, tiny_corpus, tmp_path / "null")
    bench = build_citation_benchmark(tiny_corpus, split="test")
    # the same body windows for both (a window-recipe card asks for windows of its training budget by default)
    bench = scenario_benchmark(bench, window_tokens=256)
    base = evaluate(load_encoder(None), bench, show_progress=False)
    null = evaluate(load_encoder(str(model_dir)), bench, show_progress=False)
    assert load_encoder(str(model_dir)).max_seq_length == 256
    assert [r.metrics for r in null.results] == [r.metrics for r in base.results]
    assert [r.per_query for r in null.results] == [r.per_query for r in base.results]
