"""SciRepEval from a local copy of its two Hugging Face datasets, read as its evaluation code reads them.

Layout (one folder per config, one file per split, JSON lines or Parquet)::

    <root>/scirepeval/<config>/evaluation.jsonl       texts: doc_id, title, abstract (+ venue, year);
                                                      ranking tasks: {doc_id, query, candidates: [...]}
    <root>/scirepeval_test/<config>/test.jsonl        ranking: query_id, cand_id, score
    <root>/scirepeval_test/<config>/train.jsonl       probes: paper_id, label (list for multi-label)
    <root>/scirepeval_test/reviewers/metadata.jsonl   Paper-Reviewer Matching's reviewers (`reviewer_matching`)
    <root>/s2and/<dataset>/<dataset>_papers.json …   S2AND's mini datasets (`s2and`; SciRepEval's
                                                      ``aws s3 sync s3://ai2-s2-research-public/scirepeval/test/s2and``)

A task whose files are absent is reported and skipped. S2AND's published number comes from its own LightGBM
pipeline, which cannot run here: the suite's embedding-only clustering is reported as ``S2AND (embedding-only)``
and left OUT of the averages, unless ``s2and_results`` (`s2and_official`) gives the pipeline's number.
How to fetch the data and what the metrics are: docs/benchmarks/bench.md.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sciembed.evaluation.contract import ProbeTask, RankingTask, TaskResult, TextStyle, VectorTask
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.evaluation.scirepeval.records import judgements, paper_text, paper_texts, read_split, split_files
from sciembed.evaluation.scirepeval.tasks import BY_NAME, PYTREC_TO_RANX, TASKS, TYPE_LABELS, TaskDef

if TYPE_CHECKING:
    from sciembed.evaluation.scirepeval.s2and_official import OfficialS2AND

EMBEDDING_ONLY = "S2AND (embedding-only)"  # the suite's own S2AND figure: reported, never averaged


def task_score(metrics: Mapping[str, float], names: Sequence[str]) -> float:
    """A task's score as the papers compute it: the mean of its metrics (a probe's few-shot runs are averaged
    first, then with the full-data score: `probes.probe_task_score`)."""
    values = [metrics[n] for n in names if n in metrics and not math.isnan(metrics[n])]
    return float(np.mean(values)) if values else math.nan


def aggregate(task_scores: Mapping[str, tuple[str, float]]) -> dict[str, float]:
    """`task name -> (type, score)` → type averages and the overall average: the mean over ALL task scores (not
    of the four type averages, so a type with more tasks weighs more), as the papers compute it."""
    out: dict[str, float] = {}
    scored = {name: (kind, s) for name, (kind, s) in task_scores.items() if not math.isnan(s)}
    for kind, label in TYPE_LABELS.items():
        values = [s for k, s in scored.values() if k == kind]
        if values:
            out[label] = float(np.mean(values))
    if scored:
        out["overall"] = float(np.mean([s for _, s in scored.values()]))
    return out


@dataclass
class SciRepEvalBenchmark:
    root: Path
    task_names: list[str]
    issues: IssueLog = field(default_factory=IssueLog)
    name: str = "scirepeval"
    kind: str = "scirepeval"
    skipped: dict[str, str] = field(default_factory=dict)  # task -> why it did not run
    s2and_official: OfficialS2AND | None = None  # S2AND's own pipeline's results for the model, when given

    def __post_init__(self) -> None:
        for name in self.task_names:
            task = BY_NAME[name]
            if task.evaluator:
                absent = self._evaluator_missing(task)
                if absent:
                    self.skipped[name] = "files not found: " + ", ".join(absent)
                continue
            meta = self.root / "scirepeval" / task.meta
            test = self.root / "scirepeval_test" / task.test
            needs = [(meta, "evaluation"), (test, "test")] + ([(test, "train")] if self._is_probe(task) else [])
            absent = [f"{folder.parent.name}/{folder.name}/{split}.jsonl|parquet" for folder, split in needs
                      if not split_files(folder, split)]
            if absent:
                self.skipped[name] = "files not found: " + ", ".join(absent)
        if len(self.skipped) == len(self.task_names):
            raise BenchmarkError(f"SciRepEval root {self.root}: no task has its files; "
                                 + "; ".join(f"{k}: {v}" for k, v in self.skipped.items()))

    def _evaluator_missing(self, task: TaskDef) -> list[str]:
        from sciembed.evaluation.scirepeval import reviewer_matching, s2and

        if task.evaluator == "reviewer_matching":
            return reviewer_matching.missing_files(self.root)
        if not s2and.present_datasets(self.root / "s2and"):
            return ["s2and/<dataset>/<dataset>_papers.json, _signatures.json, _clusters.json"]
        return []

    def _folders(self, task: TaskDef) -> list[Path]:
        if task.evaluator == "s2and":
            from sciembed.evaluation.scirepeval.s2and import present_datasets

            return [self.root / "s2and" / ds for ds in present_datasets(self.root / "s2and")]
        folders = [self.root / "scirepeval" / task.meta, self.root / "scirepeval_test" / task.test]
        if task.evaluator == "reviewer_matching":
            from sciembed.evaluation.scirepeval.reviewer_matching import REVIEWERS

            folders.append(self.root / "scirepeval_test" / REVIEWERS)
        return [f for f in folders if f.is_dir()]

    def _vector_task(self, task: TaskDef, style: TextStyle) -> VectorTask:
        from sciembed.evaluation.scirepeval import reviewer_matching, s2and

        if task.evaluator == "s2and":
            texts, score, notes, issues = s2and.suite_task(self.root / "s2and", style.sep)
            self.issues.extend(issues)
            return VectorTask(task.name, texts, score, "b3_f1", TYPE_LABELS[task.type], notes)
        data = reviewer_matching.load_reviewer_matching(self.root, style)
        self.issues.extend(data.issues)
        texts = {d: data.texts[d] for d in reviewer_matching.needed_papers(data)}
        counts = {"queries_hard": len(data.qrels["test_hard"]), "reviewers": len(data.reviewers)}
        return VectorTask(task.name, texts, lambda vectors: reviewer_matching.score_reviewer_matching(data, vectors),
                          "score", TYPE_LABELS[task.type], ["its evaluator: a reviewer = mean of the 3 highest cosines "
                          "to their papers; score = mean of P@5, P@10 on the hard and soft qrels"], counts)

    @staticmethod
    def _is_probe(task: TaskDef) -> bool:
        return task.type in ("classification", "regression")

    @property
    def runnable(self) -> list[TaskDef]:
        return [BY_NAME[n] for n in self.task_names if n not in self.skipped]

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for task in self.runnable:
            for folder in self._folders(task):
                for path in sorted(folder.iterdir()):
                    digest.update(f"{path.name}:{path.stat().st_size}:{path.stat().st_mtime_ns}".encode())
        digest.update(json.dumps(self.task_names).encode())
        return digest.hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        s2and = (self.s2and_official.describe() if self.s2and_official is not None else
                 f"{EMBEDDING_ONLY}: an embedding-only clusterer, not S2AND's pipeline, left out of the averages")
        return {"kind": self.kind, "name": self.name, "source": str(self.root), "fingerprint": self.fingerprint(),
                "tasks": [t.name for t in self.runnable], "skipped": self.skipped, "issues": self.issues.to_list(),
                "s2and": s2and}

    def tasks(self, style: TextStyle) -> list[RankingTask | ProbeTask | VectorTask]:
        out: list[RankingTask | ProbeTask | VectorTask] = []
        for task in self.runnable:
            if task.evaluator:
                out.append(self._vector_task(task, style))
                continue
            meta = read_split(self.root / "scirepeval" / task.meta, "evaluation", self.issues)
            test_dir = self.root / "scirepeval_test" / task.test
            out.append(self._probe(task, meta, test_dir, style) if self._is_probe(task)
                       else self._ranking(task, meta, read_split(test_dir, "test", self.issues), style))
        return out

    def _ranking(self, task: TaskDef, meta: list[tuple[str, dict[str, Any]]], qrel_rows: list[tuple[str, dict]],
                 style: TextStyle) -> RankingTask:
        issues = self.issues
        queries: dict[str, str] = {}
        docs: dict[str, str] = {}
        if task.simple_format:
            for where, record in meta:
                did = str(record.get("doc_id", ""))
                text = paper_text(record, task.fields, style)
                if not did or not text:
                    issues.add(f"{task.name}: paper without doc_id or text", "paper skipped", where=where)
                elif did in docs:
                    issues.add(f"{task.name}: duplicate doc_id", "later record skipped", where=where, example=did)
                else:
                    docs[did] = text
            queries = dict(docs)
        else:
            for where, record in meta:
                query = record.get("query")
                if isinstance(query, str):
                    qid, qtext = str(record.get("doc_id", "")), query.strip()
                elif isinstance(query, dict):
                    qid, qtext = str(query.get("doc_id", "")), paper_text(query, task.fields, style)
                else:
                    raise BenchmarkError(f"{where}: expected field 'query' (string or {{doc_id, title, abstract}})")
                if not qid or not qtext:
                    issues.add(f"{task.name}: query without id or text", "query skipped", where=where)
                    continue
                queries.setdefault(qid, qtext)
                for i, cand in enumerate(record.get("candidates") or []):
                    cid, ctext = str(cand.get("doc_id", "")), paper_text(cand, task.fields, style)
                    if not cid or not ctext:
                        issues.add(f"{task.name}: candidate without doc_id or text", "candidate skipped",
                                   where=f"{where} candidates[{i}]")
                    else:
                        docs.setdefault(cid, ctext)
        qrels = judgements(qrel_rows, queries, docs, issues, f"{task.name}: qrels name an unknown query",
                           f"{task.name}: qrels name an unknown candidate")
        evaluated = {q: t for q, t in queries.items() if q in qrels}
        for q in sorted(set(queries) - set(qrels)):
            issues.add(f"{task.name}: query without judgements", "query not evaluated", example=q)
        ranx_metrics = tuple(PYTREC_TO_RANX[m] for m in task.metrics)
        return RankingTask(name=task.name, queries=evaluated, docs=docs, qrels=qrels,
                           pools={q: list(qrels[q]) for q in evaluated}, primary=ranx_metrics[0], exclude_self=False,
                           extra_metrics=ranx_metrics, group=TYPE_LABELS[task.type])

    def _probe(self, task: TaskDef, meta: list[tuple[str, dict[str, Any]]], test_dir: Path,
               style: TextStyle) -> ProbeTask:
        texts = paper_texts(meta, task.fields, style, self.issues, task.name)
        labels: dict[str, Any] = {}
        splits: dict[str, list[str]] = {"train": [], "test": []}
        for split in splits:
            for where, row in read_split(test_dir, split, self.issues):
                pid, label = str(row.get("paper_id", "")), row.get("label")
                if not pid or label is None:
                    raise BenchmarkError(f"{where}: expected fields paper_id and label")
                if pid not in texts:
                    self.issues.add(f"{task.name}: labelled paper missing from the metadata", "example skipped",
                                    where=where, example=pid)
                    continue
                if task.type == "regression":
                    value = float(label)
                    if not math.isfinite(value):
                        self.issues.add(f"{task.name}: label is not a finite number", "example skipped",
                                        where=where, example=pid)
                        continue
                    label = value
                elif task.multi_label and not isinstance(label, list):
                    label = [label]
                labels[pid] = label
                splits[split].append(pid)
        return ProbeTask(name=task.name, kind=task.type, texts=texts, labels=labels, train_ids=splits["train"],
                         test_ids=splits["test"], metric=task.metrics[0], multi_label=task.multi_label,
                         few_shot=task.few_shot, group=TYPE_LABELS[task.type])

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        scores: dict[str, tuple[str, float]] = {}
        for r in results:
            task = BY_NAME[r.task]
            if task.evaluator:
                names = [r.primary]
            elif self._is_probe(task):
                names = ["score"]
            else:
                names = [PYTREC_TO_RANX[m] for m in task.metrics]
            scores[r.task] = (task.type, task_score(r.metrics, names))
        embedding_only = scores.pop("S2AND", None)  # never averaged as if it were S2AND's published metric
        out = {name: s for name, (_, s) in scores.items()}
        if embedding_only is not None:
            out[EMBEDDING_ONLY] = embedding_only[1]
        if self.s2and_official is not None and "S2AND" in self.task_names:
            scores["S2AND"] = (BY_NAME["S2AND"].type, self.s2and_official.b3_f1)
            out["S2AND"] = self.s2and_official.b3_f1
        out.update(aggregate(scores))
        return out


def load_scirepeval(root: Path | str, tasks: Sequence[str] | None = None,
                    s2and_results: Path | str | None = None) -> SciRepEvalBenchmark:
    """`s2and_results`: the experiment folder S2AND's own pipeline wrote for this model (`s2and_official`)."""
    root = Path(root)
    if not root.is_dir():
        raise BenchmarkError(f"SciRepEval root {root} does not exist (expected scirepeval/ and scirepeval_test/)")
    names = list(tasks) if tasks else [t.name for t in TASKS]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise BenchmarkError(f"unknown SciRepEval task(s) {unknown}; known: {', '.join(BY_NAME)}")
    official = None
    if s2and_results is not None:
        from sciembed.evaluation.scirepeval.s2and_official import read_official_results

        official = read_official_results(s2and_results)
    return SciRepEvalBenchmark(root, names, s2and_official=official)
