"""Encoders: load (path | hub id | offline package), pool, cache vectors, torch or ONNX backend."""

from sciembed.models.cache import CachedEncoder, CacheStats, EmbeddingCache
from sciembed.models.encoder import Encoder, SentenceTransformerEncoder, wrap_sentence_transformer
from sciembed.models.loading import ModelLoadError, load_encoder, resolve_model_source

__all__ = [
    "CacheStats",
    "CachedEncoder",
    "EmbeddingCache",
    "Encoder",
    "ModelLoadError",
    "SentenceTransformerEncoder",
    "load_encoder",
    "resolve_model_source",
    "wrap_sentence_transformer",
]
