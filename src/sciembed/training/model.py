"""The trainable encoder: base transformer + the recipe's pooling + optional two-layer projection head.

The saved directory is a standard sentence-transformers model. Every module of the base is kept (its pooling
unless the recipe pools another way); its ``Normalize`` is not trained through (Euclidean and SIGReg losses
must see raw vectors) but added back when the model is saved for cosine (`saving_base_tail`).
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
# Attributes of a training model: the token budget its saved copy reads (`set_token_budgets`), the base it was
# built from (for the model card) and whether the base ended with a Normalize (`saving_base_tail`).
INFERENCE_LENGTH_ATTR = "sciembed_inference_max_seq_length"
BASE_ATTR = "sciembed_base_model"
NORMALIZE_ATTR = "sciembed_base_normalizes"


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
    return int(getattr(model, INFERENCE_LENGTH_ATTR, None) or model.max_seq_length) if has_budget(model) else None


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


def base_modules(loaded: SentenceTransformer, pooling: str) -> tuple[list, bool]:
    """The base's modules to train with (transformer, pooling, its own layers after the pooling) and whether
    it ends with a ``Normalize``. The base's pooling is kept when it pools the way the recipe asks (`pooling`:
    "mean" or "cls"), else replaced; a base without a pooling module gets the recipe's."""
    from sentence_transformers.sentence_transformer.modules import Normalize, Pooling

    transformer, rest = loaded[0], list(loaded)[1:]
    normalizes = bool(rest) and isinstance(rest[-1], Normalize)
    if normalizes:
        rest = rest[:-1]
    own_pool = rest[0] if rest and isinstance(rest[0], Pooling) else None
    if own_pool is not None:
        rest = rest[1:]
    if own_pool is None or own_pool.pooling_mode not in (pooling, (pooling,), [pooling]):
        own_pool = Pooling(transformer.get_embedding_dimension(), pooling_mode=pooling)
    return [transformer, own_pool, *(m for m in rest if not isinstance(m, Normalize))], normalizes


def output_dim(modules: list) -> int:
    """The embedding size the last module that declares one produces."""
    for module in reversed(modules):
        get = getattr(module, "get_embedding_dimension", None)
        if callable(get) and get():
            return int(get())
    raise ValueError("no module declares an embedding dimension")


@contextmanager
def saving_base_tail(model: SentenceTransformer) -> Iterator[bool]:
    """Inside the block the model ends with the base's ``Normalize`` when the base had one and the model is
    saved for cosine similarity (a Euclidean model, e.g. SemCSE's or CoSAEmb's triplets, keeps raw vectors).
    Yields whether it was added; it is removed again after (training goes on without it)."""
    from sentence_transformers.sentence_transformer.modules import Normalize

    wanted = bool(getattr(model, NORMALIZE_ATTR, False)) and model.similarity_fn_name in (None, "cosine") \
        and not isinstance(model[-1], Normalize)
    if not wanted:
        yield False
        return
    position = len(model)
    model.append(Normalize())
    try:
        yield True
    finally:
        del model[position]


def build_model(config: ModelConfig, device: str | None = None, pooling: str = "mean") -> SentenceTransformer:
    """Load the base (path, hub id, or None for the offline MiniLM) and assemble the training model;
    `pooling` is "mean" (S2Full) or "cls" (SPECTER, CoSAEmb)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Transformer

    from sciembed.models.loading import load_sentence_transformer

    loaded, source = load_sentence_transformer(config.base, device=device)
    transformer = loaded[0]
    if not isinstance(transformer, Transformer):
        raise ValueError(f"{source}: first module is {type(transformer).__name__}, not a transformer")
    limit = getattr(transformer.auto_model.config, "max_position_embeddings", None)
    if isinstance(limit, int) and config.max_seq_length > limit:
        raise ValueError(f"model.max_seq_length {config.max_seq_length} exceeds {source}'s {limit} position embeddings")
    modules, normalizes = base_modules(loaded, pooling)
    dim = output_dim(modules)
    head = config.projection
    if head is not None:
        act = getattr(torch.nn, ACTIVATIONS[head.activation])()
        modules += [Dense(dim, head.hidden, activation_function=act),
                    Dense(head.hidden, head.out, activation_function=torch.nn.Identity())]
    model = SentenceTransformer(modules=modules, device=device or str(loaded.device))
    set_token_budgets(model, transformer, config)
    setattr(model, BASE_ATTR, config.base or "minilm")  # what the model card and `saving_base_tail` need
    setattr(model, NORMALIZE_ATTR, normalizes)
    return model
