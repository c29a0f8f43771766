"""`sciembed index search --server URL`: ask a running `sciembed index serve` (its model already loaded) instead of
loading the index and the model in this process. Standard library only, so the command starts fast."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from sciembed.errors import SciembedInputError

Ranking = list[tuple[str, float]]
MAX_REPLY_BYTES = 16 * 2**20  # a search answer is kilobytes; anything past this is not one


class ServerError(SciembedInputError, RuntimeError):
    """The server could not be reached or refused the request (its message included)."""


def search_server(url: str, *, texts: list[tuple[str, str]] | None = None, papers: list[str] | None = None,
                  k: int = 10, api_key_env: str = "SCIEMBED_API_KEY", timeout_s: float = 60.0,
                  ) -> tuple[list[tuple[str, Ranking]], dict[str, str]]:
    """(query id, ranking) per query text or paper id, and titles, from ``POST {url}/search``."""
    queries = [(q, {"query": t}) for q, t in texts or []] + [(p, {"paper_id": p}) for p in papers or []]
    headers = {"Content-Type": "application/json"}
    if os.environ.get(api_key_env):
        headers["X-API-Key"] = os.environ[api_key_env]
    results: list[tuple[str, Ranking]] = []
    titles: dict[str, str] = {}
    for qid, body in queries:
        request = urllib.request.Request(url.rstrip("/") + "/search", data=json.dumps({**body, "k": k}).encode(),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                raw = response.read(MAX_REPLY_BYTES + 1)
        except urllib.error.HTTPError as err:
            detail = err.read(4096).decode("utf-8", "replace")[:500]
            raise ServerError(f"{url}: HTTP {err.code} for {qid!r}: {detail}") from err
        except (urllib.error.URLError, OSError) as err:
            raise ServerError(f"{url}: no answer ({err}); is `sciembed index serve` running there?") from err
        if len(raw) > MAX_REPLY_BYTES:
            raise ServerError(f"{url}: the answer for {qid!r} is over {MAX_REPLY_BYTES:,} bytes; not read")
        try:
            answer = json.loads(raw)
        except ValueError as err:
            raise ServerError(f"{url}: the answer for {qid!r} is not JSON ({err}); "
                              "is `sciembed index serve` running there?") from err
        hits = answer.get("hits", [])
        results.append((qid, [(h["id"], float(h["score"])) for h in hits]))
        titles.update({h["id"]: h.get("title", "") for h in hits})
    return results, titles
