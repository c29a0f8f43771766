"""SemCSE: summaries of one abstract pulled together, everything else in the batch pushed away.

`prepare` reads the summaries, holds out the validation papers and plans every batch (numpy only); `build` adds
the model (the base with CLS or mean pooling, trained without normalisation), the loss (Euclidean triplet over
in-batch negatives, or the cosine InfoNCE ablation) and the validation. See docs/recipes/semcse.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.training.recipes.semcse_config import SemCSEConfig
from sciembed.training.schedule_report import RunLength, rich_table
from sciembed.training.sources.summaries import SummaryData, load_summary_data
from sciembed.training.sources.summary_plan import (
    KIND_NAMES,
    SENTENCE,
    SUMMARY,
    TITLE,
    SummaryPlan,
    plan_summary_batches,
)
from sciembed.training.trainer import RecipeParts

NAME = "semcse"
CONFIG = SemCSEConfig
TRAINING_PAPERS_FILE = "training_papers.txt"


@dataclass(frozen=True)
class Prepared:
    data: SummaryData
    held_out: SummaryData | None
    plan: SummaryPlan

    def summary(self) -> dict[str, Any]:
        data = self.data.summary() | {"held_out_papers": len(self.held_out) if self.held_out is not None else 0}
        return {"data": data, "composition": self.plan.composition()}

    def length(self) -> RunLength:
        return RunLength(self.plan.n_batches, self.plan.epoch_batches[0] if self.plan.epoch_batches else None,
                         self.plan.batch_size)

    def report(self):
        from rich.console import Group
        from rich.text import Text

        d, c = self.summary()["data"], self.plan.composition()
        lines = [f"{d['papers']} training papers with {d['summaries']} summaries ({d['summaries_by_source']}); "
                 f"{d['held_out_papers']} held out for validation",
                 f"{d['papers_without_summaries']} papers of the split have no summary (left out); "
                 f"{d['papers_with_one_summary']} have a single summary (their summary→summary positives are "
                 f"redrawn); {d['papers_without_sentences']} have no abstract sentence",
                 f"{c['batches']} batches of {c['batch_size']} distinct papers; papers left out per epoch (last "
                 f"partial batch): {c['dropped_papers_per_epoch']}"]
        table = rich_table("positives", ("kind", "pairs", "share"),
                           [(k, str(c["positives"][k]), f"{c['positive_shares'][k]:.3f}") for k in KIND_NAMES])
        redrawn = "; ".join(f"{k}: {v} redrawn" for k, v in c["redrawn"].items()) or "no positive redrawn"
        return Group(Text("\n".join(lines)), table, Text(redrawn))


def held_out_count(config: SemCSEConfig, n_papers: int) -> int:
    v = config.validation
    return max(2, min(v.papers, int(v.max_share * n_papers))) if v.every_steps else 0


def prepare(config: SemCSEConfig, corpus: str | Path | CorpusDir) -> Prepared:
    data = load_summary_data(corpus, config.data.summaries, config.data.split, config.data.max_papers, config.seed)
    n_held = held_out_count(config, len(data))
    held_out = None
    if n_held:
        order = np.random.default_rng([config.seed, 900]).permutation(len(data))
        held_out = data.subset(np.sort(order[:n_held]))
        data = data.subset(np.sort(order[n_held:]))
    plan = plan_summary_batches(data.n_summaries, data.n_sentences, data.has_title, config.data.positives.as_array(),
                                config.training.batch_size, config.training.epochs, config.seed)
    return Prepared(data, held_out, plan)


class SummaryTexts:
    """Text of a planned slot: the anchor summary, and the positive of its kind."""

    def __init__(self, data: SummaryData) -> None:
        self.data = data

    def anchor(self, paper: int, index: int) -> str:
        return self.data.summaries[paper][index]

    def positive(self, paper: int, anchor: int, kind: int, index: int) -> str:
        if kind == SUMMARY:
            return self.data.summaries[paper][index]
        if kind == TITLE:
            return self.data.papers[paper].title
        if kind == SENTENCE:
            return self.data.sentences[paper][index]
        return self.anchor(paper, anchor)  # SAME: dropout noise is the only difference


def build(config: SemCSEConfig, prepared: Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from datasets import Dataset

    from sciembed.models.card import ModelCard, write_model_card
    from sciembed.training.collator import SummaryCollator
    from sciembed.training.model import build_model, token_budgets
    from sciembed.training.recipes.window import epoch_of_step
    from sciembed.training.sampler import PlanBatchSampler
    from sciembed.training.trainer import SIMILARITY_OF_METRIC, gather_negatives

    # the base's Normalize comes back on saving only for the cosine (InfoNCE) loss (`model.saving_base_tail`)
    model = build_model(config.model, pooling=config.model.pooling)
    metric = "l2" if config.loss.kind == "triplet" else "cosine"
    model.similarity_fn_name = SIMILARITY_OF_METRIC[metric]  # what a plain SentenceTransformer(path) compares by
    if config.loss.kind == "triplet":
        from sciembed.training.losses import SemCSETripletLoss

        loss = SemCSETripletLoss(model, config.loss.margin, config.loss.penalty_weight, config.loss.penalty)
    else:
        from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

        loss = MultipleNegativesRankingLoss(model, scale=1.0 / config.loss.temperature,
                                            gather_across_devices=gather_negatives(config.training))
    summary = prepared.summary()
    evaluator, callbacks = None, []
    if prepared.held_out is not None:
        from sciembed.training.semcse_validation import PRIMARY, BestWeightsCallback, SemCSEValidator

        evaluator = SemCSEValidator(prepared.held_out, metric)
        key = f"eval_{evaluator.name}_{PRIMARY}"
        callbacks.append(BestWeightsCallback(model, key, config.validation.patience, summary))
    plan = prepared.plan
    training_ids = prepared.data.papers.ids()
    held_ids = prepared.held_out.papers.ids() if prepared.held_out is not None else []

    def after_save(model_dir: Path) -> None:
        write_model_card(model_dir, ModelCard(recipe=NAME, metric=metric, pooling=config.model.pooling, extra={
            "loss": config.loss.kind, "positives": config.data.positives.model_dump(),
            "training_papers": len(training_ids), "held_out_papers": len(held_ids),
            "training_papers_file": TRAINING_PAPERS_FILE,
            "max_seq_length": token_budgets(model)}))
        # every paper the model saw (training + validation): benchmarks exclude them
        (Path(model_dir) / TRAINING_PAPERS_FILE).write_text("".join(f"{i}\n" for i in training_ids + held_ids),
                                                            encoding="utf-8")

    return RecipeParts(model=model, dataset=Dataset.from_dict(plan.columns()),
                       collator=SummaryCollator(preprocess_fn=model.preprocess, texts=SummaryTexts(prepared.data)),
                       batch_sampler=lambda dataset, batch_size: PlanBatchSampler(plan, dataset, batch_size),
                       loss=loss, epoch_of_step=epoch_of_step(plan), evaluator=evaluator, summary=summary,
                       callbacks=callbacks, after_save=after_save)
