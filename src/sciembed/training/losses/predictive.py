"""SciJEPA's predictive loss: the online context embedding, through a residual predictor, predicts the EMA
target encoder's embedding of the target view; SIGReg keeps the context embeddings from collapsing.

    loss = mean_i [1 − cos(ẑ_i, stopgrad(f_ξ(target_i)))] + λ · SIGReg(f_θ(context))

f_ξ gets no gradients; `sciembed.training.ema.EMACallback` moves it after every optimizer step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor, nn

from sciembed.training.losses.sigreg import SIGReg

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class PredictiveLoss(nn.Module):
    """JEPA loss over (context, target) text pairs: `model` is f_θ, `predictor` a
    `sciembed.training.predictor.ResidualPredictor` (its own learning rate), `target` f_ξ (a frozen copy of
    `model` at start); `sigreg_lambda` 0 skips SIGReg (plain JEPA). ``forward`` returns the terms as a dict
    (``prediction``, ``sigreg``) so the trainer logs them separately; their sum is the loss."""

    def __init__(self, model: SentenceTransformer, predictor: nn.Module, target: SentenceTransformer,
                 sigreg_lambda: float = 0.0, sigreg: SIGReg | None = None) -> None:
        super().__init__()
        if sigreg_lambda < 0:
            raise ValueError(f"sigreg_lambda must be ≥ 0, got {sigreg_lambda}")
        self.model = model
        self.predictor = predictor
        self.target = target
        self.target.requires_grad_(False)
        self.target.eval()
        self.sigreg_lambda = float(sigreg_lambda)
        self.sigreg = sigreg if sigreg is not None else SIGReg()

    def set_step(self, step: int) -> None:
        """The global optimizer step (seeds SIGReg's slices)."""
        self.sigreg.step = int(step)

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor | None = None
                ) -> dict[str, Tensor]:
        context_features, target_features = list(sentence_features)
        context = self.model(context_features)["sentence_embedding"]
        predicted = self.predictor({"sentence_embedding": context})["sentence_embedding"]
        self.target.eval()  # no dropout in the target, whatever mode the caller left it in
        with torch.no_grad():
            target = self.target(target_features)["sentence_embedding"]
        cosine = nn.functional.cosine_similarity(predicted.float(), target.float().detach(), dim=-1)
        terms = {"prediction": (1.0 - cosine).mean()}
        if self.sigreg_lambda > 0:
            terms["sigreg"] = self.sigreg_lambda * self.sigreg(context)
        return terms

    def get_config_dict(self) -> dict[str, Any]:
        return {"sigreg_lambda": self.sigreg_lambda, "sigreg": self.sigreg.get_config_dict(),
                "predictor": self.predictor.get_config_dict() if hasattr(self.predictor, "get_config_dict") else None}

    @property
    def citation(self) -> str:
        return """
@article{scijepa,
    title={Asymmetric Within-Document Predictive Learning for Scientific Document Representation},
    note={SciJEPA}
}
"""
