"""SciJEPA's controlled contrastive baseline: InfoNCE over the same (context, target) section pairs.

Cosine similarity over a temperature ramp (`schedules.temperature_at`); the negatives are the other pairs of
the *micro*-batch (accumulation adds none, as in the paper), gathered with gradients across DDP processes
(``gather_across_devices``), so N processes compute one process's loss. Denominators:

- ``same_view`` (default): SciJEPA's Eq. 7 as printed, negatives from the context view,
  ``-log exp(s(c_i, t_i)/τ) / (exp(s(c_i, t_i)/τ) + Σ_{j≠i} exp(s(c_i, c_j)/τ))``.
- ``cross_view``: the context of pair i against every target of the micro-batch,
  ``-log exp(s(c_i, t_i)/τ) / Σ_j exp(s(c_i, t_j)/τ)`` — the usual InfoNCE, the documented ablation.

Hand-written instead of sentence-transformers' MNRL because MNRL has a fixed scale and only the
cross-view denominator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

import torch
from torch import Tensor, nn

from sciembed.training.losses.sigreg import distributed_world
from sciembed.training.schedules import temperature_at

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

Denominator = Literal["cross_view", "same_view"]


class SectionInfoNCELoss(nn.Module):
    def __init__(self, model: SentenceTransformer, temperature_start: float = 0.05, temperature_end: float = 0.1,
                 warmup_steps: int = 0, total_steps: int = 1, denominator: Denominator = "same_view",
                 gather_across_devices: bool = True) -> None:
        super().__init__()
        if temperature_start <= 0 or temperature_end <= 0:
            raise ValueError("temperatures must be > 0")
        if denominator not in ("cross_view", "same_view"):
            raise ValueError(f"denominator must be cross_view or same_view, got {denominator!r}")
        self.model = model
        self.temperature_start = temperature_start
        self.temperature_end = temperature_end
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.denominator = denominator
        self.gather_across_devices = gather_across_devices
        self.step = 0

    def set_step(self, step: int) -> None:
        self.step = int(step)

    def set_total_steps(self, total: int) -> None:
        self.total_steps = int(total)

    @property
    def temperature(self) -> float:
        return temperature_at(self.step, self.total_steps, self.warmup_steps, self.temperature_start,
                              self.temperature_end)

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor | None = None) -> Tensor:
        context_features, target_features = list(sentence_features)
        context = nn.functional.normalize(self.model(context_features)["sentence_embedding"].float(), dim=-1)
        target = nn.functional.normalize(self.model(target_features)["sentence_embedding"].float(), dim=-1)
        local = torch.arange(len(context), device=context.device)
        labels = local
        candidates = target if self.denominator == "cross_view" else context
        if self.gather_across_devices and distributed_world() > 1:
            from sentence_transformers.util.distributed import all_gather_with_grad

            candidates = all_gather_with_grad(candidates)
            labels = local + torch.distributed.get_rank() * len(context)
        logits = context @ candidates.T
        if self.denominator == "same_view":
            logits = logits.scatter(1, labels[:, None], (context * target).sum(dim=-1, keepdim=True))
        logits = logits / self.temperature
        return nn.functional.cross_entropy(logits, labels)

    def get_config_dict(self) -> dict[str, Any]:
        return {"temperature_start": self.temperature_start, "temperature_end": self.temperature_end,
                "warmup_steps": self.warmup_steps, "denominator": self.denominator,
                "gather_across_devices": self.gather_across_devices}

    @property
    def citation(self) -> str:
        return """
@article{oord2018cpc,
    title={Representation Learning with Contrastive Predictive Coding},
    author={van den Oord, Aaron and Li, Yazhe and Vinyals, Oriol},
    journal={arXiv preprint arXiv:1807.03748},
    year={2018}
}
"""
