"""Training recipes on one SentenceTransformerTrainer set-up (see `sciembed.training.api.train`).

Importing this package stays light: torch and sentence-transformers load only
when a model is built.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {"train": "api", "WindowConfig": "config", "load_config": "config"}


def __getattr__(name: str) -> Any:  # imported on first use: the CLI registers recipes without the trainer's code
    if name not in _HOME:
        raise AttributeError(f"module 'sciembed.training' has no attribute {name!r}")
    return getattr(importlib.import_module(f"sciembed.training.{_HOME[name]}"), name)


__all__ = ["WindowConfig", "load_config", "train"]
