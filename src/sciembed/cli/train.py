"""`sciembed train <recipe>`: one command per training recipe, configured by YAML + overrides."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from sciembed.cli.errors import fail, failing
from sciembed.cli.memory_options import DeviceMemory, EstimateFor, ForceMemory, check_estimate_for, parse_memory_size
from sciembed.cli.options import RecipeConfigFile, RunOutDir, SeedOverride, TrainBatchSize, comma_list

# Typed flags and the config key each one sets (they win over --set, which wins over the file).
FLAG_KEYS = {"base_model": "model.base", "max_seq_length": "model.max_seq_length", "epochs": "training.epochs",
             "max_steps": "training.max_steps", "batch_size": "training.batch_size",
             "mini_batch_size": "training.mini_batch_size", "learning_rate": "training.learning_rate",
             "strategy": "data.strategy", "kinds": "data.kinds", "exclude": "data.exclude", "seed": "seed",
             "max_time": "training.max_time_minutes"}

# What each recipe's --config and --corpus are (so `train semcse --help` speaks of SemCSE).
CONFIG_HELP = {"window": "recipe YAML (configs/window-*.yaml: window-minilm = the paper's set-up on MiniLM)",
               "cosaemb": "recipe YAML (configs/cosaemb-*.yaml: graded or flat margins)",
               "jepa": "recipe YAML (configs/jepa-*.yaml: SciBERT paper set-up, λ sweep)",
               "infonce": "recipe YAML (configs/infonce-*.yaml)",
               "semcse": "recipe YAML (configs/semcse*.yaml: the paper's, MiniLM, ablations)"}
CORPUS_HELP = {
    "window": "a built corpus (`sciembed corpus build`): citation pairs of its train split",
    "cosaemb": "a built corpus: sections of its train split and their citations (inter-document triplets)",
    "jepa": "any ingested or built corpus: section pairs of its papers (a built corpus: its train split)",
    "infonce": "any ingested or built corpus: section pairs of its papers (a built corpus: its train split)",
    "semcse": "corpus of the papers to train on (data.split of a built one); data.summaries: `sciembed summaries`",
}


def parse_minutes(value: str | None) -> float | None:
    """``90``, ``90m``, ``1.5h`` or ``5400s`` as minutes; anything else is a usage error."""
    if value is None:
        return None
    text = value.strip().lower()
    scale = {"s": 1 / 60, "m": 1.0, "h": 60.0}.get(text[-1:])
    number = text[:-1] if scale is not None else text
    try:
        minutes = float(number) * (scale or 1.0)
    except ValueError:
        raise typer.BadParameter(f"{value!r}: expected minutes, e.g. 90, 90m, 1.5h or 5400s") from None
    if not minutes > 0 or minutes == float("inf"):
        raise typer.BadParameter(f"{value!r}: the time budget must be a positive, finite duration")
    return minutes


def _user_errors() -> tuple[type[Exception], ...]:
    from sciembed.corpus.layout import CorpusError
    from sciembed.models.loading import ModelLoadError
    from sciembed.training.config import ConfigError
    from sciembed.training.ema import CheckpointExtrasError
    from sciembed.training.memory_check import MemoryLimitError
    from sciembed.training.plan import PlanError
    from sciembed.training.recipes import UnknownRecipeError
    from sciembed.training.rundir import RunDirError
    from sciembed.training.sources.exclude import ExcludeError
    from sciembed.training.sources.triplets import TripletError
    from sciembed.training.special_tokens import TokenizerError
    from sciembed.training.trainer import WorldSizeError

    return (ConfigError, CorpusError, PlanError, RunDirError, ModelLoadError, UnknownRecipeError, ExcludeError,
            CheckpointExtrasError, TripletError, TokenizerError, WorldSizeError, MemoryLimitError)


def dry_run_memory(console: Any, config: Any, data_bytes: int, device_memory: int | None, estimate_for: str,
                   memory_label: str = "--device-memory") -> None:
    """Print the peak-memory estimate (with and without checkpointing) and the host-memory estimate."""
    from sciembed.training.memory_check import device_memory_of, host_estimate
    from sciembed.training.memory_estimate import MemoryEstimateError, estimate

    try:
        est = estimate(config, estimate_for)
    except MemoryEstimateError as exc:
        console.print(str(exc), highlight=False)
        return
    limit, label = (device_memory, memory_label) if device_memory is not None else device_memory_of(est.target)
    console.print(est.report(limit, label))
    console.print("\n".join(host_estimate(config, est, data_bytes).lines()), highlight=False)


def dry_run_compute(console: Any, config: Any, steps: int, device: Any) -> None:
    """Print the schedule's FLOPs and its time on `device` (every named GPU when None)."""
    from sciembed.training.compute_estimate import estimate_compute
    from sciembed.training.memory_estimate import MemoryEstimateError

    if config.recipe == "static":
        console.print("compute: a static model has no matmuls to count; its time is measured, not estimated",
                      highlight=False)
        return
    try:
        lines = estimate_compute(config, steps).lines(device)
    except MemoryEstimateError as exc:
        console.print(str(exc).replace("memory estimate", "compute estimate"), highlight=False)
        return
    console.print("\n".join(lines), highlight=False)


