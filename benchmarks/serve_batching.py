"""The service before and after micro-batching, side by side in one run, and the encode step against infinity-emb.

    python benchmarks/serve_batching.py --papers 100000 --data /work/i23-data --levels 1 8 32 --seconds 10 \
        --add 50 --batch 25 --threads 1 --kinds hnsw flat --servers before after-onnx \
        --out benchmarks/results/serve_batching.json

Every server is started and stopped by this script on 127.0.0.1, one at a
time, on the same machine and the same seeded collections (`benchmarks/serve.py`'s
synthetic papers with seeded vectors; every text query is really encoded):

- ``before``: `sciembed index serve` from the commit `--before-rev` (one torch forward
  per request), its sources unpacked with `git archive` into a temporary folder;
- ``after``: this tree's `sciembed index serve` (micro-batching, one encoder pool, LRU query cache);
- ``after-onnx``: the same with ``--backend onnx --quantize`` (its collection carries the
  int8 encoder's fingerprint; the vectors are the same seeded ones);
- ``main-onnx`` (with ``--main-rev``): the batching server of that commit, ONNX int8;
- ``infinity``: infinity-emb (its own virtualenv, `--infinity`) serving the same MiniLM
  directory, asked for embeddings only (`/embeddings`, one text per request).

Each sciembed server is measured over a flat and an HNSW collection at each
client count in `--levels` (requests/s, p50/p99, errors; 10% of requests are
"more like this" by paper id as in serve.py); then, at the largest level, the
same clients while a writer adds `--add` papers (phase 2). The query vector
cache is defeated by random 6-word queries from a 45-word vocabulary (repeats
are rare); `cache_hits` in each server's /stats says how often it helped.

The load generator (aiohttp, this process) shares the machine with the
server; each level reports both processes' CPU ms per request, the figure the
machine's other load changes least. `--data` builds the collections once and
gives every server a fresh copy; `--server-cpus` / `--client-cpus` pin them
apart. The report is rewritten after every server, so a cut-short run keeps
what it measured (``complete: false``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sciembed.ioutil.portable import portable_text

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from local_server import free_port, wait_up  # noqa: E402
from serve import WORDS, build_collection, clients, drive, writer  # noqa: E402 - the load generator of serve.py

DEFAULT_INFINITY = Path(os.environ.get("SCIEMBED_INFINITY", "/work/venv-infinity/bin/infinity_emb"))


def stop(server: subprocess.Popen) -> None:
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def make_collections(root: Path, n: int, seed: int) -> dict[str, Path]:
    """flat and HNSW collections for the torch encoder, and copies carrying the ONNX int8 fingerprint."""
    from sciembed.models import load_encoder
    from sciembed.retrieval.ann import default_params
    from sciembed.retrieval.multivector import MultiVectorIndex

    out = {}
    flat = root / "flat"
    flat.mkdir()
    built = build_collection(flat, n, seed)
    out["flat"] = flat
    index = MultiVectorIndex.load(flat / "index")
    vectors = index.dense.vectors(range(len(index.dense)))
    torch_encoder = load_encoder("minilm")
    onnx_encoder = load_encoder("minilm", backend="onnx", quantize=True)
    for kind in ("flat", "hnsw"):
        for backend, encoder in (("torch", torch_encoder), ("onnx", onnx_encoder)):
            name = kind if backend == "torch" else f"{kind}-onnx"
            if name == "flat":
                continue
            target = root / name
            shutil.copytree(flat, target, ignore=shutil.ignore_patterns("index", "*.lock"))
            params = default_params(kind, len(vectors), vectors.shape[1]) if kind == "hnsw" else None
            rebuilt = MultiVectorIndex(vectors.shape[1], "cosine", "max", params)
            rebuilt.add(index.dense.ids, vectors)
            rebuilt.save(target / "index", encoder.fingerprint)
            manifest = json.loads((target / "manifest.json").read_text())
            manifest["encoder"] = encoder.describe()
            (target / "manifest.json").write_text(json.dumps(manifest, indent=2))
            out[name] = target
    return {"built": built, **out}


def prepared_collections(data: Path | None, scratch: Path, n: int, seed: int) -> dict[str, Path]:
    """`make_collections` once into `data` (reused by later runs), or into `scratch` without `--data`."""
    if data is None:
        return make_collections(scratch, n, seed)
    done = data / "built.json"
    if not done.exists():
        data.mkdir(parents=True, exist_ok=True)
        for stale in data.iterdir():
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
        made = make_collections(data, n, seed)
        done.write_text(json.dumps({**made["built"], "seed": seed}))
    built = json.loads(done.read_text())
    if built["papers"] != n or built.get("seed") != seed:
        raise SystemExit(f"{data} holds {built['papers']} papers (seed {built.get('seed')}), not {n} (seed {seed})")
    return {"built": built, **{p.name: p for p in data.iterdir() if p.is_dir()}}


def fresh_copy(collection: Path, scratch: Path) -> Path:
    """A writable copy of a prepared collection, so phase 2's writes never reach the reused one."""
    target = scratch / collection.name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(collection, target, ignore=shutil.ignore_patterns("*.lock"))
    return target


