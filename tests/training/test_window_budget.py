"""Issue 32, item 1: S2Full's body windows follow the training budget (716 words for ModernBERT at 1,024
tokens), never the 8,192 tokens a saved ModernBERT reads — in training validation, `sciembed study` and
`sciembed eval` on a saved window-recipe model."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml

from sciembed.training.config import ValidationConfig, WindowConfig, load_config
from sciembed.views import target_words

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


class _Card:
    def set_evaluation_metrics(self, *args, **kwargs) -> None:
        pass


def _modernbert_like():
    """A stand-in training model: trains at 1,024 tokens, its saved copy reads 8,192 (ModernBERT's own)."""
    from sciembed.training.model import INFERENCE_LENGTH_ATTR

    model = SimpleNamespace(max_seq_length=1024, model_card_data=_Card())
    setattr(model, INFERENCE_LENGTH_ATTR, 8192)
    return model


def _validate(monkeypatch, corpus, config: ValidationConfig) -> dict:
    import sciembed.evaluation as evaluation
    import sciembed.models as models
    from sciembed.training.validation import CitationValidator

    seen: dict = {}

    def fake_evaluate(encoder, benchmark, **kwargs):
        seen.update(window_tokens=benchmark.window_tokens, reading=encoder.max_seq_length)
        return SimpleNamespace(result=lambda task: SimpleNamespace(metrics={"ndcg@10": 50.0}))

    monkeypatch.setattr(evaluation, "evaluate", fake_evaluate)
    monkeypatch.setattr(models, "wrap_sentence_transformer", lambda model, name: model)
    model = _modernbert_like()
    metrics = CitationValidator(corpus, config)(model)
    assert model.max_seq_length == 1024  # the training budget is back after validation
    assert set(metrics.values()) == {0.5}  # the executor's ×100, logged 0–1 as the trainer's other metrics
    return seen


def test_validation_windows_are_the_training_budgets_not_the_saved_models(monkeypatch, tiny_corpus):
    seen = _validate(monkeypatch, tiny_corpus, ValidationConfig(max_queries=2, max_candidates=8))
    assert seen["reading"] == 8192  # the model is validated as it will be saved ...
    assert seen["window_tokens"] == 1024 and target_words(seen["window_tokens"]) == 716  # ... on the paper's windows
    explicit = _validate(monkeypatch, tiny_corpus, ValidationConfig(max_queries=2, max_candidates=8, window_tokens=512))
    assert explicit["window_tokens"] == 512


def test_modernbert_configs_validate_on_716_word_windows():
    for name in ("window-modernbert.yaml", "window-modernbert-ta_ta.yaml"):
        config = load_config(WindowConfig, CONFIGS / name)
        assert config.validation.window_tokens == 1024 == config.model.max_seq_length, name
        assert target_words(config.validation.window_tokens) == 716


def test_study_evaluates_every_model_on_the_training_budgets_windows(tmp_path):
    from sciembed.experiments.study import load_study

    assert load_study(CONFIGS / "study-s2full.yaml").window_tokens == 512  # window-minilm.yaml's budget
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({"train_config": str(CONFIGS / "window-modernbert.yaml"),
                                    "evaluation": {"window_tokens": None}}))
    assert load_study(path).window_tokens == 1024
    path.write_text(yaml.safe_dump({"train_config": str(CONFIGS / "window-modernbert.yaml"),
                                    "evaluation": {"window_tokens": 2048}}))
    assert load_study(path).window_tokens == 2048


def test_a_saved_window_model_is_evaluated_on_its_training_windows():
    from sciembed.evaluation.scorers import DenseScorer
    from sciembed.models.card import ModelCard
    from sciembed.training.trainer import default_card

    config = load_config(WindowConfig, CONFIGS / "window-modernbert.yaml")
    card = default_card("window", config)
    assert card.extra == {"window_tokens": 1024} and card.metric == "cosine"
    assert default_card("jepa", config) is None
    saved = SimpleNamespace(name="m", fingerprint="f", max_seq_length=8192, card=card)
    assert target_words(DenseScorer(saved).style().window_tokens) == 716
    plain = SimpleNamespace(name="m", fingerprint="f", max_seq_length=8192, card=ModelCard())
    assert DenseScorer(plain).style().window_tokens == 8192


def test_the_real_study_keeps_one_set_of_windows_for_every_model(tmp_path, tiny_bert):
    """A window arm's card records its training budget; the real study's suite still has every dense model read
    the windows of its evaluation budget (like-for-like), and BM25 its own."""
    from sciembed.evaluation.bench.models import make_scorer
    from sciembed.evaluation.bench.suite import ModelEntry
    from sciembed.experiments import real_study as rs

    config = rs.RealStudyConfig(source=tmp_path, arms={"window": {"recipe": "window", "config": "w.yaml"}})
    suite = rs.study_suite(config, rs.StudyPaths(tmp_path), {"window": tmp_path / "model"})
    assert {m["name"]: m.get("window_tokens") for m in suite["models"]} == {"base": 256, "bm25": None, "window": 256}
    scorer = make_scorer(ModelEntry(name="m", model=str(tiny_bert), window_tokens=48), tmp_path / "cache")
    assert scorer.style().window_tokens == 48  # the suite's executor reads the entry's windows