def run_recipe(recipe: str, config_path: Path | None, corpus: Path, out: Path | None, resume: bool, dry_run: bool,
               sets: list[str], flags: dict[str, Any], device_memory: int | None = None, estimate_for: str = "auto",
               force: bool = False, push_to_hub: str | None = None, hub_private: bool = False) -> None:
    from rich.console import Console

    from sciembed.training.compute_estimate import DEVICES
    from sciembed.training.config import load_config, parse_overrides
    from sciembed.training.recipes import recipe_config, recipe_module

    console = Console()
    with failing(*_user_errors()):
        overrides = parse_overrides(sets)
        overrides.update({FLAG_KEYS[k]: v for k, v in flags.items() if v is not None})
        config = load_config(recipe_config(recipe), config_path, overrides)
        if config.recipe != recipe:
            fail(f"{config_path}: config is for recipe {config.recipe!r}, not {recipe!r}")
        device, memory_label = None, "--device-memory"
        if estimate_for in DEVICES:  # a named GPU: CUDA with that GPU's memory (unless --device-memory says otherwise)
            device, estimate_for = DEVICES[estimate_for], "cuda"
            if device_memory is None:
                device_memory, memory_label = device.memory, device.name
        if dry_run:
            from sciembed.ioutil.memory import current_mb
            from sciembed.training.schedule_report import schedule

            before = current_mb()
            prepared = recipe_module(recipe).prepare(config, corpus)
            data_bytes = max(current_mb() - before, 0) * 2**20
            console.print(prepared.report())
            plan = schedule(config, prepared.length())
            console.print("\n".join(plan.lines()), highlight=False)
            dry_run_memory(console, config, data_bytes, device_memory, estimate_for, memory_label)
            dry_run_compute(console, config, plan.steps, device)
            return
        if out is None:
            fail("--out is required (except with --dry-run)")
        if push_to_hub is not None:
            from sciembed.models.push import PushError, check_repo_id

            try:
                check_repo_id(push_to_hub)  # a malformed id fails now, not after hours of training
            except PushError as err:
                fail(str(err))
        from sciembed.training.api import train

        model_dir = train(recipe, config, corpus, out, resume=resume,
                          say=lambda line: console.print(line, highlight=False),
                          device_memory=device_memory, force_memory=force, estimate_target=estimate_for)
    import json

    from sciembed.training.rundir import is_main_process

    if not is_main_process():  # under torchrun only rank 0 writes the run directory and reports it
        return
    summary = json.loads((Path(out) / "summary.json").read_text())
    budgets = summary.get("max_seq_length") or {}
    console.print(f"model: {model_dir}  steps {summary['global_step']}/{summary['max_steps']}  last loss "
                  f"{summary['final_logged_loss']}  {summary['session_examples_per_second']} ex/s; reads "
                  f"{budgets.get('inference')} tokens (trained on {budgets.get('training')})", highlight=False)
    stopped = (summary.get("time_budget") or {}).get("stopped_at_step")
    if stopped is not None:
        console.print(f"stopped by the time budget at step {stopped}", highlight=False)
    best = summary.get("best_model")
    if best:
        console.print(f"best validation: {best['metric']} {best['value']:.4f} at step {best['step']} -> {best['path']}",
                      highlight=False)
    if push_to_hub is not None:
        from sciembed.cli.model import push_and_report

        push_and_report(model_dir, push_to_hub, hub_private)


