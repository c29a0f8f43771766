"""kind ``semantic``: SemCSE's benchmark from a corpus of titles + abstracts or, with ``datasets``, the paper's
construction from a SciRepEval release root (`semantic`). Matching tasks are `GoldRankTask`s (the gold's expected
rank by the model's own distance); the clustering kNN share and App. B.2's anisotropy are `VectorTask`s.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sciembed.evaluation.contract import GoldRankTask, TaskResult, TextStyle, VectorTask

DEFAULT_PAPERS = 6000  # any-corpus mode: papers sampled
DEFAULT_PER_DATASET = 500  # the paper's construction: train papers per SciRepEval dataset
ANISOTROPY = "anisotropy"


@dataclass
class SemanticTasks:
    """SemCSE's semantic benchmark as contract tasks: the matching tasks, clustering and anisotropy."""

    benchmark: Any  # semantic.SemanticBenchmark
    name: str
    kind: str = "semantic"

    def fingerprint(self) -> str:
        """Changes with the sample, the queries and the configuration; ``x1``: scored by the executor."""
        b = self.benchmark
        payload = json.dumps([b.config, sorted(p.id for p in b.papers), b.query_source], sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16] + ":x1"

    def describe(self) -> dict[str, Any]:
        b = self.benchmark
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint(), "config": b.config,
                "counts": b.counts, "query_source": b.query_source, "issues": b.issues.to_list()}

    def tasks(self, style: TextStyle) -> list[GoldRankTask | VectorTask]:
        from sciembed.views import ta_text

        out: list[GoldRankTask | VectorTask] = [gold_rank_task(name, task, self.kind)
                                                for name, task in self.benchmark.tasks.items()]
        metric = getattr(style.encoder, "metric", "cosine")
        if self.benchmark.clustering is not None:
            out.append(clustering_task(self.benchmark.clustering, metric, self.kind))
        texts = {p.id: ta_text(p) for p in self.benchmark.papers}
        out.append(VectorTask(ANISOTROPY, texts, anisotropy, primary="isotropy", group=self.kind, kind="geometry"))
        return out

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        """Each task's score; SemCSE's generalisation check (§5.1) and the anisotropy are reported, not summarised."""
        from sciembed.evaluation.semantic import GENERALISATION

        return {r.task: r.score for r in results if r.task not in GENERALISATION and r.kind != "geometry"}


def gold_rank_task(name: str, task: Any, group: str) -> GoldRankTask:
    """A `semantic.MatchingTask` (queries, a candidate pool, each query's gold index) as a `GoldRankTask`."""
    width = len(str(len(task.candidates)))
    candidates = {f"{j:0{width}d}": text for j, text in enumerate(task.candidates)}
    gold = {q: f"{int(g):0{width}d}" for q, g in zip(task.query_ids, task.gold, strict=True)}
    return GoldRankTask(name, dict(zip(task.query_ids, task.queries, strict=True)), candidates, gold, group=group)


def clustering_task(clustering: Any, metric: str, group: str) -> VectorTask:
    """The share of each test paper's 5 nearest training papers (the model's distance) with its label."""
    from sciembed.evaluation.semantic import CLUSTERING, KNN

    train = {f"train|{i}": t for i, t in enumerate(clustering.train_texts)}
    test = {f"test|{i}": t for i, t in enumerate(clustering.test_texts)}

    def score(vectors: Mapping[str, Any]) -> dict[str, Any]:
        from sklearn.neighbors import NearestNeighbors

        knn = NearestNeighbors(n_neighbors=KNN, metric="cosine" if metric == "cosine" else "euclidean")
        knn.fit(np.stack([vectors[k] for k in train]))
        _, neighbours = knn.kneighbors(np.stack([vectors[k] for k in test]))
        same = (np.asarray(clustering.train_labels)[neighbours] == np.asarray(clustering.test_labels)[:, None]).mean(1)
        return {"knn_same_label": float(same.mean())}

    counts = {"queries": len(test), "pool": len(train)}
    return VectorTask(CLUSTERING, {**train, **test}, score, primary="knn_same_label", group=group, counts=counts,
                      kind="clustering")


def anisotropy(vectors: Mapping[str, Any]) -> dict[str, Any]:
    """SemCSE Appendix B.2: the spectrum of the unnormalised, mean-centred title + abstract vectors."""
    from sciembed.evaluation.geometry import spectrum

    spec = spectrum(np.stack(list(vectors.values())), normalize=False)
    return {"top1_pc_share": spec["top_share"].get("1", float("nan")),
            "top10_pc_share": spec["top_share"].get("10", float("nan")), "isotropy": spec["isotropy"],
            ANISOTROPY: {"vectors": "title + abstract, unnormalised, mean-centred", "papers": len(vectors),
                         "top_share": spec["top_share"], "effective_rank": spec.get("effective_rank"),
                         "isotropy": spec["isotropy"]}}


def load(entry: Any, context: Any) -> SemanticTasks:
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
    return SemanticTasks(bench, entry.name)
