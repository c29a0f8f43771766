"""What a running service allows: sizes, time, keys, CORS."""

from __future__ import annotations

from dataclasses import dataclass

MB = 1 << 20


@dataclass(frozen=True)
class ServerSettings:
    """Limits and safety switches of `create_app` (the CLI's `sciembed serve` flags)."""

    max_body_bytes: int = 20 * MB  # JSON bodies and uploads alike; larger requests get 413
    max_batch: int = 1000  # papers in one POST /papers
    max_k: int = 100  # larger k is clamped (the response says so)
    max_offset: int = 10_000
    timeout_s: float = 30.0  # a search or write that takes longer answers 503
    api_key: str | None = None  # required on write endpoints when set
    protect_reads: bool = False  # with api_key: required on every endpoint but /health and the page
    cors_origins: tuple[str, ...] = ()  # empty: no CORS headers (browsers block other origins)
