"""The strategy study's report (`study.md`): the S2Full paper's Tables 4–6 shape from the evaluated runs.

Models × scenarios (NDCG@10, full-list MRR) for windowed and full-section bodies, paired significance against
ta_ta, the batch composition of each strategy, and the paper's verdict (do body-aware strategies beat ta_ta on
Body→TA and Body→Body without losing on TA→TA?) answered from the measured numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sciembed.evaluation.bench.detail import fmt, table

SCENARIO_ORDER = ("ta_ta", "body_ta", "body_body")
LABELS = {"ta_ta": "TA→TA", "body_ta": "Body→TA", "body_body": "Body→Body"}
MAX_P = 0.05


def _key(scenario: str, mode: str) -> str:
    return scenario if scenario == "ta_ta" else f"{scenario}/{mode}"


def _value(cell: Any, key: str, metric: str) -> float | None:
    """A mean over queries (×100); None where the scenario or metric is missing or the mean is undefined."""
    result = next((r for r in cell.results if r.task == key), None)
    value = None if result is None else result.metrics.get(metric)
    return None if value is None or math.isnan(value) else float(value)


Tests = dict[tuple[str, str], tuple[float, float, int]]  # (model, task) -> the suite's (delta, p, n) against ta_ta


def render_study(cells: Sequence[Any], bench: dict[str, Any], compositions: dict[str, dict], arms: list[str],
                 reference: str, tests: Tests, skipped: dict[str, str], report_path: Path, detail: Path,
                 synthetic: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """Markdown and the table rows (model, kind, per scenario/mode: ndcg@10, full-list mrr, ×100) from the suite's
    cells, the benchmark's description and the suite's paired tests against `reference` on NDCG@10; `report_path`:
    the evaluation's report.md, `detail`: its citation detail page (figures in the folder of that name)."""
    models = {cell.model: cell for cell in cells}
    lines = ["# S2Full strategy study", "",
             f"Benchmark {bench['name']}: {bench['queries']} queries ({bench.get('query_mode', 'linked')}), "
             f"{bench['papers']} candidates, {bench.get('mean_relevant_per_query', 0):.2f} relevant per query.", ""]
    if synthetic:
        lines += ["The corpus is SYNTHETIC (`sciembed synth`): the numbers show the study runs, not how the "
                  "strategies do on real papers.", ""]
    rows_out: list[dict[str, Any]] = []
    for mode in ("windowed", "full"):
        header = ["Model", *(f"{LABELS[s]} {metric}" for metric in ("NDCG@10", "MRR") for s in SCENARIO_ORDER)]
        rows = []
        for name, m in models.items():
            ndcg = [_value(m, _key(s, mode), "ndcg@10") for s in SCENARIO_ORDER]
            mrr = [_value(m, _key(s, mode), "mrr") for s in SCENARIO_ORDER]
            rows.append([name + (" (strategy)" if name in arms else ""), *map(fmt, ndcg), *map(fmt, mrr)])
            rows_out.append({"model": name, "strategy": name in arms, "body_mode": mode,
                             **{f"{s}_ndcg@10": v for s, v in zip(SCENARIO_ORDER, ndcg, strict=True)},
                             **{f"{s}_mrr": v for s, v in zip(SCENARIO_ORDER, mrr, strict=True)}})
        lines += [f"## {'Windowed' if mode == 'windowed' else 'Full-section'} body text (×100; MRR over the full "
                  "candidate list)", "", *table(header, rows), ""]
    if reference in models:
        sig_rows = []
        for name in arms:
            if name == reference or name not in models:
                continue
            for s in SCENARIO_ORDER:
                for mode in (("windowed",) if s == "ta_ta" else ("windowed", "full")):
                    delta, p, n = tests.get((name, _key(s, mode)), (math.nan, None, 0))
                    star = "yes" if p is not None and p <= MAX_P else "no"
                    label = LABELS[s] + ("" if s == "ta_ta" else f" ({mode})")
                    sig_rows.append([name, label, f"{delta:+.1f}", "–" if p is None else f"{p:.3g}", str(n), star])
        lines += [f"## Against {reference} (NDCG@10, paired t-test, p ≤ {MAX_P})", "",
                  *table(["Strategy", "Scenario", "Δ ×100", "p", "Queries", "Significant"], sig_rows), ""]
        lines += _verdict(models, arms, reference, tests)
    if compositions:
        comp_rows = []
        for name in arms:
            c = compositions.get(name)
            if not c:
                continue
            cite = c["citation"]["shares"]
            comp_rows.append([name, str(c["batches"]), str(c["batch_size"]),
                              *[f"{100 * cite[t]:.1f}%" for t in ("ta-ta", "ta-body", "body-ta", "body-body")],
                              f"{100 * c['self_share_min']:.1f}%"])
        lines += ["## Batch composition (citation pairs by view type, anchor first; self-alignment share)", "",
                  *table(["Strategy", "Batches", "Batch size", "ta-ta", "ta-body", "body-ta", "body-body",
                           "self-alignment"], comp_rows), ""]
    if skipped:
        lines += ["## Models not evaluated", "", *(f"- {n}: {' '.join(r.split())}" for n, r in skipped.items()), ""]
    lines += ["## Files", "",
              f"- evaluation report (headline table, paired significance against {reference}): {report_path}",
              f"- every metric, per-domain tables and geometry: {detail}",
              f"- per-domain figure (sorted by {reference}, differences against it): "
              f"{detail.with_suffix('') / 'ndcg_by_domain.png'}", ""]
    return "\n".join(lines) + "\n", rows_out


def _verdict(models: dict[str, Any], arms: list[str], reference: str, tests: Tests) -> list[str]:
    """Does each body-aware strategy beat ta_ta on the body scenarios and hold TA→TA? (windowed bodies)"""
    lines = [f"## Verdict (windowed bodies, NDCG@10 against {reference}; significant at p ≤ {MAX_P})", ""]
    for name in arms:
        if name == reference or name not in models:
            continue
        parts = []
        for s in ("body_ta", "body_body"):
            delta, p, _ = tests.get((name, _key(s, "windowed")), (math.nan, None, 0))
            sig = p is not None and p <= MAX_P
            if delta > 0:
                word = "beats it" if sig else "higher, not significant"
            else:
                word = "lower, significant" if sig else "not higher"
            parts.append(f"{LABELS[s]} {delta:+.1f} ({word})")
        delta, p, _ = tests.get((name, "ta_ta"), (math.nan, None, 0))
        sig = p is not None and p <= MAX_P
        loss = "a significant TA→TA loss" if delta < 0 and sig else "no significant TA→TA loss"
        parts.append(f"TA→TA {delta:+.1f} ({loss})")
        lines.append(f"- {name}: " + "; ".join(parts))
    return [*lines, ""]
