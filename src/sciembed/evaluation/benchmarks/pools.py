"""kind ``pools``: a re-ranking pools file as one rerank task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sciembed.evaluation.contract import RankingTask, TaskResult, TextStyle, primary_summary


@dataclass
class PoolsAdapter:
    """A pools file: each query ranks its own candidates, whole (no cut)."""

    pools: Any  # PoolBenchmark
    name: str
    relevant_min: int = 1
    kind: str = "pools"

    def fingerprint(self) -> str:
        return f"{self.pools.fingerprint()}-l{self.relevant_min}"

    def describe(self) -> dict[str, Any]:
        return {**self.pools.describe(), "name": self.name, "relevant_min": self.relevant_min}

    def tasks(self, style: TextStyle) -> list[RankingTask]:
        p = self.pools
        return [RankingTask(name="pools", queries=dict(p.queries), docs=dict(p.docs), qrels=p.qrels,
                            pools={q: list(c) for q, c in p.pools.items()}, relevant_min=self.relevant_min,
                            primary="ndcg@10", group="pools")]

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)


def load(entry: Any, context: Any) -> PoolsAdapter:
    from sciembed.evaluation.pools import load_pools

    return PoolsAdapter(load_pools(entry.resolved_path()), entry.name, entry.relevant_min)
