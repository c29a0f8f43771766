"""Does a training run fit: the device's (or host's) memory, the settings that would make it fit, the
check `train` runs before it loads anything."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.training.activation_memory import FP32
from sciembed.training.config import TrainConfig
from sciembed.training.memory_estimate import MemoryEstimate, estimate, human_bytes, recipe_shape
from sciembed.training.model_architecture import Architecture, MemoryEstimateError


class MemoryLimitError(SciembedInputError, ValueError):
    """The estimated peak exceeds the device memory; the message gives the numbers and what to change."""


def largest_fitting(config: TrainConfig, limit: int, target: str, arch: Architecture,
                    key: str, checkpointing: bool) -> int | None:
    """The largest value of `key` (``training.batch_size`` or ``training.mini_batch_size``) whose estimate fits
    `limit`; None if even the smallest does not."""
    field_name = key.removeprefix("training.")

    def fits(value: int) -> bool:
        changes: dict[str, Any] = {field_name: value, "gradient_checkpointing": checkpointing}
        if field_name == "batch_size" and config.recipe == "window":
            changes["mini_batch_size"] = min(value, config.training.mini_batch_size)
        trial = config.model_copy(update={"training": config.training.model_copy(update=changes)})
        return estimate(trial, target, arch).total() <= limit

    lowest = 2 if key == "training.batch_size" else 1
    if not fits(lowest):
        return None
    lo, hi = lowest, int(attrgetter(key)(config))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def check_fits(config: TrainConfig, est: MemoryEstimate, limit: int, limit_label: str) -> None:
    """Raise `MemoryLimitError` with the numbers and the settings that would make the run fit."""
    total = est.total()
    if total <= limit:
        return
    shape = recipe_shape(config, est.architecture)
    ways = []
    if not est.checkpointing:
        with_ckpt = est.total(True)
        ways.append(f"training.gradient_checkpointing=true ({human_bytes(with_ckpt)}"
                    + (", fits)" if with_ckpt <= limit else ", still too much)"))
    best = largest_fitting(config, limit, est.target, est.architecture, shape.batch_key, est.checkpointing)
    if best is not None and best < attrgetter(shape.batch_key)(config):
        ways.append(f"{shape.batch_key}={best} or lower")
    ways.append(f"a shorter model.max_seq_length (now {config.model.max_seq_length})")
    raise MemoryLimitError(
        f"estimated peak {est.target.upper()} memory {human_bytes(total)} exceeds {human_bytes(limit)} "
        f"({limit_label}): {est.texts} texts × {est.seq} tokens with gradients, {est.precision}, "
        f"gradient checkpointing {'on' if est.checkpointing else 'off'}. Set " + "; or ".join(ways)
        + " (--set KEY=VALUE), or pass --force to run anyway. `--dry-run` prints the full estimate."
    )


def device_memory_of(target: str) -> tuple[int, str]:
    """(bytes, label) of the memory the run has: the visible CUDA device's total, else the host's RAM."""
    if target == "cuda":
        import torch

        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(torch.cuda.current_device())
            return int(props.total_memory), f"{props.name}, total memory of the visible CUDA device"
    return host_ram(), "the host's RAM (no CUDA device visible)"


def host_ram() -> int:
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


@dataclass(frozen=True)
class HostEstimate:
    data: int  # resident bytes the planned data added (measured)
    staging: int  # weights read on the host before they move to the device
    workers: int  # dataloader workers: each may touch a copy of the data (copy-on-write)
    device_on_host: int  # the device estimate itself when training runs on the CPU

    @property
    def total(self) -> int:
        return self.data * (1 + self.workers) + self.staging + self.device_on_host

    def lines(self) -> list[str]:
        parts = [f"planned data {human_bytes(self.data)} (measured: resident size added by reading and planning)"]
        if self.workers:
            parts.append(f"up to {self.workers} dataloader worker copies of it (copy-on-write pages touched)")
        if self.staging:
            parts.append(f"weights staged on the host {human_bytes(self.staging)}")
        if self.device_on_host:
            parts.append(f"training on the CPU: the estimate above {human_bytes(self.device_on_host)}")
        return [f"host memory estimate: {human_bytes(self.total)} = " + " + ".join(parts)]


def host_estimate(config: TrainConfig, est: MemoryEstimate, data_bytes: int) -> HostEstimate:
    weights = est.architecture.parameters * FP32
    if est.target == "cpu":
        return HostEstimate(data_bytes, 0, config.training.dataloader_workers, est.total())
    return HostEstimate(data_bytes, weights * (2 if recipe_shape(config, est.architecture).frozen_copy else 1),
                        config.training.dataloader_workers, 0)


Say = Callable[[str], None]


def check_before_training(config: TrainConfig, limit: int | None, force: bool, say: Say | None,
                          target: str = "auto") -> MemoryEstimate | None:
    """The check `train` runs before it loads anything: estimate, compare with `limit` (None: the device's
    memory), raise `MemoryLimitError` unless `force`. Returns the estimate (None when it cannot be made)."""
    try:
        est = estimate(config, target)
    except MemoryEstimateError as exc:
        if say is not None:
            say(f"memory check skipped: {exc}")
        return None
    label = "--device-memory"
    if limit is None:
        limit, label = device_memory_of(est.target)
    if say is not None:
        say(f"estimated peak {est.target} memory {human_bytes(est.total())} of {human_bytes(limit)} ({label})")
    if force:
        return est
    check_fits(config, est, limit, label)
    return est
