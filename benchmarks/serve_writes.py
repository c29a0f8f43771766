"""Single-paper writes under read load: 32 clients mixing searches and one-paper adds, before and after.

    python benchmarks/serve_writes.py --collection ACL_INDEX --add-from ACL_HELD_OUT_CORPUS \\
        --before-rev c4a7a44 --clients 32 --seconds 30 --rounds 2 --out benchmarks/results/serve_writes.json

The collection is a real one: an index directory of ACL papers (GROBID TEI from
shared/data/acl-grobid, `sciembed corpus ingest` then `sciembed index build`), and the papers added are
other real ACL papers from a corpus the index does not hold (`--add-from`). Each of `--clients` clients
sends requests back to back for `--seconds`: one in `1 / --write-every` a `POST /papers` of one paper
(a paper of `--add-from`, each added once), the others searches (9 in 10 a held-out paper's title as the
query, 1 in 10 a paper of the index by id). Latency is reported per kind (p50 / p99 in ms), with
requests/s, errors and the box's load average (`os.getloadavg()`) before and after each phase.

"before" is this repository's server at `--before-rev` (`git archive`), "after" the working tree's; both
serve a fresh copy of the same collection, one after the other, `--rounds` times alternating (before,
after, before, after, …) so that a change of the box's load shows in both.

`--after-queued` sends the "after" server's adds with ``"wait": false`` (queued adds, `index/write_queue.py`:
answered once on disk); its rows then also give the server's own time from acknowledgement to searchable
(``/stats`` ``queue``) at the end of the phase and once the queue has drained.

`--profile` runs one phase per server instead, instrumented by `write_timing.py` (loaded into the server
through a `sitecustomize`): where each add's time went (encode wait + pass, catalog commit, index write
lock) and how many write chunks each write turn of the micro-batcher took. Instrumented phases are
slower; their latencies are not the benchmark's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from serve_batching import REPO, before_sources, sciembed_server, server_cpu_s, stop  # noqa: E402


def held_out(corpus: Path, indexed: set[str]) -> list[dict]:
    """The papers of `corpus` the served index does not hold, in sciembed's JSON (references dropped: smaller)."""
    from sciembed.corpus.layout import CorpusDir

    out = []
    for paper in CorpusDir(corpus).iter_papers():
        if paper.id not in indexed:
            record = paper.to_dict()
            record["references"] = []
            out.append(record)
    return out


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0, "p50_ms": None, "p99_ms": None}
    return {"n": len(values), "p50_ms": round(float(np.percentile(values, 50)), 1),
            "p99_ms": round(float(np.percentile(values, 99)), 1), "max_ms": round(max(values), 1)}


async def mixed(url: str, n_clients: int, seconds: float, papers: list[dict], queries: list[str],
                indexed: list[str], write_every: int, seed: int, tag: str, writers: int = 0,
                queued: bool = False) -> dict:
    """`n_clients` clients, each sending a one-paper add every `write_every`-th request on average, else a search;
    with `writers`, that many clients only add and the others only search (the searchers stay as many
    however long the adds take)."""
    import aiohttp

    latencies: dict[str, list[float]] = {"search": [], "add": []}
    errors: list[str] = []
    next_paper = iter(range(len(papers)))
    deadline = time.perf_counter() + seconds

    async def one(session: aiohttp.ClientSession, worker: int) -> None:
        rng = np.random.default_rng(seed * 1000 + worker)
        while time.perf_counter() < deadline:
            adding = worker < writers if writers else rng.random() < 1 / write_every
            if adding and (i := next(next_paper, None)) is not None:
                kind, path = "add", "/papers"
                body = {"papers": [{**papers[i], "id": f"{papers[i]['id']}{tag}"}]}
                if queued:
                    body["wait"] = False
            else:
                kind, path = "search", "/search"
                body = ({"paper_id": indexed[int(rng.integers(len(indexed)))], "k": 10} if rng.random() < 0.1
                        else {"query": queries[int(rng.integers(len(queries)))], "k": 10})
            t0 = time.perf_counter()
            try:
                async with session.post(url + path, json=body) as response:
                    text = await response.text()
                    if response.status != 200:
                        errors.append(f"{kind} {response.status}: {text[:200]}")
            except (aiohttp.ClientError, TimeoutError) as err:
                errors.append(f"{kind} {err!r}")
            latencies[kind].append((time.perf_counter() - t0) * 1000)

    started = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=n_clients)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:
        await asyncio.gather(*(one(session, w) for w in range(n_clients)))
    elapsed = time.perf_counter() - started
    total = sum(len(v) for v in latencies.values())
    return {"seconds": round(elapsed, 1), "requests_per_s": round(total / elapsed, 2),
            "searches": percentiles(latencies["search"]), "single_paper_adds": percentiles(latencies["add"]),
            "errors": len(errors), "error_examples": errors[:5]}


def profiled_sources(src: Path, scratch: Path, label: str) -> Path:
    """A source folder for the server: `src`'s package plus a sitecustomize that installs `write_timing`."""
    folder = scratch / f"profiled-{label}"
    folder.mkdir()
    (folder / "sciembed").symlink_to(src / "sciembed")
    (folder / "sitecustomize.py").write_text(f"import sys\nsys.path.insert(0, {str(HERE)!r})\nimport write_timing\n")
    return folder


