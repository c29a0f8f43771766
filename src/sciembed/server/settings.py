"""What a running service allows: sizes, time, keys, hosts, CORS, the encode queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MB = 1 << 20
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True)
class ServerSettings:
    """Limits and safety switches of `create_app` (the CLI's `sciembed index serve` flags)."""

    max_body_bytes: int = 20 * MB  # JSON bodies and uploads alike; larger requests get 413
    max_upload_expanded_bytes: int = 100 * MB  # a gzip upload expanding past this gets 413
    max_batch: int = 1000  # papers in one POST /papers or /papers/file
    max_k: int = 100  # larger k is clamped (the response says so)
    max_offset: int = 10_000
    timeout_s: float = 30.0  # a search that takes longer answers 503, and its work stops at the next step
    api_key: str | None = None  # required on write endpoints when set
    protect_reads: bool = False  # with api_key: required on every endpoint but /health and the page
    allow_open_writes: bool = False  # without api_key: writes are refused (403) unless this is set
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS  # Host header values answered (DNS rebinding); "*": any
    cors_origins: tuple[str, ...] = ()  # empty: no CORS headers (browsers block other origins)
    max_batch_texts: int = 32  # the encoder's micro-batch: texts encoded in one call
    batch_wait_ms: float = 2.0  # how long the encoder waits to gather a batch
    search_wait_ms: float = 1.0  # how long the index search waits to gather concurrent queries
    max_queue: int = 512  # texts waiting to be encoded before searches are shed with 503 + Retry-After
    query_cache: int = 2048  # query vectors kept (LRU); 0: none
    write_encoder: Literal["separate", "shared"] = "separate"  # writes on a second model copy, or queued with searches
    searches_at_once: int = 0  # searches running in threads at once, the others waiting their turn (0: no limit)
