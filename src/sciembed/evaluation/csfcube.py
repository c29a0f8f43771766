"""CSFCube (Mysore et al., 2021): faceted query-by-example over computer-science abstracts.

Reads the release files of https://github.com/iesl/CSFCube; each (query, facet) ranks only its judged pool,
relevant = grade ≥ 2. Metrics are the official ``eval_scripts/ranking_eval.py``'s, written out here because
ranx differs: linear gain with the ``rank_metrics`` gist's discount (ranks 1 and 2 undiscounted; ranx
discounts rank 2), ``NDCG%20`` cut per query at int(0.2 × pool size), R-precision at the LAST relevant rank
(ranx: at R). Averaged within each official test fold, then over folds. Queries are the title + abstract or
the facet's sentences; ``input_format: cosaemb`` models read ``[TTL] title [SEP] <facet token> text`` queries
and TA-unit candidates, as they were trained. See docs/benchmarks/bench.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.evaluation.contract import FingerprintOnce, RankingTask, TaskResult, TextStyle, json_digest
from sciembed.evaluation.issues import BenchmarkError, IssueLog
from sciembed.views.chunk import first_prefix, ta_unit

FACETS = ("background", "method", "result")
FACET_LABELS = {"background": ("background_label", "objective_label"), "method": ("method_label",),
                "result": ("result_label",)}
COSAEMB_TOKENS = {"background": "[INTR] [RW]", "method": "[MET]", "result": "[RES]"}
RELEVANT_GRADE = 2
AT_K = 20
OFFICIAL_METRICS = ("ndcg%20", "ndcg@20", "ndcg", "map", "precision@20", "recall@20", "r-precision")
QUERY_MODES = ("abstract", "facet")


def dcg(gains: Sequence[float], k: int) -> float:
    """The gist's ``dcg_at_k(r, k, method=0)``: r1 + Σ_{i≥2} r_i / log2(i)."""
    r = np.asarray(gains, dtype=np.float64)[:k]
    if not r.size:
        return 0.0
    return float(r[0] + np.sum(r[1:] / np.log2(np.arange(2, r.size + 1))))


def ndcg(gains: Sequence[float], k: int) -> float:
    best = dcg(sorted(gains, reverse=True), k)
    return dcg(gains, k) / best if best else 0.0


def official_query_metrics(grades: Sequence[int], threshold: int = RELEVANT_GRADE,
                           at_k: int = AT_K) -> dict[str, float]:
    """One query's metrics (×100) from the grades of its pool in ranked order, as ``compute_metrics`` does."""
    binary = np.array([1 if g >= threshold else 0 for g in grades])
    n, total = len(binary), int(binary.sum())
    k = min(at_k, n)
    hits = np.flatnonzero(binary)
    average_precision = float(np.mean([binary[: i + 1].mean() for i in hits])) if total else 0.0
    r_precision = float(binary[: hits[-1] + 1].mean()) if total else 0.0
    return {
        "ndcg%20": 100 * ndcg(grades, int(0.20 * n)),
        "ndcg@20": 100 * ndcg(grades, at_k),
        "ndcg": 100 * ndcg(grades, n),
        "map": 100 * average_precision,
        "precision@20": 100 * float(binary[:k].mean()) if k else 0.0,
        "recall@20": 100 * float(binary[:at_k].sum()) / total if total else 0.0,
        "r-precision": 100 * r_precision,
    }


def official_metrics(ranked_grades: Mapping[str, list[int]]) -> dict[str, dict[str, float]]:
    return {q: official_query_metrics(g) for q, g in ranked_grades.items()}


def fold_average(per_query: Mapping[str, float], folds: Sequence[Sequence[str]]) -> float:
    """Mean over folds of the mean over each fold's queries (``aggregate_metrics_crossval``, test split)."""
    means = []
    for fold in folds:
        values = [per_query[q] for q in fold if q in per_query]
        if values:
            means.append(float(np.mean(values)))
    return float(np.mean(means)) if means else math.nan


