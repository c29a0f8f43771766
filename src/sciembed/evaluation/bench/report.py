"""The suite report: one models × benchmarks table, type averages, significance, detail pages, a heat map.

Writes ``report.md``, ``results.json`` (every cell), ``benchmarks/<name>.md`` detail pages (with a kind's
figures under ``benchmarks/<name>/``) and ``heatmap.png`` under the suite's ``out`` (see docs/evaluation.md).
A kind whose paper reports more than per-task metrics has a hook in `DETAILS`: its summary goes in report.md,
its tables in the detail page, its numbers in results.json under ``details``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.citation_detail import citation_detail
from sciembed.evaluation.bench.detail import Detail, fmt, table
from sciembed.evaluation.bench.p2p_detail import p2p_detail
from sciembed.evaluation.bench.runner import SuiteRun, slug
from sciembed.evaluation.bench.semantic_detail import semantic_detail
from sciembed.evaluation.mteb_results import write_mteb_results
from sciembed.ioutil.figures import pyplot, save_figure
from sciembed.ioutil.portable import portable

HEADLINES = {  # which summary keys make a benchmark's columns; None = all of them
    "csfcube": ("all/ndcg%20", "background/ndcg%20", "method/ndcg%20", "result/ndcg%20"),
    "scirepeval": ("classification", "regression", "proximity", "search", "overall"),
}
# a kind's own section (what its paper reports beyond per-task metrics): (run, benchmark name, benchmark,
# folder for its figures) -> Detail
DETAILS: dict[str, Callable[[SuiteRun, str, Any, Path], Detail]] = {
    "citation": citation_detail, "semantic": semantic_detail, "paper_to_paper": p2p_detail, "scifullbench": p2p_detail}


def columns(run: SuiteRun) -> list[tuple[str, str]]:
    """(benchmark, summary key) in suite order."""
    cols: list[tuple[str, str]] = []
    for bname, bench in run.benchmarks.items():
        keys: list[str] = []
        for m in run.suite.models:
            cell = run.cells.get((m.name, bname))
            if cell and cell.summary:
                keys += [k for k in cell.summary if k not in keys]
        wanted = HEADLINES.get(bench.kind)
        if wanted:
            keys = [k for k in wanted if k in keys]
        cols += [(bname, k) for k in keys]
    return cols


def value(run: SuiteRun, model: str, col: tuple[str, str]) -> float | None:
    cell = run.cells.get((model, col[0]))
    if cell is None or cell.status != "done":
        return None
    v = cell.summary.get(col[1])
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def significance(run: SuiteRun) -> list[dict[str, Any]]:
    """Each model against the baseline, and against its `reference` if it names one, on every task with
    per-query scores of the tested metric (`significance_metric`, else the task's primary)."""
    from sciembed.evaluation.significance import paired_test

    base = run.suite.baseline_name()
    pairs = [(m.name, base) for m in run.suite.models if m.name != base]
    pairs += [(m.name, m.reference) for m in run.suite.models if m.reference not in (None, base, m.name)]
    out = []
    for bname in run.benchmarks:
        for name, against in pairs:
            ref, cell = run.cells.get((against, bname)), run.cells.get((name, bname))
            if ref is None or cell is None or "error" in (ref.status, cell.status):
                continue
            ref_tasks = {r.task: r for r in ref.results}
            for r in cell.results:
                b, metric = ref_tasks.get(r.task), run.suite.significance_metric or r.primary
                if b is None or metric not in r.per_query or metric not in b.per_query:
                    continue
                res = paired_test(metric, b.per_query[metric], r.per_query[metric], test=run.suite.significance_test)
                out.append({"benchmark": bname, "task": r.task, "metric": metric, "model": name,
                            "baseline": against, "delta": res.delta, "p_value": res.p_value, "n": res.n,
                            "significant": bool(res.p_value <= run.suite.max_p)})
    return out


def heatmap(run: SuiteRun, cols: list[tuple[str, str]], path: Path) -> Path | None:
    import numpy as np

    plt = pyplot()
    models = [m.name for m in run.suite.models]
    if not cols or not models:
        return None
    grid = np.array([[value(run, m, c) if value(run, m, c) is not None else np.nan for c in cols] for m in models])
    shade = np.full_like(grid, np.nan)
    for j in range(grid.shape[1]):  # colour by position within the column: metrics have different scales
        col = grid[:, j]
        ok = ~np.isnan(col)
        if ok.sum() > 1 and np.nanmax(col) > np.nanmin(col):
            shade[ok, j] = (col[ok] - np.nanmin(col)) / (np.nanmax(col) - np.nanmin(col))
        elif ok.any():
            shade[ok, j] = 0.5
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(cols) + 2), 0.6 * len(models) + 2.2))
    ax.imshow(np.ma.masked_invalid(shade), cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    for i in range(len(models)):
        for j in range(len(cols)):
            ax.text(j, i, "–" if np.isnan(grid[i, j]) else f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(cols)), [f"{b}\n{k}" for b, k in cols], rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(len(models)), models, fontsize=8)
    ax.set_title("sciembed eval suite: headline scores ×100 (colour: best to worst within each column)", fontsize=9)
    return save_figure(fig, path)