def make_command(recipe: str):
    def command(
        config: RecipeConfigFile = None,
        corpus: Path = typer.Option(..., "--corpus", help=CORPUS_HELP.get(recipe, "corpus directory")),
        out: RunOutDir = None,
        resume: bool = typer.Option(False, "--resume", help="continue the run in --out from its last checkpoint"),
        dry_run: bool = typer.Option(
            False, "--dry-run",
            help="show data counts, batch composition (jepa/infonce: funnel, task shares) and the memory estimate",
        ),
        sets: list[str] = typer.Option([], "--set", help="override any config key: --set training.batch_size=256"),
        base_model: str | None = typer.Option(None, help="model.base: hub id or path"),
        max_seq_length: int | None = typer.Option(None, help="model.max_seq_length"),
        epochs: int | None = typer.Option(None, help="training.epochs"),
        max_steps: int | None = typer.Option(None, help="training.max_steps"),
        batch_size: TrainBatchSize = None,
        mini_batch_size: int | None = typer.Option(None, help="training.mini_batch_size"),
        learning_rate: float | None = typer.Option(None, help="training.learning_rate"),
        strategy: str | None = typer.Option(None, help="data.strategy"),
        kinds: str | None = typer.Option(None, help="data.kinds, comma-separated: local,global,inter (cosaemb)"),
        exclude: list[Path] = typer.Option(
            [], "--exclude", help="data.exclude (jepa/infonce): ids/DOIs/arXiv ids/titles file, corpus or BEIR dir"
        ),
        seed: SeedOverride = None,
        max_time: str | None = typer.Option(
            None, "--max-time", help="training.max_time_minutes: stop and save after this long (90, 90m, 1.5h, 5400s)"
        ),
        device_memory: DeviceMemory = None,
        estimate_for: EstimateFor = "auto",
        force: ForceMemory = False,
        push_to_hub: str | None = typer.Option(
            None, "--push-to-hub", help="after training, upload the model to this hub repository (owner/name)"
        ),
        hub_private: bool = typer.Option(False, "--hub-private", help="create the --push-to-hub repository private"),
    ) -> None:
        flags = {"base_model": base_model, "max_seq_length": max_seq_length, "epochs": epochs, "max_steps": max_steps,
                 "batch_size": batch_size, "mini_batch_size": mini_batch_size, "learning_rate": learning_rate,
                 "strategy": strategy, "kinds": comma_list(kinds) if kinds is not None else None,
                 "exclude": [str(p) for p in exclude] or None, "seed": seed, "max_time": parse_minutes(max_time)}
        run_recipe(recipe, config, corpus, out, resume, dry_run, sets, flags,
                   parse_memory_size(device_memory), check_estimate_for(estimate_for), force, push_to_hub, hub_private)

    return command


HELP = {"window": "S2Full: citation pairs of TA and random body windows + self-alignment, CachedMNRL.",
        "cosaemb": "CoSAEmb: local, global and inter-document triplets, graded triplet loss, special tokens.",
        "jepa": "SciJEPA: section pairs (TA → method, method → conclusion), EMA target, residual predictor, SIGReg.",
        "infonce": "SciJEPA's InfoNCE baseline on the same section pairs (micro-batch negatives, temperature ramp).",
        "semcse": "SemCSE: summaries of one abstract together (Euclidean triplet loss over in-batch negatives)."}


def register(app: typer.Typer) -> None:
    """Add `sciembed train <recipe>` commands."""
    from sciembed.training.recipes import RECIPES

    train_app = typer.Typer(help="Train an encoder with a recipe (config YAML + overrides).", no_args_is_help=True)
    for name in RECIPES:
        help_text = HELP.get(name, f"Train with the {name} recipe.")
        if name in CONFIG_HELP:
            help_text += f"\n\n-c/--config: {CONFIG_HELP[name]}."
        train_app.command(name, help=help_text)(make_command(name))
    app.add_typer(train_app, name="train")
