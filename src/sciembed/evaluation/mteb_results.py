"""A suite run's ranking results in MTEB's own result format, written by mteb's `TaskResult`.

``<out>/mteb/results/<model>/<revision>/<Task>.json``, the layout of mteb's `ResultCache`, one file per ranking
task of each finished cell, scores 0–1 under MTEB's names where they agree; triplet, probe and gold-rank tasks
are not written (MTEB's schema for them is per task type). See docs/evaluation.md ("MTEB both ways").
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

NO_REVISION = "no_revision_available"  # what mteb writes for a model without a hub revision
SCALED_BACK = 100.0  # sciembed's ×100
KINDS = {"retrieval": "Retrieval", "rerank": "Reranking"}  # sciembed result kind -> MTEB task type


def model_folder(model: str) -> str:
    """mteb's folder name for a model: ``org/name`` -> ``org__name``; a local path first made portable (relative to
    the repository, never the machine's absolute path), its leading ``../`` dropped."""
    from sciembed.ioutil.portable import is_absolute_path, portable

    name = portable(model) if is_absolute_path(model) else model
    return name.replace("/", "__").replace(" ", "_").lstrip("_.") or "model"


def mteb_score_name(metric: str) -> str:
    """sciembed's metric name as MTEB writes it: ``ndcg@10`` -> ``ndcg_at_10``, ``r-precision`` -> ``r_precision``."""
    return metric.replace("@", "_at_").replace("-", "_")


def mteb_scores(metrics: dict[str, float], primary: str) -> dict[str, Any]:
    """One subset's score dict: every metric scaled to 0–1, ``main_score`` the primary's (counts stay counts)."""
    scores = {mteb_score_name(m): (v / SCALED_BACK if _is_scaled(m) else v) for m, v in metrics.items()}
    scores["main_score"] = scores.get(mteb_score_name(primary), float("nan"))
    return scores


def _is_scaled(metric: str) -> bool:
    return metric not in ("first_relevant_rank", "mean_rank")


def write_mteb_results(run: Any) -> list[Path]:
    """Every finished ranking task of `run` (a `SuiteRun`) as an MTEB result file; returns the files written."""
    from mteb import TaskResult

    from sciembed.evaluation.mteb_tasks import task_metadata, task_name

    written: list[Path] = []
    for (model, bname), cell in run.cells.items():
        if cell.status != "done":
            continue
        bench = run.benchmarks.get(bname)
        split = str(getattr(getattr(bench, "benchmark", bench), "split", None) or "test")
        revision = bench.fingerprint() if bench is not None else cell.key
        folder = run.out / "mteb" / "results" / model_folder(model) / NO_REVISION
        for result in cell.results:
            if result.kind not in KINDS:
                continue
            name = task_name(bname, result.task)
            meta = task_metadata(name, f"sciembed benchmark {bname}, task {result.task}", revision, split,
                                 task_type=KINDS[result.kind])
            task = type(name, (), {"metadata": meta})  # from_task_results reads only the metadata
            scores = {split: {"default": mteb_scores(result.metrics, result.primary)}}
            date = datetime.datetime.now(datetime.UTC)
            task_result = TaskResult.from_task_results(task, scores, evaluation_time=cell.seconds, date=date)
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{name}.json"
            task_result.to_disk(path)
            written.append(path)
    return written
