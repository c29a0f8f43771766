"""One benchmark as a suite names it: a kind from the registry, a path, and the options that kind reads.

Every option is optional; an option that the chosen kind does not read is an
error (`registry.check_options`), never silently ignored.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

COMMON_FIELDS = frozenset({"name", "kind", "path", "optional"})


class BenchmarkEntry(BaseModel):
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
        from sciembed.evaluation.benchmarks.registry import BENCHMARKS

        if value not in BENCHMARKS:
            raise ValueError(f"unknown benchmark kind {value!r}; expected one of {', '.join(BENCHMARKS)}")
        return value

    def resolved_path(self) -> Path:
        return Path(self.path).expanduser()


