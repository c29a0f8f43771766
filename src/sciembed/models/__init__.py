"""Encoders: load (path | hub id | offline package), pool, cache vectors, torch or ONNX backend."""

from sciembed.models.cache import CachedEncoder
from sciembed.models.encoder import Encoder, wrap_sentence_transformer
from sciembed.models.loading import ModelLoadError, load_encoder, resolve_model_source

__all__ = [
    "CachedEncoder",
    "Encoder",
    "ModelLoadError",
    "load_encoder",
    "resolve_model_source",
    "wrap_sentence_transformer",
]
