"""kind ``pools``: a re-ranking pools file as one rerank task."""

from __future__ import annotations

from typing import Any

from sciembed.evaluation.benchmarks.adapters import PoolsAdapter


def load(entry: Any, context: Any) -> PoolsAdapter:
    from sciembed.evaluation.pools import load_pools

    return PoolsAdapter(load_pools(entry.resolved_path()), entry.name, entry.relevant_min)
