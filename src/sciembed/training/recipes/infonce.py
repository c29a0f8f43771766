"""SciJEPA's controlled contrastive baseline: the same section pairs and encoder, InfoNCE with
in-batch negatives from the micro-batch and a temperature ramp; no predictor, no EMA."""

from __future__ import annotations

from pathlib import Path

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import InfoNCEConfig
from sciembed.training.recipes import section_pairs
from sciembed.training.recipes.section_pairs import Prepared, data_parts, section_training_args
from sciembed.training.trainer import RecipeParts

NAME = "infonce"
CONFIG = InfoNCEConfig


prepare = section_pairs.prepare


def build(config: InfoNCEConfig, prepared: Prepared, corpus: str | Path | CorpusDir) -> RecipeParts:
    from sciembed.training.losses import SectionInfoNCELoss
    from sciembed.training.model import build_model
    from sciembed.training.schedules import StepCallback

    model = build_model(config.model)
    c = config.infonce
    loss = SectionInfoNCELoss(model, temperature_start=c.temperature_start, temperature_end=c.temperature_end,
                              warmup_steps=config.training.warmup_steps, total_steps=prepared.steps,
                              denominator=c.denominator, gather_across_devices=config.training.gather_across_devices)
    return RecipeParts(model=model, loss=loss, **data_parts(model, prepared), summary=prepared.summary(),
                       training_args=section_training_args(config), callbacks=[StepCallback([loss])])