def _how_scored(run: SuiteRun) -> list[list[str]]:
    rows = []
    for m in run.suite.models:
        cfg = next((c.config for (mn, _), c in run.cells.items() if mn == m.name and c.config), {})
        style = next((c.config.get("text_style") for (mn, _), c in run.cells.items()
                      if mn == m.name and c.config.get("text_style")), {}) or {}
        rows.append([m.name, f"`{m.model}`", str(cfg.get("kind", "–")), str(cfg.get("distance", "–")),
                     str(cfg.get("max_seq_length", "–")), f"`{style.get('sep', '–')}`",
                     str(style.get("input_format", "–"))])
    return rows


def write_suite_report(run: SuiteRun) -> Path:
    out = run.out
    cols = columns(run)
    sig = significance(run)
    details = {bname: DETAILS[bench.kind](run, bname, bench, out / "benchmarks" / slug(bname))
               for bname, bench in run.benchmarks.items() if bench.kind in DETAILS}
    results = {
        "suite": run.suite.model_dump(), "seconds": run.seconds, "computed_cells": run.computed,
        "reused_cells": len(run.cells) - run.computed, "missing_benchmarks": run.missing,
        "benchmarks": {n: b.describe() for n, b in run.benchmarks.items()},
        "cells": [c.to_dict() | {"reused": c.reused} for c in run.cells.values()], "significance": sig,
        "table": {"columns": [f"{b}:{k}" for b, k in cols],
                  "rows": {m.name: [value(run, m.name, c) for c in cols] for m in run.suite.models}},
        "details": {bname: d.data for bname, d in details.items()},
    }
    results = portable(json.loads(json.dumps(results, default=str)))  # paths relative to the repository
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    mteb_files = write_mteb_results(run)  # the same scores in MTEB's result format, for MTEB's tools
    figure = heatmap(run, cols, out / "heatmap.png")
    lines = [f"# sciembed eval suite: {len(run.suite.models)} models × {len(run.benchmarks)} benchmarks", "",
             f"- wall time {run.seconds:.1f} s; cells computed {run.computed}, reused {len(run.cells) - run.computed}",
             f"- baseline for significance: {run.suite.baseline_name()} ({run.suite.significance_test} paired test, "
             f"p ≤ {run.suite.max_p})",
             *([f"- ranking scores in MTEB's result format: {len(mteb_files)} files under mteb/results/"]
               if mteb_files else []), ""]
    header = ["Model", *[f"{b}: {k}" for b, k in cols]]
    rows = [[m.name, *[fmt(value(run, m.name, c)) for c in cols]] for m in run.suite.models]
    lines += ["## Headline scores ×100", "",
              "Each benchmark's primary metric per task (NDCG@10 for retrieval and paper-to-paper, NDCG%20 for "
              "CSFCube, S@1 for section retrieval, MRR for SciTLDR, mean rank for the semantic benchmark, accuracy for "
              "triplets, the probe score for SciRepEval's classification/regression) and the averages the "
              "benchmark defines (SciRepEval: type averages and the overall mean over tasks).", "",
              *table(header, rows), ""]
    for d in details.values():
        if d.summary:
            lines += [*d.summary, *_figure_links(d, out), ""]
    lines += ["## How each model was scored", "",
              *table(["Model", "Spec", "Kind", "Distance", "Max tokens", "Title/abstract join", "Input format"],
                      _how_scored(run)), ""]
    if sig:
        sig_rows = [[s["model"], s["baseline"], s["benchmark"], s["task"], s["metric"], f"{s['delta']:+.2f}",
                     f"{s['p_value']:.3g}", str(s["n"]), "yes" if s["significant"] else "no"] for s in sig]
        lines += [f"## Paired significance against {run.suite.baseline_name()} (and each model's reference)", "",
                  *table(["Model", "Against", "Benchmark", "Task", "Metric", "Δ ×100", "p", "Queries",
                          "Significant"], sig_rows), ""]
    problems = [f"- benchmark {n} not run: {why}" for n, why in run.missing.items()]
    for (mname, bname), c in run.cells.items():
        if c.status != "done":
            problems.append(f"- {mname} × {bname}: ERROR {c.error.splitlines()[0] if c.error else ''}")
        for task, why in c.skipped_tasks.items():
            problems.append(f"- {mname} × {bname}: task {task} skipped ({why})")
    lines += ["## Missing, skipped and failed", "", *(problems or ["- none"]), ""]
    lines += ["## Detail pages", "", *[f"- [{n}](benchmarks/{slug(n)}.md)" for n in run.benchmarks], ""]
    if figure:
        lines += ["## Heat map", "", f"![heat map]({figure.name})", ""]
    (out / "benchmarks").mkdir(exist_ok=True)
    for bname, bench in run.benchmarks.items():
        (out / "benchmarks" / f"{slug(bname)}.md").write_text(_detail(run, bname, bench, details.get(bname)),
                                                              encoding="utf-8")
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def input_issues(description: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``issues`` list in a benchmark's description (BEIR-like benchmarks keep one per task folder)."""
    found = list(description.get("issues") or [])
    for value in description.values():
        if isinstance(value, dict):
            for sub in value.values():
                if isinstance(sub, dict):
                    found += input_issues(sub)
    return found


def _figure_links(detail: Detail, folder: Path) -> list[str]:
    """Markdown image links to the detail's figures, relative to the page in `folder`."""
    return [f"![{f.stem}]({f.relative_to(folder).as_posix()})" for f in detail.figures]


def _detail(run: SuiteRun, bname: str, bench: Any, detail: Detail | None = None) -> str:
    desc = bench.describe()
    lines = [f"# {bname} ({bench.kind})", ""]
    lines += [f"- {k}: {v}" for k, v in desc.items() if k != "issues" and not isinstance(v, dict | list)]
    lines.append("")
    if detail is not None:
        lines += [*detail.lines, *_figure_links(detail, run.out / "benchmarks"), ""]
    tasks: dict[str, list[tuple[str, Any]]] = {}
    for m in run.suite.models:
        cell = run.cells.get((m.name, bname))
        for r in (cell.results if cell and cell.status == "done" else []):
            tasks.setdefault(r.task, []).append((m.name, r))
    for task, entries in tasks.items():
        metrics = list(dict.fromkeys(k for _, r in entries for k in r.metrics))
        rows = [[name, *[fmt(r.metrics.get(k), 2) for k in metrics]] for name, r in entries]
        first = entries[0][1]
        lines += [f"## {task} ({first.kind}, primary {first.primary})", "",
                  "counts: " + ", ".join(f"{k} {v}" for k, v in first.counts.items()), "",
                  *table(["Model", *metrics], rows), ""]
        notes = sorted({n for _, r in entries for n in r.notes})
        lines += [f"- note: {n}" for n in notes] + ([""] if notes else [])
    summary_keys = list(dict.fromkeys(k for m in run.suite.models
                                      for k in (run.cells.get((m.name, bname)).summary
                                                if run.cells.get((m.name, bname)) else {})))
    if summary_keys:
        rows = [[m.name, *[fmt(value(run, m.name, (bname, k)), 2) for k in summary_keys]] for m in run.suite.models]
        lines += ["## Summary", "", *table(["Model", *summary_keys], rows), ""]
    issues = input_issues(desc)
    lines += ["## Input problems", "", *([f"- {i['message']}" for i in issues] or ["- none"]), ""]
    return "\n".join(lines) + "\n"
