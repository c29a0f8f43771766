"""Encoders: load (path | hub id | offline package), pool, cache vectors, torch or ONNX backend.

The names below are imported on first use, so that a light submodule (`spec`, read by the command
line's options) does not pull in numpy and the encoder code with its package.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {"CachedEncoder": "cache", "Encoder": "encoder", "wrap_sentence_transformer": "encoder",
          "ModelLoadError": "loading", "load_encoder": "loading", "resolve_model_source": "loading"}
__all__ = ["CachedEncoder", "Encoder", "ModelLoadError", "load_encoder", "resolve_model_source",
           "wrap_sentence_transformer"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
