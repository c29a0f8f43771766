"""Length statistics of a corpus: the S2Full length table and its histogram.

Streams papers once and keeps only integer arrays, so memory grows with the
number of sections, not with text size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sciembed.ioutil.figures import pyplot, save_figure
from sciembed.papers.model import Paper
from sciembed.views.body import body_words


@dataclass(frozen=True)
class LengthStats:
    papers: int
    papers_with_body: int
    target_words: int
    sections_per_paper: np.ndarray
    words_per_section: np.ndarray
    words_per_window: np.ndarray  # one window per section header, as training draws them

    @property
    def window_full_share(self) -> float:
        """Share of windows that reach their target (shorter only where the body ends)."""
        if not len(self.words_per_window):
            return 0.0
        return float(np.mean(self.words_per_window >= self.target_words))

    def table(self) -> list[dict[str, float | str]]:
        rows = []
        for name, values in (("sections per paper", self.sections_per_paper),
                             ("words per section", self.words_per_section),
                             ("words per window", self.words_per_window)):
            rows.append({"quantity": name, **summarize(values)})
        return rows

    def to_dict(self) -> dict:
        return {"papers": self.papers, "papers_with_body": self.papers_with_body,
                "window_target_words": self.target_words, "windows_reaching_target": self.window_full_share,
                "table": self.table()}


def summarize(values: np.ndarray) -> dict[str, float]:
    if not len(values):
        return {k: 0.0 for k in ("n", "mean", "median", "q25", "q75", "max")}
    q25, median, q75 = np.percentile(values, [25, 50, 75])
    return {"n": float(len(values)), "mean": float(np.mean(values)), "median": float(median), "q25": float(q25),
            "q75": float(q75), "max": float(np.max(values))}


def length_stats(papers: Iterable[Paper], target_words: int) -> LengthStats:
    n_papers = with_body = 0
    per_paper: list[int] = []
    per_section: list[int] = []
    per_window: list[int] = []
    for paper in papers:
        n_papers += 1
        if not paper.has_body:
            continue
        with_body += 1
        body = body_words(paper)
        total = len(body.words)
        per_paper.append(len(paper.sections))
        for i, section in enumerate(paper.sections):
            per_section.append(len(section.text.split()))
            start = body.section_starts[i]
            if start < total:
                per_window.append(min(target_words, total - start))
    return LengthStats(n_papers, with_body, target_words, np.asarray(per_paper, dtype=np.int64),
                       np.asarray(per_section, dtype=np.int64), np.asarray(per_window, dtype=np.int64))


def plot_lengths(stats: LengthStats, path: Path, title: str = "") -> Path:
    """Histograms of words per section and per window, with the window target marked."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    data = (("sections per paper", stats.sections_per_paper), ("words per section", stats.words_per_section),
            ("words per window", stats.words_per_window))
    for ax, (name, values) in zip(axes, data, strict=True):
        if len(values):
            ax.hist(values, bins=40, color="#4472c4")
        ax.set_title(name)
        ax.set_ylabel("count")
    axes[2].axvline(stats.target_words, color="#c00000", linestyle="--", label=f"target {stats.target_words}")
    axes[2].legend()
    if title:
        fig.suptitle(title)
    return save_figure(fig, path, dpi=110)
