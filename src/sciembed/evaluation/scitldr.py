"""Real-text matching benchmarks from SciTLDR, written as BEIR folders.

SciTLDR (Cachola et al., 2020; Apache-2.0): real abstracts with human one-sentence TLDRs. Its tasks test whether a
model puts the parts of one real paper together: ``tldr2paper`` (every TLDR → its ``title. abstract``),
``tldr2paper_author`` (only the first, the author's), ``title2abstract`` and ``half2half`` (`text_pairs`). All
usable papers are candidates; the gold is the query's own paper. Query ids are ``q:<paper_id>[:<i>]`` so BEIR's
"a document whose id equals the query id is never retrieved" cannot hide the answer. Records that cannot serve a
task are counted per reason in ``manifest.json``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sciembed.evaluation.text_pairs import HALF2HALF, TITLE2ABSTRACT, TOO_SHORT, half2half, title2abstract
from sciembed.ioutil.atomic import write_jsonl_atomic, write_text_atomic
from sciembed.papers.scitldr import SciTldrError, SciTldrPaper, read_scitldr

TASKS = ("tldr2paper", "tldr2paper_author", TITLE2ABSTRACT, HALF2HALF)
TLDR_TASKS = ("tldr2paper", "tldr2paper_author")
QUERY_PREFIX = "q:"


def task_pairs(papers: list[SciTldrPaper], task: str) -> tuple[dict[str, str], dict[str, str], Counter]:
    """(queries by query key, documents by paper id, skipped papers by reason) for one task; a query key is the
    paper id, or ``<paper id>:<i>`` for the i-th of a paper's TLDRs in ``tldr2paper``."""
    if task not in TASKS:
        raise ValueError(f"unknown SciTLDR task {task!r}; expected one of {', '.join(TASKS)}")
    queries: dict[str, str] = {}
    docs: dict[str, str] = {}
    skipped: Counter = Counter()
    for p in papers:
        if task in TLDR_TASKS:
            tldrs = [t for t in p.tldrs if t.strip()]
            if not tldrs:
                skipped["no TLDR"] += 1
                continue
            docs[p.paper_id] = f"{p.title.rstrip('.')}. {p.abstract}"
            if task == "tldr2paper_author":
                queries[p.paper_id] = tldrs[0]
            else:
                queries.update({f"{p.paper_id}:{i}": t for i, t in enumerate(tldrs)})
        elif task == TITLE2ABSTRACT:
            queries[p.paper_id], docs[p.paper_id] = title2abstract(p.title, p.abstract)
        else:
            pair = half2half(p.sentences)
            if pair is None:
                skipped[TOO_SHORT] += 1
                continue
            queries[p.paper_id], docs[p.paper_id] = pair
    return queries, docs, skipped


def _paper_of(key: str, task: str) -> str:
    return key.rsplit(":", 1)[0] if task == "tldr2paper" else key


def write_scitldr_beir(source: str | Path, out: str | Path, tasks: tuple[str, ...] = TASKS) -> dict[str, Any]:
    """Write one BEIR folder per task under `out` (``out/<task>/``) and ``out/manifest.json``."""
    read = read_scitldr(source)
    if not read.papers:
        raise SciTldrError(f"{source}: no usable SciTLDR record among {read.read} read ({dict(read.rejected)})")
    out = Path(out)
    manifest: dict[str, Any] = {"source": str(Path(source).resolve()), "read": read.read, "accepted": len(read.papers),
                                "rejected": dict(read.rejected), "reject_examples": read.examples, "tasks": {}}
    for task in tasks:
        queries, docs, skipped = task_pairs(read.papers, task)
        folder = out / task
        (folder / "qrels").mkdir(parents=True, exist_ok=True)
        write_jsonl_atomic(folder / "corpus.jsonl", ({"_id": p, "title": "", "text": t} for p, t in docs.items()))
        write_jsonl_atomic(folder / "queries.jsonl", ({"_id": QUERY_PREFIX + p, "text": q} for p, q in queries.items()))
        qrels = "".join(f"{QUERY_PREFIX}{key}\t{_paper_of(key, task)}\t1\n" for key in queries)
        write_text_atomic(folder / "qrels" / "test.tsv", "query-id\tcorpus-id\tscore\n" + qrels)
        manifest["tasks"][task] = {"queries": len(queries), "papers": len({_paper_of(q, task) for q in queries}),
                                   "documents": len(docs), "skipped": dict(skipped)}
    write_text_atomic(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest
