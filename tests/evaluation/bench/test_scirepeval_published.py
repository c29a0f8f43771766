"""SciRepEval's aggregation against a published table: SemCSE's SciRepEval results (Brinner & Zarrieß, 2025).

Source: the authors' repository README, "SciRepEval Benchmark Results"
(https://github.com/inas-argumentation/SemCSE, README.md; the same table as the paper,
arXiv 2507.13105 / EMNLP 2025). It publishes, per model, the four type averages and the
overall average (SemCSE: 69.52 / 27.58 / 80.21 / 78.56 → 65.76). The per-task table of the
paper was not readable here, so the test reproduces the published overall from the published
type averages and the number of tasks of each type.

That is exact arithmetic, not an approximation: the overall is the mean over all task scores, so
it only depends on each type's SUM of task scores, which is (type average × number of tasks).
Giving each of a type's tasks the type average therefore yields the same overall as the real
per-task scores would. The task counts 6 / 5 / 9 / 3 (classification / regression / proximity /
search) are the only counts from 1 to 11 that reproduce all twelve published overalls to 0.01;
the mean of the four type averages misses every one of them (SemCSE: 63.97, not 65.76).
"""

from __future__ import annotations

import pytest

from sciembed.evaluation.scirepeval import aggregate

TASKS_PER_TYPE = {"classification": 6, "regression": 5, "proximity": 9, "adhoc_search": 3}

# model: (classification, regression, proximity, search, overall), as published
PUBLISHED = {
    "SciBERT": (63.86, 27.34, 66.25, 68.19, 57.42),
    "SciDeBERTa": (60.99, 27.00, 62.74, 67.83, 55.18),
    "SPECTER": (67.73, 25.37, 80.05, 74.89, 64.28),
    "SciNCL": (68.04, 25.22, 81.18, 77.32, 65.08),
    "SPECTER2 base": (66.95, 27.75, 81.10, 78.42, 65.46),
    "SPECTER2 proximity": (66.37, 26.85, 81.41, 77.75, 65.15),
    "all-MiniLM-L6-v2": (64.04, 20.06, 80.74, 79.63, 63.05),
    "jina-v2": (63.99, 23.76, 80.11, 80.40, 63.69),
    "jina-v3": (65.66, 24.84, 79.98, 80.60, 64.34),
    "RoBERTa SimCSE": (67.16, 22.95, 75.51, 76.97, 62.10),
    "NvEmbed-V2": (65.62, 29.94, 81.16, 82.84, 66.19),
    "SemCSE": (69.52, 27.58, 80.21, 78.56, 65.76),
}


def _task_scores(type_averages: tuple[float, ...]) -> dict[str, tuple[str, float]]:
    return {f"{kind}-{i}": (kind, avg)
            for kind, avg in zip(TASKS_PER_TYPE, type_averages, strict=True)
            for i in range(TASKS_PER_TYPE[kind])}


@pytest.mark.parametrize("model", list(PUBLISHED))
def test_published_overall_is_the_mean_over_tasks(model):
    *types, overall = PUBLISHED[model]
    out = aggregate(_task_scores(types))
    assert [out[k] for k in ("classification", "regression", "proximity", "search")] == pytest.approx(types)
    # published figures are rounded to 0.01: the type averages shift the overall by up to 0.005,
    # the overall's own rounding by up to 0.005 more
    assert out["overall"] == pytest.approx(overall, abs=0.01)
    assert abs(sum(types) / 4 - overall) > 0.5  # the mean of the type averages is not what the papers report


def test_semcse_headline_figure():
    # 69.52 × 6 + 27.58 × 5 + 80.21 × 9 + 78.56 × 3 = 1512.59 over 23 tasks = 65.7648 → published 65.76
    assert aggregate(_task_scores(PUBLISHED["SemCSE"][:4]))["overall"] == pytest.approx(1512.59 / 23)
