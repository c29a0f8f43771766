"""Every benchmark kind by name: one loader each (a function of this package), listed in one table, and
`BenchmarkEntry`: one benchmark as a suite names it (a kind, a path, and the options that kind reads).

`sciembed bench` and `sciembed eval` both load benchmarks here, so both score every kind the same way. An option
a kind does not read is an error (`check_options`). To add a kind: a function ``load(entry, context)``
returning a `contract.BenchmarkSpec`, and one row in `BENCHMARKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sciembed.evaluation.benchmarks import beir, paper_to_paper, pools, scitldr, semantic
from sciembed.evaluation.benchmarks.scenarios import load_citation, load_sections
from sciembed.evaluation.issues import BenchmarkError

COMMON_FIELDS = frozenset({"name", "kind", "path", "optional"})


class BenchmarkEntry(BaseModel):
    """One benchmark of a suite; every option is optional, and one its kind does not read is an error."""

    model_config = ConfigDict(extra="forbid")

    name: str
    kind: str  # a name in `registry.BENCHMARKS`
    path: str
    optional: bool = False  # a missing optional benchmark is reported and the rest runs
    split: str = "test"  # citation / section_retrieval / paper_to_paper: corpus split; beir: qrels split
    relevant_min: int = Field(1, ge=1)  # beir / pools: the lowest grade that counts as relevant
    scenarios: list[str] = Field(default_factory=lambda: ["ta_ta", "body_ta", "body_body"])  # citation
    body_modes: list[str] = Field(default_factory=lambda: ["windowed"])  # citation
    query_mode: str | None = None  # citation: anchors | linked; csfcube: abstract | facet
    tasks: list[str] | None = None  # scirepeval: a subset of task names
    s2and_results: str | None = None  # scirepeval: S2AND's pipeline's experiment folder (seed_<n>/metrics/…)
    seed: int = 0  # citation: paper log; triplets: geometry sample; section_retrieval / semantic: the sample
    sample: int | None = Field(None, ge=1)  # section_retrieval: papers drawn; semantic: papers (default 6000)
    section_title: bool = True  # section_retrieval: section texts start with the paper title
    queries_file: str | None = None  # semantic: queries JSONL; paper_to_paper: query paper ids
    qrels_file: str | None = None  # paper_to_paper: TREC qrels over the corpus' paper ids
    exclude: str | None = None  # semantic: paper ids (file or corpus dir) left out of the sample
    summaries_file: str | None = None  # semantic: held-out summaries JSONL -> SemCSE's generalisation check (§5.1)
    datasets: list[str] | None = None  # semantic on a SciRepEval release root: the paper's construction
    geometry: bool = False  # citation: alignment, uniformity and the spectrum of a dense model's vectors
    window_tokens: int | None = Field(None, ge=1)  # citation / section_retrieval: token budget of body windows
    min_gold: int = Field(1, ge=1)  # paper_to_paper: query papers with at least this many gold papers
    config: str | None = None  # paper_to_paper / scifullbench: configs/prism-*.yaml
    llm_queries: str | None = None  # paper_to_paper / scifullbench: LLM aspect queries for prism_llm
    methods: list[str] | None = None  # paper_to_paper / scifullbench: methods (default: the config's)
    fusion: str | None = None  # paper_to_paper: fusion.json for method `fused` (from tune_fusion)
    tune_fusion: bool = False  # paper_to_paper on an ingested collection: tune `fused` on val, report test
    val_share: float = Field(0.3, gt=0, lt=1)  # paper_to_paper on an ingested collection: val query share
    # paper_to_paper on an ingested collection: a built corpus whose splits assign the query papers (its val ->
    # val, its test -> test; its train papers are never queries), so a model trained on that corpus's train
    # split is scored on papers whose links it never saw; instead of seed + val_share
    query_splits: str | None = None

    @field_validator("kind")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in BENCHMARKS:
            raise ValueError(f"unknown benchmark kind {value!r}; expected one of {', '.join(BENCHMARKS)}")
        return value

    def resolved_path(self) -> Path:
        return Path(self.path).expanduser()


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


def _csfcube(entry: BenchmarkEntry, context: LoadContext) -> Any:
    """kind ``csfcube``: CSFCube, queries as whole abstracts or as facets (``query_mode``)."""
    from sciembed.evaluation.csfcube import QUERY_MODES, load_csfcube

    mode = entry.query_mode or "abstract"
    if mode not in QUERY_MODES:
        raise BenchmarkError(f"benchmark {entry.name}: query_mode {mode!r}; csfcube takes {', '.join(QUERY_MODES)}")
    return load_csfcube(entry.resolved_path(), mode)


def _scirepeval(entry: BenchmarkEntry, context: LoadContext) -> Any:
    """kind ``scirepeval``: SciRepEval's tasks (a subset with ``tasks``); ``s2and_results``: S2AND's own
    pipeline's experiment folder for the model, whose B³ F1 replaces the embedding-only S2AND figure in the
    averages."""
    from sciembed.evaluation.scirepeval import load_scirepeval

    return load_scirepeval(entry.resolved_path(), entry.tasks, s2and_results=entry.s2and_results)


def _triplets(entry: BenchmarkEntry, context: LoadContext) -> Any:
    """kind ``triplets``: (query, positive, negative) triplets."""
    from sciembed.evaluation.triplets import load_triplets

    return load_triplets(entry.resolved_path(), seed=entry.seed)


def _kind(name: str, description: str, load: Callable, options: tuple[str, ...], headline: str) -> BenchmarkKind:
    return BenchmarkKind(name, description, load, frozenset(options), headline)


BENCHMARKS: dict[str, BenchmarkKind] = {
    k.name: k
    for k in (
        _kind("citation", "citation retrieval on a built corpus (TA/body scenarios, S2Full)", load_citation,
              ("split", "scenarios", "body_modes", "seed", "query_mode", "geometry", "window_tokens"), "ndcg@10"),
        _kind("beir", "a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)", beir.load,
              ("split", "relevant_min"), "ndcg@10"),
        _kind("pools", "re-ranking pools JSONL (each query with its own candidates)", pools.load, ("relevant_min",),
              "ndcg@10"),
        _kind("scitldr", "SciTLDR: tldr2paper (every TLDR), tldr2paper_author, title2abstract, half2half", scitldr.load,
              (), "mrr"),  # one relevant paper per query: MRR (and mean rank), what SemCSE reports
        _kind("scirepeval", "SciRepEval (proximity, search, classification and regression probes)", _scirepeval,
              ("tasks", "s2and_results"), "overall"),
        _kind("csfcube", "CSFCube faceted query-by-example (graded, relevant from grade 2)", _csfcube,
              ("query_mode",), "ndcg%20"),
        _kind("triplets", "(query, positive, negative) triplets: accuracy and geometry", _triplets, ("seed",),
              "accuracy"),
        _kind("section_retrieval", "same-paper section retrieval (S@1, S@3, MRR)", load_sections,
              ("split", "sample", "seed", "section_title", "window_tokens"), "hit_rate@1"),
        _kind("semantic", "SemCSE's semantic benchmark (mean rank; lower is better)", semantic.load,
              ("sample", "seed", "queries_file", "exclude", "summaries_file", "datasets"), "mean_rank"),
        _kind("paper_to_paper", "whole papers as queries: a corpus with directed citations, a qrels file or an "
                                "ingested collection (PRISM)",
              paper_to_paper.load, ("split", "min_gold", "queries_file", "qrels_file", "config", "llm_queries",
                               "methods", "seed", "fusion", "tune_fusion", "val_share", "query_splits"), "ndcg@10"),
        _kind("scifullbench", "SciFullBench release folder (paper-to-paper)", paper_to_paper.load_scifullbench,
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
