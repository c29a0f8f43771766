"""Hostile HTTP clients against the service: the readers' mutated inputs sent as uploads, JSON papers and queries.

`ServiceProbe` builds a small collection (hostile.own_record papers, a
hashing encoder: no model needed), serves it in-process through FastAPI's test
client, and sends each probe; an answer is fine when it is a JSON error or a
result, never a 500, a non-JSON body, a missing security header, or slower
than `slow_s`. `benchmarks/fuzz.py --service N` runs N seeded probes plus the
fixed ones of issue 23.
"""

from __future__ import annotations

import gzip
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from fakes.fuzzing import driver, hostile

KEY = "fuzz-key"


class ServiceProbe:
    """A served 12-paper collection and a client; `send` checks one request's answer."""

    def __init__(self, root: Path, slow_s: float = 10.0) -> None:
        from fastapi.testclient import TestClient

        from fakes.models import HashingEncoder
        from sciembed.index.collection import Collection
        from sciembed.index.paper_index import build_paper_index
        from sciembed.papers.ingest import ingest
        from sciembed.server import ServerSettings, create_app

        src = hostile.write_lines(root / "p.jsonl", [hostile.own_record(f"p{i}") for i in range(12)])
        ingest([src], root / "corpus", progress=False)
        encoder = HashingEncoder(dim=32)
        build_paper_index(root / "corpus", encoder, "window", root / "index", show_progress=False)
        self.collection = Collection.open(root / "index", encoder)
        settings = ServerSettings(api_key=KEY, max_body_bytes=2 << 20, max_batch=50, timeout_s=slow_s,
                                  max_upload_expanded_bytes=8 << 20)
        self.client = TestClient(create_app(self.collection, settings), base_url="http://localhost",
                                 raise_server_exceptions=False)
        self.slow_s = slow_s

    def close(self) -> None:
        self.collection.close()

    def send(self, method: str, path: str, **kwargs: Any) -> str | None:
        """None when the service answered properly, else what went wrong."""
        started = time.perf_counter()
        response = self.client.request(method, path, **kwargs)
        took = time.perf_counter() - started
        if response.status_code >= 500 and response.status_code != 503:
            return f"{method} {path}: HTTP {response.status_code} {response.text[:200]}"
        if took > self.slow_s + 1:
            return f"{method} {path}: took {took:.1f} s"
        if response.headers.get("x-content-type-options") != "nosniff":
            return f"{method} {path}: no security headers"
        try:
            response.json()
        except ValueError:
            return f"{method} {path}: HTTP {response.status_code} answered non-JSON"
        return None


def seeded_probes(seed: int) -> list[tuple[str, str, dict[str, Any]]]:
    """Requests made from one seeded reader input: as an upload (search and add), as JSON papers, as queries."""
    rng = random.Random(seed)
    _, name, data = driver.generate_input(seed)
    key = {"X-API-Key": KEY}
    probes: list[tuple[str, str, dict[str, Any]]] = [
        ("POST", "/search/file", {"files": {"file": (name, data)}, "data": {"k": "3"}}),
        ("POST", "/papers/file", {"files": {"file": (name, data)}, "headers": key}),
    ]
    objects = []
    for line in data.splitlines()[:20]:
        try:
            obj = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    if objects:
        probes.append(("POST", "/papers", {"json": {"papers": objects}, "headers": key}))
        probes.append(("POST", "/search", {"json": {"paper": objects[0], "k": 3}}))
    value = rng.choice(driver.HOSTILE_VALUES)
    field = rng.choice(["query", "paper_id", "k", "offset", "ef_search", "filters"])
    body = {"query": "exoplanet spectra", field: value} if field not in ("query", "paper_id") else {field: value}
    probes.append(("POST", "/search", {"json": body}))
    pid = rng.choice(["p1", "10.1/x/y", "%2e%2e", "\u202e", "a" * 600, "p1?x=1"])
    probes.append(("GET", f"/papers/{pid}", {}))
    probes.append(("DELETE", f"/papers/{pid}", {"headers": key}))
    return probes


def fixed_probes() -> list[tuple[str, str, dict[str, Any]]]:
    """One request per service defect of issue 23 that a client can trigger."""
    key = {"X-API-Key": KEY}
    many = "\n".join(json.dumps(hostile.own_record(f"m{i}")) for i in range(2000)).encode()
    surrogate = '{"papers": [{"id": "s", "title": "x\\ud800", "abstract": "a"}]}'
    return [
        ("POST", "/search/file", {"files": {"file": ("m.jsonl.gz", gzip.compress(many))}}),  # 1
        ("POST", "/papers/file", {"files": {"file": ("m.jsonl", many[: 1 << 20])}, "headers": key}),  # 2
        ("GET", "/papers/10.18653/v1/x", {}),  # 6
        ("POST", "/papers", {"content": surrogate, "headers": {**key, "Content-Type": "application/json"}}),  # 7
        ("POST", "/search", {"content": '{"query": "\\udfff"}', "headers": {"Content-Type": "application/json"}}),
        ("POST", "/papers", {"json": {"papers": [{**hostile.own_record("y"), "year": 2**63}]}, "headers": key}),  # 8
        ("POST", "/papers", {"data": {"papers": "x"}, "headers": {"Origin": "http://evil.example"}}),  # 19
        ("POST", "/search", {"json": {"query": "x"}, "headers": {"Host": "rebound.example"}}),  # 19
        ("POST", "/papers", {"content": "{", "headers": {"Content-Type": "application/json"}}),  # 20
        ("POST", "/papers", {"json": {"papers": [hostile.own_record("d"), hostile.own_record("d")]},
                             "headers": key}),  # 21
    ]


def run_service_probes(n_seeded: int, seed: int = 0) -> dict[str, Any]:
    """Send the fixed probes and `n_seeded` seeded ones; count requests and failures (must be 0)."""
    failures: list[str] = []
    sent = 0
    with tempfile.TemporaryDirectory(prefix="sciembed-service-probe-") as tmp:
        probe = ServiceProbe(Path(tmp))
        try:
            requests = fixed_probes()
            for i in range(n_seeded):
                requests += seeded_probes(seed * 1_000_003 + i)
            for method, path, kwargs in requests:
                sent += 1
                problem = probe.send(method, path, **kwargs)
                if problem is not None:
                    failures.append(problem)
        finally:
            probe.close()
    return {"requests": sent, "failures": len(failures), "failure_examples": failures[:10]}
