"""What the `jepa` and `infonce` recipes share: the section-pair data, drawn once up front, walked
micro-batch by micro-batch, and turned into texts just before tokenising."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from operator import sub
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import InfoNCEConfig, JepaConfig
from sciembed.training.plan import PlanError
from sciembed.training.schedule_report import RunLength, rich_table
from sciembed.training.sources.section_pairs import (
    REASONS,
    TASKS,
    SectionPairData,
    SectionPairTexts,
    draw_examples,
    load_section_pairs,
    task_shares,
)

SectionConfig = JepaConfig | InfoNCEConfig


@dataclass(frozen=True)
class Prepared:
    data: SectionPairData
    paper: np.ndarray  # example -> paper index
    task: np.ndarray  # example -> task (0 TA → method, 1 method → conclusion)
    steps: int  # optimizer steps
    examples_per_step: int  # micro-batch × accumulation
    budget: int = field(default=0)  # data.examples as configured

    def length(self) -> RunLength:
        return RunLength(self.steps, None, self.examples_per_step)

    def summary(self) -> dict[str, Any]:
        return {"data": self.data.summary() | {
            "examples_budget": self.budget, "examples": len(self.paper), "optimizer_steps": self.steps,
            "examples_per_step": self.examples_per_step, "task_shares": task_shares(self.task)}}

    def report(self):
        """Rich renderables: the filter funnel and the task shares."""
        from rich.console import Group
        from rich.text import Text

        funnel = self.data.funnel
        left = accumulate((funnel[r] for r in REASONS), sub, initial=funnel["read"])  # papers left after each stage
        rows = zip(("read", *REASONS), ["—", *(f"{funnel[r]:,}" for r in REASONS)], map("{:,}".format, left),
                   strict=True)
        table = rich_table(f"Section-pair funnel ({self.data.corpus}, {self.data.split})",
                           ("stage", "removed", "papers left"), rows)
        shares = task_shares(self.task)
        d = self.data
        lines = [
            f"kept {len(d.papers):,} papers: {d.with_conclusion:,} with a conclusion (both tasks), "
            f"{len(d.papers) - d.with_conclusion:,} method only (TA → method only)",
            *(f"excluded via {p}: {n:,} values read" for p, n in d.exclude_sources),
            f"{len(self.paper):,} examples (budget {self.budget:,}) = {self.steps:,} optimizer steps of "
            f"{self.examples_per_step:,}",
            "task shares: " + ", ".join(f"{t} {100 * shares[t]:.2f}%" for t in TASKS),
        ]
        return Group(table, Text("\n".join(lines)))


def prepare(config: SectionConfig, corpus: str | Path | CorpusDir) -> Prepared:
    """Funnel, then draw the examples. The budget is cut to whole optimizer steps, and to
    ``training.max_steps`` of them when that is set."""
    t = config.training
    data = load_section_pairs(corpus, config.data.filters, config.data.exclude, config.data.split)
    per_step = t.batch_size * t.gradient_accumulation
    steps = config.data.examples // per_step
    if steps == 0:
        raise PlanError(f"data.examples {config.data.examples:,} is less than one optimizer step "
                        f"({t.batch_size} × {t.gradient_accumulation} = {per_step:,} examples)")
    if t.max_steps is not None:
        if t.max_steps > steps:
            raise PlanError(f"training.max_steps {t.max_steps} needs {t.max_steps * per_step:,} examples; "
                            f"data.examples is {config.data.examples:,} ({steps} steps)")
        steps = t.max_steps
    paper, task = draw_examples(data, steps * per_step, config.seed)
    return Prepared(data, paper, task, steps, per_step, config.data.examples)


def section_training_args(config: SectionConfig) -> dict[str, Any]:
    t = config.training
    return {"gradient_accumulation_steps": t.gradient_accumulation, "warmup_steps": t.warmup_steps, "warmup_ratio": 0.0}


def data_parts(model, prepared: Prepared) -> dict[str, Any]:
    """dataset, collator, batch_sampler, epoch_of_step, examples_per_step for `RecipeParts`; micro-batches walk
    the pre-drawn examples in order, an incomplete last one left out."""
    from datasets import Dataset

    from sciembed.training.collator import SectionPairCollator
    from sciembed.training.sampler import InOrderBatchSampler

    steps = prepared.steps
    return {
        "dataset": Dataset.from_dict({"paper": prepared.paper, "task": prepared.task}),
        "collator": SectionPairCollator(preprocess_fn=model.preprocess, texts=SectionPairTexts(prepared.data)),
        "batch_sampler": lambda dataset, batch_size: InOrderBatchSampler(dataset, batch_size, drop_last=True),
        "epoch_of_step": lambda step: min(step / steps, 1.0),
        "examples_per_step": prepared.examples_per_step,
    }
