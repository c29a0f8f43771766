"""Bring-your-own re-ranking pools: each query ranks only its own candidate list.

A JSONL file, one query per line (SciRepEval proximity tasks have this shape)::

    {"query_id": "q1", "query": "text" | {"title": ..., "abstract": ...},
     "domain": "optional",
     "candidates": [{"id": "d1", "text": "..." | "title"/"abstract": ..., "relevance": 1}, ...]}

``doc_id`` is accepted for ``id``, ``score`` for ``relevance`` (default 0), and a query without ``query_id``
takes ``query.doc_id``. A candidate with the query's own id is never ranked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.evaluation.beir import domain_of, join_title, read_jsonl_records
from sciembed.evaluation.contract import FingerprintOnce, json_digest
from sciembed.evaluation.fields import id_value, relevance_problem, relevance_value, text_value
from sciembed.evaluation.issues import BenchmarkError, IssueLog


def _text(value: Any) -> str:
    """A text, or a title + abstract object; "" for anything else (a number, a list, wrongly typed parts)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        parts = [text_value(value.get(k)) for k in ("title", "abstract", "text")]
        if any(p is None for p in parts):
            return ""
        title, abstract, text = parts
        return join_title(title, abstract or text)
    return ""


def _relevance(record: dict[str, Any]) -> int | None:
    return relevance_value(record.get("relevance", record.get("score", 0)))


@dataclass
class PoolBenchmark(FingerprintOnce):
    source: str
    queries: dict[str, str]
    pools: dict[str, list[str]]
    docs: dict[str, str]
    qrels: dict[str, dict[str, int]]
    domains: dict[str, str]
    issues: IssueLog
    name: str = "pools"
    kind: str = "pools"

    def _digest(self) -> str:
        pools = sorted((q, self.pools[q], sorted(self.qrels[q].items())) for q in self.pools)
        return json_digest([sorted(self.queries.items()), sorted(self.docs.items())], pools)

    def describe(self) -> dict[str, Any]:
        sizes = [len(p) for p in self.pools.values()]
        return {**self.identity(), "queries": len(self.queries), "documents": len(self.docs),
                "mean_pool_size": round(sum(sizes) / len(sizes), 2) if sizes else 0, "issues": self.issues.to_list()}


def load_pools(path: Path | str) -> PoolBenchmark:
    path = Path(path)
    if not path.is_file():
        raise BenchmarkError(f"pools file {path} does not exist")
    issues = IssueLog()
    queries: dict[str, str] = {}
    pools: dict[str, list[str]] = {}
    docs: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    domains: dict[str, str] = {}
    for number, record in read_jsonl_records(path, issues):
        where = f"{path.name}:{number}"
        query = record.get("query")
        qid = id_value(record.get("query_id") or (query.get("doc_id") if isinstance(query, dict) else None))
        if not qid:
            issues.add("pool without query_id (or not a string / integer)", "pool skipped", where=where)
            continue
        if qid in queries:
            issues.add("duplicate query id", "later pool skipped (first kept)", where=where, example=qid)
            continue
        text = _text(query)
        if not text:
            issues.add("query with empty text", "pool skipped", where=where, example=qid)
            continue
        pool, relevance = _read_candidates(record.get("candidates"), qid, where, docs, issues)
        if not any(r > 0 for r in relevance.values()):
            issues.add("pool has no relevant candidate", "query not evaluated", where=where, example=qid)
            continue
        queries[qid] = text
        pools[qid] = pool
        qrels[qid] = relevance
        domains[qid] = domain_of(record.get("domain"))
    if not queries:
        raise BenchmarkError(f"pools file {path}: no usable query (see: {[i.message() for i in issues]})")
    used = {d for pool in pools.values() for d in pool}
    return PoolBenchmark(source=str(path), queries=queries, pools=pools,
                         docs={d: t for d, t in docs.items() if d in used}, qrels=qrels, domains=domains, issues=issues,
                         name=path.stem)


def _read_candidates(candidates: Any, qid: str, where: str, docs: dict[str, str],
                     issues: IssueLog) -> tuple[list[str], dict[str, int]]:
    """One pool's candidate ids (file order) and relevance; bad candidates are counted."""
    pool: list[str] = []
    relevance: dict[str, int] = {}
    if not isinstance(candidates, list):
        issues.add("pool without a candidates list", "pool skipped", where=where, example=qid)
        return pool, relevance
    for i, cand in enumerate(candidates):
        path = f"{where} candidates[{i}]"
        cid = id_value(cand.get("id") or cand.get("doc_id")) if isinstance(cand, dict) else None
        if not cid:
            issues.add("candidate without id (or not a string / integer)", "candidate skipped", where=path,
                       example=qid)
            continue
        text = _text(cand.get("text") if "text" in cand else cand)
        rel = _relevance(cand)
        if cid in relevance:
            issues.add("duplicate candidate in a pool", "later occurrence skipped", where=path, example=cid)
        elif not text:
            issues.add("candidate with empty text", "candidate skipped", where=path, example=cid)
        elif rel is None:
            raw = cand.get("relevance", cand.get("score"))
            issues.add(f"candidate relevance is {relevance_problem(raw)}", "candidate skipped", where=path, example=cid)
        else:
            if cid in docs and docs[cid] != text:
                issues.add("candidate id with different texts in different pools", "first text used",
                           where=path, example=cid)
            docs.setdefault(cid, text)
            pool.append(cid)
            relevance[cid] = rel
    if qid in relevance:
        issues.add("query listed among its own candidates", "never ranked (self-retrieval excluded)",
                   where=where, example=qid)
        del relevance[qid]
        pool.remove(qid)
    return pool, relevance
