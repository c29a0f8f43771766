"""The semantic benchmark's section of the suite report: what the SemCSE paper reports.

Mean / median rank and MRR per matching task, the clustering kNN share, the overall score across this report's
models (`semantic.overall_scores_of`), §5.1's generalisation check, App. B.2's anisotropy and ``mean_rank.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.detail import Detail, done_results, fmt, table
from sciembed.evaluation.bench.runner import SuiteRun

OVERALL_NOTE = ("Ranks are 1-based positions of the correct partner in the whole pool (a tie counts half: "
                "the expected rank under a random order of equal scores), by each model's own distance. The overall "
                "score is, per task, 0.5 + 0.5·(v − median)/(best − median) over the models of this report, clipped "
                "at 0, averaged over tasks: it changes when the set of models changes.")


def semantic_detail(run: SuiteRun, bname: str, bench: Any, folder: Path) -> Detail:
    from sciembed.evaluation.plots import plot_mean_ranks
    from sciembed.evaluation.semantic import CLUSTERING, DIRECTIONS, GENERALISATION, TASKS, overall_scores_of

    by_model = {m: {r.task: r for r in results} for m, results in done_results(run, bname).items()}
    if not by_model:
        return Detail()
    metrics = {m: {t: r.metrics for t, r in tasks.items()} for m, tasks in by_model.items()}
    scores = overall_scores_of(metrics)
    tasks = [t for t in TASKS if any(t in ts for ts in by_model.values())]
    clustering = any(CLUSTERING in ts for ts in by_model.values())
    distance = {m: str(run.cells[(m, bname)].config.get("encoder_metric", "–")) for m in by_model}
    desc = bench.describe()

    def value(model: str, task: str, metric: str) -> float | None:
        result = by_model[model].get(task)
        return None if result is None else result.metrics.get(metric)

    short = ["Model", "Distance", *[f"{t} mean rank ↓" for t in tasks],
             *(["clustering kNN share ↑"] if clustering else []), "overall score ↑"]
    short_rows = [[m, distance[m], *[fmt(value(m, t, "mean_rank"), 2) for t in tasks],
                   *([fmt(value(m, CLUSTERING, "knn_same_label"), 3)] if clustering else []),
                   fmt(scores[m].get("overall"), 3)] for m in by_model]
    summary = [f"## {bname}: SemCSE's semantic benchmark", "",
               f"Queries of query2paper: **{desc.get('query_source', '–')}**. Mean rank: lower is better; the "
               "overall score is the paper's, across the models of this report (see the detail page).", "",
               *table(short, short_rows), ""]
    full = ["Model", "Distance"]
    for t in tasks:
        full += [f"{t} mean rank ↓", f"{t} median ↓", f"{t} MRR ×100 ↑"]
    full += [*(["clustering kNN share ↑"] if clustering else []), "overall score ↑"]
    rows = []
    for m in by_model:
        row = [m, distance[m]]
        for t in tasks:
            row += [fmt(value(m, t, "mean_rank"), 2), fmt(value(m, t, "median_rank"), 1), fmt(value(m, t, "mrr"), 1)]
        rows.append([*row, *([fmt(value(m, CLUSTERING, "knn_same_label"), 3)] if clustering else []),
                     fmt(scores[m].get("overall"), 3)])
    counts = desc.get("counts", {})
    lines = ["## SemCSE's table", "",
             f"{counts.get('sampled', '–')} papers sampled (seed {desc.get('config', {}).get('seed', '–')}) of "
             f"{counts.get('usable', '–')} usable; {counts.get('excluded_used_in_training', '–')} papers used in "
             f"training left out. Queries of query2paper: **{desc.get('query_source', '–')}**.", "",
             *table(full, rows), "", OVERALL_NOTE, ""]
    general = [t for t in GENERALISATION if any(t in ts for ts in by_model.values())]
    if general:
        lines += ["## Generalisation check (SemCSE §5.1; not in the overall score)", "",
                  *table(["Model", *[f"{DIRECTIONS[t]} mean rank ↓" for t in general]],
                         [[m, *[fmt(value(m, t, "mean_rank"), 2) for t in general]] for m in by_model]), ""]
    anisotropy = {m: next((r.details["anisotropy"] for r in ts.values() if "anisotropy" in r.details), None)
                  for m, ts in by_model.items()}
    if any(anisotropy.values()):
        rows = [[m, fmt((a or {}).get("top_share", {}).get("1"), 3), fmt((a or {}).get("top_share", {}).get("10"), 3),
                 fmt((a or {}).get("isotropy"), 3)] for m, a in anisotropy.items()]
        lines += ["## Anisotropy (SemCSE Appendix B.2: unnormalised, mean-centred title + abstract vectors)", "",
                  *table(["Model", "top-1 PC share", "top-10 PC share", "isotropy (effective rank / span)"], rows),
                  ""]
    lines += ["## Tasks", ""]
    for t in [*tasks, *([CLUSTERING] if clustering else [])]:
        pool = counts.get("pools", {}).get(t) if t != CLUSTERING else counts.get("clustering")
        lines.append(f"- **{t}**: {DIRECTIONS[t]} (queries: {counts.get('queries', {}).get(t, '–')}, pool: {pool})")
    lines.append("")
    figures = []
    if tasks:
        folder.mkdir(parents=True, exist_ok=True)
        series = {m: [value(m, t, "mean_rank") or 0.0 for t in tasks] for m in by_model}
        figures.append(plot_mean_ranks(tasks, series, bname, folder / "mean_rank.png"))
    data = {"overall_score": scores,
            "mean_rank": {m: {t: value(m, t, "mean_rank") for t in (*tasks, *general)} for m in by_model},
            "query_source": desc.get("query_source")}
    return Detail(summary, lines, data, figures)
