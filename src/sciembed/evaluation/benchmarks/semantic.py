"""kind ``semantic``: SemCSE's benchmark from a corpus of titles + abstracts, excluding the models' training papers."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import SemanticAdapter

DEFAULT_PAPERS = 6000


def load(entry: Any, context: Any) -> SemanticAdapter:
    from sciembed.evaluation.semantic import build_semantic_benchmark, read_exclusions, training_papers

    excluded = training_papers(list(context.models)) | (read_exclusions(entry.exclude) if entry.exclude else set())
    bench = build_semantic_benchmark(entry.resolved_path(), n_papers=entry.sample or DEFAULT_PAPERS, seed=entry.seed,
                                     exclude=excluded, queries_file=entry.queries_file)
    return SemanticAdapter(bench, entry.name)
