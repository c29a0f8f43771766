"""Model cards: written by recipes, read by load_encoder to pick the metric."""

from __future__ import annotations

from pathlib import Path

import pytest

from sciembed.models.card import CARD_FILE, ModelCard, ModelCardError, read_model_card, write_model_card


def test_round_trip(tmp_path: Path) -> None:
    card = ModelCard(recipe="cosaemb", metric="l2", input_format="cosaemb", pooling="cls", extra={"margins": [1, 2, 3]})
    write_model_card(tmp_path, card)
    assert read_model_card(tmp_path) == card
    assert read_model_card(tmp_path / "nowhere") is None


@pytest.mark.parametrize(
    ("content", "message"),
    [("{", "unreadable"), ("[]", "JSON object"), ('{"metric": "dot"}', "metric"), ('{"speed": 1}', "unknown")],
)
def test_bad_cards(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / CARD_FILE).write_text(content)
    with pytest.raises(ModelCardError, match=message):
        read_model_card(tmp_path)


def test_load_encoder_takes_metric_from_card(tmp_path: Path) -> None:
    from fakes.models import build_tiny_bert
    from sciembed.models import load_encoder

    model_dir = build_tiny_bert(tmp_path / "m", ["paper", "model"])
    assert load_encoder(str(model_dir)).metric == "cosine"
    write_model_card(model_dir, ModelCard(recipe="semcse", metric="l2"))
    encoder = load_encoder(str(model_dir))
    assert encoder.metric == "l2" and encoder.card.recipe == "semcse"
    assert load_encoder(str(model_dir), metric="cosine").metric == "cosine"  # an explicit metric wins