@dataclass
class CsfcubePaper:
    title: str
    sentences: list[str]
    labels: list[str]


@dataclass
class CsfcubeBenchmark(FingerprintOnce):
    source: str
    papers: dict[str, CsfcubePaper]
    pools: dict[str, dict[str, dict[str, int]]]  # facet -> query pid -> candidate pid -> grade (pool order kept)
    folds: dict[str, list[list[str]]]  # facet -> test folds of "<pid>_<facet>"
    issues: IssueLog
    query_mode: str = "abstract"
    name: str = "csfcube"
    kind: str = "csfcube"

    def _digest(self) -> str:
        return json_digest([self.query_mode, sorted(self.pools.items()), self.folds,
                            sorted((p, x.title, x.sentences, x.labels) for p, x in self.papers.items())])

    def describe(self) -> dict[str, Any]:
        return {**self.identity(), "papers": len(self.papers), "query_mode": self.query_mode,
                "relevant_grade": RELEVANT_GRADE, "queries": {f: len(p) for f, p in self.pools.items()},
                "mean_pool_size": {f: round(float(np.mean([len(c) for c in p.values()])), 1)
                                   for f, p in self.pools.items() if p},
                "issues": self.issues.to_list()}

    def _query_text(self, pid: str, facet: str, style: TextStyle, notes: IssueLog) -> str:
        paper = self.papers[pid]
        body = " ".join(paper.sentences)
        text = style.join(paper.title, body)
        if self.query_mode == "facet":
            picked = [s for s, lab in zip(paper.sentences, paper.labels, strict=False) if lab in FACET_LABELS[facet]]
            if picked:
                body = text = " ".join(picked)
            else:
                notes.add(f"query has no {facet} sentence", "whole title + abstract used", example=pid)
        if style.input_format == "cosaemb":
            return f"{first_prefix(paper.title, COSAEMB_TOKENS[facet])} {body}".strip()
        return text

    def tasks(self, style: TextStyle) -> list[RankingTask]:
        cosaemb = style.input_format == "cosaemb"
        docs = {pid: ta_unit(title=p.title, abstract=" ".join(p.sentences)) if cosaemb
                else style.join(p.title, " ".join(p.sentences)) for pid, p in self.papers.items()}
        out = []
        for facet in (f for f in FACETS if f in self.pools):
            notes = IssueLog()
            queries = {q: self._query_text(q, facet, style, notes) for q in self.pools[facet]}
            out.append(RankingTask(name=facet, queries=queries, docs=docs, qrels=self.pools[facet],
                                   pools={q: list(c) for q, c in self.pools[facet].items()},
                                   relevant_min=RELEVANT_GRADE, primary="ndcg%20", official=official_metrics,
                                   group="csfcube", notes=[i.message() for i in notes]))
        return out

    def summarize(self, results: Sequence[TaskResult]) -> dict[str, float]:
        """Per facet and over all facets: each official metric averaged over the official test folds."""
        out: dict[str, float] = {}
        merged: dict[str, dict[str, float]] = {}
        for r in results:
            for metric in OFFICIAL_METRICS:
                scores = {f"{q}_{r.task}": v for q, v in r.per_query.get(metric, {}).items()}
                merged.setdefault(metric, {}).update(scores)
                out[f"{r.task}/{metric}"] = fold_average(scores, self.folds.get(r.task) or [list(scores)])
        all_folds = self.folds.get("all") or [list(merged.get("ndcg%20", {}))]
        for metric, scores in merged.items():
            out[f"all/{metric}"] = fold_average(scores, all_folds)
        return out


