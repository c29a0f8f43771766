"""A static full-text encoder: MiniLM distilled with model2vec, then trained on citation pairs.

A static model averages token vectors: it reads every word of a paper at a fraction of a transformer's cost,
with no token budget. The recipe takes the window recipe's data unchanged, so the two encoders are compared on
the same training signal. `model.base` is a transformer (distilled offline) or a static model (trained further).
"""

from __future__ import annotations

from pathlib import Path

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import StaticConfig
from sciembed.training.recipes import window
from sciembed.training.trainer import RecipeParts

NAME = "static"
CONFIG = StaticConfig
Prepared = window.Prepared


prepare = window.prepare  # the same data block and planner


def build_static_model(config: StaticConfig, device: str | None = None):
    """A trainable static sentence-transformers model from `config.model.base`."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    from sciembed.models.loading import load_sentence_transformer, resolve_model_source

    source = resolve_model_source(config.model.base)
    if Path(source, "modules.json").is_file():
        loaded, _ = load_sentence_transformer(config.model.base, device=device)
        if isinstance(loaded[0], StaticEmbedding):
            return loaded.float()
    from model2vec.distill import distill

    distilled = distill(model_name=source, pca_dims=config.model.pca_dims, device=device or "cpu")
    static = StaticEmbedding(distilled.tokenizer, embedding_weights=distilled.embedding, base_model=source)
    # model2vec stores float16; Adam's second moment underflows in float16 (g² ~ 1e-8) and its updates blow up
    return SentenceTransformer(modules=[static], device=device or "cpu").float()


def build(config: StaticConfig, prepared: window.Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from sciembed.training.data import ViewTexts

    return window.plan_parts(config, prepared, corpus, build_static_model(config),
                             ViewTexts(prepared.data, prepared.window_words),
                             prepared.summary() | {"encoder": "static (model2vec StaticEmbedding)"})
