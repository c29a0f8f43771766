"""SemCSE's validation: mean rank on held-out papers, the best weights kept, early stopping.

Two rankings with the distance the model trains for (1 = best): ``summary2summary`` (a paper's first summary →
its second) and ``summaries2ta`` (the mean of its summary embeddings → its title+abstract); their average,
``mean_rank``, picks the best evaluation, whose weights `BestWeightsCallback` puts back before the final save.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sentence_transformers.base.evaluation.evaluator import BaseEvaluator
from transformers import TrainerCallback

from sciembed.models.distance import gold_ranks
from sciembed.training.sources.summaries import SummaryData

PRIMARY = "mean_rank"


class SemCSEValidator(BaseEvaluator):
    def __init__(self, held_out: SummaryData, metric: str, name: str = "heldout", batch_size: int = 64) -> None:
        super().__init__()
        if len(held_out) < 2:
            raise ValueError(f"validation needs at least 2 held-out papers, got {len(held_out)}")
        self.held_out = held_out
        self.metric = metric
        self.name = name
        self.batch_size = batch_size
        self.greater_is_better = False
        self.primary_metric = PRIMARY

    def _encode(self, model: Any, texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                       show_progress_bar=False), dtype=np.float32)

    def compute(self, model: Any) -> dict[str, float]:
        data = self.held_out
        texts = [t for summaries in data.summaries for t in summaries]
        owners = np.repeat(np.arange(len(data)), data.n_summaries)
        vectors = self._encode(model, texts + [data.ta(i) for i in range(len(data))])
        summary_vecs, ta_vecs = vectors[: len(texts)], vectors[len(texts):]
        metrics: dict[str, float] = {}
        firsts = np.searchsorted(owners, np.arange(len(data)))
        two = np.flatnonzero(data.n_summaries >= 2)
        if len(two) >= 2:
            ranks = gold_ranks(summary_vecs[firsts[two]], summary_vecs[firsts[two] + 1], np.arange(len(two)),
                               self.metric)
            metrics["summary2summary_mean_rank"] = float(ranks.mean())
        means = np.stack([summary_vecs[owners == i].mean(0) for i in range(len(data))])
        metrics["summaries2ta_mean_rank"] = float(gold_ranks(means, ta_vecs, np.arange(len(data)), self.metric).mean())
        metrics[PRIMARY] = float(np.mean(list(metrics.values())))
        return metrics

    def __call__(self, model: Any, output_path: str | None = None, epoch: int = -1, steps: int = -1
                 ) -> dict[str, float]:
        metrics = self.prefix_name_to_metrics(self.compute(model), self.name)
        self.store_metrics_in_model_card_data(model, metrics, epoch, steps)
        return metrics


class BestWeightsCallback(TrainerCallback):
    """Keep the weights of the best evaluation (lowest `key`); stop after `patience` evaluations
    without improvement; restore the best weights when training ends. The copy lives in memory,
    so a resumed run starts tracking afresh (said in `summary`)."""

    def __init__(self, model: Any, key: str, patience: int, summary: dict[str, Any]) -> None:
        self.model = model
        self.key = key
        self.patience = patience
        self.summary = summary
        self.best: float | None = None
        self.best_step: int | None = None
        self.evaluations = 0
        self.since_best = 0
        self._weights: dict[str, Any] | None = None
        self.stopped_early = False

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        if not metrics or self.key not in metrics:
            return
        value = float(metrics[self.key])
        self.evaluations += 1
        if self.best is None or value < self.best:
            self.best, self.best_step, self.since_best = value, state.global_step, 0
            self._weights = {k: v.detach().to("cpu", copy=True) for k, v in self.model.state_dict().items()}
        else:
            self.since_best += 1
            if self.since_best >= self.patience:
                control.should_training_stop = True
                self.stopped_early = True

    def on_train_end(self, args, state, control, **kwargs):
        if self._weights is not None:
            self.model.load_state_dict(self._weights)
        self.summary["best_validation"] = {
            "metric": self.key, "value": self.best, "step": self.best_step, "evaluations": self.evaluations,
            "stopped_early": self.stopped_early, "patience": self.patience,
            "saved_model": "best evaluation" if self._weights is not None else "last step (no evaluation)",
        }
