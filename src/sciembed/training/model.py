"""The trainable encoder: base transformer + mean pooling + optional two-layer projection head.

Built from sentence-transformers modules, so the saved directory is a standard
sentence-transformers model: ``SentenceTransformer(path)`` loads it and
``sciembed eval`` accepts it. The base's own pooling/normalisation (if it is
already a sentence-transformers model) is replaced by mean pooling, as S2Full
trains it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sciembed.training.config import ModelConfig

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

ACTIVATIONS = {"gelu": "GELU", "relu": "ReLU", "tanh": "Tanh"}
# Attribute of a training model holding the token budget its saved copy reads (see `set_token_budgets`).
INFERENCE_LENGTH_ATTR = "sciembed_inference_max_seq_length"


def set_token_budgets(model: SentenceTransformer, transformer, config: ModelConfig) -> int:
    """Train at ``config.max_seq_length``; remember the budget the saved model reads at inference:
    ``config.inference_max_seq_length`` or the base's own (read before the training budget replaces it).

    Saving a model at its training budget made every later `eval`, `search` and `serve` read it at
    that budget (a 64-token SemCSE ablation lost 5.6–18 points to its base that way)."""
    inference = config.inference_max_seq_length or int(transformer.max_seq_length or config.max_seq_length)
    limit = getattr(transformer.auto_model.config, "max_position_embeddings", None)
    if isinstance(limit, int):
        inference = min(inference, limit)
    transformer.max_seq_length = config.max_seq_length
    setattr(model, INFERENCE_LENGTH_ATTR, inference)
    return inference


def has_budget(model: SentenceTransformer) -> bool:
    """False for a model that reads whole texts (a `StaticEmbedding`'s budget is infinite)."""
    return math.isfinite(model.max_seq_length or 0)


def inference_length(model: SentenceTransformer) -> int | None:
    """The token budget the saved model will read (the training budget for a model built elsewhere);
    None for a model without one (static)."""
    if not has_budget(model):
        return None
    return int(getattr(model, INFERENCE_LENGTH_ATTR, None) or model.max_seq_length)


def token_budgets(model: SentenceTransformer) -> dict[str, int | None]:
    """``{"training": the budget it trains on, "inference": the one its saved copy reads}`` (summaries, cards);
    None for both on a model that reads whole texts."""
    if not has_budget(model):
        return {"training": None, "inference": None}
    return {"training": int(model.max_seq_length), "inference": inference_length(model)}


@contextmanager
def reading_as_saved(model: SentenceTransformer) -> Iterator[dict[str, int]]:
    """Inside the block the model reads its inference budget (saving it, validating it as it will be used);
    the training budget comes back after. Yields `token_budgets` as they were on entry."""
    budgets = token_budgets(model)
    if budgets["inference"] is None:  # nothing to switch
        yield budgets
        return
    model.max_seq_length = budgets["inference"]
    try:
        yield budgets
    finally:
        model.max_seq_length = budgets["training"]


def build_model(config: ModelConfig, device: str | None = None, pooling: str = "mean") -> SentenceTransformer:
    """Load the base (path, hub id, or None for the offline MiniLM) and assemble the training model.

    `pooling` is "mean" (S2Full) or "cls" (SPECTER, CoSAEmb)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Pooling, Transformer

    from sciembed.models.loading import load_sentence_transformer

    loaded, source = load_sentence_transformer(config.base, device=device)
    transformer = loaded[0]
    if not isinstance(transformer, Transformer):
        raise ValueError(f"{source}: first module is {type(transformer).__name__}, not a transformer")
    limit = getattr(transformer.auto_model.config, "max_position_embeddings", None)
    if isinstance(limit, int) and config.max_seq_length > limit:
        raise ValueError(
            f"model.max_seq_length {config.max_seq_length} exceeds {source}'s {limit} position embeddings"
        )
    dim = transformer.get_embedding_dimension()
    modules = [transformer, Pooling(dim, pooling_mode=pooling)]
    head = config.projection
    if head is not None:
        act = getattr(torch.nn, ACTIVATIONS[head.activation])()
        modules += [
            Dense(dim, head.hidden, activation_function=act),
            Dense(head.hidden, head.out, activation_function=torch.nn.Identity()),
        ]
    model = SentenceTransformer(modules=modules, device=device or str(loaded.device))
    set_token_budgets(model, transformer, config)
    return model
