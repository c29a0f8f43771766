"""kind ``citation``: a built corpus, each scenario (TA→TA, Body→TA, Body→Body) a ranking task."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.scenarios import ScenarioBenchmark


def load(entry: Any, context: Any) -> ScenarioBenchmark:
    from sciembed.evaluation.citation import QUERY_MODES, build_citation_benchmark
    from sciembed.evaluation.issues import BenchmarkError

    mode = entry.query_mode or "anchors"
    if mode not in QUERY_MODES:
        raise BenchmarkError(f"benchmark {entry.name}: query_mode {mode!r}; citation takes {', '.join(QUERY_MODES)}")
    bench = build_citation_benchmark(entry.resolved_path(), split=entry.split, paper_log_seed=entry.seed,
                                     queries=mode)
    return ScenarioBenchmark(bench, entry.name, "citation", tuple(entry.scenarios), tuple(entry.body_modes),
                             geometry=entry.geometry, window_tokens=entry.window_tokens)
