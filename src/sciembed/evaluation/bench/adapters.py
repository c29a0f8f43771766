"""The benchmarks that already existed (BEIR folders, pools files, citation corpora, SciTLDR) on the contract.

BEIR folders and pools files become one `RankingTask` each, ranked over the
full collection / whole pools (no top-k cut) with the suite's relevance
threshold. A citation corpus runs through the citation harness
(`evaluate_encoder`) with k = the number of papers, so its rankings are full
lists too; its scenarios become tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import RankingTask, TaskResult, TextStyle, primary_summary


@dataclass
class BeirAdapter:
    """A BEIR folder (or several, e.g. SciTLDR's three tasks) as full-collection retrieval tasks."""

    folders: dict[str, Any]  # task name -> BeirBenchmark
    name: str
    kind: str = "beir"
    relevant_min: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def fingerprint(self) -> str:
        import hashlib

        return hashlib.sha256("|".join(f"{k}:{b.fingerprint()}:{self.relevant_min}"
                                       for k, b in sorted(self.folders.items())).encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "fingerprint": self.fingerprint(),
                "relevant_min": self.relevant_min, **self.extra,
                "tasks": {k: {"queries": len(b.queries), "documents": len(b.docs), "source": b.source,
                              "issues": b.issues.to_list()} for k, b in self.folders.items()}}

    def tasks(self, style: TextStyle) -> list[RankingTask]:
        return [RankingTask(name=k, queries=dict(b.queries), docs=dict(b.docs), qrels=b.qrels,
                            relevant_min=self.relevant_min, primary="ndcg@10", group=self.kind)
                for k, b in self.folders.items()]

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)


@dataclass
class PoolsAdapter:
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


@dataclass
class CitationAdapter:
    """A sciembed corpus through the citation harness; each scenario is a task (primary NDCG@10)."""

    benchmark: Any  # CitationBenchmark
    name: str
    scenarios: tuple[str, ...] = ("ta_ta", "body_ta", "body_body")
    body_modes: tuple[str, ...] = ("windowed",)
    kind: str = "citation"
    native: bool = True  # run by `run_native`, not task by task

    def fingerprint(self) -> str:
        return f"{self.benchmark.fingerprint()}:{','.join(self.scenarios)}:{','.join(self.body_modes)}"

    def describe(self) -> dict[str, Any]:
        d = self.benchmark.describe()
        return {**{k: v for k, v in d.items() if k != "issues"}, "name": self.name, "scenarios": list(self.scenarios),
                "body_modes": list(self.body_modes), "issues": d.get("issues", [])}

    def tasks(self, style: TextStyle) -> list[RankingTask]:
        return []

    def run_native(self, scorer: Any, batch_size: int = 32) -> list[TaskResult]:
        from sciembed.evaluation.run import evaluate_encoder
        from sciembed.evaluation.scorers import DenseScorer
        from sciembed.evaluation.task import key_str

        model = scorer.encoder if isinstance(scorer, DenseScorer) else "bm25"
        k = max(1, len(self.benchmark.papers))  # full lists: MAP and MRR over every candidate
        run = evaluate_encoder(model, self.benchmark, self.scenarios, self.body_modes, k=k, show_progress=True,
                               batch_size=batch_size, geometry=False)
        out = []
        for key in run.keys:
            per_query = {m: {q: 100.0 * v for q, v in s.items()} for m, s in run.per_query[key].items()}
            metrics = {m: 100.0 * v for m, v in run.aggregates[key].items()}
            out.append(TaskResult(key_str(key), "retrieval", "ndcg@10", metrics, per_query,
                                  dict(run.counts[key]), "citation", [n["message"] for n in run.notes[key]]))
        return out

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)


def scitldr_adapter(source: Path, workdir: Path, name: str) -> BeirAdapter:
    """SciTLDR's three real-text tasks (`sciembed.evaluation.scitldr`), written once under `workdir`."""
    from sciembed.evaluation.beir import load_beir
    from sciembed.evaluation.scitldr import TASKS, write_scitldr_beir

    manifest_path = workdir / "manifest.json"
    import json

    if not manifest_path.is_file() or json.loads(manifest_path.read_text()).get("source") != str(source.resolve()):
        write_scitldr_beir(source, workdir)
    manifest = json.loads(manifest_path.read_text())
    folders = {task: load_beir(workdir / task) for task in TASKS}
    return BeirAdapter(folders, name, kind="scitldr",
                       extra={"source": str(source), "read": manifest["read"], "accepted": manifest["accepted"],
                              "rejected": manifest["rejected"]})
