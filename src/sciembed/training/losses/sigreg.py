"""SIGReg (Sliced Isotropic Gaussian Regularization, LeJEPA): push a batch of embeddings towards an
isotropic Gaussian by testing random 1-D projections with the Epps–Pulley statistic.

Hand-written: no maintained library ships it (LeJEPA's reference code is a research repository).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

# The trapezoid convention of the Epps–Pulley integral (issue 32, item 8). The even integrand over [-t_max, t_max]
# is computed on [0, t_max]; LeJEPA's code folds the factor 2 into the weights ("lejepa", the default: SciJEPA's λ
# as printed), the plain rule gives half ("plain": λ 0.0025 under "lejepa" = 0.005 under "plain", an ablation).
TRAPEZOID_SCALES = {"lejepa": 2.0, "plain": 1.0}
TRAPEZOID_SCALE = TRAPEZOID_SCALES["lejepa"]

DEFAULT_SLICES = 512
DEFAULT_KNOTS = 17
DEFAULT_T_MAX = 3.0
STD_EPS = 1e-6


def epps_pulley_weights(knots: int = DEFAULT_KNOTS, t_max: float = DEFAULT_T_MAX,
                        scale: float = TRAPEZOID_SCALE) -> tuple[Tensor, Tensor]:
    """Knots t on [0, t_max] and weights trapezoid × exp(−t²/2) (trapezoid scaled by `scale`: 2 LeJEPA, 1 plain)."""
    t = torch.linspace(0.0, t_max, knots, dtype=torch.float64)
    dt = t_max / (knots - 1)
    trapezoid = torch.full((knots,), dt, dtype=torch.float64)
    trapezoid[[0, -1]] = dt / 2
    weights = scale * trapezoid * torch.exp(-0.5 * t**2)
    return t.float(), weights.float()


def slice_directions(dim: int, slices: int, step: int, seed: int = 0, device: Any = None) -> Tensor:
    """`slices` random unit directions in R^dim, shape (dim, slices): Gaussian, then normalised.

    Drawn on the CPU from a generator seeded by (seed, step), so every DDP rank and every re-run of
    the same global step gets the same directions, whatever the device.
    """
    generator = torch.Generator(device="cpu").manual_seed(int(seed) * 1_000_003 + int(step))
    directions = torch.randn(dim, slices, generator=generator, dtype=torch.float32)
    directions = directions / directions.norm(dim=0, keepdim=True)
    return directions.to(device) if device is not None else directions


def distributed_world() -> int:
    """Processes in the default process group (1 when torch.distributed is not initialised)."""
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_world_size()
    return 1


def global_sum(tensor: Tensor) -> Tensor:
    """Sum over every process, differentiable (``torch.distributed.nn.functional.all_reduce``; its
    backward all-reduces the gradients); the identity in one process."""
    if distributed_world() == 1:
        return tensor
    from torch.distributed.nn.functional import all_reduce

    return all_reduce(tensor, op=torch.distributed.ReduceOp.SUM)  # SUM: gloo has no AVG


class SIGReg(nn.Module):
    """λ-free SIGReg statistic of a batch of embeddings (the caller multiplies by λ), always in float32.

    Rows ℓ2-normalised, dimensions standardised over the batch, projected on `slices` random unit directions
    (seeded by the global step); per projection p the Epps–Pulley statistic against N(0, 1),
    ``batch × Σ_t w(t) [(mean cos(t p) − e^{−t²/2})² + (mean sin(t p))²]``, averaged over slices. Under DDP the
    batch is the global one, as in LeJEPA: every sum is all-reduced with autograd.
    """

    def __init__(self, slices: int = DEFAULT_SLICES, knots: int = DEFAULT_KNOTS, t_max: float = DEFAULT_T_MAX,
                 seed: int = 0, trapezoid: str = "lejepa") -> None:
        super().__init__()
        if slices < 1 or knots < 2 or t_max <= 0:
            raise ValueError(f"SIGReg needs slices ≥ 1, knots ≥ 2, t_max > 0 (got {slices}, {knots}, {t_max})")
        if trapezoid not in TRAPEZOID_SCALES:
            raise ValueError(f"trapezoid must be one of {', '.join(TRAPEZOID_SCALES)}, got {trapezoid!r}")
        self.slices, self.knots, self.t_max, self.seed = slices, knots, t_max, seed
        self.trapezoid = trapezoid
        t, weights = epps_pulley_weights(knots, t_max, TRAPEZOID_SCALES[trapezoid])
        self.register_buffer("t", t, persistent=False)
        self.register_buffer("weights", weights, persistent=False)
        self.register_buffer("gaussian_cf", torch.exp(-0.5 * t**2), persistent=False)
        self.step = 0  # the global optimizer step; set by `StepCallback` before every step

    def forward(self, embeddings: Tensor, step: int | None = None) -> Tensor:
        step = self.step if step is None else step
        device_type = embeddings.device.type
        with torch.autocast(device_type=device_type, enabled=False):
            x = embeddings.float()
            x = nn.functional.normalize(x, dim=-1)
            n = global_sum(torch.tensor(float(x.shape[0]), device=x.device))
            mean = global_sum(x.sum(dim=0, keepdim=True)) / n
            variance = global_sum((x - mean).square().sum(dim=0, keepdim=True)) / (n - 1)  # unbiased, as std()
            # clamped: a dimension constant over the batch has variance 0, where sqrt's derivative is infinite and
            # the gradient of every weight became NaN (x.std()'s backward masks that case; a bare sqrt does not)
            x = (x - mean) / (variance.clamp_min(torch.finfo(torch.float32).tiny).sqrt() + STD_EPS)
            directions = slice_directions(x.shape[1], self.slices, step, self.seed, x.device)
            projected = (x @ directions).unsqueeze(-1) * self.t  # (batch, slices, knots)
            cos_mean = global_sum(torch.cos(projected).sum(dim=0)) / n
            sin_mean = global_sum(torch.sin(projected).sum(dim=0)) / n
            error = (cos_mean - self.gaussian_cf).square() + sin_mean.square()  # (slices, knots)
            statistic = n * (error @ self.weights)  # (slices,)
            return statistic.mean()

    def get_config_dict(self) -> dict[str, Any]:
        return {"slices": self.slices, "knots": self.knots, "t_max": self.t_max, "trapezoid": self.trapezoid,
                "trapezoid_scale": TRAPEZOID_SCALES[self.trapezoid], "seed": self.seed}

    @property
    def citation(self) -> str:
        return """
@article{balestriero2025lejepa,
    title={LeJEPA: Provable and Scalable Self-Supervised Learning Without the Heuristics},
    author={Balestriero, Randall and LeCun, Yann},
    journal={arXiv preprint arXiv:2511.08544},
    year={2025}
}
"""

