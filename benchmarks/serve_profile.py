"""Where a loaded `sciembed index serve` spends its CPU: py-spy samples of the server under N clients.

    python benchmarks/serve_profile.py --collection /work/i23-data/flat-onnx --clients 32 --seconds 30 \\
        --server-cpus 0 --client-cpus 1 --flags "--backend onnx --quantize" --out benchmarks/results/serve_profile.json

The server runs on `--server-cpus`, the load generator (this process,
aiohttp) on `--client-cpus`, so the two do not compete for a core. py-spy
(`pip install py-spy`) records the server's non-idle threads for the load
phase; the samples are grouped by the stage of the frame nearest the leaf
that names one (`STAGES`), and the top functions by own time are listed.
Also reported: requests/s, p50/p99, errors, and server and client CPU ms per
request (the load-independent cost of one search).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from serve import clients  # noqa: E402
from serve_batching import REPO, fresh_copy, sciembed_server, server_cpu_s, stop  # noqa: E402

# (stage, substrings of a frame "function (file)"); a stack counts for the stage of its frame nearest the leaf
STAGES = [
    ("encode: ONNX Runtime forward", ("onnxruntime",)),
    ("encode: torch forward", ("torch/nn", "torch/_", "transformers/models")),
    ("encode: tokenizer", ("tokenizers", "tokenize")),
    ("search: faiss / matrix product", ("faiss", "search_rows", "_scores", "_top_k")),
    ("search: aggregation by paper", ("_search_max", "_first_per_paper", "search_sets", "_search_all_views")),
    ("catalog: SQLite (hits, cards)", ("sqlite3", "catalog.py")),
    ("snippets", ("snippet",)),
    ("response: pydantic / JSON", ("pydantic", "jsonable_encoder", "serialize_response", "json/encoder",
                                   "orjson", "render")),
    ("request: body parsing / validation", ("request_body_to_args", "solve_dependencies", "get_body",
                                            "json/decoder")),
    ("HTTP: uvicorn / starlette / middleware", ("uvicorn", "starlette", "h11", "httptools", "guard.py",
                                               "limits.py", "anyio")),
    ("asyncio event loop", ("asyncio", "uvloop")),
    ("thread hand-offs (futures, locks)", ("threading.py", "concurrent/futures", "queue.py")),
]


def stage_of(stack: list[str]) -> str:
    """The stage of the frame nearest the leaf that names one (the code actually running)."""
    for frame in reversed(stack):
        for name, needles in STAGES:
            if any(needle in frame for needle in needles):
                return name
    return "other"


def summarise(raw: Path) -> dict:
    """py-spy's collapsed stacks -> sample shares by stage and the top own-time functions."""
    stages: collections.Counter[str] = collections.Counter()
    leaves: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack_text, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack_text.split(";")
        n = int(count)
        total += n
        stages[stage_of(frames)] += n
        leaves[frames[-1]] += n
    share = {name: round(100 * n / total, 1) for name, n in stages.most_common()} if total else {}
    top = [{"function": f, "percent": round(100 * n / total, 1)} for f, n in leaves.most_common(15)] if total else []
    return {"samples": total, "percent_by_stage": share, "top_own_time": top}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", type=Path, required=True, help="a collection built by serve_batching --data")
    parser.add_argument("--papers", type=int, default=100_000, help="papers in it (ids s0..s{n-1})")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--flags", default="", help="extra `sciembed index serve` flags")
    parser.add_argument("--threads", type=int, default=1, help="encoder threads (OMP_NUM_THREADS, encode_threads)")
    parser.add_argument("--server-cpus", default=None)
    parser.add_argument("--client-cpus", default=None)
    parser.add_argument("--rate", type=int, default=50, help="py-spy samples per second")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", default=None)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/serve_profile.json"))
    args = parser.parse_args()
    if args.client_cpus:
        os.sched_setaffinity(0, {int(c) for c in args.client_cpus.split(",")})

    import httpx

    with tempfile.TemporaryDirectory(prefix="sciembed-serve-profile-") as tmp:
        root = Path(tmp)
        collection = fresh_copy(args.collection, root)
        flags = ["--allow-open-writes", "--set", f"encode_threads={args.threads}", *shlex.split(args.flags)]
        server, url, startup = sciembed_server(REPO / "src", collection, flags, args.threads, args.server_cpus)
        try:
            for _ in range(3):
                httpx.post(url + "/search", json={"query": "warm up the encoder"}, timeout=120)
            raw = root / "pyspy.txt"
            pyspy = str(Path(sys.executable).parent / "py-spy")
            spy = subprocess.Popen([pyspy, "record", "--pid", str(server.pid), "--duration", str(int(args.seconds)),
                                    "--rate", str(args.rate), "--format", "raw", "--nonblocking", "--output", str(raw)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            cpu0 = server_cpu_s(server)
            load = asyncio.run(clients(url, args.clients, args.seconds, args.papers, args.seed))
            load["server_cpu_s"] = round(server_cpu_s(server) - cpu0, 2)
            spy.wait(timeout=120)
            stats = httpx.get(url + "/stats", timeout=30).json()
            profile = summarise(raw) if raw.exists() else {"error": spy.stderr.read().decode()[-500:]}
        finally:
            stop(server)
    requests = max(load["requests"], 1)
    result = {
        "benchmark": "serve_profile",
        "label": args.label,
        "collection": str(args.collection),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "load_average_at_end": [round(x, 1) for x in os.getloadavg()],
        "startup_s": round(startup, 1),
        "load": load,
        "server_cpu_ms_per_request": round(1000 * load["server_cpu_s"] / requests, 2),
        "client_cpu_ms_per_request": round(1000 * load["client_cpu_s"] / requests, 2),
        "batching": stats.get("batching"),
        "profile": profile,
    }
    print(json.dumps(result, indent=2))
    runs = json.loads(args.out.read_text()) if args.out.exists() else []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps([*runs, {"at": time.strftime("%Y-%m-%d %H:%M:%S"), **result}], indent=2) + "\n")


if __name__ == "__main__":
    main()
