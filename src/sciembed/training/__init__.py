"""Training recipes on one SentenceTransformerTrainer set-up (see `sciembed.training.api.train`).

Importing this package stays light: torch and sentence-transformers load only
when a model is built.
"""

from sciembed.training.api import train
from sciembed.training.config import (
    ConfigError,
    InfoNCEConfig,
    JepaConfig,
    TrainConfig,
    WindowConfig,
    load_config,
)

__all__ = ["ConfigError", "InfoNCEConfig", "JepaConfig", "TrainConfig", "WindowConfig", "load_config", "train"]
