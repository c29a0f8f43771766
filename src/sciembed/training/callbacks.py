"""Trainer callbacks: a rich progress bar, loss/validation curves as CSV + PNG, time budget, best model.

Curves are rebuilt from the trainer's ``log_history``, which checkpoints carry, so a resumed run's curves cover
the whole run.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

from sciembed.ioutil.figures import pyplot, save_figure

TRAIN_KEYS = ("loss", "learning_rate", "grad_norm")


class RichProgressCallback(TrainerCallback):
    """Steps done / total, last logged loss, examples per second (this session, all processes)."""

    def __init__(self, examples_per_step: int, description: str = "train") -> None:
        self.examples_per_step = examples_per_step  # per optimizer step, all processes together (global batch)
        self.description = description
        self._progress = None
        self._task = None
        self._start_step = 0
        self._start_time = 0.0
        self._loss: float | None = None

    def on_train_begin(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        from sciembed.ioutil.progress import make_progress

        self._progress = make_progress(  # plain periodic lines when the output goes to a log
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"), TextColumn("{task.fields[speed]} ex/s"), TimeElapsedColumn(),
            TimeRemainingColumn())
        self._progress.start()
        self._task = self._progress.add_task(self.description, total=state.max_steps, completed=state.global_step,
                                             loss="-", speed="-")
        self._start_step = state.global_step
        self._start_time = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        if self._progress is None:
            return
        elapsed = max(time.perf_counter() - self._start_time, 1e-9)
        speed = (state.global_step - self._start_step) * self.examples_per_step / elapsed
        loss = "-" if self._loss is None else f"{self._loss:.4f}"
        self._progress.update(self._task, completed=state.global_step, loss=loss, speed=f"{speed:.1f}")

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self._loss = float(logs["loss"])

    def on_train_end(self, args, state, control, **kwargs):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def split_history(history: list[dict[str, Any]], epoch_of_step: Callable[[int], float]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Training-loss rows and validation rows (``eval_*`` metrics) of a trainer log history."""
    train_rows, val_rows = [], []
    for entry in history:
        step = int(entry.get("step", 0))
        base = {"step": step, "epoch": round(epoch_of_step(step), 4)}
        if "loss" in entry:
            train_rows.append(base | {k: entry[k] for k in TRAIN_KEYS if k in entry})
        metrics = {k[len("eval_") :]: v for k, v in entry.items() if k.startswith("eval_") and _is_metric(k)}
        if metrics:
            val_rows.append(base | metrics)
    return train_rows, val_rows


def _is_metric(key: str) -> bool:
    return not key.endswith(("_runtime", "_samples_per_second", "_steps_per_second"))


def write_csv(rows: list[dict[str, Any]], path: Path) -> None:
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def plot_rows(rows: list[dict[str, Any]], keys: list[str], path: Path, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key in keys:
        points = [(r["step"], r[key]) for r in rows if key in r]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o" if len(points) < 30 else None, label=key)
    ax.set_xlabel("step")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(keys) > 1:
        ax.legend(fontsize=8)
    save_figure(fig, path)


def write_curves(history: list[dict[str, Any]], folder: Path, epoch_of_step: Callable[[int], float]) -> list[Path]:
    """loss.csv/png and validation.csv/png from a log history; returns the files written. `epoch_of_step` counts
    planned batches (one optimizer step on any number of processes)."""
    folder.mkdir(parents=True, exist_ok=True)
    train_rows, val_rows = split_history(history, epoch_of_step)
    written = []
    if train_rows:
        write_csv(train_rows, folder / "loss.csv")
        plot_rows(train_rows, ["loss"], folder / "loss.png", "training loss")
        written += [folder / "loss.csv", folder / "loss.png"]
    if val_rows:
        metrics = [k for k in val_rows[-1] if k not in ("step", "epoch")]
        write_csv(val_rows, folder / "validation.csv")
        plot_rows(val_rows, metrics, folder / "validation.png", "validation")
        written += [folder / "validation.csv", folder / "validation.png"]
    return written


class CurvesCallback(TrainerCallback):
    """Rewrites the curves at every save and at the end (cheap: a few hundred rows)."""

    def __init__(self, folder: Path, epoch_of_step: Callable[[int], float]) -> None:
        self.folder = folder
        self.epoch_of_step = epoch_of_step

    def _write(self, args, state, control, **kwargs) -> None:
        if state.is_world_process_zero:
            write_curves(state.log_history, self.folder, self.epoch_of_step)

    on_save = on_evaluate = on_train_end = _write


class TimeBudgetCallback(TrainerCallback):
    """Stop at the first step past `minutes` of this session with a checkpoint of that step (so `--resume`
    continues exactly there); the run then saves its model as at a normal end."""

    def __init__(self, minutes: float, summary: dict[str, Any]) -> None:
        self.seconds = 60.0 * minutes
        self.summary = summary
        self._start = 0.0

    def on_train_begin(self, args, state, control, **kwargs):
        self._start = time.perf_counter()
        self.summary["time_budget"] = {"minutes": self.seconds / 60.0, "stopped_at_step": None}

    def on_step_end(self, args, state, control, **kwargs):
        if time.perf_counter() - self._start >= self.seconds and state.global_step < state.max_steps:
            control.should_training_stop = True
            control.should_save = True
            self.summary["time_budget"]["stopped_at_step"] = state.global_step


class BestModelCallback(TrainerCallback):
    """Save the model to `target` (`save(model, target)`) at every validation that beats the best so far, so a
    stopped run keeps its best weights; the evaluator's ``primary_metric`` and ``greater_is_better`` decide."""

    def __init__(self, model: Any, evaluator: Any, target: Path, save: Callable[[Any, Path], None],
                 summary: dict[str, Any]) -> None:
        self.model = model
        self.evaluator = evaluator
        self.target = Path(target)
        self.save = save
        self.summary = summary
        self.best: float | None = None

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        key = f"eval_{self.evaluator.primary_metric}"
        if not metrics or key not in metrics or not state.is_world_process_zero:
            return
        value = float(metrics[key])
        greater = getattr(self.evaluator, "greater_is_better", True)
        if self.best is None or (value > self.best if greater else value < self.best):
            self.best = value
            self.save(self.model, self.target)
            self.summary["best_model"] = {"path": str(self.target), "metric": key, "value": value,
                                          "step": state.global_step}
