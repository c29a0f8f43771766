"""kind ``section_retrieval``: same-paper section retrieval through the citation harness."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import HarnessAdapter


def load(entry: Any, context: Any) -> HarnessAdapter:
    from sciembed.evaluation.section_retrieval import build_section_benchmark

    bench = build_section_benchmark(entry.resolved_path(), split=entry.split, sample=entry.sample, seed=entry.seed,
                                    title=entry.section_title)
    return HarnessAdapter(bench, entry.name, "section_retrieval", primary="hit_rate@1",
                          window_tokens=entry.window_tokens)