def summarise_timing(path: Path) -> dict:
    """Per-add parts (p50 / p99 / max ms) and the write turns' sizes, from `write_timing`'s lines."""
    lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    adds = [r for r in lines if "add_ms" in r]
    turns = [r for r in lines if "write_turn_chunks" in r]
    passes = {kind: [r for r in lines if r.get("pass") == kind] for kind in ("write", "search")}
    parts = sorted({k for r in adds for k in r})

    def spread(values: list[float]) -> dict:
        return {"p50": round(float(np.percentile(values, 50)), 1), "p99": round(float(np.percentile(values, 99)), 1),
                "max": round(max(values), 1)} if values else {}

    return {"adds": len(adds), "per_add_ms": {k: spread([r[k] for r in adds if k in r]) for k in parts},
            "write_turns": len(turns),
            "chunks_per_write_turn": spread([r["write_turn_chunks"] for r in turns]),
            "write_chunks_left_queued_after_a_turn": spread([r["write_chunks_left_queued"] for r in turns]),
            "forward_passes": {kind: {"n": len(rows), "ms": spread([r["pass_ms"] for r in rows]),
                                      "texts": spread([r["pass_texts"] for r in rows])}
                               for kind, rows in passes.items()}}


def measure(label: str, src: Path, collection: Path, scratch: Path, args, papers: list[dict], queries: list[str],
            indexed: list[str], round_no: int) -> dict:
    import httpx

    copy = scratch / f"{label}-{round_no}"
    shutil.copytree(collection, copy, ignore=shutil.ignore_patterns("*.lock"))
    timing = scratch / f"timing-{label}.jsonl"
    if args.profile:
        os.environ["SCIEMBED_WRITE_TIMING"] = str(timing)
    try:
        sets = [flag for kv in (args.after_set if label == "after" else []) for flag in ("--set", kv)]
        server, url, startup = sciembed_server(src, copy, ["--allow-open-writes", *sets], args.threads)
    finally:
        os.environ.pop("SCIEMBED_WRITE_TIMING", None)
    try:
        for query in queries[:5]:
            httpx.post(url + "/search", json={"query": query}, timeout=120)
        load_before = [round(x, 2) for x in os.getloadavg()]
        cpu0 = server_cpu_s(server)
        row = asyncio.run(mixed(url, args.clients, args.seconds, papers, queries, indexed, args.write_every,
                                args.seed + round_no, f"~{label}{round_no}", args.writers,
                                queued=args.after_queued and label == "after"))
        row["server_cpu_s"] = round(server_cpu_s(server) - cpu0, 2)
        if args.after_queued and label == "after":
            row["queue_at_end"] = httpx.get(url + "/stats", timeout=60).json()["queue"]
            t0 = time.perf_counter()
            while (queue := httpx.get(url + "/stats", timeout=60).json()["queue"])["waiting"] and \
                    time.perf_counter() - t0 < 300:
                time.sleep(0.2)
            row["queue_drained_s"] = round(time.perf_counter() - t0, 2)
            row["queue_after_drain"] = queue
        row["load_average_before"] = load_before
        row["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
        row["startup_s"] = round(startup, 1)
        row["papers_after"] = httpx.get(url + "/stats", timeout=60).json()["papers"]
    finally:
        stop(server)
        shutil.rmtree(copy, ignore_errors=True)
    if args.profile:  # the server has flushed its lines by now
        row["inside_the_server"] = summarise_timing(timing)
    print(label, round_no, json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", type=Path, required=True, help="index directory of ACL papers")
    parser.add_argument("--add-from", type=Path, required=True, help="corpus directory of ACL papers to add")
    parser.add_argument("--before-rev", required=True, help="commit whose server is 'before'")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--write-every", type=int, default=10, help="one request in this many is a one-paper add")
    parser.add_argument("--writers", type=int, default=0,
                        help="clients that only add (the others only search); 0: every client mixes (--write-every)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--after-set", action="append", default=[], metavar="KEY=VALUE",
                        help="`index serve --set KEY=VALUE` for the 'after' server (repeatable): a tuning to compare")
    parser.add_argument("--after-queued", action="store_true",
                        help='the "after" server\'s adds are queued ("wait": false): answered once on disk')
    parser.add_argument("--profile", action="store_true", help="one instrumented phase per server (write_timing.py)")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "serve_writes.json")
    args = parser.parse_args()

    titles = json.loads((args.collection / "papers.json").read_text())
    papers = held_out(args.add_from, set(titles))
    queries = [p["title"] for p in papers if p["title"].strip()]
    indexed = sorted(titles)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="sciembed-serve-writes-") as tmp:
        scratch = Path(tmp)
        (scratch / "before").mkdir()
        sources = {"before": before_sources(args.before_rev, scratch / "before"), "after": REPO / "src"}
        if args.profile:
            sources = {label: profiled_sources(src, scratch, label) for label, src in sources.items()}
            args.rounds = 1
        for round_no in range(args.rounds):
            for label in ("before", "after"):
                runs[label].append(measure(label, sources[label], args.collection, scratch, args, papers, queries,
                                           indexed, round_no))
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    report = {
        "benchmark": "serve_writes" + (" --profile (instrumented: latencies are not the benchmark's)"
                                       if args.profile else ""),
        "issue": 33,
        "what": f"{args.clients} clients for {args.seconds:g} s against `sciembed index serve` over {len(titles):,} "
                f"real ACL papers (GROBID TEI, {json.loads((args.collection / 'manifest.json').read_text())['view']} "
                f"view, MiniLM): " + (f"{args.writers} clients adding one paper per POST /papers back to back, the "
                                       "others searching" if args.writers else f"one request in {args.write_every} "
                                       "a one-paper POST /papers, the others searches") +
                " (real held-out ACL papers; held-out titles as queries, 1 in 10 by paper id); before and after, "
                f"alternating, {args.rounds} rounds",
        "before": {"rev": args.before_rev, "runs": runs["before"]},
        "after": {"rev": f"{head} (working tree)", "runs": runs["after"]},
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()
                     if k not in ("collection", "add_from", "out")},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                    "started": started, "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
                    "note": "a 2-core box shared with other work: the load averages before / after each phase "
                            "say how much else was running"},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
