"""What a run will do before it does it: steps, epochs, examples seen and the learning-rate schedule, from each
recipe's `RunLength`, printed by `train --dry-run` and kept in the run summary (a 10× learning rate or a run that
sees a fifth of its data shows before any model is loaded).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from sciembed.training.config import TrainConfig

if TYPE_CHECKING:
    from rich.table import Table


@dataclass(frozen=True)
class RunLength:
    steps: int  # optimizer steps the plan holds (before training.max_steps)
    steps_per_epoch: int | None  # None: examples drawn with replacement (no epoch)
    examples_per_step: int


@dataclass(frozen=True)
class Schedule:
    steps: int
    epochs: float | None
    examples_seen: int
    learning_rate: float
    scheduler: str
    warmup_steps: int
    max_time_minutes: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        epochs = "with replacement (no epochs)" if self.epochs is None else f"{self.epochs:.2f} epochs"
        budget = "" if self.max_time_minutes is None else f"; stops after {self.max_time_minutes:g} min at the latest"
        return [f"schedule: {self.steps:,} optimizer steps = {epochs}, {self.examples_seen:,} examples seen{budget}",
                f"learning rate: peak {self.learning_rate:g}, {self.warmup_steps:,} warmup steps, then "
                f"{self.scheduler}"]


def schedule(config: TrainConfig, length: RunLength) -> Schedule:
    t = config.training
    steps = min(length.steps, t.max_steps) if t.max_steps else length.steps
    warmup = getattr(t, "warmup_steps", 0) or math.ceil(t.warmup_ratio * steps)  # as transformers counts it
    epochs = None if not length.steps_per_epoch else steps / length.steps_per_epoch
    return Schedule(steps=steps, epochs=epochs, examples_seen=steps * length.examples_per_step,
                    learning_rate=t.learning_rate, scheduler=t.lr_scheduler, warmup_steps=int(warmup),
                    max_time_minutes=t.max_time_minutes)


def rich_table(title: str, header: Sequence[str], rows: Iterable[Sequence[str]]) -> Table:
    """A rich Table of a `--dry-run` report: the first column (names) left-aligned, the others right-aligned."""
    from rich.table import Table

    table = Table(title=title)
    for i, name in enumerate(header):
        table.add_column(name, justify="right" if i else "left")
    for row in rows:
        table.add_row(*row)
    return table
