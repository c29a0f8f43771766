"""The model card ``sciembed_model.json``: how a saved model wants to be used, written next to its weights.

Recipes that train for Euclidean distance (CoSAEmb, SemCSE) or format inputs their own way (CoSAEmb's
special tokens) write it, so `load_encoder` and evaluation follow it without flags; a checkpoint without
a card means cosine, plain text. Example: ``{"recipe": "cosaemb", "metric": "l2", "input_format":
"cosaemb", "pooling": "cls", "extra": {...}}``
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.ioutil.atomic import write_text_atomic

CARD_FILE = "sciembed_model.json"
CARD_METRICS = ("cosine", "l2")


class ModelCardError(SciembedInputError, ValueError):
    """A model card that cannot be read or holds an impossible value."""


@dataclass(frozen=True)
class ModelCard:
    """`metric`: "cosine" (L2-normalised, inner product) or "l2" (raw vectors, Euclidean).

    `input_format`: "plain" (sciembed's own text views) or a recipe's name whose
    formatter must be applied to every text (e.g. "cosaemb"). `pooling` is
    informational (the sentence-transformers directory already holds it).
    """

    recipe: str | None = None
    metric: str = "cosine"
    input_format: str = "plain"
    pooling: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.metric not in CARD_METRICS:
            raise ModelCardError(f"model card metric {self.metric!r}; expected one of {', '.join(CARD_METRICS)}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_window_tokens(encoder: Any) -> int:
    """Body windows' token budget when none is given: the model card's ``window_tokens`` (a window-recipe model
    records its training budget) or else the encoder's ``max_seq_length``."""
    return card_window_tokens(getattr(encoder, "card", None)) or int(encoder.max_seq_length)


def card_window_tokens(card: ModelCard | None) -> int | None:
    """The body windows' token budget a card asks evaluation to use (``extra.window_tokens``: S2Full's window
    recipe records its training budget, so a ModernBERT saved to read 8,192 tokens is still evaluated on
    716-word windows, 0.7 × 1,024), or None: the encoder's own ``max_seq_length``."""
    value = (card.extra.get("window_tokens") if card is not None else None)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ModelCardError(f"model card window_tokens must be a positive integer, got {value!r}")
    return value


def write_model_card(model_dir: str | Path, card: ModelCard) -> Path:
    """Write ``sciembed_model.json`` into `model_dir` (atomically: temp file, then rename)."""
    path = Path(model_dir) / CARD_FILE
    write_text_atomic(path, json.dumps(card.to_dict(), indent=2, sort_keys=True) + "\n")
    return path


def read_model_card(model_dir: str | Path) -> ModelCard | None:
    """The card in `model_dir`, or None when it has none (or `model_dir` is a hub id)."""
    path = Path(model_dir) / CARD_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelCardError(f"{path}: unreadable model card ({exc})") from exc
    if not isinstance(data, dict):
        raise ModelCardError(f"{path}: a model card is a JSON object, got {type(data).__name__}")
    known = {"recipe", "metric", "input_format", "pooling", "extra"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ModelCardError(f"{path}: unknown model card field(s) {', '.join(unknown)}")
    extra = data.get("extra") or {}
    if not isinstance(extra, dict):
        raise ModelCardError(f"{path}: 'extra' must be an object")
    return ModelCard(recipe=data.get("recipe"), metric=str(data.get("metric", "cosine")),
                     input_format=str(data.get("input_format", "plain")), pooling=data.get("pooling"), extra=extra)
