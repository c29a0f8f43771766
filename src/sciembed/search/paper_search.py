"""`PaperSearch`: query papers ranked by one run, or by several fused — the one search behind the CLI, the
service's fused similar papers and paper-to-paper evaluation. Several runs are each searched `FUSION_DEPTH`
deep and fused by a `FusionSpec` (its runs among them, tuned on the same encoder) or RRF, then cut to k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sciembed.search.fusion import RRF_K, rrf_scores
from sciembed.search.learned_fusion import FusionError, FusionSpec, fuse_one
from sciembed.search.runs import Query, Ranking, Run

FUSION_DEPTH = 100  # each run's list depth when several are fused (then cut to k)


class PaperSearch:
    """Rank queries by `runs`: one run's list, or the fusion of all of them (see the module docstring)."""

    def __init__(self, runs: Sequence[Run], fusion: FusionSpec | None = None, rrf_k: int = RRF_K) -> None:
        if not runs:
            raise ValueError("a paper search needs at least one run")
        self.runs, self.fusion, self.rrf_k = list(runs), fusion, rrf_k
        names = [run.name for run in self.runs]
        if len(set(names)) != len(names) or (fusion is not None and any(r not in names for r in fusion.runs)):
            answered = ", ".join(f"{run.path} ({run.name})" if run.path else run.name for run in self.runs)
            wanted = f"the fusion {fusion.label} fuses runs {fusion.runs}" if fusion else "each run needs its own name"
            raise FusionError(f"{wanted}; the indexes given are {answered}")
        if fusion is not None:
            fusion.check_model([run.fingerprint for run in self.runs if run.kind != "bm25"])

    def rank(self, queries: list[Query], k: int) -> list[Ranking]:
        """Each query's top `k` papers: the one run's, or the fusion of every run's `FUSION_DEPTH` best."""
        if len(self.runs) == 1:
            return self.runs[0].rank(queries, k)
        used = [run for run in self.runs if self.fusion is None or run.name in self.fusion.runs]
        per_run = {run.name: run.rank(queries, max(k, FUSION_DEPTH)) for run in used}
        return [fuse({name: lists[i] for name, lists in per_run.items()}, k, self.fusion, self.rrf_k)
                for i in range(len(queries))]


def fuse(rankings: Mapping[str, Ranking], k: int | None, fusion: FusionSpec | None = None,
         rrf_k: int = RRF_K) -> Ranking:
    """One query's fused top `k` (None: all) from its rankings by run name: by `fusion`, or by RRF (a paper once
    per list)."""
    if fusion is not None:
        return fuse_one(fusion, rankings, depth=k)
    return rrf_scores({name: [pid for pid, _ in r] for name, r in rankings.items()}, rrf_k, dedupe=True, depth=k)
