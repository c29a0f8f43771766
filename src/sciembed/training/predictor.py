"""SciJEPA's residual predictor as a sentence-transformers module: ẑ = h + g(h),
g = LayerNorm(d) → Linear(d, hidden) → GELU → Linear(hidden, d).

The last layer starts at zero, so the predictor is the identity at initialisation. As a sentence-transformers
module it sits after the encoder in the saved ``predictor`` branch (reloading it needs sciembed installed).
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from sentence_transformers.base.modules.module import Module
from torch import Tensor, nn


class ResidualPredictor(Module):
    config_keys: ClassVar[list[str]] = ["dimension", "hidden"]

    def __init__(self, dimension: int, hidden: int = 2048) -> None:
        super().__init__()
        if dimension <= 0 or hidden <= 0:
            raise ValueError(f"predictor sizes must be > 0 (dimension {dimension}, hidden {hidden})")
        self.dimension = dimension
        self.hidden = hidden
        self.net = nn.Sequential(nn.LayerNorm(dimension), nn.Linear(dimension, hidden), nn.GELU(),
                                 nn.Linear(hidden, dimension))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, features: dict[str, Tensor], **kwargs: Any) -> dict[str, Tensor]:
        h = features["sentence_embedding"]
        features["sentence_embedding"] = h + self.net(h)
        return features

    def get_embedding_dimension(self) -> int:
        return self.dimension

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        self.save_config(output_path)
        self.save_torch_weights(output_path, safe_serialization=safe_serialization)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token: bool | str | None = None,
             cache_folder: str | None = None, revision: str | None = None, local_files_only: bool = False,
             **kwargs) -> Self:
        hub = {"subfolder": subfolder, "token": token, "cache_folder": cache_folder, "revision": revision,
               "local_files_only": local_files_only}
        model = cls(**cls.load_config(model_name_or_path=model_name_or_path, **hub))
        return cls.load_torch_weights(model_name_or_path=model_name_or_path, model=model, **hub)
