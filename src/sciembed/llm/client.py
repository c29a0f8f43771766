"""One client for OpenAI-compatible endpoints: ``/v1/completions`` and ``/v1/chat/completions``.

Every request goes through the on-disk cache first; the misses are sent by a thread pool of
``concurrency`` workers, retried with exponential backoff on 429, 5xx, timeouts and connection
errors, and each reply is committed to the cache as soon as it arrives, so a run that fails half
way resumes where it stopped. httpx rather than a vendor SDK: the protocol is two POST routes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import httpx

from sciembed.llm.cache import CachedReply, CacheKey, LLMCache, canonical_json, sha256_text
from sciembed.llm.config import LLMConfig, Sampling
from sciembed.llm.errors import LLMAuthError, LLMCacheMissError, LLMError, LLMResponseError
from sciembed.llm.progress import token_progress
from sciembed.llm.prompts import PromptTemplate

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class LLMRequest:
    """One rendered call: template variables and the sample index (0..n-1 for n samples)."""

    values: dict[str, str]
    sample: int = 0


@dataclass(frozen=True)
class LLMReply:
    text: str
    finish_reason: str | None  # "length" means the reply hit max_tokens
    prompt_tokens: int | None
    completion_tokens: int | None
    cached: bool


@dataclass
class CallStats:
    requests: int = 0
    cached: int = 0
    called: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_tokens(self, reply: LLMReply) -> None:
        with self._lock:
            self.prompt_tokens += reply.prompt_tokens or 0
            self.completion_tokens += reply.completion_tokens or 0

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in ("requests", "cached", "called", "retries", "prompt_tokens",
                                               "completion_tokens")}


class LLMClient:
    """Cached, retrying, concurrent calls to one model. Use as a context manager or call close()."""

    def __init__(self, config: LLMConfig, *, progress: bool = True, sleep: Callable[[float], None] = time.sleep):
        if not config.model:
            raise LLMError("no LLM model given (--llm-model): the model name is part of every cache key")
        if config.cache_only and config.cache_path is None:
            raise LLMError("--llm-cache-only needs a cache file (--llm-cache)")
        self.config = config
        self.progress = progress
        self.stats = CallStats()
        self._sleep = sleep
        self._cache = LLMCache(config.cache_path) if config.cache_path else None
        self._http: httpx.Client | None = None

    # -- public API -------------------------------------------------------------------------------
    def complete(self, template: PromptTemplate, requests: Sequence[LLMRequest], sampling: Sampling,
                 description: str = "LLM completions") -> list[LLMReply]:
        """Continue ``template.render_prompt(values)`` for every request (``/v1/completions``)."""
        bodies = [{"prompt": template.render_prompt(r.values)} for r in requests]
        return self._run("completions", template, bodies, requests, sampling, description)

    def chat(self, template: PromptTemplate, requests: Sequence[LLMRequest], sampling: Sampling,
             description: str = "LLM chat") -> list[LLMReply]:
        """Answer ``template.render_messages(values)`` for every request (``/v1/chat/completions``)."""
        bodies = [{"messages": template.render_messages(r.values)} for r in requests]
        return self._run("chat", template, bodies, requests, sampling, description)

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------------------
    def _key(self, endpoint: str, template: PromptTemplate, body: dict[str, Any], sample: int,
             sampling: Sampling) -> CacheKey:
        return CacheKey(endpoint=endpoint, model=self.config.model or "", template=template.id,
                        template_sha256=template.sha256, params=canonical_json(sampling.key_fields()),
                        input_sha256=sha256_text(canonical_json(body)), sample=sample)

    def _run(self, endpoint: str, template: PromptTemplate, bodies: list[dict[str, Any]],
             requests: Sequence[LLMRequest], sampling: Sampling, description: str) -> list[LLMReply]:
        keys = [self._key(endpoint, template, b, r.sample, sampling) for b, r in zip(bodies, requests, strict=True)]
        replies: list[LLMReply | None] = [None] * len(keys)
        misses = []
        for i, key in enumerate(keys):
            hit = self._cache.get(key) if self._cache else None
            if hit is None:
                misses.append(i)
            else:
                replies[i] = LLMReply(hit.text, hit.finish_reason, hit.prompt_tokens, hit.completion_tokens, True)
        self.stats.requests += len(keys)
        self.stats.cached += len(keys) - len(misses)
        if misses and self.config.cache_only:
            raise LLMCacheMissError(
                f"--llm-cache-only: {len(misses)} of {len(keys)} requests ({template.id}, model "
                f"{self.config.model!r}) are not in {self.config.cache_path}; nothing was sent. Run once "
                "with an endpoint (--llm-base-url) to fill the cache, or check the model, prompt and parameters")
        if misses and not self.config.base_url:
            raise LLMError(f"{len(misses)} of {len(keys)} requests are not cached and no endpoint was given "
                           "(--llm-base-url)")
        if misses:
            self._call_all(endpoint, keys, bodies, requests, sampling, misses, replies, description)
        return [r for r in replies if r is not None]

    def _call_all(self, endpoint: str, keys: list[CacheKey], bodies: list[dict[str, Any]],
                  requests: Sequence[LLMRequest], sampling: Sampling, misses: list[int],
                  replies: list[LLMReply | None], description: str) -> None:
        url = self.config.endpoint_url("completions" if endpoint == "completions" else "chat/completions")
        with token_progress(f"{description} ({len(keys) - len(misses)} cached)", len(misses),
                            enabled=self.progress) as advance:
            def one(i: int) -> None:
                body = {"model": self.config.model, **bodies[i], **sampling.body_fields(requests[i].sample)}
                reply = self._post(url, endpoint, body)
                if self._cache is not None:
                    self._cache.put(keys[i], CachedReply(reply.text, reply.finish_reason, reply.prompt_tokens,
                                                         reply.completion_tokens))
                replies[i] = reply
                self.stats.add_tokens(reply)
                advance(1, (reply.prompt_tokens or 0) + (reply.completion_tokens or 0))

            pool = ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="llm")
            try:
                futures = [pool.submit(one, i) for i in misses]
                wait(futures, return_when=FIRST_EXCEPTION)
                failed = next((f for f in futures if f.done() and f.exception() is not None), None)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        self.stats.called += sum(r is not None and not r.cached for r in replies)
        if failed is not None:
            error = failed.exception()
            if not isinstance(error, LLMError):
                raise error
            cached = f"; {self.stats.called} new replies are saved in {self.config.cache_path}, a re-run resumes" \
                if self._cache is not None else ""
            raise type(error)(f"{error}{cached}") from error

    def _client(self) -> httpx.Client:
        if self._http is None:
            headers = {"Content-Type": "application/json"}
            key = self.config.api_key()
            if key:
                headers["Authorization"] = f"Bearer {key}"
            self._http = httpx.Client(timeout=self.config.timeout_s, headers=headers,
                                      limits=httpx.Limits(max_connections=self.config.concurrency))
        return self._http

    def _post(self, url: str, endpoint: str, body: dict[str, Any]) -> LLMReply:
        attempts = self.config.max_retries + 1
        last = ""
        for attempt in range(attempts):
            wait_s = self.config.backoff_s * 2 ** attempt
            try:
                response = self._client().post(url, json=body)
            except httpx.TimeoutException:
                last = f"timed out after {self.config.timeout_s:g} s"
            except httpx.TransportError as err:
                last = f"could not reach the endpoint ({type(err).__name__}: {err})"
            else:
                if response.status_code in (401, 403):
                    raise LLMAuthError(
                        f"{url} refused the request with HTTP {response.status_code}: check the API key in "
                        f"environment variable {self.config.api_key_env} "
                        f"({'set' if self.config.api_key() else 'not set'}) and the model name")
                if response.status_code < 400:
                    return _parse_reply(response, url, endpoint)
                last = f"HTTP {response.status_code}: {response.text[:300]!r}"
                if response.status_code not in _RETRY_STATUS:
                    raise LLMError(f"{url} answered {last}")
                retry_after = response.headers.get("retry-after", "")
                if retry_after.replace(".", "", 1).isdigit():
                    wait_s = max(wait_s, float(retry_after))
            if attempt + 1 < attempts:
                with self.stats._lock:
                    self.stats.retries += 1
                self._sleep(min(wait_s, self.config.max_backoff_s))
        raise LLMError(f"{url} failed after {attempts} attempts; last: {last}")


def _parse_reply(response: httpx.Response, url: str, endpoint: str) -> LLMReply:
    try:
        data = response.json()
    except ValueError as err:
        raise LLMResponseError(f"{url} answered HTTP {response.status_code} with invalid JSON: "
                               f"{response.text[:200]!r}") from err
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise LLMResponseError(f"{url} answered without choices: {response.text[:200]!r}")
    choice = choices[0]
    text = choice.get("text") if endpoint == "completions" else (choice.get("message") or {}).get("content")
    if text is not None and not isinstance(text, str):
        raise LLMResponseError(f"{url} answered a non-text choice: {response.text[:200]!r}")
    usage = data.get("usage") or {}
    return LLMReply(text=text or "", finish_reason=choice.get("finish_reason"),
                    prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
                    cached=False)
