"""The service's write encoder: a second instance of the collection's encoder, so writes never wait for searches.

One copy cannot serve two threads (HF fast tokenizers raise "Already borrowed"); see `models/batching.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def second_instance(encoder: Any, manifest: dict[str, Any]) -> Any | None:
    """`encoder` loaded again from its `EncoderSpec` (same fingerprint, or refused by `MicroBatcher`); None for an
    encoder that cannot be loaded again (one held in memory, a test double): writes then share the search queue."""
    if not callable(getattr(encoder, "describe", None)) or not getattr(encoder, "source", None):
        return None
    from sciembed.models.spec import spec_of

    return spec_of(encoder).load(cache_dir=Path(manifest["cache_dir"]) if manifest.get("cache_dir") else None,
                                 trust_remote_code=bool(getattr(encoder, "trust_remote_code", False)))
