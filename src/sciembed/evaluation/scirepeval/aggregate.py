"""SciRepEval's headline numbers, computed as the papers compute them.

A task's score is the mean of its metrics (few-shot runs averaged first, then with the full-data score); a type
average is the mean of that type's task scores; the overall average is the mean over ALL task scores (not of
the four type averages, so a type with more tasks weighs more).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from sciembed.evaluation.scirepeval.tasks import TYPE_LABELS


def task_score(metrics: Mapping[str, float], names: Sequence[str]) -> float:
    values = [metrics[n] for n in names if n in metrics and not math.isnan(metrics[n])]
    return float(np.mean(values)) if values else math.nan


def aggregate(task_scores: Mapping[str, tuple[str, float]]) -> dict[str, float]:
    """`task name -> (type, score)` → type averages and the overall average over tasks."""
    out: dict[str, float] = {}
    scored = {name: (kind, s) for name, (kind, s) in task_scores.items() if not math.isnan(s)}
    for kind, label in TYPE_LABELS.items():
        values = [s for k, s in scored.values() if k == kind]
        if values:
            out[label] = float(np.mean(values))
    if scored:
        out["overall"] = float(np.mean([s for _, s in scored.values()]))
    return out
