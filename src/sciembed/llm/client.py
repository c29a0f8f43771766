"""One client for OpenAI-compatible endpoints: ``/v1/completions`` and ``/v1/chat/completions`` (docs/llm.md).

Cache misses are sent by a thread pool, retried with exponential backoff, and committed to the cache as they
arrive, so a run that fails half way resumes where it stopped. httpx rather than a vendor SDK: two POST routes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx

from sciembed.ioutil import deadline
from sciembed.ioutil.http_deadline import bounded_client, within
from sciembed.llm.cache import CachedReply, CacheKey, LLMCache, canonical_json, sha256_text
from sciembed.llm.config import LLMConfig, Sampling
from sciembed.llm.errors import LLMAuthError, LLMCacheMissError, LLMError, LLMResponseError
from sciembed.llm.prompts import PromptTemplate

T = TypeVar("T")
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
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}


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
                reply = self._post(url, body, lambda raw, status: _parse_reply(raw, status, url, endpoint))
                if self._cache is not None:
                    self._cache.put(keys[i], CachedReply(reply.text, reply.finish_reason, reply.prompt_tokens,
                                                         reply.completion_tokens))
                replies[i] = reply
                self.stats.add_tokens(reply)
                advance(1, (reply.prompt_tokens or 0) + (reply.completion_tokens or 0))

            error = run_in_pool(one, misses, self.config.concurrency, "llm")
        self.stats.called += sum(r is not None and not r.cached for r in replies)
        if error is not None:
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
            self._http = bounded_client(timeout=self.config.timeout_s, headers=headers,
                                        limits=httpx.Limits(max_connections=self.config.concurrency))
        return self._http

    def _post(self, url: str, body: dict[str, Any], parse: Callable[[bytes, int], T]) -> T:
        """POST `body` with retries; `parse(raw, status)` turns a successful reply into the result."""
        attempts = self.config.max_retries + 1
        last = ""
        for attempt in range(attempts):
            wait_s = self.config.backoff_s * 2 ** attempt
            deadline.check(f"the request to {url}")  # a caller's own budget (a server request) ends the retries
            try:
                status, headers, raw = self._exchange(url, body)
            except httpx.TimeoutException:
                last = f"timed out after {self.config.timeout_s:g} s"
            except httpx.TransportError as err:
                last = f"could not reach the endpoint ({type(err).__name__}: {err})"
            else:
                if status in (401, 403):
                    raise LLMAuthError(
                        f"{url} refused the request with HTTP {status}: check the API key in "
                        f"environment variable {self.config.api_key_env} "
                        f"({'set' if self.config.api_key() else 'not set'}) and the model name")
                if status < 400:
                    return parse(raw, status)
                last = f"HTTP {status}: {raw[:300].decode('utf-8', 'replace')!r}"
                if status not in _RETRY_STATUS:
                    raise LLMError(f"{url} answered {last}")
                retry_after = headers.get("retry-after", "")
                if retry_after.replace(".", "", 1).isdigit():
                    wait_s = max(wait_s, float(retry_after))
            if attempt + 1 < attempts:
                with self.stats._lock:
                    self.stats.retries += 1
                self._sleep(min(wait_s, self.config.max_backoff_s))
        raise LLMError(f"{url} failed after {attempts} attempts; last: {last}")

    def _exchange(self, url: str, body: dict[str, Any]) -> tuple[int, httpx.Headers, bytes]:
        """POST and read the reply within `timeout_s` in all and `max_reply_bytes` at most: httpx's timeout
        bounds each read, so an endpoint trickling bytes would hold a worker forever (`within`, `bounded_client`)."""
        limit, give_up = self.config.max_reply_bytes, time.monotonic() + self.config.timeout_s
        with within(self.config.timeout_s), self._client().stream("POST", url, json=body) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise LLMResponseError(f"{url} announced a reply of {int(declared):,} bytes; the limit is "
                                       f"{limit:,} bytes (LLMConfig.max_reply_bytes)")
            parts, size = [], 0
            for chunk in response.iter_bytes():  # decoded: a compressed reply counts as it expands
                size += len(chunk)
                if size > limit:
                    raise LLMResponseError(f"{url} sent a reply over {limit:,} bytes; refused")
                if time.monotonic() > give_up:
                    raise httpx.ReadTimeout(f"the reply took longer than {self.config.timeout_s:g} s")
                parts.append(chunk)
            return response.status_code, response.headers, b"".join(parts)


@contextmanager
def token_progress(description: str, total: int, *, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """Yields ``advance(requests, tokens)`` of a rich progress bar (stderr) that also shows the tokens used so far;
    draws nothing when disabled or when there is nothing to do."""
    if not enabled or total <= 0:
        yield lambda n, tokens: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from sciembed.ioutil.progress import make_progress

    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[tokens]:,} tokens"), TimeElapsedColumn(), TimeRemainingColumn())
    with make_progress(*columns, console=Console(stderr=True), transient=False) as progress:
        task = progress.add_task(description, total=total, tokens=0)
        tokens = 0
        lock = threading.Lock()  # advanced from the client's worker threads

        def advance(n: int, used: int) -> None:
            nonlocal tokens
            with lock:
                tokens += used
                progress.update(task, advance=n, tokens=tokens)

        yield advance


def run_in_pool(work: Callable[[int], None], items: list[int], workers: int, name: str) -> BaseException | None:
    """`work(i)` for every item on `workers` threads (a caller's deadline holds there too), stopped at the first
    failure, which is returned."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
    try:
        futures = [pool.submit(deadline.carried(work), i) for i in items]
        wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((f for f in futures if f.done() and f.exception() is not None), None)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return None if failed is None else failed.exception()


def token_count(value: Any) -> int | None:
    """A token count, or None when the server sent something else (usage is advisory metadata)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**62 else None


def reply_json(raw: bytes, status: int, url: str) -> tuple[Any, str]:
    """A reply body as JSON and its first 200 characters for messages; `LLMResponseError` when it is not JSON."""
    shown = raw[:200].decode("utf-8", "replace")
    try:
        return json.loads(raw), shown
    except (ValueError, UnicodeDecodeError) as err:
        raise LLMResponseError(f"{url} answered HTTP {status} with invalid JSON: {shown!r}") from err
    except RecursionError as err:
        raise LLMResponseError(f"{url} answered JSON nested too deeply to read: {shown!r}") from err


def _parse_reply(raw: bytes, status: int, url: str, endpoint: str) -> LLMReply:
    data, shown = reply_json(raw, status, url)
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise LLMResponseError(f"{url} answered without choices: {shown!r}")
    choice = choices[0]
    message = choice.get("message") if endpoint != "completions" else None
    text = choice.get("text") if endpoint == "completions" else (message if isinstance(message, dict) else {}).get(
        "content")
    if text is not None and not isinstance(text, str):
        raise LLMResponseError(f"{url} answered a non-text choice: {shown!r}")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choice.get("finish_reason")
    return LLMReply(text=text or "", finish_reason=finish if isinstance(finish, str) else None,
                    prompt_tokens=token_count(usage.get("prompt_tokens")),
                    completion_tokens=token_count(usage.get("completion_tokens")), cached=False)
