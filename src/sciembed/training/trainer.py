"""The runner every recipe shares: SentenceTransformerTrainer set up once, the same on CPU, GPU or DDP.

A recipe supplies `RecipeParts`; this module turns the config into training arguments, wires checkpoints,
validation, curves and progress, resumes, and saves the final model. Under ``torchrun`` every planned batch is
the *global* batch, split across the processes, so N processes train what one would (docs/distributed.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sciembed.errors import SciembedInputError
from sciembed.training.config import TrainConfig, TrainingConfig
from sciembed.training.rundir import RunDir, is_main_process

if TYPE_CHECKING:
    import torch
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer


@dataclass
class RecipeParts:
    model: SentenceTransformer
    dataset: Dataset
    collator: Any  # a SentenceTransformerDataCollator
    batch_sampler: Callable[[Any, int], Any]  # (dataset, batch_size) -> DefaultBatchSampler
    loss: torch.nn.Module
    epoch_of_step: Callable[[int], float]
    evaluator: Any | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    model_card: Any | None = None  # a sciembed.models.card.ModelCard written next to the saved model
    # Recipe hooks (the window recipe needs none of them):
    training_args: dict[str, Any] = field(default_factory=dict)  # extra/overridden TrainingArguments
    callbacks: list[Any] = field(default_factory=list)  # recipe TrainerCallbacks (EMA, checkpoint extras)
    examples_per_step: int | None = None  # per optimizer step, all processes together; default: the batch size
    export: Callable[[Path], dict[str, Any]] | None = None  # after the model is saved: run root -> summary
    after_save: Callable[[Path], None] | None = None  # writes what else the model dir needs


def resolve_precision(precision: str) -> str:
    """``auto``: bf16 where the GPU has it, else fp32 (CPU bf16 autocast is slow on most CPUs)."""
    from sciembed.training.memory_estimate import resolve_precision_for, resolve_target

    return resolve_precision_for(precision, resolve_target())


def make_loss(model: SentenceTransformer, training: TrainingConfig) -> torch.nn.Module:
    """CachedMNRL (GradCache): in-batch negatives over the whole batch at mini-batch memory."""
    from sentence_transformers.sentence_transformer.losses import (
        CachedMultipleNegativesRankingLoss,
        MultipleNegativesRankingLoss,
    )

    gather = gather_negatives(training)
    if training.loss == "cached_mnrl":
        mini = min(training.mini_batch_size, training.batch_size)
        return CachedMultipleNegativesRankingLoss(model, scale=training.scale, mini_batch_size=mini,
                                                  gather_across_devices=gather)
    return MultipleNegativesRankingLoss(model, scale=training.scale, gather_across_devices=gather)


class WorldSizeError(SciembedInputError, ValueError):
    """The global batch does not split evenly over the processes."""


class NonFiniteLoss(SciembedInputError, RuntimeError):
    """A training step's loss is NaN or infinite: the run stops there (its weights would be NaN from then on)."""


def world_size() -> int:
    """Processes of this run as the launcher (torchrun, accelerate) declares them; 1 when run plainly."""
    return max(1, int(os.environ.get("WORLD_SIZE", "1")))


def gather_negatives(training: TrainingConfig) -> bool:
    """Whether contrastive losses gather embeddings across processes (on, when there are several)."""
    return training.gather_across_devices and world_size() > 1


def per_process_batch(batch_size: int, world: int) -> int:
    """``batch_size / world``; a remainder is refused (a batch cannot be split unevenly)."""
    if batch_size % world:
        raise WorldSizeError(
            f"training.batch_size {batch_size} does not split over {world} processes (the batch is global: each "
            f"process takes batch_size / {world}); use a multiple of {world}, e.g. {batch_size - batch_size % world}"
        )
    return batch_size // world


