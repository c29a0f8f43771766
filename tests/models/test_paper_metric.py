"""Issue 32, item 5: SPECTER, SciNCL and SPECTER2 rank by Euclidean distance on raw vectors, as SciRepEval's
evaluator and PRISM's ``IndexFlatL2`` do, unless a metric is given; `bench-public.yaml` has a SPECTER2 row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sciembed.evaluation.bench.models import entry_distance, make_scorer, resolve_model
from sciembed.evaluation.bench.suite import ModelEntry, load_suite
from sciembed.models import load_encoder
from sciembed.models.adapters import KNOWN_MODELS, KnownModel, paper_metric
from sciembed.models.loading import resolve_model_source

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_the_papers_baselines_default_to_euclidean():
    for name in ("specter", "specter2", "specter2_base", "scincl", "allenai/specter", "malteos/scincl",
                 "allenai/specter2_base", "SPECTER2", "jinaai/jina-embeddings-v2-base-en"):
        assert paper_metric(name) == "l2", name
    for name in (None, "minilm", "sentence-transformers/all-MiniLM-L6-v2", "BAAI/bge-small-en-v1.5"):
        assert paper_metric(name) is None, name


@pytest.fixture
def l2_alias(monkeypatch) -> str:
    """A known alias over the bundled MiniLM whose papers rank by L2 (stands in for SPECTER2 offline)."""
    monkeypatch.setitem(KNOWN_MODELS, "paper-baseline", KnownModel(resolve_model_source(None), None, "mean", ". ",
                                                                    "l2"))
    return "paper-baseline"


def test_a_known_model_loads_with_its_papers_distance(l2_alias):
    assert load_encoder(l2_alias).metric == "l2"
    assert load_encoder(l2_alias, metric="cosine").metric == "cosine"  # an explicit metric still wins
    assert load_encoder(None).metric == "cosine"


def test_a_suite_row_for_specter2_ranks_by_l2_on_raw_vectors(tmp_path, l2_alias):
    assert entry_distance(ModelEntry(name="s2", model="specter2")) == "l2"
    assert entry_distance(ModelEntry(name="s2", model="specter2", distance="cosine")) == "cosine"
    assert entry_distance(ModelEntry(name="m", model="minilm")) == "cosine"
    assert resolve_model("specter2") == "specter2"  # an alias reaches load_encoder, which expands it
    scorer = make_scorer(ModelEntry(name="base", model=l2_alias), tmp_path / "cache")
    assert scorer.distance == "l2" and scorer.encoder.metric == "l2"
    texts = ["graph neural networks", "protein folding", "speech recognition"]
    vectors = scorer.embed(texts)
    scores = scorer.scores(texts[:1], texts)
    expected = -np.linalg.norm(vectors[:1, None, :] - vectors[None, :, :], axis=-1)
    assert np.argsort(-scores[0]).tolist() == np.argsort(-expected[0]).tolist()


def test_bench_public_has_a_specter2_row_ranked_by_l2():
    suite = load_suite(CONFIGS / "bench-public.yaml")
    rows = {m.name: m for m in suite.models}
    assert rows["specter2"].model == "specter2" and entry_distance(rows["specter2"]) == "l2"
    assert entry_distance(rows["specter"]) == "l2" and entry_distance(rows["scincl"]) == "l2"
