"""PNG figures of the funnel: the degree distribution and the per-domain pairs around the cap."""

from __future__ import annotations

from pathlib import Path

from sciembed.ioutil.figures import pyplot, save_figure


def degree_plot(histogram: list[tuple[int, int]], max_degree: int, path: Path, enabled: bool = True) -> Path:
    """Papers per degree (pairs per paper after dedup) on log-log axes, with the high-degree threshold."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    if histogram:
        degrees, papers = zip(*histogram, strict=True)
        ax.scatter(degrees, papers, s=8, color="tab:blue", label="papers")
        ax.set_xscale("log")
        ax.set_yscale("log")
    style = "-" if enabled else ":"
    ax.axvline(max_degree + 0.5, color="tab:red", linestyle=style,
               label=f"threshold: > {max_degree} pairs removed" + ("" if enabled else " (off)"))
    ax.set_xlabel("deduplicated citation pairs per paper (degree)")
    ax.set_ylabel("papers")
    ax.set_title("Degree distribution")
    ax.legend(loc="upper right", fontsize=8)
    return save_figure(fig, path)


def domain_plot(before: dict[str, int], after: dict[str, int], cap: int, path: Path, enabled: bool = True) -> Path:
    """Pairs per domain (anchor's domain) before and after the domain cap."""
    plt = pyplot()
    domains = sorted(before, key=lambda d: (-before[d], d))
    fig, ax = plt.subplots(figsize=(max(6.4, 0.5 * len(domains) + 2), 4.2))
    xs = range(len(domains))
    width = 0.4
    ax.bar([x - width / 2 for x in xs], [before[d] for d in domains], width, label="before cap", color="tab:gray")
    ax.bar([x + width / 2 for x in xs], [after.get(d, 0) for d in domains], width, label="after cap",
           color="tab:blue")
    if enabled:
        ax.axhline(cap, color="tab:red", linestyle="--", label=f"cap: {cap:,} pairs")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(domains, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("pairs")
    ax.set_title("Pairs per domain around the domain cap")
    ax.legend(fontsize=8)
    return save_figure(fig, path)
