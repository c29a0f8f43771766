"""kind ``semantic``: SemCSE's benchmark from a corpus of titles + abstracts (any corpus, a random sample) or,
with ``datasets``, the paper's construction from a SciRepEval release root; the models' training papers
are left out, ``summaries_file`` adds the paper's generalisation check."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import SemanticAdapter

DEFAULT_PAPERS = 6000  # any-corpus mode: papers sampled
DEFAULT_PER_DATASET = 500  # the paper's construction: train papers per SciRepEval dataset


def load(entry: Any, context: Any) -> SemanticAdapter:
    from sciembed.evaluation.semantic import (
        build_scirepeval_semantic_benchmark,
        build_semantic_benchmark,
        read_exclusions,
        training_papers,
    )

    excluded = training_papers(list(context.models)) | (read_exclusions(entry.exclude) if entry.exclude else set())
    if entry.datasets:
        bench = build_scirepeval_semantic_benchmark(
            entry.resolved_path(), list(entry.datasets), per_dataset=entry.sample or DEFAULT_PER_DATASET,
            seed=entry.seed, exclude=excluded, queries_file=entry.queries_file, summaries_file=entry.summaries_file)
    else:
        bench = build_semantic_benchmark(entry.resolved_path(), n_papers=entry.sample or DEFAULT_PAPERS,
                                         seed=entry.seed, exclude=excluded, queries_file=entry.queries_file,
                                         summaries_file=entry.summaries_file)
    return SemanticAdapter(bench, entry.name)
