"""The training run directory, and the checks that make ``--resume`` safe.

::

    <out>/recipe.json         recipe name, full config, corpus, training-split counts
    <out>/checkpoints/        checkpoint-<step>/ (model, optimizer, scheduler, RNG, trainer state)
    <out>/model/              the final sentence-transformers model (what `train` returns)
    <out>/curves/             loss.csv/png, validation.csv/png
    <out>/composition.json    the batch-composition table of the plan
    <out>/summary.json        steps, runtime, examples/s, last loss and validation metrics

A resume continues the same run (same recipe, corpus and config up to `RESUMABLE_CHANGES`) from the newest
complete checkpoint; anything else is refused before training starts.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError
from sciembed.ioutil.root_dir import RootDir
from sciembed.models.loading import RUN_MODEL_DIR, RUN_RECIPE_FILE
from sciembed.training.config import TrainConfig, config_diff

# Fields a resumed run may change: they affect bookkeeping (or when to stop), not data order or weights.
RESUMABLE_CHANGES = ("checkpoint.every_steps", "checkpoint.keep", "training.log_every_steps",
                     "training.max_time_minutes", "training.dataloader_workers", "training.return_freed_memory",
                     "validation.every_steps")
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def is_main_process() -> bool:
    """Rank 0 under torchrun / accelerate (they set RANK), or a single process."""
    return int(os.environ.get("RANK", "0")) == 0


class RunDirError(SciembedInputError, ValueError):
    """The output directory cannot host this run (or this resume)."""


class RunDir(RootDir):
    recipe_path = property(lambda self: self.root / RUN_RECIPE_FILE)
    checkpoints = property(lambda self: self.root / "checkpoints")
    model = property(lambda self: self.root / RUN_MODEL_DIR)
    best_model = property(lambda self: self.root / "best-model")  # the best validation's weights so far
    curves = property(lambda self: self.root / "curves")
    composition_path = property(lambda self: self.root / "composition.json")
    summary_path = property(lambda self: self.root / "summary.json")

    def _numbered_checkpoints(self) -> list[tuple[int, Path]]:
        if not self.checkpoints.is_dir():
            return []
        return sorted((int(m.group(1)), p) for p in self.checkpoints.iterdir() if (m := _CHECKPOINT.match(p.name)))

    def last_checkpoint(self) -> Path | None:
        """The checkpoint with the highest step whose save is complete (see `checkpoint_problem`)."""
        done = [(step, p) for step, p in self._numbered_checkpoints() if checkpoint_problem(p) is None]
        return max(done)[1] if done else None

    def incomplete_checkpoints(self) -> list[tuple[Path, str]]:
        """Checkpoints newer than the last complete one, with what each lacks (a save cut short)."""
        last = self.last_checkpoint()
        floor = int(_CHECKPOINT.match(last.name).group(1)) if last else -1
        return [(p, why) for step, p in self._numbered_checkpoints()
                if step > floor and (why := checkpoint_problem(p)) is not None]

    def read_recipe(self) -> dict[str, Any]:
        try:
            data = json.loads(self.recipe_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise RunDirError(f"{self.recipe_path}: unreadable ({err}); cannot resume this run") from err
        if not isinstance(data, dict):
            raise RunDirError(f"{self.recipe_path}: not a JSON object; cannot resume this run")
        return data

    def write_json(self, path: Path, data: dict[str, Any]) -> None:
        """Written by the main process only (every process of a DDP run computes the same data)."""
        if not is_main_process():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def checkpoint_problem(path: Path) -> str | None:
    """What a checkpoint lacks to resume bit-identically (None when complete).

    The trainer state alone is not enough: without the RNG state a resumed
    run draws other batches, without optimizer / scheduler it takes other
    steps; and a state that does not parse is a save cut short.
    """
    missing = [name for name in ("trainer_state.json", "optimizer.pt", "scheduler.pt") if not (path / name).is_file()]
    if not any(path.glob("rng_state*.pth")):
        missing.append("rng_state.pth")
    if not (any(path.glob("*.safetensors")) or any(path.glob("pytorch_model*.bin"))
            or any(path.glob("*/model.safetensors"))):
        missing.append("model weights")
    if missing:
        return f"missing {', '.join(missing)}"
    try:
        state = json.loads((path / "trainer_state.json").read_text(encoding="utf-8"))
        int(state["global_step"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
        return f"trainer_state.json unreadable ({type(err).__name__})"
    return None


def precheck_run(out: str | Path, recipe: str, resume: bool) -> None:
    """The checks that need no data: run before reading the corpus so a wrong --out fails at once."""
    run = RunDir(out)
    if not resume:
        if run.last_checkpoint() is not None or (run.model / "modules.json").exists():
            raise RunDirError(f"{run.root}: already holds a training run; pass --resume to continue it, or use a "
                              "new --out")
        return
    if not run.recipe_path.exists():
        raise RunDirError(f"{run.root}: nothing to resume (no recipe.json); start without --resume")
    saved = run.read_recipe().get("recipe")
    if saved != recipe:
        raise RunDirError(f"{run.root}: was trained with recipe {saved!r}, not {recipe!r}; cannot resume")
    if run.last_checkpoint() is None:
        broken = "; ".join(f"{p.name}: {why}" for p, why in run.incomplete_checkpoints())
        raise RunDirError(f"{run.root}: no complete checkpoint under checkpoints/ to resume from"
                          + (f" ({broken})" if broken else ""))
    for path, why in run.incomplete_checkpoints():
        print(f"skipping incomplete checkpoint {path} ({why}); resuming from {run.last_checkpoint()}", flush=True)


def open_run(out: str | Path, recipe: str, config: TrainConfig, corpus: Path, data_summary: dict[str, Any],
             resume: bool) -> tuple[RunDir, Path | None]:
    """Check `out` for a fresh start or a resume; returns the run dir and the checkpoint to resume from."""
    precheck_run(out, recipe, resume)
    run = RunDir(out)
    record = {"recipe": recipe, "corpus": str(corpus.resolve()), "data": data_summary,
              "config": config.model_dump(mode="json")}
    if resume:
        saved = run.read_recipe()
        problems = []
        if saved.get("corpus") != record["corpus"]:
            problems.append(f"corpus: {saved.get('corpus')!r} -> {record['corpus']!r}")
        if saved.get("data") != record["data"]:
            problems.append(f"training data: {saved.get('data')} -> {record['data']}")
        problems += [d for d in config_diff(saved.get("config", {}), record["config"])
                     if d.split(":")[0] not in RESUMABLE_CHANGES]
        if problems:
            raise RunDirError(f"{run.root}: {len(problems)} difference{'s' if len(problems) != 1 else ''} from the "
                              "run being resumed would change its data or weights: " + "; ".join(problems))
    run.write_json(run.recipe_path, record)
    return run, run.last_checkpoint() if resume else None