def pinned(cmd: list[str], cpus: str | None) -> list[str]:
    """`cmd` run on the CPUs `cpus` (taskset list, e.g. "0"), or anywhere without."""
    return ["taskset", "-c", cpus, *cmd] if cpus else cmd


def sciembed_server(src: Path, collection: Path, extra: list[str], threads: int,
                    cpus: str | None = None) -> tuple[subprocess.Popen, str, float]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": str(threads)}
    env.pop("SCIEMBED_API_KEY", None)
    serve = ["index", "serve"] if (Path(src) / "sciembed" / "cli" / "groups.py").is_file() else ["serve"]  # old revs
    server = subprocess.Popen(pinned([sys.executable, "-m", "sciembed.cli.main", *serve, str(collection), "--host",
                                      "127.0.0.1", "--port", str(port), *extra], cpus),
                              env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    return server, url, wait_up(url, server)


def threads_flag(src: Path, threads: int) -> list[str]:
    """The encoder-threads setting as `src`'s `index serve` spells it (a flag before cli/serve_config.py)."""
    if (Path(src) / "sciembed" / "cli" / "serve_config.py").is_file():
        return ["--set", f"encode_threads={threads}"]
    return ["--encode-threads", str(threads)]


def measure_sciembed(label: str, src: Path, collection: Path, extra: list[str], args, n_papers: int,
                     scratch: Path) -> dict:
    import httpx

    if args.data is not None:
        collection = fresh_copy(collection, scratch)
    server, url, startup = sciembed_server(src, collection, extra, args.threads, args.server_cpus)
    try:
        for _ in range(3):
            httpx.post(url + "/search", json={"query": "warm up the encoder"}, timeout=120)
        levels = {}
        for n_clients in args.levels:
            levels[str(n_clients)] = measured(server, lambda n=n_clients: asyncio.run(
                clients(url, n, args.seconds, n_papers, args.seed)))
            print(label, collection.name, n_clients, levels[str(n_clients)], flush=True)
        result = {"startup_s": round(startup, 1), "levels": levels}
        if args.add:
            done = asyncio.Event()

            async def phase2():
                return await asyncio.gather(
                    clients(url, max(args.levels), args.seconds, n_papers, args.seed + 1, stop=done),
                    writer(url, args.add, args.batch, args.write_timeout, args.seed, done))

            cpu0 = server_cpu_s(server)
            reads, write = asyncio.run(phase2())
            reads["server_cpu_s"] = round(server_cpu_s(server) - cpu0, 2)
            result["reads_while_writing"], result["writer"] = reads, write
            print(label, collection.name, "with writer", reads, write, flush=True)
        stats = httpx.get(url + "/stats", timeout=30).json()
        result["batching"] = stats.get("batching")
        return result
    finally:
        stop(server)


async def embed_clients(url: str, model: str, n_clients: int, seconds: float, seed: int) -> dict:
    """`n_clients` asking infinity-emb for one query embedding each, back to back (encode only; serve.py's load)."""
    return await drive(url, "/embeddings", n_clients, seconds, seed,
                       lambda rng: {"model": model, "input": [" ".join(rng.choice(WORDS, 6))]},
                       lambda reply: len(reply["data"][0]["embedding"]) == 384)


def server_cpu_s(server: subprocess.Popen) -> float:
    """CPU seconds the server process has used so far (all its threads)."""
    import psutil

    times = psutil.Process(server.pid).cpu_times()
    return times.user + times.system


def measured(server: subprocess.Popen, run) -> dict:
    """`run()`'s load figures plus the server's CPU seconds over it, and CPU ms per request (server and client)."""
    cpu0 = server_cpu_s(server)
    row = run()
    row["server_cpu_s"] = round(server_cpu_s(server) - cpu0, 2)
    row["load_average"] = round(os.getloadavg()[0], 1)  # the box's 1-minute load as the level ended (noise)
    if row["requests"]:
        row["server_cpu_ms_per_request"] = round(1000 * row["server_cpu_s"] / row["requests"], 2)
        row["client_cpu_ms_per_request"] = round(1000 * row["client_cpu_s"] / row["requests"], 2)
    return row


def measure_infinity(binary: Path, args) -> dict:
    import httpx

    from sciembed.models.loading import offline_package_path

    if not binary.exists():
        return {"skipped": f"{binary} not found (install infinity-emb[server,torch] in its own virtualenv)"}
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "DO_NOT_TRACK": "1",
           "INFINITY_ANONYMOUS_USAGE_STATS": "0"}
    env.pop("PYTHONPATH", None)
    cmd = [str(binary), "v2", "--model-id", str(offline_package_path()), "--served-model-name", "minilm",
           "--engine", "torch", "--device", "cpu", "--batch-size", "32", "--host", "127.0.0.1", "--port", str(port)]
    env["OMP_NUM_THREADS"] = str(args.threads)
    server = subprocess.Popen(pinned(cmd, args.server_cpus), env=env, stderr=subprocess.PIPE,
                              stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        startup = wait_up(url, server, "/health")
        for _ in range(3):
            httpx.post(url + "/embeddings", json={"model": "minilm", "input": ["warm up"]}, timeout=120)
        levels = {}
        for n_clients in args.levels:
            levels[str(n_clients)] = measured(server, lambda n=n_clients: asyncio.run(
                embed_clients(url, "minilm", n, args.seconds, args.seed)))
            print("infinity", n_clients, levels[str(n_clients)], flush=True)
        version = subprocess.run([str(binary.parent / "python"), "-c",
                                  "import importlib.metadata as m; print(m.version('infinity-emb'))"],
                                 capture_output=True, text=True).stdout.strip()
        return {"startup_s": round(startup, 1), "version": version,
                "command": portable_text(" ".join(cmd[:2] + cmd[3:])), "levels": levels}
    finally:
        stop(server)


def before_sources(rev: str, tmp: Path) -> Path:
    """This repository's `src/` at `rev`, unpacked (the server as it was before batching)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    return tmp / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--add", type=int, default=500, help="papers the writer adds in phase 2 (0: no phase 2)")
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--write-timeout", type=float, default=600.0)
    parser.add_argument("--before-rev", default="b9f34f8", help="commit whose `serve` is the 'before' server")
    parser.add_argument("--main-rev", default=None,
                        help="also measure this commit's server with ONNX int8 as 'main-onnx' (the batching baseline)")
    parser.add_argument("--infinity", type=Path, default=DEFAULT_INFINITY, help="the infinity_emb executable")
    parser.add_argument("--servers", nargs="+", default=["before", "main-onnx", "after", "after-onnx"],
                        help="which servers to measure (main-onnx needs --main-rev)")
    parser.add_argument("--kinds", nargs="+", default=["flat", "hnsw"])
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="encoder threads of every server (OMP_NUM_THREADS; --set encode_threads after)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--server-cpus", default=None, help="taskset CPU list for every server (e.g. 0)")
    parser.add_argument("--client-cpus", default=None, help="CPU list for this process, the load generator (e.g. 1)")
    parser.add_argument("--data", type=Path, default=None,
                        help="build the collections once into this folder and reuse them (each server gets a copy)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/serve_batching.json"))
    args = parser.parse_args()

    if args.client_cpus:
        os.sched_setaffinity(0, {int(c) for c in args.client_cpus.split(",")})
    started = time.time()
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="sciembed-batching-bench-") as tmp:
        root = Path(tmp)
        (root / "collections").mkdir()
        (root / "before").mkdir()
        collections = prepared_collections(args.data, root / "collections", args.papers, args.seed)
        built = collections["built"]
        print("collections:", built, flush=True)
        old_src = before_sources(args.before_rev, root / "before")
        new_src = REPO / "src"
        new_flags = ["--allow-open-writes", *threads_flag(new_src, args.threads)]
        onnx = ["--backend", "onnx", "--quantize"]
        servers = [("before", old_src, [], ""), ("after", new_src, new_flags, ""),
                   ("after-onnx", new_src, [*new_flags, *onnx], "-onnx")]
        if args.main_rev:  # the batching server as it was before this round of changes, ONNX int8
            (root / "main").mkdir()
            main_src = before_sources(args.main_rev, root / "main")
            servers.insert(1, ("main-onnx", main_src, ["--allow-open-writes", *threads_flag(main_src, args.threads),
                                                       *onnx], "-onnx"))
        servers = sorted((server for server in servers if server[0] in args.servers),
                         key=lambda server: args.servers.index(server[0]))  # in the order asked for
        results["infinity_encode_only"] = measure_infinity(args.infinity, args)
        write_report(args, results, built, started)
        for kind in args.kinds:
            results[kind] = {}
            for label, src, flags, suffix in servers:
                results[kind][label] = measure_sciembed(label, src, collections[kind + suffix], flags, args,
                                                        args.papers, root)
                write_report(args, results, built, started)  # what is measured so far, should the run be cut short
    write_report(args, results, built, started, complete=True)


ROW = ("requests_per_s", "p50_ms", "p99_ms", "errors", "server_cpu_ms_per_request", "client_cpu_ms_per_request",
       "load_average")


def write_report(args, results: dict, built: dict, started: float, complete: bool = False) -> None:
    top = str(max(args.levels))
    kinds = [kind for kind in args.kinds if kind in results]
    table = [{"index": kind, "server": label, "clients": int(level), **{k: row.get(k) for k in ROW}}
             for kind in kinds for label in results[kind]
             for level, row in results[kind][label]["levels"].items()]
    table += [{"index": "-", "server": "infinity-emb (encode only)", "clients": int(level),
               **{k: row.get(k) for k in ROW}}
              for level, row in results.get("infinity_encode_only", {}).get("levels", {}).items()]
    report = {
        "benchmark": "serve_batching",
        "complete": complete,
        "what": f"sciembed serve before ({args.before_rev}) and after micro-batching (ONNX int8; torch), flat and "
                f"HNSW over {args.papers:,} synthetic papers, {args.seconds:g} s per client level "
                f"{args.levels}; phase 2: {args.add} papers added by a writer while {top} clients search; "
                "infinity-emb serving the same MiniLM, embeddings only; every server with "
                f"{args.threads} encoder thread(s)",
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "load_average_now": [round(x, 1) for x in os.getloadavg()]},
        "collection": built,
        "wall_s": round(time.time() - started, 1),
        "table": table,
        "errors_at_top_level": {f"{kind}/{label}": results[kind][label]["levels"][top]["errors"]
                                for kind in kinds for label in results[kind]},
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}", flush=True)

if __name__ == "__main__":
    main()
