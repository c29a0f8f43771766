"""Issue 31, item 6: a trained model keeps every module of its base, carries a real card and readable files."""

from __future__ import annotations

import stat

import numpy as np
import pytest

from sciembed.training import WindowConfig, load_config, train


def module_names(model) -> list[str]:
    return [type(m).__name__ for m in model]


def window_config(base: str, **overrides) -> WindowConfig:
    values = {
        "model.base": base,
        "model.max_seq_length": 32,
        "model.projection": None,
        "training.batch_size": 8,
        "training.mini_batch_size": 8,
        "training.max_steps": 2,
        "training.learning_rate": 1e-3,
        "training.log_every_steps": 1,
        "checkpoint.every_steps": 2,
        "validation.every_steps": 2,
    }
    return load_config(WindowConfig, None, values | overrides)


@pytest.fixture(scope="module")
def normalizing_base(tiny_bert, tmp_path_factory):
    """A sentence-transformers model of the tiny BERT that ends with Normalize, as MiniLM does."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling, Transformer

    root = tmp_path_factory.mktemp("st-base") / "base"
    transformer = Transformer(str(tiny_bert), max_seq_length=64)
    SentenceTransformer(modules=[transformer, Pooling(32, pooling_mode="mean"), Normalize()],
                        device="cpu").save(str(root))
    return root


def readable_by_all(root) -> list[str]:
    """Files or folders under `root` that group and others cannot read."""
    return [str(p) for p in [root, *root.rglob("*")] if not p.stat().st_mode & stat.S_IRGRP
            or not p.stat().st_mode & stat.S_IROTH]


def test_the_saved_model_keeps_every_module_of_its_base(normalizing_base, tiny_corpus, tmp_path):
    from sentence_transformers import SentenceTransformer

    base = SentenceTransformer(str(normalizing_base), device="cpu")
    model_dir = train("window", window_config(str(normalizing_base)), tiny_corpus, tmp_path / "run")
    saved = SentenceTransformer(str(model_dir), device="cpu")
    assert module_names(saved) == module_names(base) == ["Transformer", "Pooling", "Normalize"]
    vectors = saved.encode(["t1w1 t1w2 c3", "t2w5 c1"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)  # unit length, as from the base
    assert not readable_by_all(model_dir)


def test_a_projection_head_goes_between_the_base_and_its_normalize(normalizing_base, tiny_corpus, tmp_path):
    from sentence_transformers import SentenceTransformer

    config = window_config(str(normalizing_base), **{"model.projection": {"hidden": 24, "out": 16},
                                                      "validation.every_steps": 0})
    saved = SentenceTransformer(str(train("window", config, tiny_corpus, tmp_path / "run")), device="cpu")
    assert module_names(saved) == ["Transformer", "Pooling", "Dense", "Dense", "Normalize"]


def test_normalize_is_added_back_only_for_cosine(normalizing_base):
    from sentence_transformers.sentence_transformer.modules import Normalize

    from sciembed.training.config import ModelConfig
    from sciembed.training.model import build_model, saving_base_tail

    model = build_model(ModelConfig(base=str(normalizing_base), max_seq_length=32), device="cpu")
    assert module_names(model) == ["Transformer", "Pooling"]  # trained without it
    with saving_base_tail(model) as added:
        assert added and isinstance(model[-1], Normalize)
    assert module_names(model) == ["Transformer", "Pooling"]
    model.similarity_fn_name = "euclidean"  # a triplet recipe's raw vectors
    with saving_base_tail(model) as added:
        assert not added and module_names(model) == ["Transformer", "Pooling"]


@pytest.mark.slow
def test_minilm_window_model_has_its_base_modules_and_a_real_card(tiny_corpus, tmp_path):
    from sentence_transformers import SentenceTransformer

    from sciembed.models.loading import DEFAULT_HUB_ID, load_sentence_transformer

    base, _ = load_sentence_transformer("minilm", device="cpu")
    model_dir = train("window", window_config("minilm"), tiny_corpus, tmp_path / "run")
    saved = SentenceTransformer(str(model_dir), device="cpu")
    assert module_names(saved) == module_names(base) == ["Transformer", "Pooling", "Normalize"]
    card = (model_dir / "README.md").read_text()
    assert f"**Base model:** [{DEFAULT_HUB_ID}](https://huggingface.co/{DEFAULT_HUB_ID})" in card
    assert "Base model:** Unknown" not in card and "Training Dataset:** Unknown" not in card
    assert "## Trained with sciembed" in card and "- **Recipe:** `window`" in card
    assert "the train split of corpus" in card and "citation pairs" in card  # the data, counted
    assert "learning_rate: 0.001" in card and "batch_size: 8" in card  # the recipe's hyper-parameters
    assert "| metric | value |" in card and "ndcg@10" in card  # the validation table
    assert "## Evaluation" in card  # sentence-transformers' own table from the evaluator
    assert not readable_by_all(model_dir)


def test_the_card_section_without_validation_says_how_to_evaluate(normalizing_base, tiny_corpus, tmp_path):
    config = window_config(str(normalizing_base), **{"validation.every_steps": 0})
    model_dir = train("window", config, tiny_corpus, tmp_path / "run")
    card = (model_dir / "README.md").read_text()
    assert "a local model directory (base)" in card and str(tmp_path) not in card.split("```yaml")[0]
    assert "No validation ran during training" in card
    assert card.index("## Trained with sciembed") < card.index("## Training Details")
