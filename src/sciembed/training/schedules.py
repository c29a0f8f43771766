"""Step-indexed schedules of the section-pair recipes (cosine ramps, functions of the global step alone, so a
resumed run gets the same values), and the callback that tells losses the step."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from transformers import TrainerCallback


def cosine_ramp(progress: float, start: float, end: float) -> float:
    """start at progress 0, end at progress 1, half-cosine in between (clamped outside [0, 1])."""
    progress = min(max(progress, 0.0), 1.0)
    return end - (end - start) * (1.0 + math.cos(math.pi * progress)) / 2.0


def momentum_at(step: int, total: int, start: float = 0.996, end: float = 0.999) -> float:
    """EMA momentum at `step` of `total`: `start` at 0, `end` at `total` (BYOL's cosine schedule)."""
    return cosine_ramp(step / total if total > 0 else 0.0, start, end)


def temperature_at(step: int, total: int, warmup: int, start: float = 0.05, end: float = 0.1) -> float:
    """InfoNCE temperature: `start` through warmup, then a cosine ramp to `end` at the last step."""
    if step <= warmup or total <= warmup:
        return start
    return cosine_ramp((step - warmup) / (total - warmup), start, end)


class StepCallback(TrainerCallback):
    """Before every optimizer step, gives each loss the global step (``set_step``) and, at the start,
    the run's total steps (``set_total_steps``) where the loss has those methods."""

    def __init__(self, losses: Iterable[Any]) -> None:
        self.losses = list(losses)

    def on_train_begin(self, args, state, control, **kwargs):
        for loss in self.losses:
            if hasattr(loss, "set_total_steps"):
                loss.set_total_steps(state.max_steps)
            if hasattr(loss, "set_step"):
                loss.set_step(state.global_step)

    def on_step_begin(self, args, state, control, **kwargs):
        for loss in self.losses:
            if hasattr(loss, "set_step"):
                loss.set_step(state.global_step)
