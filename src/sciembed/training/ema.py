"""SciJEPA's target encoder: the EMA update as a trainer callback, and the checkpoint extras that
make ``--resume`` exact (predictor, target encoder, step of the momentum schedule).

After every optimizer step s (1-based) of a run of K steps, ξ ← m ξ + (1 − m) θ with
m = `momentum_at`(s − 1, K − 1): the first update uses the start momentum (0.996), the last one the
end momentum (0.999).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from torch import nn
from transformers import TrainerCallback

from sciembed.errors import SciembedInputError
from sciembed.training.schedules import momentum_at

EXTRAS_FILE = "jepa_extras.pt"
EXTRAS_INFO = "jepa_extras.json"


class CheckpointExtrasError(SciembedInputError, ValueError):
    """A checkpoint lacks (or disagrees with) the JEPA state a resume needs."""


@torch.no_grad()
def ema_update(target: nn.Module, online: nn.Module, momentum: float) -> None:
    """ξ ← m ξ + (1 − m) θ for every parameter; buffers are copied (they are not learned)."""
    target_params, online_params = list(target.parameters()), list(online.parameters())
    if len(target_params) != len(online_params):
        raise ValueError(f"target has {len(target_params)} parameters, online {len(online_params)}")
    for t, o in zip(target_params, online_params, strict=True):
        t.mul_(momentum).add_(o.detach().to(t.dtype), alpha=1.0 - momentum)
    for t, o in zip(target.buffers(), online.buffers(), strict=True):
        t.copy_(o)


class EMACallback(TrainerCallback):
    """Moves the target towards the online encoder after every optimizer step."""

    def __init__(self, online: nn.Module, target: nn.Module, start: float = 0.996, end: float = 0.999) -> None:
        self.online, self.target = online, target
        self.start, self.end = start, end
        self.momentum_step = 0  # EMA updates applied so far (= the global step once training runs)
        self.last_momentum: float | None = None

    def momentum(self, step: int, max_steps: int) -> float:
        """Momentum of the update after optimizer step `step` (1-based) of `max_steps`."""
        return momentum_at(step - 1, max_steps - 1, self.start, self.end)

    def on_step_end(self, args, state, control, **kwargs):
        m = self.momentum(state.global_step, state.max_steps)
        ema_update(self.target, self.online, m)
        self.momentum_step = state.global_step
        self.last_momentum = m


class PredictorGrads(TrainerCallback):
    """Gradient bookkeeping for parameters that live in the loss (the predictor): the trainer all-reduces,
    clips and zeroes only the encoder's gradients.

    Before each optimizer step: all-reduce the predictor's gradients across processes, then clip their norm to
    ``max_grad_norm`` on its own (the encoder is clipped by the time callbacks run, so one joint norm is not
    reachable from here). After it: zero them. ``last_norm``: the norm before the last clip.
    """

    def __init__(self, module: nn.Module) -> None:
        self.module = module
        self.last_norm: float | None = None

    def on_pre_optimizer_step(self, args, state, control, **kwargs):
        grads = [p.grad for p in self.module.parameters() if p.grad is not None]
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            world = torch.distributed.get_world_size()
            for grad in grads:
                torch.distributed.all_reduce(grad)
                grad.div_(world)
        max_norm = getattr(args, "max_grad_norm", None)
        if grads and max_norm is not None and max_norm > 0:
            params = [p for p in self.module.parameters() if p.grad is not None]
            self.last_norm = float(torch.nn.utils.clip_grad_norm_(params, max_norm))

    def on_optimizer_step(self, args, state, control, **kwargs):
        self.module.zero_grad(set_to_none=True)


class JepaCheckpointCallback(TrainerCallback):
    """Writes the predictor, the target and the momentum step into every checkpoint, and loads them
    back when a run resumes (the trainer itself restores only the online encoder)."""

    def __init__(self, predictor: nn.Module, target: nn.Module, ema: EMACallback, identity: dict[str, Any]) -> None:
        self.predictor, self.target, self.ema = predictor, target, ema
        self.identity = identity  # recipe and the settings a resume must share (e.g. sigreg_lambda)

    @staticmethod
    def folder(args, step: int) -> Path:
        return Path(args.output_dir) / f"checkpoint-{step}"

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        folder = self.folder(args, state.global_step)
        folder.mkdir(parents=True, exist_ok=True)
        torch.save({"predictor": self.predictor.state_dict(), "target": self.target.state_dict()}, folder / EXTRAS_FILE)
        info = {"momentum_step": self.ema.momentum_step, "momentum": self.ema.last_momentum, **self.identity}
        (folder / EXTRAS_INFO).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")

    def on_train_begin(self, args, state, control, **kwargs):
        if state.global_step == 0:
            return
        load_extras(self.folder(args, state.global_step), self.predictor, self.target, self.identity)
        self.ema.momentum_step = state.global_step


def load_extras(folder: Path, predictor: nn.Module, target: nn.Module, identity: dict[str, Any]) -> dict[str, Any]:
    """Restore predictor and target from a checkpoint folder; refuse one from another recipe or λ."""
    info_path, tensors_path = folder / EXTRAS_INFO, folder / EXTRAS_FILE
    if not info_path.exists() or not tensors_path.exists():
        raise CheckpointExtrasError(f"{folder}: no {EXTRAS_FILE} / {EXTRAS_INFO}; this checkpoint was not written by "
                                    "the jepa recipe")
    info = json.loads(info_path.read_text(encoding="utf-8"))
    clashes = [f"{k}: {info.get(k)!r} -> {v!r}" for k, v in identity.items() if info.get(k) != v]
    if clashes:
        raise CheckpointExtrasError(f"{folder}: checkpoint differs from this run ({'; '.join(clashes)})")
    step = int(folder.name.rsplit("-", 1)[-1])
    if info.get("momentum_step") != step:
        raise CheckpointExtrasError(f"{folder}: momentum step {info.get('momentum_step')} != checkpoint step {step}")
    state = torch.load(tensors_path, map_location="cpu", weights_only=True)
    predictor.load_state_dict(state["predictor"])
    target.load_state_dict(state["target"])
    return info
