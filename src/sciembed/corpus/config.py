"""Funnel configuration: one pydantic model, loadable from YAML, overridden by CLI flags.

Stages 3 (edges whose endpoints survive) and 4 (bidirectional dedup, self-citation removal) have no switch: a pair
needs two surviving, distinct endpoints and the `paper_a < paper_b` layout is itself the dedup.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sciembed.errors import SciembedInputError
from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model


class ConfigError(SciembedInputError, ValueError):
    """A funnel configuration file or override is invalid."""


SplitSize = int | float


class FunnelConfig(BaseModel):
    """Every knob of `sciembed corpus build`; defaults reproduce the S2Full funnel."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    venue_filter: bool = Field(True, description="stage 1: drop papers without a venue")
    field_filter: bool = Field(True, description="stage 2: drop papers without a primary field of study")
    degree_filter: bool = Field(True, description="stage 5: drop papers in more than max_degree pairs")
    max_degree: int = Field(200, ge=1)
    text_filter: bool = Field(True, description="stage 6: drop papers with a short or thin body")
    min_body_chars: int = Field(3000, ge=0)
    min_body_sections: int = Field(2, ge=0)
    domain_cap_filter: bool = Field(True, description="stage 7: keep at most domain_cap pairs per domain")
    domain_cap: int = Field(1_000_000, ge=1)
    seed: int = 0
    # S2Full's test split: 63,095 of about 2.6M papers after the funnel (~2.4%)
    test_size: SplitSize = Field(0.024, description="fraction (0 < x < 1) of pair papers, or a paper count")
    val_size: SplitSize = Field(0.1, description="fraction (0 < x < 1) of pair papers, or a paper count")
    # 2.4% of a few thousand papers holds a few dozen anchor queries, too few for a paired test: the test split
    # grows until it has min_test_anchors (splits.py); on S2ORC-sized corpora this never applies.
    min_test_anchors: int = Field(200, ge=0, description="with a fractional test_size: grow the test split to at "
                                                         "least this many anchor queries (0: off)")
    strict_edges: bool = Field(False, description="stop at the first malformed edge-file line instead of counting")
    threads: int | None = Field(None, ge=1, description="DuckDB threads (default: all cores)")
    memory_limit: str = Field("2GB", description="DuckDB memory limit; larger work spills to temp_dir")
    temp_dir: Path | None = Field(None, description="DuckDB spill directory (default: inside the output dir)")

    @field_validator("test_size", "val_size")
    @classmethod
    def _valid_size(cls, value: SplitSize) -> SplitSize:
        if isinstance(value, bool):
            raise ValueError("must be a fraction or a count, not a boolean")
        if isinstance(value, float) and not 0.0 <= value < 1.0:
            raise ValueError(f"a fraction must be in [0, 1); got {value} (give an integer for a paper count)")
        if isinstance(value, int) and value < 0:
            raise ValueError(f"a paper count must be >= 0; got {value}")
        return value

    def duckdb_threads(self) -> int:
        return self.threads or os.cpu_count() or 1

    @classmethod
    def from_yaml(cls, path: str | Path) -> FunnelConfig:
        """Load a config file; unknown keys and bad values are errors naming the file."""
        return cls.build(read_yaml_mapping(path, ConfigError, "funnel config"), source=str(path))

    @classmethod
    def build(cls, data: dict[str, Any], source: str = "config") -> FunnelConfig:
        return validate_model(cls, data, source, ConfigError, "invalid setting(s)")

    def override(self, **changes: Any) -> FunnelConfig:
        """A copy with the given non-None settings replaced (CLI flags), validated again."""
        data = self.model_dump()
        data.update({k: v for k, v in changes.items() if v is not None})
        return self.build(data, source="command line")
