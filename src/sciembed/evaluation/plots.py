"""PNG figures next to results.json: NDCG@10 per scenario, per domain, the spectrum, semantic mean ranks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.metrics import METRIC_LABELS, PRIMARY
from sciembed.ioutil.figures import pyplot, save_figure


def _number(value: Any) -> float:
    """A metric as a float; a scenario without evaluable queries stores null, plotted as a gap (NaN)."""
    return float(value) if isinstance(value, int | float) else np.nan


def _grouped_bars(ax: Any, groups: list[str], series: dict[str, list[float]],
                  colors: dict[str, str] | None = None) -> None:
    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (name, values) in enumerate(series.items()):
        ax.bar(x + (i - (len(series) - 1) / 2) * width, values, width, label=name, color=(colors or {}).get(name))
    ax.set_xticks(x, groups, rotation=20, ha="right")


def plot_scenarios(models: list[dict[str, Any]], labels: dict[str, str], path: Path) -> Path:
    """Grouped bars: one group per scenario, one bar per model (metric ×100)."""
    plt = pyplot()
    keys = list(labels)
    series = {m["name"]: [100 * _number(m["aggregates"].get(k, {}).get(PRIMARY)) for k in keys] for m in models}
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(keys) + 2), 4))
    _grouped_bars(ax, [labels[k] for k in keys], series)
    ax.set(ylabel=f"{METRIC_LABELS[PRIMARY]} ×100", title=f"{METRIC_LABELS[PRIMARY]} per scenario")
    ax.legend(fontsize="small")
    return save_figure(fig, path)


def plot_domains(models: list[dict[str, Any]], labels: dict[str, str], path: Path, baseline: str | None = None) -> Path:
    """The S2Full paper's Figure 6, one row per scenario: each model's score per domain, domains sorted by the
    baseline's (default: the first model), and every other model's per-domain difference to it."""
    plt = pyplot()
    keys = list(labels)
    base = next((m for m in models if m["name"] == baseline), models[0])
    others = [m for m in models if m is not base]
    fig, axes = plt.subplots(len(keys), 2, figsize=(13, 3.4 * len(keys)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    for (ax, delta_ax), key in zip(axes, keys, strict=True):
        domains = sorted({d for m in models for d in m["per_domain"].get(key, {})})
        score = {d: base["per_domain"].get(key, {}).get(d, {}).get(PRIMARY, np.nan) for d in domains}
        domains.sort(key=lambda d: (-np.nan_to_num(score[d], nan=-1.0), d))
        counts = {d: max(int(m["per_domain"].get(key, {}).get(d, {}).get("queries", 0)) for m in models)
                  for d in domains}
        ticks = [f"{d} (n={counts[d]})" for d in domains]
        series = {m["name"]: [100 * _number(m["per_domain"].get(key, {}).get(d, {}).get(PRIMARY)) for d in domains]
                  for m in models}
        cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        colors = {name: cycle[i % len(cycle)] for i, name in enumerate(series)}  # one colour per model, both panels
        _grouped_bars(ax, ticks, series, colors)
        ax.set_title(f"{labels[key]}: {METRIC_LABELS[PRIMARY]} ×100 per domain (sorted by {base['name']})")
        ax.legend(fontsize="x-small")
        deltas = {name: [v - b for v, b in zip(values, series[base["name"]], strict=True)]
                  for name, values in series.items() if name != base["name"]}
        if deltas:
            _grouped_bars(delta_ax, ticks, deltas, colors)
            delta_ax.legend(fontsize="x-small")
        delta_ax.axhline(0, color="black", linewidth=0.8)
        delta_ax.set_title(f"Δ vs {base['name']} (×100)" if others else "no other model")
    return save_figure(fig, path)


def plot_spectrum(models: list[dict[str, Any]], path: Path) -> Path | None:
    """Singular values of the centred TA matrix, each model's divided by its largest (log scale)."""
    with_geometry = [m for m in models if m.get("geometry") and m["geometry"]["spectrum"]["singular_values"]]
    if not with_geometry:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for m in with_geometry:
        s = np.asarray(m["geometry"]["spectrum"]["singular_values"])
        iso = m["geometry"]["spectrum"]["isotropy"]
        ax.plot(np.arange(1, len(s) + 1), s / s[0], label=f"{m['name']} (isotropy {iso:.2f})")
    ax.set(yscale="log", xlabel="component", ylabel="singular value / largest", title="Spectrum of TA embeddings")
    ax.legend(fontsize="small")
    return save_figure(fig, path)


def plot_mean_ranks(tasks: list[str], series: dict[str, list[float]], title: str, path: Path) -> Path:
    """SemCSE's figure: grouped bars of each model's mean rank per matching task (lower is better)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(5, 2 + 1.6 * len(tasks)), 3.6))
    _grouped_bars(ax, tasks, series)
    ax.set(ylabel="mean rank (lower is better)", title=title)
    ax.legend(fontsize="small")
    return save_figure(fig, path)