def batch_lines(batch_size: int, world: int, loss: Any, hard_negatives: int = 0) -> list[str]:
    """What a step holds, printed before training: global batch, per process, negatives per anchor.

    With `hard_negatives` mined columns, each anchor also sees every hard negative of the batch (its own
    and the other anchors'), as MultipleNegativesRankingLoss scores them.
    """
    per = per_process_batch(batch_size, world)
    lines = [f"batch: {batch_size} examples per micro-batch over {world} process(es) = {per} per process"]
    gathered = getattr(loss, "gather_across_devices", None)
    if gathered is not None:
        seen = batch_size if world == 1 or gathered else per
        negatives = seen - 1 + seen * hard_negatives
        mined = f", {seen * hard_negatives} of them mined hard negatives" if hard_negatives else ""
        if world == 1:
            where = "one process"
        elif gathered:
            where = "global, gathered across processes"
        else:
            where = "per process: training.gather_across_devices is off"
        lines.append(f"in-batch negatives per anchor: {negatives} ({where}{mined})")
    if getattr(loss, "sigreg", None) is not None and getattr(loss, "sigreg_lambda", 0) > 0:
        lines.append(f"SIGReg statistics over {batch_size} embeddings per micro-batch (all-reduced across processes)")
    return lines


def training_arguments(config: TrainConfig, run: RunDir, evaluate: bool, extra: dict[str, Any] | None = None):
    import torch
    from sentence_transformers import SentenceTransformerTrainingArguments

    t = config.training
    precision = resolve_precision(t.precision)
    kwargs: dict[str, Any] = dict(
        output_dir=str(run.checkpoints), num_train_epochs=1,  # the plan already spans every recipe epoch
        max_steps=t.max_steps or -1, per_device_train_batch_size=t.batch_size, learning_rate=t.learning_rate,
        weight_decay=t.weight_decay, warmup_ratio=t.warmup_ratio, lr_scheduler_type=t.lr_scheduler,
        max_grad_norm=t.max_grad_norm, seed=config.seed, data_seed=config.seed, bf16=precision == "bf16",
        fp16=precision == "fp16", logging_steps=t.log_every_steps, logging_first_step=True, save_strategy="steps",
        save_steps=config.checkpoint.every_steps, save_total_limit=config.checkpoint.keep,
        eval_strategy="steps" if evaluate else "no", eval_steps=config.validation.every_steps if evaluate else None,
        gradient_checkpointing=t.gradient_checkpointing,
        gradient_checkpointing_kwargs={"use_reentrant": False} if t.gradient_checkpointing else None,
        dataloader_num_workers=t.dataloader_workers, dataloader_drop_last=False,
        # a planned batch is the global batch: each of N processes takes its 1/N (per_process_batch)
        accelerator_config={"split_batches": True}, dataloader_pin_memory=torch.cuda.is_available(),
        # CPU-only hosts: lets `torchrun --nproc_per_node N` run multi-process (gloo) DDP, as on GPUs
        use_cpu=not torch.cuda.is_available() and not torch.backends.mps.is_available(),
        disable_tqdm=True, report_to="none")
    return SentenceTransformerTrainingArguments(**(kwargs | (extra or {})))


