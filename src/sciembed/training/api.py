"""`train`: the one entry point the CLI and the demo call."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sciembed.ioutil.memory import return_freed_memory
from sciembed.training.config import ConfigError, TrainConfig
from sciembed.training.memory_check import check_before_training
from sciembed.training.recipes import recipe_module
from sciembed.training.rundir import open_run, precheck_run
from sciembed.training.schedule_report import schedule


def train(recipe: str, config: TrainConfig, corpus: Path, out: Path, resume: bool = False, *,
          callbacks: Sequence[Any] = (), say: Callable[[str], None] | None = None, device_memory: int | None = None,
          force_memory: bool = False, estimate_target: str = "auto") -> Path:
    """Train `recipe` on the corpus's train split; returns the saved model directory (``<out>/model``).

    Every input problem (config, corpus, plan, run directory) is raised before the model is loaded, and so is a
    run whose estimated peak memory exceeds `device_memory` (bytes; None: the device's) unless `force_memory`.
    `callbacks` are extra `transformers.TrainerCallback`s; `say` gets the schedule and the token budgets.
    """
    if config.training.return_freed_memory:
        return_freed_memory()  # activations are large blocks: unmapped when freed, not kept on the heap
    module = recipe_module(recipe)
    if not isinstance(config, module.CONFIG) or config.recipe != recipe:
        raise ConfigError(f"recipe {recipe!r} needs a {module.CONFIG.__name__}, got {type(config).__name__}")
    corpus, out = Path(corpus), Path(out)
    precheck_run(out, recipe, resume)
    from sciembed.training.trainer import per_process_batch, world_size

    per_process_batch(config.training.batch_size, world_size())  # refuses an uneven split before any work
    prepared = module.prepare(config, corpus)
    check_before_training(config, device_memory, force_memory, say, estimate_target)
    plan = schedule(config, prepared.length())
    if say is not None:
        for line in plan.lines():
            say(line)
    summary = prepared.summary()
    run, checkpoint = open_run(out, recipe, config, corpus, summary.get("data", {}), resume)
    run.write_json(run.composition_path, summary.get("composition", {}))

    from transformers import set_seed

    from sciembed.training.model import inference_length
    from sciembed.training.trainer import run_training

    set_seed(config.seed)  # the projection head's initial weights
    parts = module.build(config, prepared, corpus)
    parts.summary["schedule"] = plan.to_dict()
    if say is not None and inference_length(parts.model) is None:
        say("token budget: none (a static model reads whole texts)")
    elif say is not None:
        say(f"token budget: trains on {parts.model.max_seq_length}, the saved model reads "
            f"{inference_length(parts.model)} (model.inference_max_seq_length)")
    return run_training(recipe, config, parts, run, checkpoint, callbacks, say)
