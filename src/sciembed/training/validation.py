"""Validation during training: citation NDCG@10 on a held-out split, through the evaluation harness.

A sentence-transformers evaluator, so the trainer calls it every
``validation.every_steps`` steps and logs its metrics with the loss. Queries
and candidates are built by `sciembed.evaluation` exactly as ``sciembed eval``
builds them (no training prefixes; body views are the paper log's windows), at the token budget
the saved model will read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sentence_transformers.base.evaluation.evaluator import BaseEvaluator

from sciembed.corpus.layout import CorpusDir
from sciembed.training.config import ValidationConfig

METRIC = "ndcg@10"
BODY_MODE = "windowed"


class CitationValidator(BaseEvaluator):
    def __init__(self, corpus: str | Path | CorpusDir, config: ValidationConfig) -> None:
        super().__init__()
        from sciembed.evaluation import build_citation_benchmark

        self.benchmark = build_citation_benchmark(corpus, split=config.split, paper_log_seed=config.paper_log_seed)
        self.scenarios = tuple(config.scenarios)
        self.name = config.split
        self.primary_metric = f"{self.scenarios[0]}_{METRIC}"

    def __call__(
        self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1
    ) -> dict[str, float]:
        from sciembed.evaluation import evaluate_encoder, normalize_key
        from sciembed.models import wrap_sentence_transformer
        from sciembed.training.model import inference_length

        training_length = model.max_seq_length
        model.max_seq_length = inference_length(model)  # validate the model as it will be saved and used
        try:
            encoder = wrap_sentence_transformer(model, "training")
            run = evaluate_encoder(
                encoder, self.benchmark, scenarios=self.scenarios, body_modes=(BODY_MODE,), show_progress=False,
                geometry=False,
            )
        finally:
            model.max_seq_length = training_length
        metrics = {
            f"{scenario}_{METRIC}": float(run.aggregates[normalize_key((scenario, BODY_MODE))][METRIC])
            for scenario in self.scenarios
        }
        metrics = self.prefix_name_to_metrics(metrics, self.name)
        self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
        return metrics
