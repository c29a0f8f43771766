"""BEIR folders, pools files and SciTLDR on the contract; paper-to-paper still runs natively.

BEIR folders and pools files become one `RankingTask` each, ranked over the
full collection / whole pools (no top-k cut) with the suite's relevance
threshold. `task_results` turns a paper-to-paper `MethodRun` (`p2p_evaluate`) into
task results for the report writer. Citation corpora and section retrieval are
`scenarios.ScenarioBenchmark`.
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
    primary: str = "ndcg@10"  # the kind's headline metric (set from the registry by `load_benchmark`)

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
        """One task per folder; a model whose card names an input format (CoSAEmb) reads the documents in it."""
        from dataclasses import replace

        from sciembed.evaluation.beir import KEY
        from sciembed.evaluation.input_format import format_tasks

        out = []
        for name, b in self.folders.items():
            task = b.task(KEY, 0)
            if style.encoder is not None:
                [task] = format_tasks([task], b, style.encoder)
            ranking = task.ranking_task(self.relevant_min, self.primary, self.kind)
            out.append(replace(ranking, name=name))
        return out

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


def task_results(run: Any, group: str, primary: str = "ndcg@10", prefix: str = "") -> list[TaskResult]:
    """A paper-to-paper `MethodRun` (scores 0–1, one key per split) as contract `TaskResult`s (×100)."""
    from sciembed.evaluation.task import key_str

    out = []
    for key in run.keys:
        per_query = {m: {q: 100.0 * v for q, v in s.items()} for m, s in run.per_query[key].items()}
        metrics = {m: 100.0 * v for m, v in run.aggregates[key].items()}
        out.append(TaskResult(prefix + key_str(key), "retrieval", primary, metrics, per_query,
                              dict(run.counts.get(key, {})), group, [n["message"] for n in run.notes.get(key, [])],
                              rankings=run.rankings.get(key), qrels=run.qrels.get(key)))
    return out


def scitldr_adapter(source: Path, workdir: Path, name: str) -> BeirAdapter:
    """SciTLDR's real-text tasks (`sciembed.evaluation.scitldr`), written once under `workdir`."""
    from sciembed.evaluation.beir import load_beir
    from sciembed.evaluation.scitldr import TASKS, write_scitldr_beir

    manifest_path = workdir / "manifest.json"
    import json

    written = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    if written.get("source") != str(source.resolve()) or set(written.get("tasks", {})) != set(TASKS):
        write_scitldr_beir(source, workdir)
    manifest = json.loads(manifest_path.read_text())
    folders = {task: load_beir(workdir / task) for task in TASKS}
    return BeirAdapter(folders, name, kind="scitldr",
                       extra={"source": str(source), "read": manifest["read"], "accepted": manifest["accepted"],
                              "rejected": manifest["rejected"]})


def _encoder_of(scorer: Any, kind: str) -> Any:
    from sciembed.evaluation.issues import BenchmarkError
    from sciembed.evaluation.scorers import DenseScorer

    if not isinstance(scorer, DenseScorer):
        raise BenchmarkError(f"{kind} compares embedding models; {scorer.name} has no vectors")
    return scorer.encoder


@dataclass(frozen=True)
class TunedFusion:
    """Method ``fused`` tuned on the val query papers and every method scored on the test ones; each
    model's fusion is saved as ``<folder>/<model>.json`` (a `FusionSpec`, reusable as ``fusion``)."""

    val_ids: list[str]
    test_ids: list[str]
    folder: Path


def p2p_details(run: Any, split: str) -> dict[str, Any]:
    """What the paper-to-paper report section reads beyond the metrics: the method and split, the query source
    of every aspect (PRISM), and for prism_llm the number of LLM samples and each metric's std across them (×100)."""
    details: dict[str, Any] = {"method": run.model, "split": split}
    if run.config.get("query_sources"):
        details["query_sources"] = run.config["query_sources"]
    if run.config.get("samples"):
        details["samples"] = run.config["samples"]
        details["sample_std"] = {m: 100.0 * v for m, v in (run.config.get("sample_std") or {}).get(split, {}).items()}
    return details


@dataclass
class PaperToPaperAdapter:
    """Whole papers as queries (a corpus with directed citations, a qrels file, an ingested collection,
    SciFullBench): each method on each split is a task (the harness metrics of `p2p_evaluate`, ×100)."""

    benchmark: Any  # PaperToPaperBenchmark
    name: str
    config: Any  # P2PConfig
    kind: str = "paper_to_paper"
    native: bool = True
    fusion: Any = None  # FusionSpec applied by method ``fused``
    primary: str = "ndcg@10"  # R@100 saturates (95–97 for every method on a held-out set): NDCG@10 separates them
    tuned: TunedFusion | None = None

    def fingerprint(self) -> str:
        import hashlib
        import json

        extra = {"fusion": self.fusion.to_dict() if self.fusion is not None else None,
                 "tuned": [self.tuned.val_ids, self.tuned.test_ids] if self.tuned is not None else None}
        config = json.dumps([self.config.model_dump(mode="json"), extra], sort_keys=True, default=str)
        return f"{self.benchmark.fingerprint()}:{hashlib.sha256(config.encode()).hexdigest()[:8]}"

    def describe(self) -> dict[str, Any]:
        described = {**self.benchmark.describe(), "name": self.name, "config": self.config.model_dump(mode="json")}
        if self.fusion is not None:
            described["fusion"] = self.fusion.to_dict()
        if self.tuned is not None:
            described["fusion_tuning"] = {"val_queries": len(self.tuned.val_ids),
                                          "test_queries": len(self.tuned.test_ids), "saved_in": str(self.tuned.folder)}
        return described

    def tasks(self, style: TextStyle) -> list[Any]:
        return []

    def run_native(self, scorer: Any, batch_size: int | None = None) -> list[TaskResult]:
        from sciembed.evaluation.p2p_evaluate import evaluate_paper_to_paper
        from sciembed.evaluation.p2p_fusion import evaluate_with_tuned_fusion
        from sciembed.ioutil.names import slug

        encoder = _encoder_of(scorer, self.kind)
        if self.tuned is None:
            runs = evaluate_paper_to_paper(self.benchmark, encoder, self.config, fusion=self.fusion)
        else:
            runs, spec, _ = evaluate_with_tuned_fusion(self.benchmark, self.tuned.val_ids, self.tuned.test_ids,
                                                       encoder, self.config)
            path = spec.save(self.tuned.folder / f"{slug(scorer.name)}.json")
            note = (f"fusion tuned on val ({len(self.tuned.val_ids)} query papers): {spec.label} "
                    f"({spec.tuned['metric']} {spec.tuned['score']:.4f}), saved as {path}; val {spec.tuned['metric']} "
                    f"per method: {', '.join(f'{m} {v:.4f}' for m, v in spec.tuned['val_methods'].items())}; "
                    f"best on val: {spec.tuned['val_best_method']}")
        results = []
        for run in runs:
            for key, result in zip(run.keys, task_results(run, self.kind, self.primary, prefix=f"{run.model}/"),
                                   strict=True):
                result.details = p2p_details(run, key[0])
                if self.tuned is not None and run.model == "fused":
                    result.notes.append(note)
                results.append(result)
        return results

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)