def load_csfcube(folder: Path | str, query_mode: str = "abstract") -> CsfcubeBenchmark:
    """Read a CSFCube release folder; a missing file stops with one message naming the file and its fields."""
    folder = Path(folder)
    if query_mode not in QUERY_MODES:
        raise ValueError(f"query_mode must be one of {', '.join(QUERY_MODES)}")
    abstracts = folder / "abstracts-csfcube-preds.jsonl"
    ann_files = {f: folder / f"test-pid2anns-csfcube-{f}.json" for f in FACETS}
    missing = [p.name for p in [abstracts, *ann_files.values()] if not p.is_file()]
    if missing:
        raise BenchmarkError(
            f"CSFCube folder {folder} is missing {', '.join(missing)} (expected the release files: "
            "abstracts-csfcube-preds.jsonl with paper_id/title/abstract/pred_labels, and "
            "test-pid2anns-csfcube-<facet>.json with cands/relevance_adju per query)")
    issues = IssueLog()
    papers = _read_abstracts(abstracts, issues)
    pools = {facet: _read_pools(path, papers, issues) for facet, path in ann_files.items()}
    folds = _read_folds(folder / "evaluation_splits.json")
    return CsfcubeBenchmark(str(folder), papers, pools, folds, issues, query_mode, name=f"csfcube:{query_mode}")


def _read_abstracts(path: Path, issues: IssueLog) -> dict[str, CsfcubePaper]:
    from sciembed.evaluation.beir import read_jsonl_records

    papers: dict[str, CsfcubePaper] = {}
    for number, record in read_jsonl_records(path, issues):
        where = f"{path.name}:{number}"
        pid, sentences = record.get("paper_id"), record.get("abstract")
        if pid in (None, "") or not isinstance(sentences, list):
            raise BenchmarkError(f"{where}: expected fields paper_id (string) and abstract (list of sentences)")
        pid = str(pid)
        if pid in papers:
            issues.add("duplicate paper_id", "later record skipped (first kept)", where=where, example=pid)
            continue
        labels = record.get("pred_labels") or []
        if len(labels) != len(sentences):
            issues.add("pred_labels and abstract differ in length", "facet sentences may be incomplete",
                       where=where, example=pid)
        papers[pid] = CsfcubePaper(str(record.get("title") or ""), [str(s) for s in sentences],
                                   [str(x) for x in labels])
    return papers


def _read_pools(path: Path, papers: Mapping[str, CsfcubePaper], issues: IssueLog) -> dict[str, dict[str, int]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BenchmarkError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise BenchmarkError(f"{path}: expected an object {{query pid: {{cands, relevance_adju}}}}")
    pools: dict[str, dict[str, int]] = {}
    for qpid, entry in data.items():
        where = f"{path.name}:{qpid}"
        if not isinstance(entry, dict) or not isinstance(entry.get("cands"), list) \
                or not isinstance(entry.get("relevance_adju"), list):
            raise BenchmarkError(f"{where}: expected fields cands (list) and relevance_adju (list)")
        cands, grades = entry["cands"], entry["relevance_adju"]
        if len(cands) != len(grades):
            raise BenchmarkError(f"{where}: {len(cands)} cands but {len(grades)} relevance_adju values")
        if qpid not in papers:
            issues.add("query paper missing from abstracts-csfcube-preds.jsonl", "query skipped", where=where,
                       example=qpid)
            continue
        pool: dict[str, int] = {}
        for cand, grade in zip(cands, grades, strict=True):
            cand = str(cand)
            if cand not in papers:
                issues.add("candidate missing from abstracts-csfcube-preds.jsonl", "candidate skipped",
                           where=where, example=cand)
            elif cand in pool:
                issues.add("duplicate candidate in a pool", "later occurrence skipped", where=where, example=cand)
            else:
                pool[cand] = int(grade)
        if not any(g >= RELEVANT_GRADE for g in pool.values()):
            issues.add("pool without a candidate of grade ≥ 2", "query kept (scores 0)", where=where, example=qpid)
        pools[str(qpid)] = pool
    return pools


def _read_folds(path: Path) -> dict[str, list[list[str]]]:
    """Test folds per facet from evaluation_splits.json; without the file every query is one fold."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {facet: [list(v) for k, v in sorted(splits.items()) if k.endswith("_test")]
            for facet, splits in data.items()}
