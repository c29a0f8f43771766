"""The paper-to-paper run's configuration: methods, metrics, and `P2PConfig` (``configs/prism-*.yaml``).

`p2p_run` lists what each method does; every field of `P2PConfig` can be set from the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from sciembed.search.prism.aspects import AGENT_ASPECTS

# every ranking holds `top_k` (300) papers: MAP is over those, so it is named with that cut (never plain "map",
# which means the full candidate list elsewhere; `contract.RANKING_METRICS`)
P2P_METRICS = ("recall@50", "recall@100", "recall@200", "recall@300", "mrr@50", "ndcg@10", "ndcg@100", "map@300")
P2P_LABELS = {"recall@50": "R@50", "recall@100": "R@100", "recall@200": "R@200", "recall@300": "R@300",
              "mrr@50": "MRR@50", "ndcg@10": "NDCG@10", "ndcg@100": "NDCG@100", "map@300": "MAP@300"}
METHODS = ("a2a", "f2f", "a2c", "f2c", "naive_sum", "max_sim", "late", "late_interaction", "prism_extractive",
           "prism_extractive_paper", "prism_llm", "bm25", "hybrid")
ALL_METHODS = (*METHODS, "max_sim_prism_code", "fused")
OFFLINE_METHODS = tuple(m for m in METHODS if m != "prism_llm")  # the default: prism_llm needs LLM queries
PRISM_VIEWS = ("pieces", "segments")
PAPER_QUERY_WORDS = 250  # PRISM's extractive query budget (words), used by prism_extractive_paper
ON_SEGMENTS = {"a2c", "f2c", "naive_sum", "max_sim", "max_sim_prism_code", "prism_extractive",
               "prism_llm"}  # methods that rank candidate segments (encoder-sized pieces or PRISM's segments)
FUSIONS = ("rrf", "naive", "max_sim")
_CHOICES = {"prism_views": PRISM_VIEWS, "fusion": FUSIONS}  # string fields that take one of a fixed set


class P2PConfig(BaseModel):
    """One paper-to-paper evaluation (``configs/prism-*.yaml``); every field can be set from the CLI."""

    model_config = ConfigDict(extra="forbid")

    name: str = "prism"
    methods: list[str] = Field(default_factory=lambda: list(OFFLINE_METHODS))  # + prism_llm with queries_file
    top_k: int = Field(300, ge=1)
    rrf_k: int = Field(60, ge=0)
    dedupe: bool = True  # a paper's best rank per aspect list; False counts every segment hit (PRISM's)
    aspects: list[str] = Field(default_factory=lambda: [a.value for a in AGENT_ASPECTS])
    use_abstract: bool = True  # PRISM's fourth list: the abstract query on the abstract index
    fusion: str = "rrf"  # how PRISM's lists/queries combine: rrf | naive | max_sim
    segment_tokens: int = Field(3000, ge=1)
    abstract_format: str = "ta"  # ta (sciembed) | prism ("Title: …\nAbstract: …")
    query_words: int | None = Field(None, ge=1)  # extractive aspect query words (None: fit the encoder)
    prism_views: str = "pieces"  # candidate segments: pieces (fit the encoder) | segments (PRISM's)
    piece_tokens: int | None = Field(None, ge=8)  # piece budget (None: the encoder's max_seq_length − 2)
    pieces_per_section: int | None = Field(None, ge=1)  # keep each section's first pieces only (None: all)
    piece_sections: int | None = Field(None, ge=1)  # sections per paper read, spread over it (None: all)
    fuse_runs: list[str] = Field(default_factory=lambda: ["bm25", "a2a", "late"])  # what `fused` fuses
    queries_file: Path | None = None  # LLM aspect queries for prism_llm (`sciembed prism queries`)
    hybrid_dense: str = "a2a"
    batch_size: int | None = Field(None, ge=1)  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)

    @field_validator("methods")
    @classmethod
    def _methods(cls, value: list[str]) -> list[str]:
        unknown = [m for m in value if m not in ALL_METHODS]
        if unknown:
            raise ValueError(f"unknown methods {unknown}; expected some of {', '.join(ALL_METHODS)}")
        return value

    @field_validator(*_CHOICES)
    @classmethod
    def _one_of_choices(cls, value: str, info: ValidationInfo) -> str:
        choices = _CHOICES[info.field_name]
        if value not in choices:
            raise ValueError(f"unknown {info.field_name} {value!r}; expected one of {', '.join(choices)}")
        return value

    @field_validator("fuse_runs")
    @classmethod
    def _fuse_runs(cls, value: list[str]) -> list[str]:
        bad = [m for m in value if m not in ALL_METHODS or m in ("fused", "prism_llm")]
        if bad or len(value) < 2:
            raise ValueError(f"fuse_runs needs two or more of {', '.join(METHODS[:-1])}; got {value}")
        return value

    @field_validator("aspects")
    @classmethod
    def _aspects(cls, value: list[str]) -> list[str]:
        known = {a.value for a in AGENT_ASPECTS}
        if [a for a in value if a not in known]:
            raise ValueError(f"unknown aspects {value}; expected some of {', '.join(sorted(known))}")
        return value


def load_p2p_config(path: str | Path | None, **overrides: Any) -> P2PConfig:
    """A YAML config (or the defaults) with CLI overrides; unknown keys are an error."""
    import yaml

    data: dict[str, Any] = {}
    if path is not None:
        loaded = yaml.safe_load(Path(path).read_text())
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: expected a mapping of config fields")
        data = loaded.get("paper_to_paper", loaded)
    data.update({k: v for k, v in overrides.items() if v is not None})
    if "methods" not in data and data.get("queries_file") is not None:
        data["methods"] = list(METHODS)  # LLM queries given: every method, prism_llm included
    return P2PConfig(**data)


