"""The tuning of `sciembed index serve` that a deployment sets once: `-c serve.yaml` and `--set KEY=VALUE`.

The keys are the old flags' names (`--max-k 50` is `--set max_k=50`); the flags a
person chooses per start (host, port, keys, hosts, CORS, the model) stay flags.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from sciembed.cli.config_sets import SetsConfig
from sciembed.errors import SciembedInputError


class ServeConfigError(SciembedInputError, ValueError):
    """A serve config file or --set that does not validate."""


class ServeTuning(SetsConfig):
    """Limits, threads and batching of a running server."""

    max_body_mb: float = Field(20.0, ge=0.001, description="largest request body (413 above)")
    max_k: int = Field(100, ge=1, description="larger k is clamped")
    timeout: float = Field(30.0, ge=0.1, description="seconds before a search answers 503")
    faiss_threads: int = Field(1, ge=1, description="faiss threads per search")
    encode_threads: int = Field(0, ge=0, description="encoder threads (0: one per core)")
    auto_compact: float = Field(0.0, ge=0.0, le=1.0, description="compact once this share of rows is hidden "
                                                                "(0: never; POST /compact)")
    batch_wait_ms: float = Field(2.0, ge=0.0, description="longest wait to gather an encode batch")
    max_queue: int = Field(512, ge=1, description="texts waiting to be encoded before searches get 503")
    query_cache: int = Field(2048, ge=0, description="query vectors kept (LRU; 0: none)")
    write_encoder: Literal["separate", "shared"] = Field(
        "separate", description="writes encode on a second model copy beside searches, or queue with them (shared)")
    searches_at_once: int = Field(0, ge=0, description="searches running at once, the others waiting (writes never "
                                                       "do): faster adds, fewer searches/s (0: no limit)")


TUNING_HELP = ServeTuning.help_text()


def serve_tuning(config: Path | None, sets: list[str]) -> ServeTuning:
    """`config`'s keys, then `sets`' (``key=value``, read as YAML), validated by `ServeTuning`."""
    return ServeTuning.read(config, sets, ServeConfigError, "serve config")
