"""Cite-prediction triplets (SPECTER / SciDocs), as SciJEPA reports them: accuracy and geometry.

Read from a folder with SPECTER's ``metadata.json`` and ``query_id<TAB>positive_id<TAB>negative_id`` ``*.tsv``
tables (SciNCL's ``specter_train.tsv`` layout), or a JSON-lines file of ``{"query", "pos", "neg"}`` papers.
Accuracy = share of triplets with d(q, pos) < d(q, neg), a tie counting half (so a constant encoder scores 50);
geometry uses a fixed seeded sample of 2,000 triplets.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.evaluation.contract import FingerprintOnce, TaskResult, TextStyle, TripletTask, primary_summary
from sciembed.evaluation.issues import BenchmarkError, IssueLog

GEOMETRY_SAMPLE = 2000


@dataclass
class TripletBenchmark(FingerprintOnce):
    source: str
    papers: dict[str, tuple[str, str]]  # id -> (title, abstract)
    triplets: list[tuple[str, str, str]]
    issues: IssueLog
    seed: int = 0
    name: str = "triplets"
    kind: str = "triplets"

    def _digest(self) -> str:
        payload = json.dumps([self.seed, self.triplets, sorted(self.papers.items())]).encode()
        return hashlib.sha256(payload).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        return {**self.identity(), "triplets": len(self.triplets), "papers": len(self.papers),
                "geometry_sample": min(GEOMETRY_SAMPLE, len(self.triplets)), "seed": self.seed,
                "issues": self.issues.to_list()}

    def tasks(self, style: TextStyle) -> list[TripletTask]:
        texts = {pid: style.join(t, a) for pid, (t, a) in self.papers.items()}
        return [TripletTask("cite-triplets", texts, list(self.triplets), GEOMETRY_SAMPLE, self.seed)]

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        return primary_summary(results)


def _paper(value: Any) -> tuple[str, str, str] | None:
    if not isinstance(value, dict):
        return None
    pid = value.get("paper_id") or value.get("doc_id") or value.get("id")
    title, abstract = str(value.get("title") or ""), str(value.get("abstract") or "")
    return (str(pid), title, abstract) if pid and (title or abstract) else None


def load_triplets(path: Path | str, seed: int = 0) -> TripletBenchmark:
    path = Path(path)
    issues = IssueLog()
    papers: dict[str, tuple[str, str]] = {}
    triplets: list[tuple[str, str, str]] = []
    if path.is_dir():
        meta_path = path / "metadata.json"
        tables = sorted(path.glob("*.tsv"))
        if not meta_path.is_file() or not tables:
            raise BenchmarkError(f"triplet folder {path}: expected metadata.json ({{paper_id: {{title, abstract}}}}) "
                                 "and a query_id<TAB>positive_id<TAB>negative_id .tsv file")
        metadata = json.loads(meta_path.read_text(encoding="utf-8"))
        if not isinstance(metadata, dict):
            raise BenchmarkError(f"{meta_path}: expected an object keyed by paper id")
        for pid, value in metadata.items():
            paper = _paper({"paper_id": pid, **value} if isinstance(value, dict) else None)
            if paper is None:
                issues.add("metadata entry without title or abstract", "paper skipped", where=meta_path.name,
                           example=str(pid))
            else:
                papers[paper[0]] = paper[1:]
        for table in tables:
            for number, line in enumerate(table.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                parts = line.split("\t")
                where = f"{table.name}:{number}"
                if len(parts) != 3:
                    issues.add("triplet line without 3 tab-separated ids", "line skipped", where=where)
                elif missing := [x for x in parts if x not in papers]:
                    issues.add("triplet names a paper missing from metadata.json", "triplet skipped", where=where,
                               example=missing[0])
                else:
                    triplets.append((parts[0], parts[1], parts[2]))
    elif path.is_file():
        from sciembed.evaluation.beir import read_jsonl_records

        for number, record in read_jsonl_records(path, issues):
            parts = [_paper(record.get(k)) for k in ("query", "pos", "neg")]
            if any(p is None for p in parts):
                issues.add("triplet line without query/pos/neg papers (paper_id, title, abstract)", "line skipped",
                           where=f"{path.name}:{number}")
                continue
            for pid, title, abstract in parts:  # type: ignore[misc]
                papers.setdefault(pid, (title, abstract))
            triplets.append(tuple(p[0] for p in parts))  # type: ignore[index,arg-type]
    else:
        raise BenchmarkError(f"triplets {path} does not exist")
    if not triplets:
        raise BenchmarkError(f"triplets {path}: no usable triplet ({[i.message() for i in issues]})")
    return TripletBenchmark(str(path), papers, triplets, issues, seed, name=f"triplets:{path.stem}")