def _trainer_class():
    import torch
    from sentence_transformers import SentenceTransformerTrainer
    from sentence_transformers.base.model_card import get_losses
    from sentence_transformers.sentence_transformer.model_card import SentenceTransformerModelCardCallback

    class PlanModelCardCallback(SentenceTransformerModelCardCallback):
        """The model card without dataset statistics and widget examples: the training dataset holds
        the plan's integers, not texts, so those would describe nothing."""

        def on_init_end(self, args, state, control, model, trainer, **kwargs):
            model.model_card_data.add_tags(["generated_from_trainer", "sciembed"])
            model.model_card_data.set_losses(get_losses(trainer.loss))

    class PlanTrainer(SentenceTransformerTrainer):
        """Takes its batch sampler from the recipe (an instance, so nothing has to be pickled into the args)."""

        model_card_callback_class = PlanModelCardCallback

        def __init__(self, *args, batch_sampler_factory, **kwargs) -> None:
            self.batch_sampler_factory = batch_sampler_factory
            super().__init__(*args, **kwargs)

        def get_batch_sampler(self, dataset, batch_size, drop_last, valid_label_columns=None, generator=None, seed=0):
            return self.batch_sampler_factory(dataset, batch_size)

        def training_step(self, *args, **kwargs):
            """transformers' step, stopped at the first NaN or infinite loss: its `logging_nan_inf_filter` only
            leaves such steps out of the logged mean, so a run went on training NaN weights, logging loss 0."""
            loss = super().training_step(*args, **kwargs)
            if not torch.isfinite(loss).all():
                raise NonFiniteLoss(
                    f"the loss is {loss.float().mean().item()} at step {self.state.global_step + 1}: training "
                    "stopped (the weights would be NaN from here on); try a lower learning rate, float32, or "
                    f"resume from a checkpoint before it in {self.args.output_dir}")
            return loss

    return PlanTrainer


SIMILARITY_OF_METRIC = {"cosine": "cosine", "l2": "euclidean"}  # sciembed metric -> sentence-transformers'


def save_model_atomically(model: Any, target: Path, card: Any = None, readme_section: str | None = None) -> None:
    """Save into a hidden sibling and rename it into place: a kill mid-save never leaves a half model.

    The copy reads the inference token budget, its ``similarity_fn_name`` matches the card's metric and it
    keeps the base's ``Normalize`` (`training.model`). `card`: the recipe's `ModelCard`; `readme_section`:
    markdown added to sentence-transformers' README. Files get the umask's permissions (`readable`)."""
    import shutil

    from sciembed.ioutil.atomic import publish
    from sciembed.training.model import reading_as_saved, saving_base_tail

    partial = target.parent / f".{target.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    if card is not None:
        model.similarity_fn_name = SIMILARITY_OF_METRIC[card.metric]
    with reading_as_saved(model) as budgets, saving_base_tail(model):
        model.save(str(partial))
    if card is not None:
        from dataclasses import replace

        from sciembed.models.card import write_model_card

        write_model_card(partial, replace(card, extra={**card.extra, "max_seq_length": budgets}))
    if readme_section:
        from sciembed.training.model_card import add_card_section

        add_card_section(partial, readme_section)
    readable(partial)
    publish(partial, target)


def default_card(recipe: str, config: TrainConfig) -> Any:
    """The card of a recipe that brings none: the window recipe records its training budget as ``window_tokens``,
    so ``sciembed eval`` reads 716-word windows from a ModernBERT saved to read 8,192 tokens (issue 32, item 1)."""
    if recipe != "window":
        return None
    from sciembed.models.card import ModelCard

    return ModelCard(recipe=recipe, extra={"window_tokens": int(config.model.max_seq_length)})


def readable(root: Path) -> None:
    """Give every file and folder under `root` the permissions the umask allows (0644 / 0755 under 022): temporary
    files renamed into place are 0600, and a shared model was unreadable to anyone but its trainer."""
    from sciembed.ioutil.atomic import _UMASK

    for path in [root, *root.rglob("*")]:
        if not path.is_symlink():
            path.chmod((0o777 if path.is_dir() else 0o666) & ~_UMASK)


