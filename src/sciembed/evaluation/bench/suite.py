"""The `sciembed bench` suite file: models × benchmarks, as a pydantic model loaded from YAML.

Relative paths are resolved against the directory `sciembed bench` runs in
(the repository root: ``../shared/data/...`` is the shared data next to it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from sciembed.errors import SciembedInputError
from sciembed.evaluation.benchmarks.registry import BenchmarkEntry
from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model


class SuiteError(SciembedInputError, ValueError):
    """A suite file that cannot be used (one message: file, field, what was expected)."""


class ModelEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    model: str  # path, hub id, "minilm", "bm25", or a recipe's run directory
    # None: the model card's metric, else the papers' for SPECTER / SciNCL / SPECTER2 ("l2", raw vectors), else cosine
    distance: Literal["cosine", "l2", "dot"] | None = None
    max_seq_length: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)  # passed to load_encoder as keyword arguments
    bm25_pool_statistics: Literal["collection", "pool"] = "collection"
    window_tokens: int | None = Field(None, ge=1)  # body windows' budget; None: the model card's, else max_seq_length
    reference: str | None = None  # also tested against this model (a study's arm against the arm it ablates)


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    out: str = "runs/bench"
    cache: str | None = None  # shared embedding cache; default <out>/embedding-cache
    baseline: str | None = None  # model name the others are tested against; default the first model
    batch_size: int | None = Field(None, ge=1)  # None: the encoder chooses (GPU memory on CUDA, 32 on CPU)
    run_depth: int = Field(0, ge=0)  # TREC run files runs/<model>/<benchmark>/<task>.run cut at this rank (0: none)
    significance_test: Literal["student", "fisher"] = "student"
    max_p: float = 0.05
    significance_metric: str | None = None  # the metric tested per task; None: each task's primary
    models: list[ModelEntry]
    benchmarks: list[BenchmarkEntry]

    @field_validator("models", "benchmarks")
    @classmethod
    def _unique(cls, value: list[Any]) -> list[Any]:
        names = [v.name for v in value]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate names {dupes}")
        if not value:
            raise ValueError("at least one entry is needed")
        return value

    @model_validator(mode="after")
    def _references(self) -> Suite:
        names = {m.name for m in self.models}
        unknown = sorted(f"{m.name} -> {m.reference}" for m in self.models if m.reference and m.reference not in names)
        if unknown:
            raise ValueError(f"references to no model: {unknown}")
        return self

    def baseline_name(self) -> str:
        if self.baseline is None:
            return self.models[0].name
        if self.baseline not in {m.name for m in self.models}:
            raise SuiteError(f"baseline {self.baseline!r} is not one of the models ({[m.name for m in self.models]})")
        return self.baseline


def load_suite(path: Path | str, overrides: dict[str, Any] | None = None) -> Suite:
    data = read_yaml_mapping(path, SuiteError, "suite file")
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return validate_model(Suite, data, str(path), SuiteError)
