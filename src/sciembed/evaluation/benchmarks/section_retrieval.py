"""kind ``section_retrieval``: same-paper section retrieval, one ranking task over every section text."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.scenarios import ScenarioBenchmark


def load(entry: Any, context: Any) -> ScenarioBenchmark:
    from sciembed.evaluation.section_retrieval import build_section_benchmark

    bench = build_section_benchmark(entry.resolved_path(), split=entry.split, sample=entry.sample, seed=entry.seed,
                                    title=entry.section_title)
    return ScenarioBenchmark(bench, entry.name, "section_retrieval", primary="hit_rate@1",
                             window_tokens=entry.window_tokens)
