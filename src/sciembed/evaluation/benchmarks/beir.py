"""kind ``beir``: a BEIR folder as one full-collection retrieval task."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
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

        from sciembed.evaluation.input_format import format_tasks

        out = []
        for name, b in self.folders.items():
            task = b.task()
            if style.encoder is not None:
                [task] = format_tasks([task], b, style.encoder)
            out.append(replace(task, name=name, relevant_min=self.relevant_min, primary=self.primary, group=self.kind))
        return out

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)


def load(entry: Any, context: Any) -> BeirAdapter:
    from sciembed.evaluation.beir import load_beir

    path = entry.resolved_path()
    return BeirAdapter({path.name: load_beir(path, entry.split)}, entry.name, relevant_min=entry.relevant_min)
