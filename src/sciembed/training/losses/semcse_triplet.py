"""SemCSE's loss: a Euclidean triplet loss over all in-batch negatives, plus an L2 penalty on anchors.

For a batch of anchors a_i and positives p_i (i = 1..n)::

    L = mean_{i != j} relu(‖a_i − p_i‖ − ‖a_i − p_j‖ + margin)  +  w · mean_i ‖a_i‖²

with margin 1 and w = 1/250 in the paper. The penalty keeps the (unnormalised) anchors from
growing to make the margin easy; ``penalty="norm"`` uses ‖a_i‖ instead of its square.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import torch
from torch import nn

Penalty = Literal["squared_norm", "norm"]
_EPS = 1e-12  # keeps sqrt differentiable at distance 0 (the "same input" ablation without dropout)


def _distances(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """‖a_i − b_j‖ for every i, j (n × m)."""
    diff = a[:, None, :] - b[None, :, :]
    return diff.pow(2).sum(-1).clamp_min(_EPS).sqrt()


def semcse_triplet_loss(anchors: torch.Tensor, positives: torch.Tensor, margin: float = 1.0,
                        penalty_weight: float = 1 / 250, penalty: Penalty = "squared_norm") -> torch.Tensor:
    n = anchors.shape[0]
    if n < 2:
        raise ValueError("the SemCSE triplet loss needs at least 2 pairs per batch (in-batch negatives)")
    d = _distances(anchors, positives)
    positive = d.diagonal()
    triplets = torch.relu(positive[:, None] - d + margin)
    off_diagonal = ~torch.eye(n, dtype=torch.bool, device=d.device)
    ranking = triplets[off_diagonal].mean()
    norms = anchors.pow(2).sum(-1) if penalty == "squared_norm" else anchors.pow(2).sum(-1).clamp_min(_EPS).sqrt()
    return ranking + penalty_weight * norms.mean()


class SemCSETripletLoss(nn.Module):
    """Takes (anchor, positive) columns; every other positive in the batch is a negative."""

    def __init__(self, model: Any, margin: float = 1.0, penalty_weight: float = 1 / 250,
                 penalty: Penalty = "squared_norm") -> None:
        super().__init__()
        self.model = model
        self.margin = margin
        self.penalty_weight = penalty_weight
        self.penalty = penalty

    def forward(self, sentence_features: Iterable[dict[str, torch.Tensor]], labels: torch.Tensor | None = None
                ) -> torch.Tensor:
        anchors, positives = (self.model(features)["sentence_embedding"] for features in sentence_features)
        return semcse_triplet_loss(anchors, positives, self.margin, self.penalty_weight, self.penalty)

    def get_config_dict(self) -> dict[str, Any]:
        return {"margin": self.margin, "penalty_weight": self.penalty_weight, "penalty": self.penalty}

    @property
    def citation(self) -> str:
        return "SemCSE: Semantic Contrastive Sentence Embeddings Using LLM-Generated Summaries For Scientific Abstracts"
