"""S2Full's window recipe: citation pairs over TA and random body windows, plus self-alignment.

`prepare` reads the training split and plans every batch (numpy only, so ``--dry-run`` is quick); `build` adds
the model, the loss and the collator that cuts the planned windows into text batch by batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.training.composition import composition, composition_table
from sciembed.training.config import WindowConfig
from sciembed.training.data import TrainingData, ViewTexts, load_training_data
from sciembed.training.plan import BatchPlan, plan_batches
from sciembed.training.schedule_report import RunLength
from sciembed.training.trainer import RecipeParts
from sciembed.views import target_words

NAME = "window"
CONFIG = WindowConfig


@dataclass(frozen=True)
class Prepared:
    data: TrainingData
    plan: BatchPlan
    window_words: int
    negatives: dict[str, Any] | None = None  # how the hard negatives were mined and drawn

    def summary(self) -> dict[str, Any]:
        out = {"data": self.data.summary(), "window_words": self.window_words, "composition": composition(self.plan)}
        return out | ({"hard_negatives": self.negatives} if self.negatives else {})

    def length(self) -> RunLength:
        return RunLength(self.plan.n_batches, self.plan.epoch_batches[0] if self.plan.epoch_batches else None,
                         self.plan.batch_size)

    def report(self):
        """Rich renderables for the terminal: the data counts and the composition table."""
        from rich.console import Group
        from rich.text import Text

        d = self.data.summary()
        comp = composition(self.plan)
        lines = [f"{d['split']} split: {d['papers']} papers ({d['ta_only_papers']} TA-only: TA views only, never "
                 f"self-aligned), {d['citation_pairs']} citation pairs",
                 f"windows of {self.window_words} words; {comp['self_per_batch']} of {comp['batch_size']} pairs per "
                 f"batch are self-alignment ({100 * comp['self_share_min']:.1f}%)",
                 f"batches per epoch: {comp['batches_per_epoch']}; citation pairs not reached per epoch: "
                 f"{comp['dropped_pairs_per_epoch']}"]
        return Group(Text("\n".join(lines)), composition_table(comp))


def window_words(config: WindowConfig) -> int:
    """``data.window_words`` or the S2Full rule ``0.7 × max_seq_length``."""
    return config.data.window_words or target_words(config.model.max_seq_length)


def prepare(config: WindowConfig, corpus: str | Path | CorpusDir) -> Prepared:
    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    data = load_training_data(corpus, "train")
    d = config.data
    plan = plan_batches(data.pairs, data.n_body, strategy=d.strategy, batch_size=config.training.batch_size,
                        self_share=d.self_align_share, epochs=config.training.epochs, seed=config.seed,
                        self_align=d.self_align, orientation=d.orientation)
    if config.data.hard_negatives is None:
        return Prepared(data, plan, window_words(config))
    from sciembed.training.plan_negatives import attach_negatives
    from sciembed.training.sources.hard_negatives import linked_papers, mine

    linked = linked_papers(corpus, corpus.split_id_array("train").to_pylist())
    mined = mine(config.data.hard_negatives, data, linked, base=config.model.base)
    plan, drawn = attach_negatives(plan, mined.lists, linked, data.n_body, config.seed)
    return Prepared(data, plan, window_words(config), {**mined.summary(), "drawn": drawn})


def epoch_of_step(plan: BatchPlan):
    """Recipe epoch (fractional) reached after `step` batches."""
    bounds = np.cumsum([0, *plan.epoch_batches])

    def at(step: int) -> float:
        e = int(np.searchsorted(bounds, step, side="right") - 1)
        if e >= len(plan.epoch_batches):
            return float(len(plan.epoch_batches))
        return e + (step - bounds[e]) / plan.epoch_batches[e]

    return at


def add_prefix_tokens(model: Any, prefixes: list[str]) -> list[str]:
    """Make the prefixes ("[TA]", "[BODY]") single special tokens with new (trainable) embedding rows."""
    from sciembed.training.special_tokens import register_special_tokens

    tokens = [p.strip() for p in prefixes if p.strip()]
    register_special_tokens(model, tokens)
    return tokens


def build(config: WindowConfig, prepared: Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from sciembed.training.model import build_model

    model = build_model(config.model)
    prefixes = config.data.prefixes
    if prefixes is not None and prefixes.special_tokens:
        add_prefix_tokens(model, [prefixes.ta, prefixes.body])
    texts = ViewTexts(prepared.data, prepared.window_words, ta_prefix=prefixes.ta if prefixes else "",
                      body_prefix=prefixes.body if prefixes else "")
    return plan_parts(config, prepared, corpus, model, texts, prepared.summary())


def plan_parts(config: Any, prepared: Prepared, corpus: str | Path | CorpusDir, model: Any, texts: ViewTexts,
               summary: dict[str, Any]) -> RecipeParts:
    """The trainer's parts for a planned citation-pair run on `model` (the window and static recipes)."""
    from datasets import Dataset

    from sciembed.training.collator import PlanCollator
    from sciembed.training.sampler import PlanBatchSampler
    from sciembed.training.trainer import make_loss

    evaluator = None
    if config.validation.every_steps > 0:
        from sciembed.training.validation import CitationValidator

        evaluator = CitationValidator(corpus, config.validation)
    plan = prepared.plan
    return RecipeParts(model=model, dataset=Dataset.from_dict(plan.columns()),
                       collator=PlanCollator(preprocess_fn=model.preprocess, texts=texts),
                       batch_sampler=lambda dataset, batch_size: PlanBatchSampler(plan, dataset, batch_size),
                       loss=make_loss(model, config.training), epoch_of_step=epoch_of_step(plan), evaluator=evaluator,
                       summary=summary)
