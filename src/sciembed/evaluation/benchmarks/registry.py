"""Every benchmark kind by name: one loader each (a module of this package), listed in one table.

`sciembed bench` (a suite of many) and `sciembed eval` (a suite of one) both
load benchmarks here, so both run every kind and score it the same way.
Each kind names the entry options it reads; any other option set on an
entry is an error (`check_options`). To add a kind: write its module with a
``load(entry, context)`` returning an object with the `contract.BenchmarkSpec`
methods, and add one row to `BENCHMARKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sciembed.evaluation.benchmarks import (
    beir,
    citation,
    csfcube,
    paper_to_paper,
    pools,
    scifullbench,
    scirepeval,
    scitldr,
    section_retrieval,
    semantic,
    triplets,
)
from sciembed.evaluation.benchmarks.entry import COMMON_FIELDS, BenchmarkEntry
from sciembed.evaluation.issues import BenchmarkError


@dataclass(frozen=True)
class LoadContext:
    """What a loader may need beyond its entry: a directory for derived files, the suite's model specs."""

    workdir: Path
    models: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkKind:
    """One benchmark kind: its loader, the entry options it reads, and the metric its paper reports first."""

    name: str
    description: str
    load: Callable[[BenchmarkEntry, LoadContext], Any]
    options: frozenset[str] = field(default_factory=frozenset)
    headline: str = "ndcg@10"


def _kind(name: str, description: str, module: Any, options: tuple[str, ...], headline: str) -> BenchmarkKind:
    return BenchmarkKind(name, description, module.load, frozenset(options), headline)


BENCHMARKS: dict[str, BenchmarkKind] = {
    k.name: k
    for k in (
        _kind("citation", "citation retrieval on a built corpus (TA/body scenarios, S2Full)", citation,
              ("split", "scenarios", "body_modes", "seed", "query_mode", "geometry", "window_tokens"), "ndcg@10"),
        _kind("beir", "a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)", beir,
              ("split", "relevant_min"), "ndcg@10"),
        _kind("pools", "re-ranking pools JSONL (each query with its own candidates)", pools, ("relevant_min",),
              "ndcg@10"),
        _kind("scitldr", "SciTLDR: tldr2paper (every TLDR), tldr2paper_author, title2abstract, half2half", scitldr,
              (), "mrr"),  # one relevant paper per query: MRR (and mean rank), what SemCSE reports
        _kind("scirepeval", "SciRepEval (proximity, search, classification and regression probes)", scirepeval,
              ("tasks", "s2and_results"), "overall"),
        _kind("csfcube", "CSFCube faceted query-by-example (graded, relevant from grade 2)", csfcube,
              ("query_mode",), "ndcg%20"),
        _kind("triplets", "(query, positive, negative) triplets: accuracy and geometry", triplets, ("seed",),
              "accuracy"),
        _kind("section_retrieval", "same-paper section retrieval (S@1, S@3, MRR)", section_retrieval,
              ("split", "sample", "seed", "section_title", "window_tokens"), "hit_rate@1"),
        _kind("semantic", "SemCSE's semantic benchmark (mean rank; lower is better)", semantic,
              ("sample", "seed", "queries_file", "exclude", "summaries_file", "datasets"), "mean_rank"),
        _kind("paper_to_paper", "whole papers as queries: a corpus with directed citations, a qrels file or an "
                                "ingested collection (PRISM)",
              paper_to_paper, ("split", "min_gold", "queries_file", "qrels_file", "config", "llm_queries",
                               "methods", "seed", "fusion", "tune_fusion", "val_share", "query_splits"), "ndcg@10"),
        _kind("scifullbench", "SciFullBench release folder (paper-to-paper)", scifullbench,
              ("config", "llm_queries", "methods"), "ndcg@10"),
    )
}
KIND_NAMES = tuple(BENCHMARKS)


def check_options(entry: BenchmarkEntry) -> None:
    """An option set on the entry that its kind does not read is an error, never silently ignored."""
    kind = BENCHMARKS[entry.kind]
    stray = sorted(entry.model_fields_set - COMMON_FIELDS - kind.options)
    if stray:
        reads = ", ".join(sorted(kind.options)) or "no options"
        raise BenchmarkError(f"benchmark {entry.name}: option(s) {', '.join(stray)} do not apply to kind "
                             f"{entry.kind} (it reads: {reads})")


def load_benchmark(entry: BenchmarkEntry, context: LoadContext | Path) -> Any:
    """The contract object for one entry; `BenchmarkError` / `FileNotFoundError` when it cannot be read."""
    if not isinstance(context, LoadContext):
        context = LoadContext(Path(context))
    check_options(entry)
    path = entry.resolved_path()
    if not path.exists():
        raise BenchmarkError(f"benchmark {entry.name}: {entry.kind} path {path} does not exist")
    kind = BENCHMARKS[entry.kind]
    bench = kind.load(entry, context)
    bench.name = entry.name
    if hasattr(bench, "primary"):  # ranking adapters score each task by the kind's headline metric, shown first
        bench.primary = kind.headline
    return bench
