"""Load test of `sciembed index serve` on 127.0.0.1: requests/s, p50/p99, errors, server memory; then with a writer.

    python benchmarks/serve.py --papers 100000 --clients 32 --seconds 60 --out benchmarks/results/serve.json

The collection: `--papers` synthetic papers (seeded titles and abstracts from a
small vocabulary) with seeded clustered 384-d vectors as their title+abstract
views, written through the same index and catalog code `sciembed index` uses.
The vectors are not encodings of those texts: encoding 100,000 abstracts with
MiniLM takes over an hour on 2 shared cores (benchmarks/results/encode.json).
Queries are real: every text query is encoded by the served model (MiniLM),
and 10% of requests are "more like this" by paper id.

Phase 1: `--clients` concurrent clients for `--seconds`. Phase 2: the same
clients run while one writer POSTs all `--add` new papers in batches of
`--batch` (encoded by the server); the phase lasts until the last batch is in
(at most `--write-timeout` seconds), and reports papers added, write
throughput, and the readers' requests/s, p50/p99 and errors during it. Server
memory (RSS) is taken before and after each phase. Everything is bounded: the
server is started and stopped by this script, only on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

WORDS = [
    "graph",
    "neural",
    "network",
    "protein",
    "folding",
    "transformer",
    "attention",
    "retrieval",
    "citation",
    "embedding",
    "spectra",
    "exoplanet",
    "galaxy",
    "quantum",
    "entanglement",
    "lattice",
    "gauge",
    "theory",
    "soil",
    "mechanics",
    "plasticity",
    "climate",
    "model",
    "ocean",
    "circulation",
    "gene",
    "expression",
    "single",
    "cell",
    "sequencing",
    "vaccine",
    "immune",
    "response",
    "epidemic",
    "bayesian",
    "inference",
    "sampling",
    "reinforcement",
    "learning",
    "robot",
    "control",
    "optimisation",
    "convex",
    "stochastic",
    "gradient",
]


def synthetic_paper(rng: np.random.Generator, pid: str) -> dict:
    def words(n: int) -> str:
        return " ".join(rng.choice(WORDS, n))

    return {
        "id": pid,
        "title": words(8).capitalize(),
        "abstract": words(120),
        "year": int(rng.integers(1995, 2025)),
        "venue": f"Venue {int(rng.integers(0, 50))}",
        "domain": str(rng.choice(["Physics", "Biology", "CS"])),
    }


def build_collection(root: Path, n: int, seed: int) -> dict:
    """A served collection of n synthetic papers with seeded vectors (see the module docstring)."""
    from sciembed.index.catalog import CATALOG, write_base_catalog
    from sciembed.models import load_encoder
    from sciembed.papers.model import Paper
    from sciembed.retrieval.multivector import MultiVectorIndex
    from sciembed.views import ta_view

    started = time.perf_counter()
    encoder = load_encoder("minilm")
    rng = np.random.default_rng(seed)
    papers = [Paper.from_dict(synthetic_paper(rng, f"s{i}")) for i in range(n)]
    centres = rng.normal(size=(200, encoder.dim)).astype(np.float32)
    vectors = centres[rng.integers(0, 200, n)] + rng.normal(size=(n, encoder.dim)).astype(np.float32) * 0.8
    index = MultiVectorIndex(encoder.dim, "cosine", "max")
    index.add([p.id for p in papers], vectors)
    index.save(root / "index", encoder.fingerprint)
    (root / "papers.json").write_text(json.dumps({p.id: p.title for p in papers}))
    manifest = {
        "corpus": None,
        "view": "ta",
        "target_words": None,
        "encoder": encoder.describe(),
        "counts": {"read": n, "indexed": n, "ta_fallback": 0, "rejected": 0, "views": n},
        "synthetic": "seeded vectors, not encodings of the texts (benchmarks/serve.py)",
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    write_base_catalog(root / CATALOG, ((p, [ta_view(p)]) for p in papers))
    return {"papers": n, "build_s": round(time.perf_counter() - started, 1)}


def rss_mb(pid: int) -> float:
    import psutil

    return round(psutil.Process(pid).memory_info().rss / 2**20, 1)


async def drive(url: str, path: str, n_clients: int, seconds: float, seed: int,
                body_of: Callable[[np.random.Generator], dict], answered: Callable[[dict], bool],
                stop: asyncio.Event | None = None) -> dict:
    """`n_clients` POSTing `body_of(rng)` to `url + path` back to back for `seconds`, or until `stop` is set
    when given; a reply counts as an error unless its status is 200 and `answered(json)` holds.

    aiohttp, not httpx: on 2 cores the load generator competes with the server,
    and httpx's async client spends several times aiohttp's CPU per request.
    `client_cpu_s` is this process's CPU time over the phase (its share of the box).
    """
    import aiohttp

    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.perf_counter() + seconds

    def running() -> bool:
        return not stop.is_set() if stop is not None else time.perf_counter() < deadline

    async def one(session: aiohttp.ClientSession, worker: int) -> None:
        rng = np.random.default_rng(seed * 1000 + worker)
        while running():
            body = body_of(rng)
            t0 = time.perf_counter()
            try:
                async with session.post(url + path, json=body) as response:
                    text = await response.text()
                    if response.status != 200 or not answered(json.loads(text)):
                        errors.append(f"{response.status}: {text[:200]}")
            except (aiohttp.ClientError, TimeoutError) as err:
                errors.append(repr(err))
            latencies.append((time.perf_counter() - t0) * 1000)

    started, cpu0 = time.perf_counter(), time.process_time()
    connector = aiohttp.TCPConnector(limit=n_clients)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:
        await asyncio.gather(*(one(session, w) for w in range(n_clients)))
    elapsed = time.perf_counter() - started
    return {
        "requests": len(latencies),
        "seconds": round(elapsed, 1),
        "requests_per_s": round(len(latencies) / elapsed, 2),
        "p50_ms": round(float(np.percentile(latencies, 50)), 1) if latencies else None,
        "p99_ms": round(float(np.percentile(latencies, 99)), 1) if latencies else None,
        "errors": len(errors),
        "error_examples": errors[:5],
        "client_cpu_s": round(time.process_time() - cpu0, 2),
    }


async def clients(url: str, n_clients: int, seconds: float, n_papers: int, seed: int,
                  stop: asyncio.Event | None = None) -> dict:
    """`n_clients` searching back to back (9 in 10 a text query, 1 in 10 a paper's neighbours)."""

    def body_of(rng: np.random.Generator) -> dict:
        if rng.random() < 0.1:
            return {"paper_id": f"s{int(rng.integers(0, n_papers))}", "k": 10}
        return {"query": " ".join(rng.choice(WORDS, 6)), "k": 10}

    return await drive(url, "/search", n_clients, seconds, seed, body_of, lambda reply: len(reply["hits"]) == 10,
                       stop)


async def writer(url: str, total: int, batch: int, timeout: float, seed: int, done: asyncio.Event) -> dict:
    """POST `total` new papers in batches of `batch`, back to back; sets `done` when finished (or failed)."""
    import httpx

    rng = np.random.default_rng(seed + 7)
    added, sent, times, error = 0, 0, [], None
    started = time.perf_counter()
    try:
        async with httpx.AsyncClient(timeout=600) as client:
            while sent < total and time.perf_counter() - started < timeout:
                papers = [synthetic_paper(rng, f"new{sent + i}") for i in range(min(batch, total - sent))]
                t0 = time.perf_counter()
                response = await client.post(url + "/papers", json={"papers": papers})
                times.append(time.perf_counter() - t0)
                sent += len(papers)
                if response.status_code != 200:
                    error = f"{response.status_code}: {response.text[:300]}"
                    break
                added += response.json()["added"]
    finally:
        done.set()
    elapsed = time.perf_counter() - started
    return {
        "added": added,
        "target": total,
        "complete": added == total,
        "error": error,
        "batch": batch,
        "batches": len(times),
        "seconds": round(elapsed, 1),
        "batch_s_p50": round(float(np.median(times)), 2) if times else None,
        "batch_s_p99": round(float(np.percentile(times, 99)), 2) if times else None,
        "papers_per_s": round(added / elapsed, 2) if elapsed else None,
    }


async def phase2(url: str, args) -> tuple[dict, dict]:
    """Readers for as long as the writer needs to add every paper."""
    done = asyncio.Event()
    load, write = await asyncio.gather(
        clients(url, args.clients, args.seconds, args.papers, args.seed + 1, stop=done),
        writer(url, args.add, args.batch, args.write_timeout, args.seed, done),
    )
    return load, write


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--add", type=int, default=10_000, help="papers the writer adds in phase 2")
    parser.add_argument("--batch", type=int, default=100, help="papers per POST /papers")
    parser.add_argument("--write-timeout", type=float, default=7200.0, help="longest the writer phase may run")
    parser.add_argument("--run-id", default=None, help="shared id when run with benchmarks/ann.py (service_suite)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/serve.json"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="sciembed-serve-bench-") as tmp:
        root = Path(tmp) / "collection"
        root.mkdir()
        built = build_collection(root, args.papers, args.seed)
        print(f"collection: {built}", flush=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "sciembed.cli.main", "index", "serve", str(root), "--port", str(port), "--host",
             "127.0.0.1",
             "--allow-open-writes"],  # the writer phase posts without a key
            env=os.environ.copy(),
            stderr=subprocess.PIPE,
        )
        try:
            import httpx

            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 300:
                try:
                    if httpx.get(url + "/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.5)
            startup_s = time.perf_counter() - t0
            httpx.post(url + "/search", json={"query": "warm up"}, timeout=60)
            memory = {"before_reads_mb": rss_mb(server.pid)}
            print(f"server up in {startup_s:.1f} s, {memory['before_reads_mb']} MB", flush=True)
            read_only = asyncio.run(clients(url, args.clients, args.seconds, args.papers, args.seed))
            memory["after_reads_mb"] = memory["before_writes_mb"] = rss_mb(server.pid)
            print("reads:", read_only, flush=True)
            with_writer, write = asyncio.run(phase2(url, args))
            memory["after_writes_mb"] = rss_mb(server.pid)
            print("reads while writing:", with_writer, "writer:", write, flush=True)
            stats = httpx.get(url + "/stats", timeout=30).json()
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()

    report = {
        "benchmark": "serve",
        "run_id": args.run_id,
        "what": f"{args.clients} concurrent clients for {args.seconds:g} s against `sciembed index serve` (local), "
        f"{args.papers:,} synthetic papers (seeded vectors; queries encoded by MiniLM; 10% by paper id); then the "
        f"same clients while a writer adds {args.add:,} papers in batches of {args.batch}",
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_at_end": [round(x, 1) for x in os.getloadavg()],
        },
        "collection": built,
        "server_startup_s": round(startup_s, 1),
        "reads": read_only,
        "reads_while_writing": with_writer,
        "writer": write,
        "server_memory": memory,
        "final_stats": {k: stats[k] for k in ("papers", "vectors", "live_rows")},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