def run_training(recipe: str, config: TrainConfig, parts: RecipeParts, run: RunDir, checkpoint: Path | None,
                 callbacks: Sequence[Any] = (), say: Callable[[str], None] | None = None) -> Path:
    """Train (or resume) and save the final model to ``<out>/model``; returns that path."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    from sciembed.training.callbacks import (
        BestModelCallback,
        CurvesCallback,
        RichProgressCallback,
        TimeBudgetCallback,
        write_curves,
    )
    from sciembed.training.model import token_budgets
    from sciembed.training.model_card import card_section, fill_card_data

    evaluate = parts.evaluator is not None and config.validation.every_steps > 0
    hard_negatives = getattr(config.data, "texts_per_pair", 2) - 2
    lines = batch_lines(config.training.batch_size, world_size(), parts.loss, hard_negatives)
    args = training_arguments(config, run, evaluate, parts.training_args)
    examples_per_step = parts.examples_per_step or config.training.batch_size
    if say is not None and is_main_process():
        for line in lines:
            say(line)
    parts.summary["max_seq_length"] = token_budgets(parts.model)
    card = parts.model_card if parts.model_card is not None else default_card(recipe, config)
    extra_callbacks: list[Any] = []
    if config.training.max_time_minutes is not None:
        extra_callbacks.append(TimeBudgetCallback(config.training.max_time_minutes, parts.summary))
    # only rank 0 writes recipe.json (and saves the model its card describes): other ranks must not read it
    record = run.read_recipe() if is_main_process() else {}

    def readme_section() -> str:
        history = trainer.state.log_history if trainer is not None else []
        return card_section(parts.model, recipe, record, [e for e in history if any(k.startswith("eval_") for k in e)])

    def save(model: Any, target: Path) -> None:
        save_model_atomically(model, target, card, readme_section())
        if parts.after_save is not None:
            parts.after_save(target)

    trainer = None
    if evaluate:
        extra_callbacks.append(BestModelCallback(parts.model, parts.evaluator, run.best_model, save, parts.summary))
    trainer = _trainer_class()(
        model=parts.model, args=args, train_dataset=parts.dataset, loss=parts.loss,
        evaluator=parts.evaluator if evaluate else None, data_collator=parts.collator,
        batch_sampler_factory=parts.batch_sampler,
        callbacks=[RichProgressCallback(examples_per_step, f"train {recipe}"),
                   CurvesCallback(run.curves, parts.epoch_of_step), *parts.callbacks, *extra_callbacks, *callbacks])
    trainer.remove_callback(PrinterCallback)
    trainer.remove_callback(ProgressCallback)
    examples = len(parts.dataset) if hasattr(parts.dataset, "__len__") else None
    fill_card_data(parts.model, recipe, record, parts.loss, examples)
    started = time.perf_counter()
    start_step = 0
    finished = False
    if checkpoint is not None:
        import json

        saved = json.loads((checkpoint / "trainer_state.json").read_text())
        start_step = int(saved["global_step"])
        finished = 0 < int(saved.get("max_steps") or 0) <= start_step
    if finished:  # a finished run resumes to itself: the trainer would take one step more
        from transformers.trainer_callback import TrainerState

        trainer._load_from_checkpoint(str(checkpoint))
        trainer.state = TrainerState.load_from_json(str(checkpoint / "trainer_state.json"))
        output = None
    else:
        output = trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
    seconds = time.perf_counter() - started
    state = trainer.state
    if trainer.is_world_process_zero():
        save(parts.model, run.model)
        exported = parts.export(run.root) if parts.export is not None else {}
        write_curves(state.log_history, run.curves, parts.epoch_of_step)
        losses = [e["loss"] for e in state.log_history if "loss" in e]
        evals = [e for e in state.log_history if any(k.startswith("eval_") for k in e)]
        speed = (state.global_step - start_step) * examples_per_step / max(seconds, 1e-9)
        run.write_json(run.summary_path, {
            "recipe": recipe, "completed": state.global_step >= state.max_steps, "global_step": state.global_step,
            "max_steps": state.max_steps, "resumed_from_step": start_step, "session_seconds": round(seconds, 2),
            "processes": trainer.args.world_size, "session_examples_per_second": round(speed, 2),
            "final_logged_loss": losses[-1] if losses else None,
            "train_loss_mean": output.training_loss if output is not None else None,
            "last_validation": evals[-1] if evals else None,
            "precision": resolve_precision(config.training.precision), "device": str(parts.model.device),
            **parts.summary, **exported})
    return run.model
