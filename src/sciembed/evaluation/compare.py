"""Compare two evaluation runs (directories written by `sciembed eval` or `sciembed bench`) query by query.

Scores are paired on the queries both runs scored; runs of different benchmarks (another corpus, split or paper
log) are refused: their per-query scores do not describe the same queries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import RANKING_METRICS
from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.significance import PairedResult, paired_test

# results.json of the harness report writer that issue 25 folded into the suite writer: directories written
# before it are still read; a suite's results are turned into this shape (`suite_results`)
FORMAT = "sciembed-eval/1"


def load_results(run_dir: Path | str, benchmark: str | None = None) -> dict[str, Any]:
    """A run's results in the harness shape (scores 0–1); a suite's (`eval` / `bench`) for one of its benchmarks."""
    path = Path(run_dir) / "results.json" if Path(run_dir).is_dir() else Path(run_dir)
    if not path.is_file():
        raise BenchmarkError(f"{run_dir}: no results.json (is this a directory written by `sciembed eval run` or "
                             "`eval suite`?)")
    results = json.loads(path.read_text())
    if "cells" in results:
        return suite_results(results, path, benchmark)
    if results.get("format") != FORMAT:
        raise BenchmarkError(f"{path}: format {results.get('format')!r}, expected {FORMAT!r}")
    return results


def suite_results(results: dict[str, Any], path: Path, benchmark: str | None = None) -> dict[str, Any]:
    """One benchmark of a suite's results.json as the harness shape `compare_runs` pairs (per-query scores ÷ 100)."""
    names = list(results["benchmarks"])
    if benchmark is None and len(names) != 1:
        raise BenchmarkError(f"{path}: a suite of {len(names)} benchmarks ({', '.join(names)}); name one")
    name = benchmark or names[0]
    if name not in names:
        raise BenchmarkError(f"{path}: no benchmark {name!r}; it holds {', '.join(names)}")
    cells = [c for c in results["cells"] if c["benchmark"] == name and c["status"] == "done"]
    if not cells:
        raise BenchmarkError(f"{path}: no finished cell on benchmark {name}")
    models, tasks = [], {}
    for cell in cells:
        per_query = {}
        for r in cell["results"]:
            scores = {m: {q: v / 100.0 for q, v in s.items()} for m, s in r["per_query"].items() if m not in UNSCALED}
            if scores:
                per_query[r["task"]] = scores
                tasks[r["task"]] = r["task"]
        models.append({"name": cell["model"], "model": cell["model"], "per_query": per_query})
    metrics = sorted({m for model in models for task in model["per_query"].values() for m in task})
    fingerprint = cells[0]["key"].split(":", 2)[2]  # PROTOCOL:model:benchmark fingerprint
    return {"format": FORMAT, "benchmark": {"name": name, "fingerprint": fingerprint}, "metrics": metrics,
            "scenarios": tasks, "models": models}


UNSCALED = frozenset({"first_relevant_rank", "rank"})  # ranks, not ×100 scores


def pick_model(results: dict[str, Any], name: str | None, where: str) -> dict[str, Any]:
    models = results["models"]
    if name is None:
        return models[0]
    from sciembed.ioutil.portable import portable_path

    wanted = {name, portable_path(name)}  # results files store paths relative to the repository
    for m in models:
        if wanted & {m["name"], m["model"]}:
            return m
    raise BenchmarkError(f"{where}: no model {name!r}; it holds {', '.join(m['name'] for m in models)}")


@dataclass
class Comparison:
    model_a: str
    model_b: str
    test: str
    max_p: float
    rows: list[tuple[str, PairedResult]] = field(default_factory=list)  # (scenario label, result)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    unpaired: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # scenario -> (n_a, n_b, paired)


def compare_runs(run_a: Path | str, run_b: Path | str, *, model_a: str | None = None, model_b: str | None = None,
                 test: str = "student", metrics: tuple[str, ...] | None = None, max_p: float = 0.05,
                 n_permutations: int = 1000, seed: int = 42) -> Comparison:
    """B against A for every shared scenario and metric (Δ = B − A); `metrics` None: every metric both hold
    (harness order first)."""
    res_a, res_b = load_results(run_a), load_results(run_b)
    if metrics is None:
        shared = [m for m in res_a["metrics"] if m in res_b["metrics"]]  # mrr@100 and mrr are two metrics
        order = RANKING_METRICS
        metrics = tuple(sorted(shared, key=lambda m: (m not in order, order.index(m) if m in order else 0)))
    fp_a, fp_b = res_a["benchmark"]["fingerprint"], res_b["benchmark"]["fingerprint"]
    if fp_a != fp_b:
        raise BenchmarkError(f"{run_a} and {run_b} were evaluated on different benchmarks "
                             f"({res_a['benchmark']['name']} {fp_a} vs {res_b['benchmark']['name']} {fp_b}); "
                             "their per-query scores cannot be paired")
    a, b = pick_model(res_a, model_a, str(run_a)), pick_model(res_b, model_b, str(run_b))
    unknown = [m for m in metrics if m not in res_a["metrics"] or m not in res_b["metrics"]]
    if unknown:
        raise BenchmarkError(f"metrics not in both runs: {', '.join(unknown)}")
    out = Comparison(a["name"], b["name"], test, max_p)
    labels = res_a["scenarios"] | res_b["scenarios"]
    out.only_a = [labels[k] for k in a["per_query"] if k not in b["per_query"]]
    out.only_b = [labels[k] for k in b["per_query"] if k not in a["per_query"]]
    for key in (k for k in a["per_query"] if k in b["per_query"]):
        qa, qb = a["per_query"][key], b["per_query"][key]
        for metric in metrics:
            out.rows.append((labels[key], paired_test(metric, qa[metric], qb[metric], test, n_permutations, seed)))
        n_a, n_b = len(qa[metrics[0]]), len(qb[metrics[0]])
        paired = len(set(qa[metrics[0]]) & set(qb[metrics[0]]))
        if paired != n_a or paired != n_b:
            out.unpaired[labels[key]] = (n_a, n_b, paired)
    return out
