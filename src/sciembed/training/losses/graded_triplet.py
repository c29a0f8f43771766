"""CoSAEmb's graded triplet loss: a squared-Euclidean triplet loss whose margin depends on the triplet's kind.

    L = mean over triplets of max(0, ‖a − p‖² − ‖a − n‖² + m[kind])

with margins (inter, global, local) = (1, 2, 3) by default: the closer the pair should be, the wider the gap
from its negative. Distances are squared and not normalised by default (on the unit sphere ‖x − y‖² ≤ 4, too
little room for such margins). sentence-transformers' `TripletLoss` has one margin and unsquared distances,
hence this module. The kind arrives as the batch's ``label`` column (its index in `KINDS`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from sciembed.training.sources.triplets import KINDS


def graded_triplet_loss(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor,
                        labels: torch.Tensor, margins: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """The loss on given vectors: `labels[i]` indexes `margins` (one margin per kind)."""
    d_pos = (anchor - positive).pow(2).sum(-1)
    d_neg = (anchor - negative).pow(2).sum(-1)
    losses = F.relu(d_pos - d_neg + margins.to(anchor.device, anchor.dtype)[labels.long()])
    return losses.mean() if reduction == "mean" else losses


class GradedTripletLoss(nn.Module):
    def __init__(self, model: Any, margins: Sequence[float] = (1.0, 2.0, 3.0), normalize: bool = False) -> None:
        """`margins` in `KINDS` order (inter, global, local), each > 0."""
        super().__init__()
        if len(margins) != len(KINDS) or any(m <= 0 for m in margins):
            raise ValueError(f"margins must be {len(KINDS)} positive numbers ({', '.join(KINDS)}), got {margins}")
        self.model = model
        self.normalize = normalize
        self.register_buffer("margins", torch.tensor([float(m) for m in margins]), persistent=False)

    def forward(self, sentence_features: Iterable[dict[str, torch.Tensor]], labels: torch.Tensor) -> torch.Tensor:
        reps = [self.model(features)["sentence_embedding"] for features in sentence_features]
        if self.normalize:
            reps = [F.normalize(r, dim=-1) for r in reps]
        anchor, positive, negative = reps
        return graded_triplet_loss(anchor, positive, negative, labels, self.margins)

    def get_config_dict(self) -> dict[str, Any]:
        return {"margins": dict(zip(KINDS, self.margins.tolist(), strict=True)), "normalize": self.normalize,
                "distance": "squared euclidean"}

    @property
    def citation(self) -> str:
        return ("CoSAEmb: Contrastive Section-aware Aspect Embeddings for Scientific Articles "
                "(graded margins per triplet kind)")
