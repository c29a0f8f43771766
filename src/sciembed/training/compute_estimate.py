"""What a run costs in compute before it runs: FLOPs of the whole schedule and its time on a named device.

FLOPs per token follow Kaplan et al. (2020), §2.1: ``2·N + 4·L·s·d`` per forward pass (N non-embedding
parameters, L layers, s tokens per text at ``model.max_seq_length``, d hidden size), three forward passes per
trained token. The time is FLOPs / (dense bf16 peak × an assumed `UTILISATION`, not measured); see docs/scale.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sciembed.training.config import TrainConfig
from sciembed.training.model_architecture import Architecture, read_architecture

UTILISATION = (0.2, 0.4)  # assumed share of the peak a 20–300M-parameter encoder reaches in bf16 training


@dataclass(frozen=True)
class Device:
    name: str
    memory: int  # bytes
    peak_flops: float  # dense bf16, per second


DEVICES: dict[str, Device] = {
    "a100": Device("NVIDIA A100 80GB SXM (312 TFLOP/s dense bf16)", 80 * 10**9, 312e12),
    "h100": Device("NVIDIA H100 SXM (989 TFLOP/s dense bf16)", 80 * 10**9, 989e12),
    "h200": Device("NVIDIA H200 SXM (989 TFLOP/s dense bf16)", 141 * 10**9, 989e12),
    "l4": Device("NVIDIA L4 (121 TFLOP/s dense bf16)", 24 * 10**9, 121e12),
}


@dataclass(frozen=True)
class StepTexts:
    with_grad: int  # texts per optimizer step trained with gradients
    without_grad: int  # texts per optimizer step encoded without gradients
    note: str


def step_texts(config: TrainConfig) -> StepTexts:
    """Texts one optimizer step encodes, with and without gradients, per recipe."""
    t = config.training
    batch = t.batch_size
    if config.recipe == "window":
        columns = config.data.texts_per_pair
        what = "anchor, positive" + (" and hard negative" if columns == 3 else "")
        if getattr(t, "loss", "mnrl") == "cached_mnrl":
            return StepTexts(columns * batch, columns * batch,
                             f"{what} of {batch} pairs; CachedMNRL encodes each once more without gradients")
        return StepTexts(columns * batch, 0, f"{what} of {batch} pairs")
    if config.recipe == "jepa":
        return StepTexts(batch, batch, f"{batch} context views; the EMA target encodes {batch} targets")
    if config.recipe == "cosaemb":
        return StepTexts(3 * batch, 0, f"anchor, positive and negative of {batch} triplets")
    return StepTexts(2 * batch, 0, f"both views of {batch} pairs")


def non_embedding_parameters(arch: Architecture) -> int:
    """Kaplan's N: the parameters outside the token and position embedding tables."""
    return max(arch.parameters - (arch.vocab + arch.max_positions) * arch.hidden, 0)


@dataclass(frozen=True)
class ComputeEstimate:
    steps: int
    texts: StepTexts
    seq: int
    non_embedding_parameters: int
    flops: float  # the whole schedule

    def seconds_on(self, device: Device) -> tuple[float, float]:
        """(fastest, slowest) wall seconds at the high and low end of `UTILISATION`."""
        low, high = UTILISATION
        return self.flops / (device.peak_flops * high), self.flops / (device.peak_flops * low)

    def to_dict(self) -> dict[str, Any]:
        return {"steps": self.steps, "texts_with_grad_per_step": self.texts.with_grad,
                "texts_without_grad_per_step": self.texts.without_grad, "seq": self.seq,
                "non_embedding_parameters": self.non_embedding_parameters, "flops": self.flops,
                "utilisation_assumed": list(UTILISATION),
                "hours_on": {key: [round(s / 3600, 3) for s in self.seconds_on(d)] for key, d in DEVICES.items()}}

    def lines(self, device: Device | None) -> list[str]:
        without = f" + {self.texts.without_grad} without" if self.texts.without_grad else ""
        lines = [f"compute: {self.steps:,} steps × ({self.texts.with_grad} texts with gradients{without}) × "
                 f"{self.seq} tokens ({self.texts.note}); {self.non_embedding_parameters / 1e6:.1f}M "
                 f"non-embedding parameters → {self.flops:.3g} FLOPs (6·N + 12·L·s·d per trained token)"]
        for d in [device] if device is not None else DEVICES.values():
            fast, slow = self.seconds_on(d)
            lines.append(f"  on {d.name}: {human_duration(fast)} at {UTILISATION[1]:.0%} of its peak, "
                         f"{human_duration(slow)} at {UTILISATION[0]:.0%} (assumed utilisation, not measured)")
        return lines


def human_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate_compute(config: TrainConfig, steps: int, arch: Architecture | None = None) -> ComputeEstimate:
    """FLOPs of `steps` optimizer steps of `config` (transformer recipes; a static model has no matmuls to count)."""
    arch = arch or read_architecture(config.model.base)
    seq = min(config.model.max_seq_length, arch.max_positions or config.model.max_seq_length)
    texts = step_texts(config)
    n = non_embedding_parameters(arch)
    attention = 4 * arch.layers * seq * arch.hidden  # forward FLOPs per token: QKᵀ and A·V
    per_encoded = 2 * n + attention
    per_trained = 3 * per_encoded  # forward + backward (two matmuls per forward one)
    per_step = seq * (texts.with_grad * per_trained + texts.without_grad * per_encoded)
    return ComputeEstimate(steps, texts, seq, n, float(steps * per_step))
